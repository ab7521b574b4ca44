package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The prompt-caching scenarios (spec/linter.md §13, "Layout for provider prompt caching" and
// "Cached tokens counted and priced"): 10 rules × 5 documents of about 1,500 tokens with a
// style guide of about 1,000 tokens, linted as Anthropic (native Messages API, cache_control on
// the shared prefix) and as OpenAI (prompt_cache_key), against a fresh fake server whose
// prompt cache works as the providers' do (llm/llmtest, promptcache.go). They are not timed:
// they count the input tokens read from and written to the provider's cache, and price them.

// cacheRules, cacheDocs and cacheDocWords are the sizes of the prompt-caching scenarios.
const (
	cacheRules    = 10
	cacheDocs     = 5
	cacheDocWords = 1000
)

// cacheStyleGuide is a style guide of about 1,000 tokens (4,000 characters).
func cacheStyleGuide() string {
	var b strings.Builder
	b.WriteString("# House style\n\n")
	topics := []string{"sentences", "headings", "lists", "links", "code samples", "warnings", "product names", "numbers"}
	for i := 0; b.Len() < 4000; i++ {
		fmt.Fprintf(&b, "- %s, rule %d: keep them short, say what the reader does first, and prefer the active voice.\n",
			topics[i%len(topics)], i+1)
	}
	return b.String()
}

// cacheProject writes the project: rules Rule01…Rule10 (the Wordiness rule's body under ten
// names), the documents and the style guide.
func cacheProject(dir string) error {
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n\n[docs/**/*.md]\nRunRules = Bench\n",
		"VECTORLINT.md":  cacheStyleGuide(),
	}
	body := benchRules["Wordiness.md"][strings.Index(benchRules["Wordiness.md"], "# Wordiness"):]
	for i := range cacheRules {
		id := fmt.Sprintf("Rule%02d", i+1)
		files["rules/Bench/"+id+".md"] = fmt.Sprintf("---\nid: %s\nname: %s\nseverity: warning\n---\n\n%s", id, id, body)
	}
	for i := range cacheDocs {
		files[fmt.Sprintf("docs/d%d.md", i)] = longDocumentFrom(i, cacheDocWords)
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// longDocumentFrom is costDocument's layout at another length: words words, its sentences
// rotated by i.
func longDocumentFrom(i, words int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Document %d\n\n", i)
	n, line := 3, 0
	for n < words {
		s := sentences[(i+line)%len(sentences)]
		w := len(strings.Fields(s))
		if n+w > words {
			s = strings.Join(strings.Fields(s)[:words-n], " ")
			w = words - n
		}
		b.WriteString(s + "\n")
		n += w
		line++
		if line%5 == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// cacheScenarios are the two providers' runs over one project.
func (b *bench) cacheScenarios() []scenario {
	dir := filepath.Join(b.work, "promptcache")
	var setupErr error
	ready := false
	row := func(provider string, env func(url string) []string, in, out float64, read, write float64) scenario {
		name := fmt.Sprintf("prompt caching: %d rules × %d docs of %d words, a style guide, %s", cacheRules, cacheDocs, cacheDocWords, provider)
		return scenario{name: name, run: func() result {
			r := result{target: "cached input read, reported and priced"}
			if !ready {
				ready, setupErr = true, cacheProject(dir)
			}
			if r.err = setupErr; r.err != nil {
				return r
			}
			srv := llmtest.NewServer(llmtest.WithDefault(llmtest.Dynamic(modelReply)))
			defer srv.Close()
			prices := []string{fmt.Sprintf("INPUT_PRICE_PER_MILLION=%g", in), fmt.Sprintf("OUTPUT_PRICE_PER_MILLION=%g", out)}
			run, err := b.lintEnv(dir, srv, append(env(srv.URL), prices...), "--no-cache")
			if err != nil {
				r.err = err
				return r
			}
			u := run.out.Usage
			r.wall, r.calls, r.peakKB = run.wall, run.calls, run.peakKB
			r.tokens = u.InputTokens + u.OutputTokens
			if u.Calls > 0 {
				r.perCall = float64(u.InputTokens) / float64(u.Calls)
			}
			full := (float64(u.InputTokens)*in + float64(u.OutputTokens)*out) / 1e6
			want := (float64(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens)*in + float64(u.CachedInputTokens)*in*read +
				float64(u.CacheWriteTokens)*in*write + float64(u.OutputTokens)*out) / 1e6
			switch {
			case u.CachedInputTokens == 0:
				r.fail("no cached input tokens reported")
			case u.Cost == nil:
				r.fail("no cost reported")
			case fmt.Sprintf("%.6f", *u.Cost) != fmt.Sprintf("%.6f", want):
				r.fail("cost $%.6f, expected $%.6f", *u.Cost, want)
			}
			sent, total := sentPrefixTokens(srv.Requests())
			if 100*sent < 80*total {
				r.fail("%.1f %% of input tokens in an already-sent prefix, expected at least 80 %%", 100*float64(sent)/float64(max(total, 1)))
			}
			cost := 0.0
			if u.Cost != nil {
				cost = *u.Cost
			}
			r.note = fmt.Sprintf("%d input tokens: %.1f %% in a prefix an earlier request sent; %d (%.1f %%) read from the provider's cache, %d written to it; cost $%.4f at $%g/$%g per million (cached input at %g %%%s), $%.4f with caching ignored (%.1f %% less)",
				u.InputTokens, 100*float64(sent)/float64(max(total, 1)), u.CachedInputTokens, 100*float64(u.CachedInputTokens)/float64(max(u.InputTokens, 1)), u.CacheWriteTokens,
				cost, in, out, read*100, writeNote(write), full, 100*(full-cost)/full)
			return r
		}}
	}
	return []scenario{
		row("anthropic", func(url string) []string {
			return []string{"LLM_PROVIDER=anthropic", "ANTHROPIC_API_KEY=sk-ant-bench", "ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_MODEL=bench-model"}
		}, 3, 15, 0.1, 1.25),
		row("openai", func(string) []string { return nil }, 2.5, 10, 0.5, 1),
	}
}

// writeNote names a cache write price other than the input price.
func writeNote(write float64) string {
	if write == 1 {
		return ""
	}
	return fmt.Sprintf(", written at %g %%", write*100)
}

// sentPrefixTokens counts, over reqs in the order the server received them, the input tokens
// in a prefix of whole messages that an earlier request began with (spec/linter.md §13, the
// target of the prompt-caching layout: what a provider can serve from its cache, whatever its
// minimum and steps), and every request's input tokens, as the server counts them.
func sentPrefixTokens(reqs []llmtest.Request) (sent, total int64) {
	seen := map[string]bool{}
	for _, r := range reqs {
		var key strings.Builder
		var tokens, shared int64
		for _, m := range r.Messages {
			key.WriteString(m.Role + "\x00" + m.Content + "\x00")
			tokens += llmtest.EstimateTokens(m.Content) + 4
			if seen[key.String()] {
				shared = tokens
			}
			seen[key.String()] = true
		}
		sent += shared
		total += tokens
	}
	return sent, total
}
