package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandImports keeps the commands thin (docs/how-it-works.md): the model client (llm) and
// the points engine (points, points/rubric) are reached through the setup layer (internal/setup) and the
// packages that own the job, never imported by cmd/vectorlint itself.
func TestCommandImports(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 {
		t.Fatal("go list printed no imports")
	}
	for _, p := range imports {
		switch p {
		case "github.com/vectorlint/vectorlint/llm", "github.com/vectorlint/vectorlint/points", "github.com/vectorlint/vectorlint/points/rubric":
			t.Errorf("cmd/vectorlint imports %s: reach it through internal/setup", p)
		}
	}
}
