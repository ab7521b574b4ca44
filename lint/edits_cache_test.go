package lint

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// editDoc is a 20,000-word document: a heading every six paragraphs, paragraphs of three to
// seven lines, one sentence a line. Paragraph 200 holds the marked phrase the fake model flags.
func editDoc(edit func(paras []string) []string) string {
	subjects := []string{"The build", "Each request", "The cache", "A reviewer", "The parser", "Every rule", "The server", "A chunk"}
	verbs := []string{"reads", "writes", "checks", "skips", "counts", "sends", "keeps", "drops"}
	objects := []string{"the configuration file", "every line of the text", "the reply from the model", "a list of findings",
		"the headings in order", "the style guide once", "the words of each paragraph", "nothing it does not need"}
	var paras []string
	words, s := 0, 0
	for i := 0; words < 20000; i++ {
		if i%6 == 0 {
			paras = append(paras, fmt.Sprintf("## Section %d on %s\n", i/6+1, objects[(i/6)%len(objects)]))
			words += 4 + len(strings.Fields(objects[(i/6)%len(objects)]))
			continue
		}
		var b strings.Builder
		for k := 0; k < 3+i%5; k++ {
			line := fmt.Sprintf("%s %s %s in step %d of part %d.\n", subjects[s%len(subjects)], verbs[(s/3)%len(verbs)], objects[(s/7)%len(objects)], s%13, i)
			if i == 200 && k == 1 {
				line = "In order to finish, the marked phrase stands here.\n"
			}
			b.WriteString(line)
			words += len(strings.Fields(line))
			s++
		}
		paras = append(paras, b.String())
	}
	if edit != nil {
		paras = edit(paras)
	}
	return strings.Join(paras, "\n")
}

// TestEditsWarmCache runs a 20,000-word document through two rules against the fake server
// with a reply cache, then edits it and runs again (spec/linter.md §13, "Requests that do not
// depend on position"): a paragraph inserted or deleted near the top costs at most 2 calls per
// rule, a line edited in place 1; every other chunk's request is byte-identical and answered
// from the cache. The finding far down moves with the text: its line is exact in every run,
// though its reply came from the cache, given for the chunk numbered from 1.
func TestEditsWarmCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"vectorlint.ini":      "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\nseverity: error\n---\nFind wordy phrases.\n",
		"rules/Acme/tone.md":  "---\nid: Tone\nname: Tone\nseverity: warning\n---\nFind a cold tone.\n",
		"doc.md":              editDoc(nil),
	})
	srv := llmtest.Start(t)
	// The model flags the marked phrase, at its line within the chunk it was sent.
	srv.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		user := ""
		for _, m := range r.Messages {
			if m.Role == "user" && strings.Contains(m.Content, "1\t") {
				user = m.Content
			}
		}
		for _, l := range strings.Split(user, "\n") {
			n, text, _ := strings.Cut(l, "\t")
			if strings.HasPrefix(text, "In order to finish") {
				var line int
				fmt.Sscan(n, &line)
				return violationsOf(map[string]any{"quoted_text": "In order to", "line": line, "message": "Wordy."})
			}
		}
		return llmtest.JSON(map[string]any{"violations": []any{}})
	}))
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	opts := EvalOptions{Client: client, Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}, ConfidenceThreshold: 0.75}
	// run lints doc.md as it is and returns the calls the server got and the marked finding's
	// line (both rules report it).
	run := func(label string) (calls, line int) {
		t.Helper()
		proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"doc.md"}})
		if err != nil {
			t.Fatal(err)
		}
		before := srv.Calls()
		got, _, err := evaluate(t, nil, plan, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || len(got[0].Findings) != 2 {
			t.Fatalf("%s: results:\n%s", label, renderResults(got))
		}
		return srv.Calls() - before, got[0].Findings[0].Start.Line
	}
	markedLine := func(doc string) int {
		for i, l := range strings.Split(doc, "\n") {
			if strings.HasPrefix(l, "In order to finish") {
				return i + 1
			}
		}
		return 0
	}
	cold, line := run("cold")
	chunks := cold / 2
	t.Logf("cold run: %d calls", cold)
	if chunks < 14 || cold != 2*chunks {
		t.Fatalf("cold run: %d calls, want one per chunk of at most 1,500 words for each of 2 rules", cold)
	}
	if want := markedLine(editDoc(nil)); line != want {
		t.Errorf("cold run: the finding is on line %d, want %d", line, want)
	}
	if warm, _ := run("warm"); warm != 0 {
		t.Errorf("the same document again: %d calls, want 0", warm)
	}
	inserted := "This paragraph was added near the top.\nIt explains why the flag exists.\n"
	edits := []struct {
		name     string
		edit     func([]string) []string
		maxCalls int
	}{
		{"a paragraph inserted near the top", func(p []string) []string {
			return append(append(append([]string{}, p[:3]...), inserted), p[3:]...)
		}, 2 * 2},
		{"a paragraph deleted near the top", func(p []string) []string {
			return append(append([]string{}, p[:4]...), p[5:]...)
		}, 2 * 2},
		{"a line edited in place", func(p []string) []string {
			p = append([]string{}, p...)
			lines := strings.SplitAfter(p[8], "\n")
			lines[1] = "This line was rewritten in place to explain the new flag.\n"
			p[8] = strings.Join(lines, "")
			return p
		}, 1 * 2},
	}
	for _, e := range edits {
		doc := editDoc(e.edit)
		testutil.WriteFiles(t, dir, map[string]string{"doc.md": doc})
		calls, line := run(e.name)
		t.Logf("%s: %d calls", e.name, calls)
		if calls < 2 || calls > e.maxCalls {
			t.Errorf("%s: %d calls, want 2 to %d (%d chunks a rule)", e.name, calls, e.maxCalls, chunks)
		}
		if want := markedLine(doc); line != want {
			t.Errorf("%s: the finding is on line %d, want %d", e.name, line, want)
		}
	}
}
