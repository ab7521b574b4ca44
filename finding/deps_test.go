package finding

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// goList lists the dependencies of the package at dir (relative to this one).
func goList(t *testing.T, dir string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", dir).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", dir, err)
	}
	return strings.Fields(string(out))
}

// TestDependencies: finding is a leaf — the standard library and two small internal packages
// (JavaScript's number formatting, the dangerous-character list) — and the packages that print
// and apply findings, report and fix, link none of the engine: no lint, rules, llm or points, no
// JavaScript engine (goja), model client (openai-go), Markdown parser (goldmark) or ini parser
// (docs/how-it-works.md, "Packages").
func TestDependencies(t *testing.T) {
	t.Parallel()
	const module = "github.com/vectorlint/vectorlint/"
	allowed := map[string]bool{module + "finding": true, module + "internal/jsjson": true, module + "internal/safetext": true}
	for _, d := range goList(t, ".") {
		if strings.Contains(strings.SplitN(d, "/", 2)[0], ".") && !allowed[d] {
			t.Errorf("package finding depends on %s; it may use only the standard library and %v", d, allowed)
		}
	}
	forbidden := regexp.MustCompile(`goja|openai-go|goldmark|gopkg\.in/ini|/vectorlint/(lint|rules|llm|points)(/|$)`)
	for _, dir := range []string{"../report", "../fix"} {
		deps := goList(t, dir)
		for _, d := range deps {
			if forbidden.MatchString(d) {
				t.Errorf("package %s depends on %s", dir[3:], d)
			}
		}
		if !strings.Contains(strings.Join(deps, "\n"), module+"finding\n") {
			t.Errorf("package %s does not use package finding", dir[3:])
		}
	}
}
