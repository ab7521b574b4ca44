package points

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestDependencies: the points engine scores rubrics without the model client: the environment,
// the trust rule, redaction and the retries of $call come from internal packages that the
// client uses too, so no llm package and no openai-go is linked (spec/quality.md, Round 3,
// "points does not import the model client").
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
	forbidden := regexp.MustCompile(`^github\.com/vectorlint/vectorlint/llm(/|$)|openai-go`)
	deps := strings.Fields(string(out))
	for _, d := range deps {
		if forbidden.MatchString(d) {
			t.Errorf("package points depends on %s", d)
		}
	}
	for _, want := range []string{"internal/envsource", "internal/trust", "internal/retry"} {
		if !strings.Contains(string(out), "github.com/vectorlint/vectorlint/"+want+"\n") {
			t.Errorf("package points does not use %s: %s", want, out)
		}
	}
}
