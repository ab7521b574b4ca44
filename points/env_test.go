package points

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
)

func TestParseAllowEnv(t *testing.T) {
	t.Parallel()
	got, err := ParseAllowEnv([]string{"OPENAI_API_KEY", " A,B , ,_c1", "A"})
	if err != nil || !reflect.DeepEqual(got, AllowEnv{"OPENAI_API_KEY": true, "A": true, "B": true, "_c1": true}) {
		t.Fatalf("%v, %v", got, err)
	}
	for _, bad := range []string{"1A", "A-B", "${A}", "A B"} {
		_, err := ParseAllowEnv([]string{bad})
		want := `--allow-env: expected variable names such as OPENAI_API_KEY (letters, digits and _), found "` + bad + `"`
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// FuzzExpandEnv: expansion never produces the value of a variable that is not allowed, and
// names the variable, never a value, when it fails.
func FuzzExpandEnv(f *testing.F) {
	for _, s := range []string{"Bearer ${A}", "${B}", "${A}${B}", "${", "${}", "x${A", "${A}}", "$${A}", "${A B}"} {
		f.Add(s)
	}
	env := envsource.LookupFunc(func(k string) (string, bool) {
		switch k {
		case "A":
			return "valueA", true
		case "B":
			return "SECRETB", true
		}
		return "", false
	})
	f.Fuzz(func(t *testing.T, s string) {
		out, used, err := ExpandEnv(s, env, AllowEnv{"A": true}, "header")
		if err != nil {
			if strings.Contains(err.Error(), "SECRETB") || strings.Contains(err.Error(), "valueA") {
				t.Fatalf("the error shows a value: %v", err)
			}
			return
		}
		if strings.Contains(out, "SECRETB") && !strings.Contains(s, "SECRETB") {
			t.Fatalf("expanded a variable that is not allowed: %q → %q", s, out)
		}
		for _, u := range used {
			if u.Name != "A" {
				t.Fatalf("used %q", u.Name)
			}
		}
	})
}

// FuzzParseAllowEnv: every name accepted is a variable name, and parsing the accepted names
// again gives the same set.
func FuzzParseAllowEnv(f *testing.F) {
	for _, s := range []string{"A", "A,B", " a_1 , ,B", "1A", "A-B", "${A}", ",,", "Ä"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseAllowEnv([]string{s})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--allow-env: expected variable names") {
				t.Fatalf("error %v does not name the flag", err)
			}
			return
		}
		var names []string
		for name := range got {
			if !validVarName(name) {
				t.Fatalf("accepted %q", name)
			}
			names = append(names, name)
		}
		again, err := ParseAllowEnv([]string{strings.Join(names, ",")})
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("%v → %v, %v", got, again, err)
		}
	})
}
