package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The README's "Your first lint in one minute", command by command, in a fresh folder, with the
// fake server standing in for the hosted and the local model: init, the dry run, a lint with
// findings from the built-in pack and from the starter pack init writes, the local-model form,
// and the style guide.

// quickstartReadme is the sample document: one finding for Wordiness (built in, warning),
// one for InclusiveLanguage (built in, error), one for the starter pack's Acronyms rule, and a
// vague headline for the starter Headline rule (two criteria rated 1).
const quickstartReadme = "# Stuff\n" +
	"\n" +
	"In order to start, ask the guys on the platform team for access.\n" +
	"Put the assets behind a CDN.\n"

// scriptQuickstart answers the rules that find something in quickstartReadme; every other rule
// gets an empty list of violations, and the subjective rules good ratings unless scripted.
func scriptQuickstart(srv *llmtest.Server) {
	violation := func(line int, quote, msg, fix string) map[string]any {
		return map[string]any{"quoted_text": quote, "line": line, "context_before": "", "context_after": "", "analysis": msg,
			"message": msg, "suggestion": "Write \"" + fix + "\".", "fix": fix, "confidence": 0.9}
	}
	criterion := func(id string, score int, vs ...map[string]any) map[string]any {
		if vs == nil {
			vs = []map[string]any{}
		}
		return map[string]any{"id": id, "name": id, "score": score, "summary": "Rated.", "reasoning": "Because.", "violations": vs}
	}
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("In order to")),
		llmtest.JSON(map[string]any{"violations": []any{violation(3, "In order to", `Say "To".`, "To")}}))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Inclusive language">`), llmtest.UserContains("guys")),
		llmtest.JSON(map[string]any{"violations": []any{violation(3, "the guys", `"Guys" leaves people out.`, "the people")}}))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Acronyms">`), llmtest.UserContains("CDN")),
		llmtest.JSON(map[string]any{"violations": []any{violation(4, "CDN", "Spell out CDN at its first use.", "content delivery network (CDN)")}}))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Headline">`), llmtest.UserContains("Stuff")),
		llmtest.JSON(map[string]any{"criteria": []any{
			criterion("Clarity", 1, violation(1, "Stuff", "The headline does not say what the page is about.", "Get access to the platform")),
			criterion("Specificity", 1)}}))
	srv.On(llmtest.SystemContains(`<rule name="Headline">`),
		llmtest.JSON(map[string]any{"criteria": []any{criterion("Clarity", 4), criterion("Specificity", 4)}}))
	srv.On(llmtest.SystemContains(`<rule name="AI-sounding patterns">`),
		llmtest.JSON(map[string]any{"criteria": []any{criterion("Structure", 4), criterion("Vocabulary", 4), criterion("Tone", 4)}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
}

// readmeBlock returns the commands of the README's fenced sh blocks under the given heading.
func readmeBlock(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var cmds []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		for _, line := range strings.Split(block[1], "\n") {
			line, _, _ = strings.Cut(line, "#")
			if line = strings.TrimSpace(line); line != "" {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

func TestReadmeFirstLint(t *testing.T) {
	t.Parallel()
	// The commands this test runs are the README's, as written.
	want := []string{
		"go install github.com/vectorlint/vectorlint/cmd/vectorlint@latest",
		"cd your-docs",
		"vectorlint init",
		"vectorlint --dry-run README.md",
		"export OPENAI_API_KEY=sk-...",
		"vectorlint README.md docs/",
		"vectorlint --base-url http://localhost:11434/v1 --model llama3.1:8b README.md docs/",
	}
	if got := readmeBlock(t, "Your first lint in one minute"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the README's first-lint commands changed; update this test to run them:\n%s", strings.Join(got, "\n"))
	}
	// args are a README command line's arguments (no quoting is needed in these).
	args := func(cmd string) []string { return strings.Fields(strings.TrimPrefix(cmd, "vectorlint")) }

	srv := llmtest.Start(t)
	scriptQuickstart(srv)
	dir := filepath.Join(t.TempDir(), "your-docs")
	writeTestTree(t, dir, map[string]string{
		"README.md":     quickstartReadme,
		"docs/guide.md": "# Install the command-line tool\n\nRun the installer and sign in.\n",
	})

	// vectorlint init
	r := runVectorlint(t, dir, nil, "", args(want[2])...)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "created vectorlint.ini\ncreated rules/Starter/acronyms.md\ncreated rules/Starter/headline.md\n") {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runVectorlint(t, dir, nil, "", "validate"); r.code != exitOK {
		t.Fatalf("validate after init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// vectorlint --dry-run README.md: no key, no model call.
	r = runVectorlint(t, dir, nil, "", args(want[3])...)
	if r.code != exitOK || srv.Calls() != 0 {
		t.Fatalf("dry run: exit %d, %d calls\n%s%s", r.code, srv.Calls(), r.stdout, r.stderr)
	}
	for _, rule := range []string{"VectorLint.Wordiness", "VectorLint.AIPatterns", "Starter.Acronyms", "Starter.Headline"} {
		if !strings.Contains(r.stdout, rule) {
			t.Errorf("the dry run does not list %s:\n%s", rule, r.stdout)
		}
	}

	// export OPENAI_API_KEY=sk-... ; vectorlint README.md docs/ — the hosted model is the fake
	// server (OPENAI_BASE_URL), and the run exits 1 for the inclusive-language error.
	env := map[string]string{"OPENAI_API_KEY": testAPIKey, "OPENAI_BASE_URL": srv.URL}
	r = runVectorlint(t, dir, env, "", append(args(want[5]), "--output", "json")...)
	if r.code != exitFindings || r.stderr != "" {
		t.Fatalf("lint: exit %d (want 1)\n%s", r.code, r.stderr)
	}
	res := decodeJSON(t, r.stdout)
	if len(res.Files) != 2 || res.Files[0].Path != "README.md" || res.Files[1].Path != "docs/guide.md" {
		t.Fatalf("files = %+v", res.Files)
	}
	var got []string
	for _, f := range res.Files[0].Findings {
		got = append(got, strings.Join([]string{f.Rule, f.Severity, f.Match, strconv.Itoa(f.Line), strconv.Itoa(f.Column), strconv.Itoa(f.EndColumn)}, " "))
	}
	wantFindings := []string{
		"Starter.Headline.Clarity warning Stuff 1 3 8",
		"Starter.Headline.Specificity warning Stuff 1 3 8", // rated 1 with no passage: the criterion's summary on the headline
		"VectorLint.Wordiness warning In order to 3 1 12",
		"VectorLint.InclusiveLanguage error the guys 3 24 32",
		"Starter.Acronyms warning CDN 4 25 28",
	}
	if strings.Join(got, "\n") != strings.Join(wantFindings, "\n") {
		t.Errorf("README.md findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantFindings, "\n"))
	}
	if len(res.Files[1].Findings) != 0 || res.Summary.Errors != 1 || res.Summary.Warnings != 4 {
		t.Errorf("docs/guide.md findings %v, summary %+v", res.Files[1].Findings, res.Summary)
	}
	// 8 built-in rules and 2 starter rules on each of the two files.
	if srv.Calls() != 20 {
		t.Errorf("%d model calls, want 20", srv.Calls())
	}
	// The default line output says the same.
	r = runVectorlint(t, dir, env, "", args(want[5])...)
	if r.code != exitFindings || !strings.Contains(r.stdout, "3:24  error    \"Guys\" leaves people out.") ||
		!strings.Contains(r.stdout, "1 error and 4 warnings in 2 files") {
		t.Errorf("line output: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A local OpenAI-compatible server with no key: --base-url and --model.
	before := len(srv.Requests())
	local := strings.ReplaceAll(want[6], "http://localhost:11434/v1", srv.URL)
	r = runVectorlint(t, dir, nil, "", append(args(local), "--no-cache")...)
	if r.code != exitFindings {
		t.Fatalf("local model: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, req := range srv.Requests()[before:] {
		if req.Model != "llama3.1:8b" || req.Header.Get("Authorization") != "" {
			t.Fatalf("local model request: model %q, authorization %q", req.Model, req.Header.Get("Authorization"))
		}
	}
}

// TestReadmeStyleGuide follows the README's style-guide paragraph: with only a VECTORLINT.md,
// "vectorlint docs/" checks every Markdown file against it; "vectorlint init --style-guide"
// writes the template.
func TestReadmeStyleGuide(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{map[string]any{"quoted_text": "log in", "line": 3,
		"message": `Write "sign in".`, "suggestion": `Write "sign in".`, "fix": "sign in", "confidence": 1}}}))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"VECTORLINT.md": "# Style\n\n- Use \"sign in\", never \"log in\".\n",
		"docs/a.md":     "# Access\n\nTo log in, open the app.\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs/")
	res := decodeJSON(t, r.stdout)
	if r.code != exitOK || len(res.Files) != 1 || len(res.Files[0].Findings) != 1 ||
		res.Files[0].Findings[0].Rule != "StyleGuide.Compliance" || res.Files[0].Findings[0].Column != 4 {
		t.Errorf("zero-config: exit %d, %+v\n%s", r.code, res.Files, r.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].System(), `Use "sign in", never "log in".`) {
		t.Errorf("the style guide is not in the prompt")
	}

	dir = t.TempDir()
	r = runVectorlint(t, dir, nil, "", "init", "--style-guide")
	if r.code != exitOK || !strings.Contains(r.stdout, "created VECTORLINT.md\n") {
		t.Errorf("init --style-guide: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestReadmeEvaluators runs the README's evaluate examples as written (the texts in files,
// the model the fake server) and checks the output the README quotes.
func TestReadmeEvaluators(t *testing.T) {
	t.Parallel()
	cmds := readmeBlock(t, "Evaluators")
	if len(cmds) != 4 {
		t.Fatalf("README Evaluators: %d commands, want 4", len(cmds))
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains("impartial evaluator of bias"), llmtest.JSON(map[string]any{"score": 0, "reason": "Neutral."}))
	srv.SetDefault(judgeReply("CLASS_FULLY_PRESENT"))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"answer.txt":    "Paris is the capital of France.\n",
		"reference.txt": "The capital of France is Paris.\n",
		"points.yml":    "- Names Paris as the capital\n- $contains: Paris\n",
	})
	for i, cmd := range cmds {
		args, err := splitShell(strings.TrimPrefix(cmd, "vectorlint "))
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		r := runVectorlint(t, dir, fakeEnv(srv), "", args...)
		if r.code != exitOK {
			t.Errorf("%s: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
		}
		if i == 0 {
			const want = `{"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.667, "f1_result": "pass"}`
			readme, _ := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "README.md"))
			if r.stdout != want+"\n" || !strings.Contains(string(readme), "`"+want+"`") {
				t.Errorf("the README's printed result and the command's differ: %s", r.stdout)
			}
		}
	}
}
