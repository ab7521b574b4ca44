package bench

import (
	"fmt"
	"github.com/vectorlint/vectorlint/lint/document"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// scenario is one row of the spec's table.
type scenario struct {
	name string
	// timed scenarios are retried (-tries) when they miss their target: their verdict depends on
	// the machine's load.
	timed bool
	run   func() result
}

// sizes are the scenario sizes of a run: the spec's in full mode, smaller in quick mode.
type sizes struct {
	docs        int           // documents × 3 rules
	latency     time.Duration // L of the timed scenarios
	concurrency int           // C
	longWords   int           // the long document
	streamDocs  int           // documents of the memory scenario
	streamL     time.Duration
	streamC     int
	startupRuns int
}

func (b *bench) sizes() sizes {
	sz := b.defaultSizes()
	if b.opts.streamDocs > 0 {
		sz.streamDocs = b.opts.streamDocs
	}
	return sz
}

func (b *bench) defaultSizes() sizes {
	if b.opts.quick {
		return sizes{docs: 48, latency: 500 * time.Millisecond, concurrency: 16, longWords: 20000,
			streamDocs: 10000, streamL: 0, streamC: 64, startupRuns: 11}
	}
	return sizes{docs: 200, latency: 100 * time.Millisecond, concurrency: 16, longWords: 20000,
		streamDocs: 10000, streamL: 5 * time.Millisecond, streamC: 64, startupRuns: 21}
}

// bound is ceil(calls/c) × l, the least time calls of latency l take c at a time.
func bound(calls, c int, l time.Duration) time.Duration {
	return time.Duration(math.Ceil(float64(calls)/float64(c))) * l
}

func (b *bench) scenarios() []scenario {
	sz := b.sizes()
	m := b.manyDocs(sz)
	list := []scenario{
		{name: fmt.Sprintf("lint %d docs × 3 rules, L=%s, C=%d", sz.docs, sz.latency, sz.concurrency), timed: true, run: m.cold},
		{name: "same run again, cache warm", timed: true, run: m.warm},
	}
	if b.opts.serial && !b.opts.quick {
		list = append(list, scenario{name: "the same, concurrency 1 (N × L, no cache)", run: m.serial})
	}
	list = append(list,
		scenario{name: fmt.Sprintf("1 document of %d words × 2 rules, L=%s, C=%d", sz.longWords, sz.latency, sz.concurrency), timed: true,
			run: func() result { return b.longDocument(sz) }})
	list = append(list, b.commandScenarios(sz)...)
	list = append(list, scenario{name: fmt.Sprintf("lint %d small docs, L=%s, C=%d", sz.streamDocs, sz.streamL, sz.streamC),
		run: func() result { return b.stream(sz) }})
	list = append(list, b.costScenarios(sz)...)
	list = append(list, b.tokenScenarios()...)
	return append(list, b.cacheScenarios()...)
}

// manyDocsRuns are the scenarios on the project of many documents: a cold run, the same run
// with the cache warm (on the same server: its URL is part of every cache key), and the
// serial comparison.
type manyDocsRuns struct {
	b   *bench
	sz  sizes
	dir string
	err error // writing the project failed
	run lintRun
	srv *llmtest.Server
}

// manyDocs writes the project of many documents.
func (b *bench) manyDocs(sz sizes) *manyDocsRuns {
	m := &manyDocsRuns{b: b, sz: sz, dir: filepath.Join(b.work, "many")}
	docs := map[string]string{}
	for i := range sz.docs {
		docs[fmt.Sprintf("d%04d.md", i)] = sampleDocument(i)
	}
	m.err = writeProject(m.dir, docs)
	return m
}

// cold lints the project with an empty cache.
func (m *manyDocsRuns) cold() result {
	r := result{target: "ratio ≤ 1.15, every call made"}
	if m.err != nil {
		r.err = m.err
		return r
	}
	// The warm run needs the same server: its URL is part of every cache key.
	if m.srv == nil {
		m.srv = llmtest.NewServer(llmtest.WithLatency(m.sz.latency), llmtest.WithDefault(llmtest.Dynamic(modelReply)))
		m.b.closers = append(m.b.closers, m.srv.Close)
	}
	srv := m.srv
	cache := filepath.Join(m.b.work, "many-cache")
	os.RemoveAll(cache) // a retry starts cold again
	run, err := m.b.lint(m.dir, srv, "--concurrency", fmt.Sprint(m.sz.concurrency), "--cache-dir", cache)
	if err != nil {
		r.err = err
		return r
	}
	m.run = run
	want := m.sz.docs * 3
	r.fill(run, m.sz.concurrency, m.sz.latency)
	if run.calls != want {
		r.fail("%d calls, expected %d", run.calls, want)
	}
	if r.ratio() > 1.15 {
		r.fail("ratio %.3f > 1.15", r.ratio())
	}
	r.note = fmt.Sprintf("%d files reported, %.0f input tokens per document per rule, first call %s after start", len(run.out.Files), r.perCall, fmtDuration(run.firstCall))
	return r
}

// warm lints the project again with the cache of the cold run.
func (m *manyDocsRuns) warm() result {
	r := result{target: "0 calls, wall ≤ 0.5 s"}
	if m.run.calls == 0 {
		r.err = fmt.Errorf("the cold run did not complete")
		return r
	}
	run, err := m.b.lint(m.dir, m.srv, "--concurrency", fmt.Sprint(m.sz.concurrency), "--cache-dir", filepath.Join(m.b.work, "many-cache"))
	if err != nil {
		r.err = err
		return r
	}
	r.wall, r.calls, r.peakKB = run.wall, run.calls, run.peakKB
	if run.calls != 0 {
		r.fail("%d calls", run.calls)
	}
	if run.out.Usage.CachedCalls != m.sz.docs*3 {
		r.fail("%d cached replies, expected %d", run.out.Usage.CachedCalls, m.sz.docs*3)
	}
	if r.wall > 500*time.Millisecond {
		r.fail("wall %s > 0.5 s", fmtDuration(r.wall))
	}
	r.note = fmt.Sprintf("%d replies from the cache", run.out.Usage.CachedCalls)
	return r
}

// serial lints the project one call at a time, for comparison.
func (m *manyDocsRuns) serial() result {
	r := result{target: "comparison only"}
	if m.err != nil {
		r.err = m.err
		return r
	}
	srv := llmtest.NewServer(llmtest.WithLatency(m.sz.latency), llmtest.WithDefault(llmtest.Dynamic(modelReply)))
	defer srv.Close()
	run, err := m.b.lint(m.dir, srv, "--concurrency", "1", "--no-cache")
	if err != nil {
		r.err = err
		return r
	}
	r.fill(run, 1, m.sz.latency)
	if m.run.wall > 0 {
		r.note = fmt.Sprintf("%.1f× the wall time of concurrency %d", run.wall.Seconds()/m.run.wall.Seconds(), m.sz.concurrency)
	}
	return r
}

// commandScenarios time short commands: start-up, validate, parsing and scoring the corpus.
func (b *bench) commandScenarios(sz sizes) []scenario {
	return []scenario{
		scenario{name: "start-up: vectorlint version", timed: true, run: func() result {
			r := result{target: "≤ 30 ms (median)", calls: -1}
			var fastest time.Duration
			r.wall, fastest, r.peakKB, r.err = b.timeCommand(b.work, sz.startupRuns, "version")
			if r.err == nil && r.wall > 30*time.Millisecond {
				r.fail("%s > 30 ms", fmtDuration(r.wall))
			}
			r.note = fmt.Sprintf("median of %d runs (fastest %s)", sz.startupRuns, fmtDuration(fastest))
			return r
		}},
		scenario{name: "start-up: vectorlint validate, 8-rule pack", timed: true, run: func() result {
			r := result{target: "≤ 50 ms (median)", calls: -1}
			dir, err := b.validateProject()
			if err != nil {
				r.err = err
				return r
			}
			var fastest time.Duration
			r.wall, fastest, r.peakKB, r.err = b.timeCommand(dir, sz.startupRuns, "validate", "--config", "vectorlint.ini")
			if r.err == nil && r.wall > 50*time.Millisecond {
				r.fail("%s > 50 ms", fmtDuration(r.wall))
			}
			r.note = fmt.Sprintf("median of %d runs (fastest %s) on the corpus's VectorLint preset pack (8 rules)", sz.startupRuns, fmtDuration(fastest))
			return r
		}},
		scenario{name: "parse every corpus blueprint", timed: true, run: func() result {
			r := result{target: "≤ 1 s", calls: -1}
			rep, peak, err := b.child("parse", b.opts.shared)
			r.wall, r.peakKB, r.err = rep.Wall, peak, err
			if err == nil && r.wall > time.Second {
				r.fail("%s > 1 s", fmtDuration(r.wall))
			}
			r.note = fmt.Sprintf("%d files, %d parse (median of %d passes)", rep.Files, rep.Parsed, childRuns)
			return r
		}},
		scenario{name: "score every corpus function point", timed: true, run: func() result {
			r := result{target: "≤ 1 s", calls: -1}
			rep, peak, err := b.child("score", b.opts.shared)
			r.wall, r.peakKB, r.err = rep.Wall, peak, err
			if err == nil && r.wall > time.Second {
				r.fail("%s > 1 s", fmtDuration(r.wall))
			}
			r.note = fmt.Sprintf("%d function points in %d prompts (median of %d passes)", rep.Points, rep.Jobs, childRuns)
			return r
		}},
	}
}

// fill copies a lint run's measurements into r, with the bound of concurrency c and latency l.
func (r *result) fill(run lintRun, c int, l time.Duration) {
	r.wall, r.calls, r.peakKB = run.wall, run.calls, run.peakKB
	r.tokens = run.out.Usage.InputTokens + run.out.Usage.OutputTokens
	if run.out.Usage.Calls > 0 {
		r.perCall = float64(run.out.Usage.InputTokens) / float64(run.out.Usage.Calls)
	}
	r.bound = bound(run.calls, c, l)
}

var ruleName = regexp.MustCompile(`<rule name="([^"]+)">`)

// longDocument lints one long document with a semi-objective and a subjective rule and checks,
// from the requests the server received, that every line of the document was sent exactly once
// per rule, that no chunk has more than DefaultChunkWords words, and that the chunks ran in
// parallel.
func (b *bench) longDocument(sz sizes) result {
	r := result{target: "every chunk sent, no text dropped, chunks in parallel"}
	dir := filepath.Join(b.work, "long")
	text := longDocument(sz.longWords)
	if err := writeProject(dir, map[string]string{"guide.md": text}, "Wordiness", "Tone"); err != nil {
		r.err = err
		return r
	}
	srv := llmtest.NewServer(llmtest.WithLatency(sz.latency), llmtest.WithDefault(llmtest.Dynamic(modelReply)))
	defer srv.Close()
	run, err := b.lint(dir, srv, "--concurrency", fmt.Sprint(sz.concurrency), "--no-cache")
	if err != nil {
		r.err = err
		return r
	}
	r.fill(run, sz.concurrency, sz.latency)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	sent := map[string]map[string]int{} // rule → line text → times sent
	chunks := map[string]int{}
	maxWords := 0
	for _, req := range srv.Requests() {
		m := ruleName.FindStringSubmatch(req.System())
		if m == nil {
			r.fail("a request without a rule")
			continue
		}
		rule := m[1]
		chunks[rule]++
		if sent[rule] == nil {
			sent[rule] = map[string]int{}
		}
		words := 0
		// Each chunk is numbered from 1 (spec/linter.md §13).
		for i, l := range strings.Split(req.LastUser(), "\n") {
			nm := numberedLine.FindStringSubmatch(l)
			if nm == nil || atoi(nm[1]) != i+1 {
				r.fail("%s: line %d of a chunk sent as %q", rule, i+1, truncate(l, 60))
				continue
			}
			sent[rule][nm[2]]++
			words += len(strings.Fields(nm[2]))
		}
		maxWords = max(maxWords, words)
	}
	want := map[string]int{}
	for _, l := range lines {
		want[l]++
	}
	for _, rule := range []string{"Wordiness", "Tone"} {
		for l, n := range want {
			if sent[rule][l] != n {
				r.fail("%s: line %q sent %d times, the document has it %d times", rule, truncate(l, 60), sent[rule][l], n)
				break
			}
		}
		if len(sent[rule]) != len(want) {
			r.fail("%s: %d distinct lines sent, the document has %d", rule, len(sent[rule]), len(want))
		}
	}
	if maxWords > document.DefaultChunkWords {
		r.fail("a chunk of %d words (at most %d)", maxWords, document.DefaultChunkWords)
	}
	if chunks["Wordiness"] != chunks["Tone"] || chunks["Wordiness"] < 2 {
		r.fail("chunks per rule: %v", chunks)
	}
	inFlight := min(sz.concurrency, run.calls)
	if srv.MaxInFlight() < inFlight {
		r.fail("at most %d calls in flight, expected %d", srv.MaxInFlight(), inFlight)
	}
	r.note = fmt.Sprintf("%d chunks per rule of at most %d words, every line sent once per rule, up to %d calls in flight, first call %s after start",
		chunks["Wordiness"], maxWords, srv.MaxInFlight(), fmtDuration(run.firstCall))
	return r
}

// stream lints many small documents with one rule and checks peak memory and that results
// reached standard output while calls were still being made.
func (b *bench) stream(sz sizes) result {
	r := result{target: "peak memory ≤ 200 MB, results stream per file"}
	dir := filepath.Join(b.work, "stream")
	docs := map[string]string{}
	for i := range sz.streamDocs {
		docs[fmt.Sprintf("d%05d.md", i)] = sampleDocument(i)
	}
	if err := writeProject(dir, docs, "Wordiness"); err != nil {
		r.err = err
		return r
	}
	srv := llmtest.NewServer(llmtest.WithLatency(sz.streamL), llmtest.WithDefault(llmtest.Dynamic(modelReply)))
	defer srv.Close()
	run, err := b.lint(dir, srv, "--concurrency", fmt.Sprint(sz.streamC), "--no-cache")
	if err != nil {
		r.err = err
		return r
	}
	r.fill(run, sz.streamC, sz.streamL)
	if len(run.out.Files) != sz.streamDocs || run.calls != sz.streamDocs {
		r.fail("%d files reported and %d calls, expected %d", len(run.out.Files), run.calls, sz.streamDocs)
	}
	if r.peakKB > 200*1024 {
		r.fail("peak memory %.1f MB", float64(r.peakKB)/1024)
	}
	if run.firstResultCalls < 0 || run.firstResultCalls > run.calls/10 {
		r.fail("the first result came after %d of %d calls", run.firstResultCalls, run.calls)
	}
	r.note = fmt.Sprintf("first call %s after start; the first file's result reached stdout after %s, when %d of %d calls had been made",
		fmtDuration(run.firstCall), fmtDuration(run.firstResult), run.firstResultCalls, run.calls)
	return r
}

// validateProject is a project running the 8 rules of the corpus's VectorLint preset pack.
func (b *bench) validateProject() (string, error) {
	src := filepath.Join(b.opts.shared, "corpus", "vectorlint-rules", "head", "presets", "VectorLint")
	dir := filepath.Join(b.work, "validate")
	pack := filepath.Join(dir, "rules", "VectorLint")
	if err := os.MkdirAll(pack, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return "", fmt.Errorf("the corpus's preset pack: %w", err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(pack, e.Name()), data, 0o644); err != nil {
			return "", err
		}
		n++
	}
	if n != 8 {
		return "", fmt.Errorf("%s: expected 8 rules, found %d", src, n)
	}
	ini := "RulesPath = rules\n\n[**/*.md]\nRunRules = VectorLint\n"
	return dir, os.WriteFile(filepath.Join(dir, "vectorlint.ini"), []byte(ini), 0o644)
}
