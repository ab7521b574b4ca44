package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// costProject is a repository's base commit: Acme runs on every Markdown file, Beta on the
// guides too.
func costProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n\n[guides/**]\nRunRules = Acme, Beta\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"rules/Beta/tone.md": "---\nid: Tone\nname: Tone\n---\nFlag a cold tone.\n",
		"docs/a.md":          "# A\n\nIn order to start, read this.\n",
		"docs/b.md":          "# B\n\nShort and clear.\n",
		"docs/old.md":        "# Old\n\nThis file moves.\nIt has a few lines.\nSo git sees a rename.\n",
		"docs/gone.md":       "# Gone\n",
		"guides/g.md":        "# Guide\n\nSteps.\n",
	}
}

// costServer answers every call with no violation, except Wordiness on "In order to".
func costServer(t *testing.T) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("In order to")),
		llmtest.JSON(map[string]any{"violations": []any{map[string]any{"quoted_text": "In order to", "message": `Say "To".`, "confidence": 0.9}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	return srv
}

// prRepo commits costProject on main and the pull request's changes on a branch "pr": docs/a.md
// edited, docs/new.md added, docs/old.md renamed (and edited), docs/gone.md deleted, and a rule
// of Beta changed. It returns the repository and main's commit.
func prRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	testutil.WriteFiles(t, dir, costProject())
	testutil.GitCommitAll(t, dir, "base")
	base := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD"))
	testutil.Git(t, dir, "checkout", "-q", "-b", "pr")
	testutil.WriteFiles(t, dir, map[string]string{
		"docs/a.md":          "# A\n\nIn order to start, read this first.\n",
		"docs/new.md":        "# New\n\nIn order to add a page.\n",
		"rules/Beta/tone.md": "---\nid: Tone\nname: Tone\n---\nFlag a cold or curt tone.\n",
	})
	testutil.Git(t, dir, "mv", "docs/old.md", "docs/moved.md")
	testutil.WriteFiles(t, dir, map[string]string{"docs/moved.md": "# Old\n\nThis file moves.\nIt has a few lines.\nSo git sees a rename!\n"})
	testutil.Git(t, dir, "rm", "-q", "docs/gone.md")
	testutil.GitCommitAll(t, dir, "pr")
	return dir, base
}

// jsonPaths lists the files of a json output.
func jsonPaths(t *testing.T, out string) []string {
	t.Helper()
	var paths []string
	for _, f := range decodeJSON(t, out).Files {
		paths = append(paths, f.Path)
	}
	return paths
}

func TestChangedSince(t *testing.T) {
	t.Parallel()
	dir, base := prRepo(t)
	tests := []struct {
		name   string
		sub    string
		args   []string
		paths  []string
		stderr string
		calls  int
	}{
		{
			name:  "the files the pull request changed, and those whose rules changed",
			args:  []string{"--changed-since", "main", "."},
			paths: []string{"docs/a.md", "docs/moved.md", "docs/new.md", "guides/g.md"},
			// guides/g.md runs Acme and Beta: 2 calls; the others 1.
			calls:  5,
			stderr: "vectorlint: changed since main (merge base " + base[:12] + "): 4 of 5 files (3 changed, 1 for their rules)\n",
		},
		{
			name:   "from a subfolder, with a commit hash",
			sub:    "docs",
			args:   []string{"--changed-since", base, "."},
			paths:  []string{"a.md", "moved.md", "new.md"},
			calls:  3,
			stderr: "vectorlint: changed since " + base + " (merge base " + base[:12] + "): 3 of 4 files (3 changed)\n",
		},
		{
			name:   "PATHs still limit what is linted",
			args:   []string{"--changed-since", "main", "docs/b.md", "guides"},
			paths:  []string{"guides/g.md"},
			calls:  2,
			stderr: "vectorlint: changed since main (merge base " + base[:12] + "): 1 of 2 files (1 for their rules)\n",
		},
		{
			name:   "against itself: nothing changed, no call",
			args:   []string{"--changed-since", "pr", "."},
			paths:  nil,
			stderr: "vectorlint: changed since pr (merge base " + strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "pr"))[:12] + "): 0 of 5 files\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := costServer(t)
			r := runVectorlint(t, filepath.Join(dir, tt.sub), fakeEnv(srv), "", append([]string{"--output", "json"}, tt.args...)...)
			wantCode := exitOK
			if slices.ContainsFunc(tt.paths, func(p string) bool { return strings.HasSuffix(p, "a.md") }) {
				wantCode = exitFindings // "In order to" in a.md and new.md
			}
			if r.code != wantCode || r.stderr != tt.stderr {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", r.code, r.stderr, wantCode, tt.stderr)
			}
			if got := jsonPaths(t, r.stdout); !reflect.DeepEqual(got, tt.paths) {
				t.Errorf("files %v, want %v", got, tt.paths)
			}
			if srv.Calls() != tt.calls {
				t.Errorf("%d calls, want %d", srv.Calls(), tt.calls)
			}
		})
	}
}

func TestChangedSinceErrors(t *testing.T) {
	t.Parallel()
	testutil.RequireGit(t)
	outside := t.TempDir()
	writeTestTree(t, outside, costProject())
	dir, _ := prRepo(t)
	srv := costServer(t)
	tests := []struct {
		name string
		dir  string
		args []string
		want string
	}{
		{name: "outside a repository", dir: outside, args: []string{"--changed-since", "main", "."},
			want: "vectorlint: --changed-since main: " + outside + " is not inside a git working tree (git: fatal: not a git repository"},
		{name: "an unknown REF", dir: dir, args: []string{"--changed-since", "nope", "."},
			want: `vectorlint: --changed-since nope: unknown revision "nope": not a branch, tag or commit of this repository (a shallow CI checkout may not have it: fetch it, or check out with fetch-depth: 0)` + "\n"},
		{name: "a REF that is an option", dir: dir, args: []string{"--changed-since=--output=x", "."},
			want: `vectorlint: --changed-since: expected a branch, tag or commit, found "--output=x" (a REF may not start with "-")` + "\nRun \"vectorlint --help\" for usage.\n"},
		{name: "an empty REF", dir: dir, args: []string{"--changed-since=", "."},
			want: "vectorlint: --changed-since: expected a branch, tag or commit, found nothing\nRun \"vectorlint --help\" for usage.\n"},
		{name: "changed lines alone", dir: dir, args: []string{"--changed-lines", "."},
			want: "vectorlint: --changed-lines needs --changed-since REF: the lines changed since when?\nRun \"vectorlint --help\" for usage.\n"},
		{name: "standard input", dir: dir, args: []string{"--changed-since", "main", "--stdin-filename", "docs/a.md", "-"},
			want: "vectorlint: --changed-since compares files with git: it cannot be combined with --stdin-filename\nRun \"vectorlint --help\" for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runVectorlint(t, tt.dir, fakeEnv(srv), "", tt.args...)
			if r.code != exitFailure || !strings.HasPrefix(r.stderr, tt.want) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, stderr starting:\n%s", r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
	if srv.Calls() != 0 {
		t.Errorf("%d calls", srv.Calls())
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a file named by the REF was written")
	}
}

// TestChangedLinesJSON checks --changed-lines end to end: only the chunk with the change is
// sent, only its findings on changed lines are reported, and the json output marks the score
// partial (a field added to the score only when it is true).
func TestChangedLinesJSON(t *testing.T) {
	t.Parallel()
	para := func(i int, extra string) string {
		return fmt.Sprintf("Paragraph %d in order to go on%s%s\n\n", i, extra, strings.Repeat(" w", 95))
	}
	doc := func(edit int) string {
		var b strings.Builder
		for i := range 12 { // 12 paragraphs of 101 words: chunks of 4 paragraphs
			extra := ""
			if i == edit {
				extra = " and on"
			}
			b.WriteString(para(i, extra))
		}
		return b.String()
	}
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	files := costProject()
	files["vectorlint.ini"] = "RulesPath = rules\nChunkWords = 500\n[**/*.md]\nRunRules = Acme\n"
	files["docs/long.md"] = doc(-1)
	testutil.WriteFiles(t, dir, files)
	testutil.GitCommitAll(t, dir, "base")
	testutil.WriteFiles(t, dir, map[string]string{"docs/long.md": doc(7)}) // line 15, in the second chunk

	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Reply{Func: func(r *llmtest.Request) llmtest.Reply {
		// Every paragraph's "in order to" is reported, at its line within the chunk (numbered
		// from 1): only line 15's is on a changed line.
		var vs []any
		for _, line := range strings.Split(r.LastUser(), "\n") {
			n, text, ok := strings.Cut(line, "\t")
			if ok && strings.Contains(text, "in order to") {
				vs = append(vs, map[string]any{"quoted_text": "in order to", "line": n, "message": "Wordy (chunk line " + n + ")."})
			}
		}
		return llmtest.JSON(map[string]any{"violations": vs})
	}})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--changed-since", "HEAD", "--changed-lines", "docs")
	if r.code != exitFindings {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if srv.Calls() != 1 {
		t.Errorf("%d calls, want 1 (the second chunk of docs/long.md)", srv.Calls())
	}
	if !strings.HasSuffix(r.stderr, "1 of 5 files (1 changed); findings on changed lines only\n") {
		t.Errorf("stderr: %s", r.stderr)
	}
	var out struct {
		Files []struct {
			Path     string
			Findings []struct {
				Line    int
				Message string
			}
			Scores []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Files) != 1 || len(out.Files[0].Findings) != 1 || out.Files[0].Findings[0].Line != 15 ||
		out.Files[0].Findings[0].Message != "Wordy (chunk line 7)." {
		t.Fatalf("result: %+v", out)
	}
	score := out.Files[0].Scores[0]
	// 4 violations located in the chunk's 410 words (paragraphs 4 to 7): the score is the
	// chunk's.
	if score["partial"] != true || score["violations"] != 4.0 || score["words"] != 410.0 {
		t.Errorf("score %v", score)
	}
	if !strings.Contains(r.stdout, "\"partial\": true") {
		t.Errorf("json output:\n%s", r.stdout)
	}
	// The line output says so in the score's details.
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--changed-since", "HEAD", "--changed-lines", "docs")
	if want := "Acme.Wordiness   9.0  4 violations in 410 words, strictness 10; partial: the changed lines' chunks only\n"; r.code != exitFindings ||
		!strings.Contains(r.stdout, want) {
		t.Errorf("line output lacks %q:\n%s", want, r.stdout)
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	dir, _ := prRepo(t)
	cache := t.TempDir()
	prices := func(env map[string]string) map[string]string {
		env["INPUT_PRICE_PER_MILLION"], env["OUTPUT_PRICE_PER_MILLION"] = "2.5", "10"
		return env
	}
	tests := []struct {
		name  string
		env   func(map[string]string) map[string]string
		args  []string
		code  int
		calls int
		// golden holds stderr (in testdata/lint/).
		golden string
	}{
		{name: "over --max-calls: no call, the figures, exit 2", args: []string{"--max-calls", "5", "."}, code: exitFailure, golden: "budget-calls.golden"},
		{name: "--max-cost without prices", args: []string{"--max-cost", "1", "."}, code: exitFailure, golden: "budget-noprices.golden"},
		{name: "over --max-cost", env: prices, args: []string{"--max-cost", "0.01", "."}, code: exitFailure, golden: "budget-cost.golden"},
		{name: "a dry run checks the budget too", args: []string{"--dry-run", "--max-calls", "5", "."}, code: exitFailure, golden: "budget-dryrun.golden"},
		{name: "within both", env: prices, args: []string{"--max-calls", "6", "--max-cost", "$0.50", "--output", "json", "."},
			code: exitFindings, calls: 6, golden: "budget-within.golden"},
		{name: "after that run every call is cached: zero calls allowed", args: []string{"--max-calls", "0", "."}, code: exitFindings,
			golden: "budget-cached.golden"},
		{name: "a dry run shows the cached calls", args: []string{"--dry-run", "--verbose", "--max-calls", "0", "."}, code: exitOK,
			golden: "budget-cached-dryrun.golden"},
		{name: "with --changed-since: what changed only", args: []string{"--changed-since", "main", "--no-cache", "--max-calls", "5", "."}, code: exitFindings,
			calls: 5, golden: "budget-changed.golden"},
	}
	// One server for all: its address is part of every cache key.
	srv := costServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fakeEnv(srv)
			if tt.env != nil {
				env = tt.env(env)
			}
			before := srv.Calls()
			r := runVectorlint(t, dir, env, "", append([]string{"--cache-dir", cache}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if n := srv.Calls() - before; n != tt.calls {
				t.Errorf("%d calls, want %d", n, tt.calls)
			}
			stderr := strings.ReplaceAll(r.stderr, dir, "$DIR")
			for _, line := range strings.Split(stderr, "\n") {
				if strings.Contains(line, "merge base") {
					stderr = strings.Replace(stderr, line, "vectorlint: changed since main (merge base …)"+line[strings.LastIndex(line, ":"):], 1)
				}
			}
			checkCLIGolden(t, tt.golden, stderr)
			if tt.code == exitFailure && tt.calls == 0 && !strings.Contains(r.stderr, "no LLM call made") &&
				!strings.Contains(r.stderr, "needs prices") {
				t.Errorf("stderr does not say no call was made:\n%s", r.stderr)
			}
		})
	}
}

// TestBudgetVerbose checks that --verbose shows the plan's figures when the run is within
// the budget.
func TestBudgetVerbose(t *testing.T) {
	t.Parallel()
	dir, _ := prRepo(t)
	srv := costServer(t)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--max-calls", "100", "--verbose", "--no-cache", "docs/b.md")
	want := "vectorlint: the plan: 1 file, 1 LLM call: 1 to make, ~"
	if r.code != exitOK || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "output tokens (estimated); within the budget\n") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

func TestCostFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-calls", "-1", "x"}, "--max-calls: expected a whole number of 0 or more, found -1"},
		{[]string{"--max-cost", "lots", "x"}, `--max-cost: expected an amount of 0 or more such as 0.50, found "lots"`},
		{[]string{"--max-cost", "-2", "x"}, `--max-cost: expected an amount of 0 or more such as 0.50, found "-2"`},
		{[]string{"--max-cost", "NaN", "x"}, `--max-cost: expected an amount of 0 or more such as 0.50, found "NaN"`},
		{[]string{"--shard", "0/3", "x"}, `--shard: expected K/N, the share K of N (whole numbers, 1 ≤ K ≤ N ≤ 10000), found "0/3": K must be 1 to N`},
		{[]string{"--shard", "2", "x"}, `--shard: expected K/N, the share K of N (whole numbers, 1 ≤ K ≤ N ≤ 10000), found "2": no "/"`},
		{[]string{"--shard", "4/3", "x"}, `--shard: expected K/N, the share K of N (whole numbers, 1 ≤ K ≤ N ≤ 10000), found "4/3": K must be 1 to N`},
	} {
		runVectorlint(t, dir, nil, "", tt.args...).expect(t, exitFailure, "",
			"vectorlint: "+tt.want+"\nRun \"vectorlint --help\" for usage.\n")
	}
}

// TestShardsMerge runs a project whole, then in three shares, and merges the shares' json:
// every file is in exactly one share, and the merged report is, in every output format, byte
// for byte the whole run's.
func TestShardsMerge(t *testing.T) {
	t.Parallel()
	files := costProject()
	for i := range 12 {
		files[fmt.Sprintf("docs/more/m%02d.md", i)] = fmt.Sprintf("# More %d\n\n👋 In order to count, this is %d.\n", i, i)
	}
	files["docs/notes.txt"] = "skipped: no section matches\n"
	files["vectorlint.ini"] += "\n[**/*.txt]\n"
	dir := t.TempDir()
	writeTestTree(t, dir, files)
	out := t.TempDir()

	srv := costServer(t)
	whole := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", ".")
	if whole.code != exitFindings {
		t.Fatalf("whole run: exit %d\n%s", whole.code, whole.stderr)
	}
	var shares []string
	seen := map[string]int{}
	for k := 1; k <= 3; k++ {
		r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--shard", fmt.Sprintf("%d/3", k), ".")
		if r.code != exitFindings && r.code != exitOK {
			t.Fatalf("share %d: exit %d\n%s", k, r.code, r.stderr)
		}
		n := len(jsonPaths(t, r.stdout))
		if want := fmt.Sprintf("vectorlint: shard %d/3: %d files of 17\n", k, n); r.stderr != want && !(n == 1 && r.stderr == fmt.Sprintf("vectorlint: shard %d/3: 1 file of 17\n", k)) {
			t.Errorf("share %d: stderr %q, want %q", k, r.stderr, want)
		}
		for _, p := range jsonPaths(t, r.stdout) {
			seen[p]++
		}
		name := filepath.Join(out, fmt.Sprintf("share%d.json", k))
		if err := os.WriteFile(name, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		shares = append(shares, name)
	}
	if len(seen) != 17 {
		t.Errorf("the shares hold %d files, want 17", len(seen))
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s is in %d shares", p, n)
		}
	}
	if srv.Calls() != 2*18 {
		t.Errorf("%d calls: each share's calls and the whole run's should be the same 18", srv.Calls())
	}

	for _, format := range []string{"json", "line", "github", "sarif", "rdjson", "rdjsonl", "junit", "vale-json"} {
		t.Run(format, func(t *testing.T) {
			// The whole run again in this format (cached by the fake server's determinism, not
			// by vectorlint: no cache folder is set).
			want := runVectorlint(t, dir, fakeEnv(srv), "", "--output", format, ".")
			got := runVectorlint(t, dir, nil, "", append([]string{"merge", "--output", format}, shares...)...)
			if got.code != want.code || got.stdout != want.stdout {
				t.Errorf("merge: exit %d, want %d\n--- merged:\n%s\n--- whole run:\n%s\nstderr: %s", got.code, want.code, got.stdout, want.stdout, got.stderr)
			}
		})
	}
}

func TestMergeErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	one := `{"version": "1", "files": [{"path": "a.md", "findings": [], "scores": []}], "summary": {"files": 1, "errors": 0, "warnings": 0, "unverified": 0, "operationalErrors": 0}, "usage": {"calls": 1, "cachedCalls": 0, "inputTokens": 10, "outputTokens": 2, "cost": null}}`
	writeTestTree(t, dir, map[string]string{
		"one.json":      one,
		"again.json":    one,
		"bad.json":      strings.Replace(one, `"path": "a.md"`, `"path": 7`, 1),
		"notjson.json":  "<html>",
		"summary.json":  strings.Replace(one, `"files": 1,`, `"files": 2,`, 1),
		"severity.json": strings.Replace(one, `"findings": []`, `"findings": [{"rule": "A.B", "severity": "fatal", "message": "m", "line": 1, "column": 1, "endLine": 1, "endColumn": 2, "offset": 0, "endOffset": 1}]`, 1),
	})
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"merge", "one.json", "again.json"}, "vectorlint merge: a.md is in both one.json and again.json: the results to merge must be of different files (the shares of one --shard run)\n"},
		{[]string{"merge", "bad.json"}, "vectorlint merge: bad.json: files[0].path: expected a JSON string, found a JSON number\n"},
		{[]string{"merge", "notjson.json"}, "vectorlint merge: notjson.json: expected JSON, found a syntax error at byte 1 (invalid character '<' looking for beginning of value)\n"},
		{[]string{"merge", "summary.json"}, "vectorlint merge: summary.json: summary: expected the totals of the files listed ({Files:1 Errors:0 Warnings:0 Suggestions:0 Unverified:0 OperationalErrors:0 NotRun:0 Ignored:0 Baselined:0}), found {Files:2 Errors:0 Warnings:0 Suggestions:0 Unverified:0 OperationalErrors:0 NotRun:0 Ignored:0 Baselined:0}\n"},
		{[]string{"merge", "severity.json"}, `vectorlint merge: severity.json: files[0].findings[0].severity: expected "suggestion", "warning" or "error", found "fatal"` + "\n"},
		{[]string{"merge", "missing.json"}, "vectorlint merge: missing.json: cannot read the file: no such file or directory\n"},
		{[]string{"merge"}, "vectorlint merge: expected one or more json results (vectorlint --output json), found none\nRun \"vectorlint merge --help\" for usage.\n"},
		{[]string{"merge", "--output", "xml", "one.json"}, `vectorlint merge: --output: expected one of line, json, vale-json, rdjson, rdjsonl, github, sarif, junit, found "xml"` + "\nRun \"vectorlint merge --help\" for usage.\n"},
	}
	for _, tt := range tests {
		runVectorlint(t, dir, nil, "", tt.args...).expect(t, exitFailure, "", tt.want)
	}
	// A single result merges to itself.
	r := runVectorlint(t, dir, nil, "", "merge", "--output", "line", "one.json")
	r.expect(t, exitOK, "LLM usage: 1 call, 10 input and 2 output tokens\n✓ 0 errors and 0 warnings in 1 file.\n", "")
}

// TestCacheKey checks the fingerprint the Action keys its cache with: the same for two
// checkouts of one project, changed by a rule or the configuration, not by a document.
func TestCacheKey(t *testing.T) {
	t.Parallel()
	key := func(dir string, args ...string) string {
		t.Helper()
		r := runVectorlint(t, dir, nil, "", append([]string{"cache", "key"}, args...)...)
		if r.code != exitOK || r.stderr != "" || len(strings.TrimSpace(r.stdout)) != 64 {
			t.Fatalf("cache key: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	a, b := t.TempDir(), t.TempDir()
	writeTestTree(t, a, costProject())
	writeTestTree(t, b, costProject())
	first := key(a)
	if key(b) != first {
		t.Error("two checkouts of one project have different keys")
	}
	writeTestTree(t, b, map[string]string{"docs/a.md": "# A\n\nA new text.\n", "docs/z.md": "# Z\n"})
	if key(b) != first {
		t.Error("a document changed the key")
	}
	writeTestTree(t, b, map[string]string{"rules/Beta/tone.md": "---\nid: Tone\nname: Tone\n---\nFlag a curt tone.\n"})
	second := key(b)
	if second == first {
		t.Error("a changed rule kept the key")
	}
	writeTestTree(t, b, map[string]string{"vectorlint.ini": costProject()["vectorlint.ini"] + "\n[docs/a.md]\nAcme.Wordiness = disabled\n"})
	if key(b) == second {
		t.Error("a changed configuration kept the key")
	}
	if key(b, "--config", filepath.Join(a, "vectorlint.ini")) != first {
		t.Error("--config is not followed")
	}
	r := runVectorlint(t, t.TempDir(), nil, "", "cache", "key")
	if r.code != exitFailure || !strings.Contains(r.stderr, "no configuration found") {
		t.Errorf("no project: exit %d, stderr %q", r.code, r.stderr)
	}
}
