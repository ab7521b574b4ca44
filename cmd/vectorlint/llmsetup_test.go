package main

import (
	"testing"
)

// TestLintConfidenceThreshold checks the threshold end to end: the ini sets it, the
// environment (here through .env) overrides it.
func TestLintConfidenceThreshold(t *testing.T) {
	t.Parallel()
	files := engineProject()
	delete(files, "rules/Acme/strict.md")
	delete(files, "rules/Acme/headline.md")
	files["vectorlint.ini"] = "RulesPath = rules\nConfidenceThreshold = 0.95\n[**/*.md]\nRunRules = Acme\n"
	srv, dir := startEngine(t, files)
	violations := func(env map[string]string) int {
		t.Helper()
		r := runVectorlint(t, dir, env, "", "--output", "json", "docs")
		res := decodeJSON(t, r.stdout)
		return *res.Files[0].Scores[0].Violations
	}
	if n := violations(fakeEnv(srv)); n != 1 {
		t.Errorf("ConfidenceThreshold = 0.95: %d violations, want 1 (0.95 kept, 0.9 dropped)", n)
	}
	env := fakeEnv(srv)
	env["CONFIDENCE_THRESHOLD"] = "0.4"
	if n := violations(env); n != 3 {
		t.Errorf("CONFIDENCE_THRESHOLD=0.4: %d violations, want 3", n)
	}
	writeTestTree(t, dir, map[string]string{".env": "CONFIDENCE_THRESHOLD=0.5\n"})
	if n := violations(fakeEnv(srv)); n != 3 {
		t.Errorf("CONFIDENCE_THRESHOLD=0.5 in .env: %d violations, want 3 (0.5 is kept)", n)
	}
	r := runVectorlint(t, dir, map[string]string{"CONFIDENCE_THRESHOLD": "x"}, "", "docs")
	r.expect(t, exitFailure, "", "vectorlint: CONFIDENCE_THRESHOLD: expected a number from 0 to 1, found \"x\"\n")
}
