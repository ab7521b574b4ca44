package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/points/rubric"
)

// TestLoaderPrepare: a Loader's Prepare sees every function point of a `should` list as it is
// parsed, and what it reports is an error of the rule at the point's line (in a blueprint it
// would only warn), in order with the rubric parser's own problems; without Prepare the rubric
// parser's checks apply.
func TestLoaderPrepare(t *testing.T) {
	t.Parallel()
	const rule = "---\nid: R\nname: R\nshould:\n  - $js: \"x\"\n  - $icontans: y\n  - - $contains: z\n  - says hi\n---\nBody.\n"
	var seen []string
	l := Loader{Prepare: func(pt *rubric.Point) error {
		seen = append(seen, pt.Fn)
		if pt.Fn == "js" {
			return &rubric.FunctionError{Fn: pt.Fn, Err: errors.New("does not compile")}
		}
		return rubric.Check(pt)
	}}
	r, ps := l.Parse("r.md", []byte(rule))
	want := strings.Join([]string{
		"r.md:5: should: $js: does not compile",
		`r.md:6: should: unknown point function "$icontans" (did you mean $icontains?)`,
		`r.md:7: warning: should: should item 3 is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting ("- - x" → "- x")`,
	}, "\n")
	if ps.Error() != want || r.Should != nil {
		t.Errorf("problems:\n%s\nwant\n%s\nshould = %v", ps, want, r.Should)
	}
	if strings.Join(seen, " ") != "js icontans contains" {
		t.Errorf("Prepare saw %q", seen)
	}

	r, ps = Parse("r.md", []byte(rule))
	if len(ps.Errors()) != 1 || !strings.Contains(ps.Errors().Error(), "icontans") || r.Should != nil {
		t.Errorf("without Prepare: %s", ps)
	}
}
