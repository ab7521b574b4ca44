package main

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// rpcFiles is a project of three semi-objective rules on one document; ini holds the global
// keys.
func rpcFiles(ini string) map[string]string {
	return map[string]string{
		"vectorlint.ini":        "RulesPath = rules\n" + ini + "[docs/**]\nRunRules = Acme\n",
		"rules/Acme/wordy.md":   "---\nid: Wordy\nname: Wordy\nseverity: error\n---\nFind wordy phrases.\n",
		"rules/Acme/passive.md": "---\nid: Passive\nname: Passive\nseverity: warning\n---\nFind passive voice.\n",
		"rules/Acme/plain.md":   "---\nid: Plain\nname: Plain\nseverity: suggestion\n---\nFind jargon.\n",
		"docs/a.md":             "# Plan\n\nWe met in order to plan the release.\nThe file was saved by the build.\n",
	}
}

// rpcServer answers each rule alike alone or with others (llmtest.PerRule): Wordy flags "in
// order to", Passive "was saved", Plain nothing; the rules in skip are left out of a grouped
// reply.
func rpcServer(t *testing.T, skip ...string) *llmtest.Server {
	t.Helper()
	v := func(quote string, line int) any {
		return map[string]any{"quoted_text": quote, "line": line, "message": "Avoid " + quote + ".", "confidence": 0.9}
	}
	return llmtest.Start(t, llmtest.WithDefault(llmtest.PerRule(func(rule string) ([]any, bool) {
		for _, s := range skip {
			if strings.Contains(rule, `id="Acme.`+s+`"`) {
				return nil, false
			}
		}
		switch {
		case strings.Contains(rule, "Find wordy phrases."):
			return []any{v("in order to", 3)}, true
		case strings.Contains(rule, "Find passive voice."):
			return []any{v("was saved", 4)}, true
		}
		return nil, true
	})))
}

// TestLintRulesPerCall: --rules-per-call 3 makes one call where the default makes three, with
// the same files, findings and scores in the JSON output and the same exit code; the usage
// counts the one call. A value out of range is a usage error.
func TestLintRulesPerCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, rpcFiles(""))
	one, three := rpcServer(t), rpcServer(t)
	r1 := runVectorlint(t, dir, fakeEnv(one), "", "--output", "json", "--no-cache", "docs")
	r3 := runVectorlint(t, dir, fakeEnv(three), "", "--output", "json", "--no-cache", "--rules-per-call", "3", "docs")
	if r1.code != exitFindings || r3.code != exitFindings || one.Calls() != 3 || three.Calls() != 1 || r3.stderr != "" {
		t.Fatalf("exit %d and %d, %d and %d calls, stderr:\n%s", r1.code, r3.code, one.Calls(), three.Calls(), r3.stderr)
	}
	res1, res3 := readResult(t, r1.stdout), readResult(t, r3.stdout)
	if !reflect.DeepEqual(res1.Files, res3.Files) || len(res3.Files[0].Findings) != 2 || res1.Usage.Calls != 3 || res3.Usage.Calls != 1 {
		t.Errorf("outputs differ:\n%s\n%s", r1.stdout, r3.stdout)
	}
	for _, v := range []string{"0", "11"} {
		r := runVectorlint(t, dir, fakeEnv(one), "", "--rules-per-call", v, "docs")
		if r.code != exitFailure || !strings.Contains(r.stderr, "--rules-per-call: expected a whole number of rules from 1 to 10, found "+v) {
			t.Errorf("--rules-per-call %s: exit %d, stderr:\n%s", v, r.code, r.stderr)
		}
	}
}

// TestLintRulesPerCallMissingRule: a reply that leaves a rule out is that rule's error (exit
// 2, as for any rule error), the others' findings printed.
func TestLintRulesPerCallMissingRule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, rpcFiles("RulesPerCall = 3\n"))
	srv := rpcServer(t, "Passive")
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs")
	res := readResult(t, r.stdout)
	fr := res.Files[0]
	if r.code != exitFailure || srv.Calls() != 1 || len(fr.Errors) != 1 || fr.Errors[0].Rule != "Acme.Passive" ||
		fr.Errors[0].Message != "the model's reply has no entry for rule Acme.Passive (asked about Acme.Passive, Acme.Plain, Acme.Wordy in one call; RulesPerCall)" ||
		len(fr.Findings) != 1 || fr.Findings[0].Rule != "Acme.Wordy" {
		t.Errorf("exit %d, %d calls, output:\n%s\nstderr:\n%s", r.code, srv.Calls(), r.stdout, r.stderr)
	}
}

// TestLintRulesPerCallDryRun: the dry run and the batch's dry run count the shared requests.
func TestLintRulesPerCallDryRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, rpcFiles("RulesPerCall = 3\n"))
	srv := rpcServer(t)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--dry-run", "docs")
	share := regexp.MustCompile(`\n  Acme\.Passive, Acme\.Plain, Acme\.Wordy share 1 LLM call for lines 1-4 \(RulesPerCall\), ~[0-9,]+ tokens: 2 calls and ~[0-9,]+ tokens fewer than above\n`)
	if r.code != exitOK || srv.Calls() != 0 || !share.MatchString(r.stdout) ||
		!regexp.MustCompile(`Dry run, no LLM call made: 1 file, 1 LLM call, ~[0-9,]+ input tokens`).MatchString(r.stdout) {
		t.Errorf("exit %d, %d calls, stdout:\n%s\nstderr:\n%s", r.code, srv.Calls(), r.stdout, r.stderr)
	}
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--dry-run", "--rules-per-call", "1", "docs")
	if r.code != exitOK || strings.Contains(r.stdout, "share") || !strings.Contains(r.stdout, "Dry run, no LLM call made: 1 file, 3 LLM calls, ~") {
		t.Errorf("--rules-per-call 1: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

// TestBatchRulesPerCall: the batch holds the shared requests the run sends: the engine
// project's two semi-objective rules on each of two documents share one request, the
// subjective rule's stay apart.
func TestBatchRulesPerCall(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, batchProject())
	env, cache := batchEnv(srv), t.TempDir()
	dry := runBatchApp(t, dir, env, "batch", "submit", "--dry-run", "--rules-per-call", "2", "--cache-dir", cache, "docs")
	if dry.code != exitOK || srv.BatchRequests() != 0 || !strings.HasPrefix(dry.stdout, "Batch: 4 requests (~") {
		t.Errorf("dry run: exit %d\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
}
