package points

import (
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/points/rubric"
)

func TestOccurrences(t *testing.T) {
	text := "Simply run it. It's simple: simply SIMPLY. Paraná and Paranáense (a+b)."
	tests := []struct {
		name  string
		point string
		want  []string
	}{
		{"not_contains is case-sensitive", `$not_contains: simply`, []string{"simply"}},
		{"not_icontains folds case", `$not_icontains: simply`, []string{"Simply", "simply", "SIMPLY"}},
		{"any_of", `$not_icontains_any_of: ["simple", "run"]`, []string{"simple", "run"}},
		{"at_least_n_of", `$not_contains_at_least_n_of: [1, ["It", "(a+b)"]]`, []string{"It", "(a+b)"}},
		{"word boundaries are Unicode", `$not_contains_word: Paraná`, []string{"Paraná"}},
		{"regex", `$not_matches: "[A-Z]{6}"`, []string{"SIMPLY"}},
		{"regex with inline flag", `$not_matches: "(?i)it's"`, []string{"It's"}},
		{"starts_with", `$not_starts_with: Simply`, []string{"Simply"}},
		{"iends_with", `$not_iends_with: "(A+B)."`, []string{"(a+b)."}},
		{"positive function has no place", `$contains: simply`, nil},
		{"absent text", `$not_contains: nowhere`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, errs := rubric.Parse(yamlValue(t, "- "+tc.point), rubric.Options{File: "t.yml", Prepare: Prepare})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var got []string
			for _, o := range Occurrences(r.Points()[0], text) {
				got = append(got, text[o[0]:o[1]])
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("occurrences = %q, want %q", got, tc.want)
			}
		})
	}
}

// yamlValue decodes a YAML list written in a test.
func yamlValue(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	return v
}
