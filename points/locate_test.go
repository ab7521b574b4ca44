package points

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/points/rubric"
)

func TestOccurrences(t *testing.T) {
	t.Parallel()
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

// TestOccurrencesPunctuation: a forbidden item holding punctuation is located, folded or not
// (issue 32: "e-mail" was escaped as "e\-mail", which the JavaScript u flag rejects, so its
// finding fell back to the start of the text).
func TestOccurrencesPunctuation(t *testing.T) {
	t.Parallel()
	const text = "Send an E-mail. Then e-mail us."
	for _, tc := range []struct {
		point string
		want  []string
	}{
		{`$not_icontains: e-mail`, []string{"E-mail", "e-mail"}},
		{`$not_contains: e-mail`, []string{"e-mail"}},
		{`$not_icontains_any_of: ["E-MAIL", "us."]`, []string{"E-mail", "e-mail", "us."}},
		{`$not_icontains_word: e-mail`, []string{"E-mail", "e-mail"}},
	} {
		if got := occurrences(t, tc.point, text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: occurrences = %q, want %q", tc.point, got, tc.want)
		}
	}
	for _, p := range strings.Split("/ - , : = ! < > # ~ ' \" ` & % @ ; _ ^ $ \\ . * + ? ( ) [ ] { } |", " ") {
		item := "A" + p + "b"
		text := "x a" + p + "B y A" + p + "b z"
		for _, tc := range []struct {
			fn   string
			want []string
		}{
			{"not_contains", []string{item}},
			{"not_icontains", []string{"a" + p + "B", item}},
		} {
			point := fmt.Sprintf("$%s: %s", tc.fn, strconv.Quote(item))
			if got := occurrences(t, point, text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s in %q: occurrences = %q, want %q", point, text, got, tc.want)
			}
		}
	}
}

// occurrences parses one point and returns the texts of its occurrences in text.
func occurrences(t *testing.T, point, text string) []string {
	t.Helper()
	r, errs := rubric.Parse(yamlValue(t, "- "+point), rubric.Options{File: "t.yml", Prepare: Prepare})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, o := range Occurrences(r.Points()[0], text) {
		got = append(got, text[o[0]:o[1]])
	}
	return got
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
