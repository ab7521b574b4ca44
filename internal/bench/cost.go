package bench

import (
	"github.com/vectorlint/vectorlint/lint/document"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The cost scenarios (spec/linter.md §11): what a pull request that changes 3 documents of a
// repository costs in model calls and money, linted whole, with --changed-since, with
// --changed-lines, and run again with the reply cache the first run left (what the GitHub
// Action restores). They are not timed: they count calls and tokens (the fake server's token
// counts, about 4 characters a token) and price them at costPrices.

// costPrices are the prices of the cost scenarios, per million input and output tokens
// (gpt-4o's list prices in 2025, US dollars).
var costPrices = []string{"INPUT_PRICE_PER_MILLION=2.50", "OUTPUT_PRICE_PER_MILLION=10"}

// costWords is the length of each document of the cost scenarios, and costChunkWords the
// ChunkWords of their project: three to five chunks per rule (costChunks), so that
// --changed-lines has chunks to leave out.
const (
	costWords      = 1200
	costChunkWords = 500
)

// costDocument is document i of the cost scenarios: a heading and costWords words of
// paragraphs, its sentences rotated by i so no two documents are alike. With edited set, the
// first line of its fourth paragraph is rewritten (a change in its first chunk only).
func costDocument(i int, edited bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Document %d\n\n", i)
	n, line := 3, 0
	for n < costWords {
		s := sentences[(i+line)%len(sentences)]
		w := len(strings.Fields(s))
		if n+w > costWords {
			s = strings.Join(strings.Fields(s)[:costWords-n], " ")
			w = costWords - n
		}
		if edited && line == 15 {
			// The rest of the document is laid out as before: one changed line.
			s = "This line was rewritten in the pull request in order to explain the new flag."
		}
		b.WriteString(s)
		b.WriteString("\n")
		n += w
		line++
		if line%5 == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// costRepo writes the project into a git repository: n documents committed on main, then a
// branch that edits three of them.
func costRepo(dir string, n int) error {
	docs := map[string]string{}
	for i := range n {
		docs[fmt.Sprintf("d%04d.md", i)] = costDocument(i, false)
	}
	if err := writeProject(dir, docs); err != nil {
		return err
	}
	ini := fmt.Sprintf("RulesPath = rules\nChunkWords = %d\n\n[docs/**/*.md]\nRunRules = Bench\n", costChunkWords)
	if err := os.WriteFile(filepath.Join(dir, "vectorlint.ini"), []byte(ini), 0o644); err != nil {
		return err
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}, {"checkout", "-q", "-b", "pr"}} {
		if err := git(args...); err != nil {
			return err
		}
	}
	for _, i := range editedDocs(n) {
		if err := os.WriteFile(filepath.Join(dir, "docs", fmt.Sprintf("d%04d.md", i)), []byte(costDocument(i, true)), 0o644); err != nil {
			return err
		}
	}
	if err := git("commit", "-q", "-am", "edit three documents"); err != nil {
		return err
	}
	return nil
}

// costScenarios are the three runs over one repository and one server.
func (b *bench) costScenarios(sz sizes) []scenario {
	dir := filepath.Join(b.work, "cost")
	var (
		setupErr error
		srv      *llmtest.Server
		ready    bool
	)
	setup := func() error {
		if ready || setupErr != nil {
			return setupErr
		}
		ready = true
		if setupErr = costRepo(dir, sz.docs); setupErr != nil {
			return setupErr
		}
		srv = llmtest.NewServer(llmtest.WithDefault(llmtest.Dynamic(modelReply)))
		b.closers = append(b.closers, srv.Close)
		return nil
	}
	const rules = 3
	// row is one run; with cached, a first run fills a reply cache and the second is measured
	// (a re-run of the same pull request, its cache restored).
	row := func(name, target string, want int, cached bool, args ...string) scenario {
		return scenario{name: fmt.Sprintf("cost: %d docs of %d words × %d rules, a PR editing 3: %s", sz.docs, costWords, rules, name), run: func() result {
			r := result{target: target}
			if r.err = setup(); r.err != nil {
				return r
			}
			args := append([]string{"--no-cache"}, args...)
			if cached {
				cache := filepath.Join(b.work, "cost-cache")
				os.RemoveAll(cache)
				args[0] = "--cache-dir=" + cache
				if _, err := b.lintEnv(dir, srv, costPrices, args...); err != nil {
					r.err = err
					return r
				}
			}
			run, err := b.lintEnv(dir, srv, costPrices, args...)
			if err != nil {
				r.err = err
				return r
			}
			r.wall, r.calls, r.peakKB = run.wall, run.calls, run.peakKB
			u := run.out.Usage
			r.tokens = u.InputTokens + u.OutputTokens
			if u.Calls > 0 {
				r.perCall = float64(u.InputTokens) / float64(u.Calls)
			}
			if run.calls != want {
				r.fail("%d calls, expected %d", run.calls, want)
			}
			cost := "no cost reported"
			if u.Cost != nil {
				cost = fmt.Sprintf("$%.4f", *u.Cost)
			}
			r.note = fmt.Sprintf("%d files linted, %d input + %d output tokens, %s at $2.50/$10 per million", len(run.out.Files), u.InputTokens, u.OutputTokens, cost)
			if !cached {
				// What the budget check estimated before the run, for comparison.
				plan, err := b.estimate(dir, srv, append([]string{"--no-cache"}, args...)...)
				if err != nil {
					r.err = err
					return r
				}
				r.note += "; estimated before the run: " + plan
			}
			return r
		}}
	}
	return []scenario{
		row("whole repository", "every chunk of every file", rules*costChunks(edited(sz.docs, nil)), false),
		row("--changed-since main", "the 3 files only", rules*costChunks(edited(sz.docs, editedDocs(sz.docs))), false, "--changed-since", "main"),
		row("--changed-since main --changed-lines", "the changed chunk only", 3*rules, false, "--changed-since", "main", "--changed-lines"),
		row("--changed-since main, run again with its cache", "0 calls", 0, true, "--changed-since", "main"),
	}
}

// estimate runs the binary with --max-calls 0 (over any budget with a call to make, so it
// stops before the first) and returns the plan's figures it prints.
func (b *bench) estimate(dir string, srv *llmtest.Server, args ...string) (string, error) {
	cmd := exec.Command(b.bin, append(append([]string{"--max-calls", "0", "--quiet"}, args...), "docs")...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LLM_PROVIDER=openai", "OPENAI_API_KEY=sk-bench",
		"OPENAI_BASE_URL=" + srv.URL, "OPENAI_MODEL=bench-model"}, costPrices...)
	before := srv.Calls()
	out, _ := cmd.CombinedOutput()
	if srv.Calls() != before {
		return "", fmt.Errorf("the budget check made %d calls", srv.Calls()-before)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if plan, ok := strings.CutPrefix(line, "vectorlint: the plan: "); ok {
			return plan, nil
		}
	}
	return "", fmt.Errorf("vectorlint --max-calls 0 printed no plan:\n%s", truncate(string(out), 2000))
}

// editedDocs are the documents the pull request of the cost scenarios edits, of n.
func editedDocs(n int) []int { return []int{3, n / 2, n - 1} }

// edited lists the documents of the pull request: of n, each edited one once; all n (as on
// the branch) when only is nil.
func edited(n int, only []int) []string {
	var docs []string
	if only == nil {
		e := map[int]bool{}
		for _, i := range editedDocs(n) {
			e[i] = true
		}
		for i := range n {
			docs = append(docs, costDocument(i, e[i]))
		}
		return docs
	}
	for _, i := range only {
		docs = append(docs, costDocument(i, true))
	}
	return docs
}

// costChunks is the number of chunks of at most costChunkWords words the documents make.
func costChunks(docs []string) int {
	n := 0
	for _, d := range docs {
		n += len(document.SplitChunks(d, 0, 1, costChunkWords))
	}
	return n
}
