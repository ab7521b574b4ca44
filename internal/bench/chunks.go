package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The token scenarios of issue 28 (spec/linter.md §13), counted, not timed:
//
//   - edits with a warm cache: a 20,000-word document × the 3 rules linted with a reply cache,
//     then edited (a paragraph inserted near the top, one deleted, a line rewritten in place)
//     and linted again: the calls each edit costs;
//   - fuller calls: an 800-word document × the 3 rules, the input tokens of the run; with
//     VECTORLINT_ORIGINAL set to the original VectorLint's built entry point (dist/index.js of
//     its v2.1.1, run with node), the same project is linted by it against the same kind of
//     fake server and its input tokens are counted with the same counter (requestTokens).

// editParagraphs is the 20,000-word document of the edit scenario as paragraphs: a heading
// every six paragraphs, paragraphs of three to seven of the benchmark's sentences, one a line.
func editParagraphs() []string {
	var paras []string
	words, s := 0, 0
	for i := 0; words < 20000; i++ {
		if i%6 == 0 {
			h := fmt.Sprintf("## Part %d of the guide\n", i/6+1)
			paras = append(paras, h)
			words += len(strings.Fields(h))
			continue
		}
		var b strings.Builder
		for range 3 + i%5 {
			line := sentences[s%len(sentences)]
			if s%len(sentences) == 0 {
				line = fmt.Sprintf("Step %d: %s", s, line) // no two paragraphs alike
			}
			b.WriteString(line + "\n")
			words += len(strings.Fields(line))
			s++
		}
		paras = append(paras, b.String())
	}
	return paras
}

// requestTokens is the input tokens of the requests as the fake server counts them (a token
// per four characters of each message, four a message), whichever tool sent them.
func requestTokens(reqs []llmtest.Request) int64 {
	var n int64
	for _, r := range reqs {
		for _, m := range r.Messages {
			n += llmtest.EstimateTokens(m.Content) + 4
		}
	}
	return n
}

// tokenScenarios are the edit and the fuller-calls scenarios.
func (b *bench) tokenScenarios() []scenario {
	return []scenario{
		{name: "edits, warm cache: 1 document of 20,000 words × 3 rules", run: b.editsScenario},
		{name: "fuller calls: 1 document of 800 words × 3 rules", run: b.fullerScenario},
		{name: "several rules in one call: 1 document of 800 words × 3 rules, RulesPerCall 1 vs 3", run: b.rulesPerCallScenario},
	}
}

// rulesPerCallScenario lints the 800-word document with the 3 rules twice, with RulesPerCall 1
// and 3: the two semi-objective rules share one request with 3, the subjective one stays
// alone. The files' scores and errors must be the same.
func (b *bench) rulesPerCallScenario() result {
	r := result{target: "fewer calls and input tokens with RulesPerCall 3, the same scores"}
	dir := filepath.Join(b.work, "rulespercall")
	if r.err = writeProject(dir, map[string]string{"guide.md": longDocumentFrom(0, 800)}); r.err != nil {
		return r
	}
	var runs [2]lintRun
	var tokens [2]int64
	for i, n := range []string{"1", "3"} {
		srv := llmtest.NewServer(llmtest.WithDefault(llmtest.Dynamic(modelReply)))
		run, err := b.lint(dir, srv, "--no-cache", "--rules-per-call", n)
		if err != nil {
			srv.Close()
			r.err = err
			return r
		}
		runs[i], tokens[i] = run, requestTokens(srv.Requests())
		srv.Close()
	}
	one, three := runs[0], runs[1]
	r.wall, r.calls, r.peakKB = three.wall, three.calls, three.peakKB
	r.tokens = three.out.Usage.InputTokens + three.out.Usage.OutputTokens
	r.perCall = float64(tokens[1]) / float64(max(three.calls, 1))
	r.note = fmt.Sprintf("RulesPerCall 1: %d calls, %d input tokens; RulesPerCall 3: %d calls, %d input tokens (%+.1f %%)",
		one.calls, tokens[0], three.calls, tokens[1], 100*float64(tokens[1]-tokens[0])/float64(max(tokens[0], 1)))
	if three.calls >= one.calls || tokens[1] >= tokens[0] {
		r.fail("%d calls and %d input tokens, not fewer than %d and %d", three.calls, tokens[1], one.calls, tokens[0])
	}
	a, _ := json.Marshal(one.out.Files)
	c, _ := json.Marshal(three.out.Files)
	if string(a) != string(c) {
		r.fail("the files' scores or errors differ")
	}
	return r
}

// editsScenario lints the 20,000-word document cold, then each edit of it with the cache the
// earlier runs left.
func (b *bench) editsScenario() result {
	r := result{target: "an insert or delete near the top ≤ 2 calls a rule, an in-place edit 1"}
	dir := filepath.Join(b.work, "edits")
	paras := editParagraphs()
	join := func(p []string) string { return strings.Join(p, "\n") }
	if r.err = writeProject(dir, map[string]string{"guide.md": join(paras)}); r.err != nil {
		return r
	}
	srv := llmtest.NewServer(llmtest.WithDefault(llmtest.Dynamic(modelReply)))
	defer srv.Close()
	cache := filepath.Join(b.work, "edits-cache")
	os.RemoveAll(cache)
	cold, err := b.lint(dir, srv, "--cache-dir="+cache)
	if err != nil {
		r.err = err
		return r
	}
	r.wall, r.calls, r.peakKB = cold.wall, cold.calls, cold.peakKB
	r.tokens = cold.out.Usage.InputTokens + cold.out.Usage.OutputTokens
	edits := []struct {
		name string
		max  int
		doc  []string
	}{
		{"a paragraph inserted after the 3rd", 2 * 3, append(append(append([]string{}, paras[:3]...),
			"This paragraph was added near the top.\nIt explains why the flag exists.\n"), paras[3:]...)},
		{"the 5th paragraph deleted", 2 * 3, append(append([]string{}, paras[:4]...), paras[5:]...)},
		{"a line of the 9th paragraph rewritten", 1 * 3, func() []string {
			p := append([]string{}, paras...)
			lines := strings.SplitAfter(p[8], "\n")
			lines[1] = "This line was rewritten in place to explain the new flag.\n"
			p[8] = strings.Join(lines, "")
			return p
		}()},
	}
	var notes []string
	for _, e := range edits {
		if r.err = os.WriteFile(filepath.Join(dir, "docs", "guide.md"), []byte(join(e.doc)), 0o644); r.err != nil {
			return r
		}
		run, err := b.lint(dir, srv, "--cache-dir="+cache)
		if err != nil {
			r.err = err
			return r
		}
		if run.calls > e.max || run.calls == 0 {
			r.fail("%s: %d calls, expected 1 to %d", e.name, run.calls, e.max)
		}
		notes = append(notes, fmt.Sprintf("%s: %d calls, %d input tokens", e.name, run.calls, run.out.Usage.InputTokens))
	}
	r.note = fmt.Sprintf("cold: %d calls (%d chunks a rule), %d input tokens; then, with the cache: %s",
		cold.calls, cold.calls/3, cold.out.Usage.InputTokens, strings.Join(notes, "; "))
	return r
}

// fullerScenario lints an 800-word document with the 3 rules and, when VECTORLINT_ORIGINAL is
// set, the same project with the original VectorLint.
func (b *bench) fullerScenario() result {
	r := result{target: "no more input tokens than VectorLint v2.1.1"}
	dir := filepath.Join(b.work, "fuller")
	if r.err = writeProject(dir, map[string]string{"guide.md": longDocumentFrom(0, 800)}); r.err != nil {
		return r
	}
	srv := llmtest.NewServer(llmtest.WithDefault(llmtest.Dynamic(originalOrOurReply)))
	defer srv.Close()
	run, err := b.lint(dir, srv, "--no-cache")
	if err != nil {
		r.err = err
		return r
	}
	ours := requestTokens(srv.Requests())
	r.wall, r.calls, r.peakKB = run.wall, run.calls, run.peakKB
	r.tokens = run.out.Usage.InputTokens + run.out.Usage.OutputTokens
	r.perCall = float64(ours) / float64(max(run.calls, 1))
	r.note = fmt.Sprintf("%d calls, %d input tokens", run.calls, ours)
	orig := os.Getenv("VECTORLINT_ORIGINAL")
	if orig == "" {
		r.note += "; VECTORLINT_ORIGINAL not set: the original not run"
		return r
	}
	osrv := llmtest.NewServer(llmtest.WithDefault(llmtest.Dynamic(originalOrOurReply)))
	defer osrv.Close()
	cmd := exec.Command("node", orig, "--output", "json", "docs/guide.md")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LLM_PROVIDER=openai", "OPENAI_API_KEY=sk-bench",
		"OPENAI_BASE_URL=" + osrv.URL, "OPENAI_MODEL=bench-model"}
	out, err := cmd.CombinedOutput()
	if osrv.Calls() == 0 {
		r.err = fmt.Errorf("the original made no call (%v):\n%s", err, truncate(string(out), 2000))
		return r
	}
	theirs := requestTokens(osrv.Requests())
	r.note += fmt.Sprintf("; VectorLint v2.1.1: %d calls, %d input tokens (%+.1f %%)", osrv.Calls(), theirs,
		100*float64(ours-theirs)/float64(theirs))
	if ours > theirs {
		r.fail("%d input tokens, the original %d", ours, theirs)
	}
	return r
}

// originalOrOurReply answers our requests as modelReply does and the original's (its
// response_format names its schema vectorlint_semi_objective_result or
// vectorlint_subjective_result) with an empty or a middling result in its own shape.
func originalOrOurReply(req *llmtest.Request) llmtest.Reply {
	var rf struct {
		JSONSchema struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	}
	_ = json.Unmarshal(req.ResponseFormat, &rf)
	switch rf.JSONSchema.Name {
	case "vectorlint_semi_objective_result":
		return llmtest.JSON(map[string]any{"violations": []any{}})
	case "vectorlint_subjective_result":
		var criteria []any
		for _, name := range []string{"Warmth", "Directness"} {
			criteria = append(criteria, map[string]any{"name": name, "score": 3, "summary": "Mostly fine.",
				"reasoning": "A few hedges.", "violations": []any{}})
		}
		return llmtest.JSON(map[string]any{"criteria": criteria})
	}
	return modelReply(req)
}
