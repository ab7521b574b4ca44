package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// nothingProject has two rules and documents with nothing to send: empty, front matter only,
// code only; one with prose; one above MaxDocumentWords (20 here).
func nothingProject() map[string]string {
	return map[string]string{
		"vectorlint.ini":      "RulesPath = rules\nMaxDocumentWords = 20\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\n---\nFind wordy phrases.\n",
		"rules/Acme/tone.md":  "---\nid: Tone\nname: Tone\n---\nFlag a cold tone.\n",
		"docs/empty.md":       "",
		"docs/front.md":       "---\ntitle: Front matter only\n---\n",
		"docs/code.md":        "```go\nfunc main() {}\n```\n",
		"docs/prose.md":       "# Hello\n\nSome prose here.\n",
		"docs/big.md":         strings.Repeat("word ", 25) + "\n",
	}
}

// TestNothingToSayNothingSent runs the command on nothingProject against the fake server: 2
// calls (the two rules on prose.md), 0 for every other file; exit 0; the JSON scores of the files
// without prose say "skipped": "no prose", big.md is a skipped file with its size and the
// limit, said in one line by the line output; the dry run counts the same 2 calls.
func TestNothingToSayNothingSent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, nothingProject())
	reason := "too large to send: 25 words of prose, above MaxDocumentWords = 20 (raise MaxDocumentWords in vectorlint.ini to lint it)"

	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	if r.code != exitOK || srv.Calls() != 2 {
		t.Fatalf("exit %d, %d calls, want 0 and 2; stderr:\n%s", r.code, srv.Calls(), r.stderr)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(r.stdout)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"path":"docs/empty.md","findings":[],"scores":[{"rule":"Acme.Tone","type":"semi-objective","score":10.0,"violations":0,"words":0,"strictness":10,"skipped":"no prose"},`,
		`"skipped":[{"path":"docs/big.md","reason":"` + reason + `","words":25,"maxDocumentWords":20}]`,
	} {
		if !strings.Contains(compact.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, compact.String())
		}
	}

	srv = llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	r = runVectorlint(t, dir, fakeEnv(srv), "", "docs/big.md")
	if r.code != exitOK || srv.Calls() != 0 || !strings.Contains(r.stdout, "! docs/big.md: skipped, "+reason+"\n") {
		t.Errorf("exit %d, %d calls, stdout:\n%s", r.code, srv.Calls(), r.stdout)
	}

	r = runVectorlint(t, dir, fakeEnv(srv), "", "--dry-run", "docs")
	if r.code != exitOK || srv.Calls() != 0 ||
		!strings.Contains(r.stdout, "docs/big.md\n  skipped: "+reason+"\n") ||
		!strings.Contains(r.stdout, "Dry run, no LLM call made: 4 files, 2 LLM calls, ~") ||
		!strings.Contains(r.stdout, "Warning: 1 file above MaxDocumentWords not sent (listed above).\n") {
		t.Errorf("dry run: exit %d, %d calls, stdout:\n%s", r.code, srv.Calls(), r.stdout)
	}
}
