package lint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/gitdiff"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/selection"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// changedProject is a repository's base commit: Acme runs everywhere, Beta on guides too, and
// guides/special.md has a setting of its own.
func changedProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = styles\nConcurrency = 4\n[**/*.md]\nRunRules = Acme\n\n" +
			"[guides/**/*.md]\nRunRules = Acme, Beta\n\n[guides/special.md]\nAcme.Wordiness.severity = error\n",
		"VECTORLINT.md":            "Write plainly.\n",
		"styles/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFind wordy phrases.\n",
		"styles/Acme/tone.md":      "---\nid: Tone\nname: Tone\n---\nFind a cold tone.\n",
		"styles/Beta/clarity.md":   "---\nid: Clarity\nname: Clarity\n---\nFind unclear sentences.\n",
		"docs/a.md":                "# A\n\nAlpha.\n",
		"docs/b.md":                "# B\n\nBravo.\n",
		"docs/old.md":              "# Old\n\nA file that will move.\nIt has several lines.\nSo a rename is found.\n",
		"docs/gone.md":             "# Gone\n",
		"guides/g1.md":             "# G1\n",
		"guides/special.md":        "# Special\n",
		"notes.txt":                "not a document\n",
	}
}

// changedRepo commits changedProject on main, then applies change on a branch "pr" (committed)
// and returns the repository.
func changedRepo(t *testing.T, change func(dir string)) string {
	t.Helper()
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	testutil.WriteFiles(t, dir, changedProject())
	testutil.GitCommitAll(t, dir, "base")
	testutil.Git(t, dir, "checkout", "-q", "-b", "pr")
	change(dir)
	testutil.GitCommitAll(t, dir, "pr")
	return dir
}

// planChanged loads the project found from dir, plans paths and selects what changed since
// main.
func planChanged(t *testing.T, repo, dir string, lines bool, paths ...string) (*Plan, selection.ChangeSelection, error) {
	t.Helper()
	opts, err := config.FindProject(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	proj, err := config.LoadProject(opts)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: paths, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := SelectChanged(context.Background(), plan, proj, selection.ChangedOptions{Dir: dir, Ref: "main", Lines: lines})
	if err == nil {
		base := strings.TrimSpace(testutil.Git(t, repo, "rev-parse", "main"))
		if sel.MergeBase != base {
			t.Errorf("merge base %s, want main = %s", sel.MergeBase, base)
		}
	}
	return plan, sel, err
}

func planPaths(p *Plan) []string {
	var out []string
	for _, f := range p.Files {
		out = append(out, f.Path)
	}
	return out
}

func TestSelectChanged(t *testing.T) {
	t.Parallel()
	write := func(files map[string]string) func(string) {
		return func(dir string) { testutil.WriteFiles(t, dir, files) }
	}
	all := []string{"docs/a.md", "docs/b.md", "docs/gone.md", "docs/old.md", "guides/g1.md", "guides/special.md"}
	tests := []struct {
		name   string
		change func(dir string)
		sub    string // the working directory, relative to the repository
		paths  []string
		want   []string
		sel    selection.ChangeSelection
	}{
		{
			name: "documents: modified, added, renamed, deleted",
			change: func(dir string) {
				testutil.WriteFiles(t, dir, map[string]string{"docs/a.md": "# A\n\nAlpha, changed.\n", "docs/new.md": "# New\n",
					"notes.txt": "changed, but no section lints it\n"})
				testutil.Git(t, dir, "mv", "docs/old.md", "docs/moved.md")
				testutil.Git(t, dir, "rm", "-q", "docs/gone.md")
			},
			want: []string{"docs/a.md", "docs/moved.md", "docs/new.md"},
			sel:  selection.ChangeSelection{Planned: 6, Files: 3, Changed: 3},
		},
		{
			name:   "a rule of a pack changed: every file that runs the pack",
			change: write(map[string]string{"styles/Beta/clarity.md": "---\nid: Clarity\nname: Clarity\n---\nFind unclear sentences, strictly.\n"}),
			want:   []string{"guides/g1.md", "guides/special.md"},
			sel:    selection.ChangeSelection{Planned: 6, Files: 2, ByRules: 2},
		},
		{
			name:   "a rule removed from a pack",
			change: func(dir string) { testutil.Git(t, dir, "rm", "-q", "styles/Acme/tone.md") },
			want:   all,
			sel:    selection.ChangeSelection{Planned: 6, Files: 6, ByRules: 6},
		},
		{
			name:   "a section's setting changed: the files it applies to",
			change: write(map[string]string{"vectorlint.ini": strings.Replace(changedProject()["vectorlint.ini"], "severity = error", "severity = warning", 1)}),
			want:   []string{"guides/special.md"},
			sel:    selection.ChangeSelection{Planned: 6, Files: 1, ByConfig: 1},
		},
		{
			name: "a section added that disables a rule for some files",
			change: write(map[string]string{"vectorlint.ini": changedProject()["vectorlint.ini"] +
				"\n[docs/b.md]\nAcme.Tone = disabled\n"}),
			want: []string{"docs/b.md"},
			sel:  selection.ChangeSelection{Planned: 6, Files: 1, ByConfig: 1},
		},
		{
			name:   "a global setting that changes results: every file",
			change: write(map[string]string{"vectorlint.ini": "DefaultSeverity = error\n" + changedProject()["vectorlint.ini"]}),
			want:   all,
			sel:    selection.ChangeSelection{Planned: 6, Files: 6, Everything: "vectorlint.ini: DefaultSeverity changed"},
		},
		{
			name:   "a global setting that changes no result: nothing",
			change: write(map[string]string{"vectorlint.ini": strings.Replace(changedProject()["vectorlint.ini"], "Concurrency = 4", "Concurrency = 2", 1)}),
			want:   nil,
			sel:    selection.ChangeSelection{Planned: 6},
		},
		{
			name:   "the style guide changed: every file",
			change: write(map[string]string{"VECTORLINT.md": "Write plainly and warmly.\n", "docs/b.md": "# B\n\nBravo!\n"}),
			want:   all,
			sel:    selection.ChangeSelection{Planned: 6, Files: 6, Changed: 1, Everything: "the style guide VECTORLINT.md changed"},
		},
		{
			name:   "run from a subfolder: git's paths map to the lint's",
			change: write(map[string]string{"docs/b.md": "# B\n\nBravo!\n", "guides/g1.md": "# G1 changed\n"}),
			sub:    "docs",
			paths:  []string{"."},
			want:   []string{"b.md"},
			sel:    selection.ChangeSelection{Planned: 4, Files: 1, Changed: 1},
		},
		{
			name:   "nothing changed",
			change: func(string) {},
			want:   nil,
			sel:    selection.ChangeSelection{Planned: 6},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := changedRepo(t, tt.change)
			paths := tt.paths
			if paths == nil {
				paths = []string{"docs", "guides", "notes.txt"}
			}
			plan, sel, err := planChanged(t, repo, filepath.Join(repo, tt.sub), false, paths...)
			if err != nil {
				t.Fatal(err)
			}
			if got := planPaths(plan); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("files %v, want %v", got, tt.want)
			}
			tt.sel.MergeBase = sel.MergeBase
			if sel != tt.sel {
				t.Errorf("selection %+v, want %+v", sel, tt.sel)
			}
		})
	}
}

func TestSelectChangedUncommittedWork(t *testing.T) {
	t.Parallel()
	// Edits not yet committed, and new files not yet added, differ from the base too.
	repo := changedRepo(t, func(string) {})
	testutil.WriteFiles(t, repo, map[string]string{"docs/a.md": "# A\n\nEdited.\n", "docs/draft.md": "# Draft\n"})
	plan, sel, err := planChanged(t, repo, repo, false, "docs")
	if err != nil {
		t.Fatal(err)
	}
	if got := planPaths(plan); !reflect.DeepEqual(got, []string{"docs/a.md", "docs/draft.md"}) || sel.Changed != 2 {
		t.Errorf("files %v, selection %+v", got, sel)
	}
}

func TestSelectChangedErrors(t *testing.T) {
	t.Parallel()
	testutil.RequireGit(t)
	outside := t.TempDir()
	testutil.WriteFiles(t, outside, changedProject())
	_, _, err := planChanged(t, outside, outside, false, "docs")
	var nr *gitdiff.NotRepositoryError
	if !errors.As(err, &nr) {
		t.Errorf("outside a repository: %v", err)
	}

	repo := changedRepo(t, func(string) {})
	proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(repo, "vectorlint.ini")})
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"nope":     `unknown revision "nope"`,
		"-x":       `REF "-x": a revision may not start with "-"`,
		"main pr":  "white space",
		"HEAD~100": `unknown revision "HEAD~100"`,
	} {
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: repo, Paths: []string{"docs"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = SelectChanged(context.Background(), plan, proj, selection.ChangedOptions{Dir: repo, Ref: ref})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ref %q: %v, want %q", ref, err, want)
		}
	}

	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: repo, Paths: []string{"-"}, StdinFilename: "docs/a.md",
		Stdin: strings.NewReader("# A\n")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = SelectChanged(context.Background(), plan, proj, selection.ChangedOptions{Dir: repo, Ref: "main"})
	if err == nil || err.Error() != "docs/a.md is read from standard input: it cannot be compared with git" {
		t.Errorf("standard input: %v", err)
	}
}

// longDoc is a document of paras paragraphs of 100 words (2 lines each, then a blank line):
// 5 paragraphs to a chunk, paragraph i on lines 3i+1 and 3i+2.
func longDoc(paras int, edit map[int]string) string {
	var b strings.Builder
	b.WriteString("# Long\n\n")
	for i := range paras {
		if s, ok := edit[i]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "Paragraph %d starts%s\nand in order to end%s\n\n", i, strings.Repeat(" w", 48), strings.Repeat(" v", 46))
	}
	return b.String()
}

// TestChangedLines evaluates a pull request with --changed-lines against the fake server: only
// the chunks with a changed line are sent, only findings on changed lines are reported, the
// score of a text sent in part is marked partial, and a rule whose text did not change (the
// headline) does not run.
func TestChangedLines(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"vectorlint.ini":       "RulesPath = styles\nChunkWords = 500\n[**/*.md]\nRunRules = Acme\n",
		"styles/Acme/words.md": "---\nid: Words\nname: Words\nseverity: error\n---\nFind wordy phrases.\n",
		"styles/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\n" +
			"target: {regex: '^#\\s+(.+)$', group: 1, required: true}\n" +
			"criteria: [{id: Clarity, name: Clarity}]\n---\nRate the headline.\n",
		"long.md":  longDoc(20, nil),
		"short.md": "# Short\n\nOne line.\nTwo lines in order to test.\n",
		"same.md":  "# Same\n\nUnchanged.\n",
	}
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	testutil.WriteFiles(t, dir, files)
	testutil.GitCommitAll(t, dir, "base")
	testutil.Git(t, dir, "checkout", "-q", "-b", "pr")
	// long.md: paragraph 12 (lines 39-40, in the fourth chunk of at most 500 words) is
	// rewritten; short.md: line 3.
	testutil.WriteFiles(t, dir, map[string]string{
		"long.md":  longDoc(20, map[int]string{12: "Paragraph 12 was rewritten in order to say more" + strings.Repeat(" x", 40) + "\nand end" + strings.Repeat(" y", 48) + "\n\n"}),
		"short.md": "# Short\n\nOne line, changed in order to test.\nTwo lines in order to test.\n",
	})
	testutil.GitCommitAll(t, dir, "pr")

	plan, sel, err := planChanged(t, dir, dir, true, ".")
	if err != nil {
		t.Fatal(err)
	}
	if got := planPaths(plan); !reflect.DeepEqual(got, []string{"long.md", "short.md"}) || sel.Changed != 2 {
		t.Fatalf("files %v, selection %+v", got, sel)
	}

	srv := llmtest.Start(t)
	words := llmtest.SystemContains(`<rule name="Words">`)
	// The chunk of long.md that holds line 39: a violation on that changed line and one on line
	// 44, in the same chunk but unchanged (reported nowhere, but counted in the score of the
	// text sent: 2 violations in the chunk's 405 words).
	// The chunk is lines 39-50, numbered from 1 as the model is sent it.
	srv.On(llmtest.All(words, llmtest.UserContains("1\tParagraph 12 was rewritten")), violationsOf(
		map[string]any{"quoted_text": "in order to", "line": 1, "message": "Changed line."},
		map[string]any{"quoted_text": "in order to", "line": 6, "message": "Unchanged line."},
	))
	srv.On(llmtest.All(words, llmtest.UserContains("3\tOne line, changed")), violationsOf(
		map[string]any{"quoted_text": "in order to", "line": 3, "message": "Changed line."},
		map[string]any{"quoted_text": "in order to", "line": 4, "message": "Unchanged line."},
		map[string]any{"quoted_text": "not in the text", "line": 4, "message": "Unverified, unchanged line."},
		map[string]any{"quoted_text": "also not in the text", "line": 3, "message": "Unverified, changed line."},
	))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))

	// The plan says what will be sent before anything is: one chunk of long.md's five.
	plan.Prepare()
	if got := plan.Calls(); got != 2 {
		t.Errorf("plan.Calls() = %d, want 2 (one chunk of long.md, short.md)", got)
	}
	got, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls(); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.System(), `<rule name="Headline">`) {
			t.Errorf("the headline rule ran, though no headline changed")
		}
	}
	want := `long.md
  39:28-39:39 error Acme.Words "in order to" "Changed line."
  score Acme.Words semi-objective 9.5 (2 in 405 words, strictness 10) partial
short.md
  3:19-3:30 error Acme.Words "in order to" "Changed line."
  score Acme.Words semi-objective 0.0 (2 in 15 words, strictness 10)
  unverified Acme.Words line 3 "also not in the text"`
	if g := renderChanged(got); g != want {
		t.Errorf("results:\n%s\nwant:\n%s", g, want)
	}
}

// renderChanged is renderResults with each score's partial mark.
func renderChanged(frs []finding.FileResult) string {
	out := renderResults(frs)
	for _, fr := range frs {
		for _, s := range fr.Scores {
			if s.Partial {
				out = strings.Replace(out, "score "+s.Rule+" ", "score "+s.Rule+" \x00", 1)
			}
		}
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "\x00") {
			lines[i] = strings.Replace(l, "\x00", "", 1) + " partial"
		}
	}
	return strings.Join(lines, "\n")
}

func TestChangedLinesAddedFile(t *testing.T) {
	t.Parallel()
	// A new file is changed on every line: every rule runs, on every chunk, with a whole score,
	// and a missing required target (reported at 1:1) is reported.
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	testutil.WriteFiles(t, dir, map[string]string{
		"vectorlint.ini":       "RulesPath = styles\nChunkWords = 500\n[**/*.md]\nRunRules = Acme\n",
		"styles/Acme/words.md": "---\nid: Words\nname: Words\n---\nFind wordy phrases.\n",
		"styles/Acme/title.md": "---\nid: Title\nname: Title\ntarget: {regex: '^#\\s+(.+)$', required: true}\n---\nCheck the title.\n",
	})
	testutil.GitCommitAll(t, dir, "base")
	testutil.WriteFiles(t, dir, map[string]string{"new.md": longDoc(12, nil)[len("# Long\n\n"):]})
	plan, _, err := planChanged(t, dir, dir, true, ".")
	if err != nil {
		t.Fatal(err)
	}
	plan.Prepare()
	if got := plan.Calls(); got != 3 {
		t.Errorf("plan.Calls() = %d, want 3 (every chunk)", got)
	}
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	got, _, err := evaluate(t, srv, plan, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `new.md
  1:1-1:1 warning Acme.Title "" "target not found"
  score Acme.Title semi-objective 0.0
  score Acme.Words semi-objective 10.0 (0 in 1224 words, strictness 10)`
	if g := renderChanged(got); g != want {
		t.Errorf("results:\n%s\nwant:\n%s", g, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.md")); err != nil {
		t.Fatal(err)
	}
}

// TestChangedLinesCriteriaAndDeletions covers the other cases of --changed-lines: a subjective
// rule whose criteria have texts of their own (the one with a changed line is sent in part, the
// other whole, so both are rated), a file whose only change deletes lines (no rule runs on it,
// nothing is reported, no call), and the dry run's estimate naming the chunks sent.
func TestChangedLinesCriteriaAndDeletions(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"vectorlint.ini": "RulesPath = styles\n[**/*.md]\nRunRules = Acme\n",
		"styles/Acme/tone.md": "---\nid: Tone\nname: Tone\ntype: subjective\n" +
			"criteria:\n" +
			"  - {id: Title, name: Title, target: {regex: '^#\\s+(.+)$', group: 1}}\n" +
			"  - {id: Body, name: Body, target: {regex: '^## Body\\n([\\s\\S]+)', group: 1}}\n" +
			"---\nRate the tone.\n",
		"long.md": "# Title\n\n## Body\n" + longDoc(20, nil)[len("# Long\n\n"):],
		"cut.md":  "# Cut\n\nOne.\nTwo.\nThree.\n",
	}
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	testutil.WriteFiles(t, dir, files)
	testutil.GitCommitAll(t, dir, "base")
	testutil.WriteFiles(t, dir, map[string]string{
		"long.md": "# Title\n\n## Body\n" + longDoc(20, map[int]string{15: "Paragraph 15 is new and short.\nIt has two lines.\n\n"})[len("# Long\n\n"):],
		"cut.md":  "# Cut\n\nOne.\nThree.\n",
	})
	plan, sel, err := planChanged(t, dir, dir, true, ".")
	if err != nil {
		t.Fatal(err)
	}
	if got := planPaths(plan); !reflect.DeepEqual(got, []string{"cut.md", "long.md"}) || sel.Changed != 2 {
		t.Fatalf("files %v, selection %+v", got, sel)
	}
	plan.Prepare()
	if n := len(plan.Files[0].Rules); n != 0 {
		t.Errorf("cut.md: %d rules run; a deletion changes no line", n)
	}
	// long.md: the title's text is sent whole (1 call), the body's only in its changed chunk.
	if got := plan.Calls(); got != 2 {
		t.Errorf("plan.Calls() = %d, want 2", got)
	}
	est := plan.Files[1].Rules[0]
	var lines []string
	for _, u := range est.Units {
		lines = append(lines, est.Kind.Estimate(est, u).Lines...)
	}
	if !strings.HasPrefix(strings.Join(lines, "\n"), "1 LLM call, ~") || !strings.Contains(strings.Join(lines, "\n"), "1 LLM call for the chunks holding a changed line, ~") {
		t.Errorf("estimate lines:\n%s", strings.Join(lines, "\n"))
	}

	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Reply{Func: func(r *llmtest.Request) llmtest.Reply {
		id := "Title" // the title's text is "1\tTitle", the body's is paragraphs
		if strings.Contains(r.LastUser(), "Paragraph") {
			id = "Body"
		}
		return llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": id, "score": 4, "summary": "Fine."}}})
	}})
	got, _, err := evaluate(t, srv, plan, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 2 {
		t.Errorf("%d calls, want 2", srv.Calls())
	}
	want := `cut.md
long.md
  score Acme.Tone subjective 10.0 Title=4/10.0×1 Body=4/10.0×1 partial`
	if g := renderChanged(got); g != want {
		t.Errorf("results:\n%s\nwant:\n%s", g, want)
	}
}
