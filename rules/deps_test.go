package rules

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestDependencies: loading a rule pack links only the points engine's data types and parser
// (points/rubric), never the engine itself: no JavaScript engine (goja), no HTTP client
// (net/http), no model client (llm) — spec/quality.md §Engineering.
func TestDependencies(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := regexp.MustCompile(`goja|net/http|/llm$|/vectorlint/points$|/vectorlint/blueprint$`)
	deps := strings.Fields(string(out))
	for _, d := range deps {
		if forbidden.MatchString(d) {
			t.Errorf("package rules depends on %s", d)
		}
	}
	if !strings.Contains(string(out), "github.com/vectorlint/vectorlint/points/rubric\n") {
		t.Errorf("package rules does not use points/rubric: %s", out)
	}
}
