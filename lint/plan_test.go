package lint

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
)

const planConfig = `RulesPath = styles
[**/*.md]
RunRules = Acme

[docs/b.md]
Acme.Headline.severity = error
Acme.Wordiness.strictness = strict

[docs/drafts/**]
RunRules =

[docs/quiet.md]
Acme.Wordiness = disabled
Acme.Headline = disabled
Acme.Summary = disabled
Acme.Facts = disabled
`

var planFiles = map[string]string{
	"vectorlint.ini": planConfig,
	// Beside RulesPath, not in it: a document like any other.
	"styles-notes.md": "# Notes\n",
	"styles/Acme/headline.md": `---
id: Headline
name: Headline
type: subjective
target:
  regex: '^#\s+(.+)$'
  group: 1
  required: true
criteria:
  - {id: Clarity, name: Clarity, weight: 2}
  - {id: Intro, name: Intro, severity: error, target: {regex: '^## Intro$', required: true, suggestion: Add an Intro section.}}
  - {id: Tone, name: Tone, target: {regex: '^## Tone\n(.+)$', group: 1}}
  - {id: Same, name: Same, target: {regex: '^#\s+(.+)$', flags: mu, group: 1}}
---
Rate the headline.
`,
	"styles/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFind wordy phrases.\n",
	"styles/Acme/summary.md": `---
id: Summary
name: Summary
severity: error
evaluateAs: document
target:
  regex: '^## Summary\n([\s\S]+)'
  group: 1
  required: true
---
Check the summary.
`,
	"styles/Acme/facts.md": "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\ntype: subjective\ncriteria: [{id: Ratio, name: Ratio}]\n---\nCheck facts.\n",
	// Line 4 holds the H1; "é" is 2 bytes and "👋🏽" 8 bytes / 2 code points.
	"docs/a.md":        "---\ntitle: Café\n---\n# Héllo 👋🏽 wörld\n\n## Summary\nAll good.\n",
	"docs/b.md":        "No headline here.\n",
	"docs/drafts/c.md": "# Draft\n",
	"docs/quiet.md":    "# Quiet\n",
	"docs/bad.md":      "# Bad \xff\n",
	"notes.rst":        "# Notes\n",
}

// renderPlan prints a plan compactly so a test can compare all of it at once.
func renderPlan(p *Plan) []string {
	var out []string
	for _, f := range p.Files {
		if f.Err != nil {
			out = append(out, fmt.Sprintf("%s [%s] error: %v", f.Path, f.RelPath, f.Err))
			continue
		}
		out = append(out, fmt.Sprintf("%s [%s]", f.Path, f.RelPath))
		for _, r := range f.Rules {
			line := fmt.Sprintf("  %s %s strictness=%g", r.ID, r.Severity, r.Strictness)
			if r.Err != nil {
				line += " error: " + r.Err.Error()
			}
			out = append(out, line)
			for _, u := range r.Units {
				var ids []string
				for _, c := range u.Criteria {
					ids = append(ids, c.ID)
				}
				if u.Missing != nil {
					m := u.Missing
					out = append(out, fmt.Sprintf("    missing %s %s %d:%d %q suggestion=%q criteria=%v", m.Rule, m.Severity, m.Start.Line, m.Start.Column, m.Message, m.Suggestion, ids))
					continue
				}
				out = append(out, fmt.Sprintf("    %q offset=%d line=%d whole=%v nosplit=%v criteria=%v", u.Text, u.Offset, u.Line, u.WholeDocument, u.NoSplit, ids))
			}
		}
	}
	for _, s := range p.Skipped {
		out = append(out, fmt.Sprintf("skipped %s: %s", s.Path, s.Reason))
	}
	return out
}

func loadTestProject(t *testing.T, files map[string]string) (string, *config.Project) {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, files)
	proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err != nil {
		t.Fatal(err)
	}
	return dir, proj
}

func TestBuildPlan(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs", "notes.rst"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"docs/a.md [docs/a.md]",
		"  Acme.Facts warning strictness=10 error: evaluator technical-accuracy needs a search model: set PERPLEXITY_API_KEY, or SEARCH_MODEL with PERPLEXITY_BASE_URL",
		// Intro's own required target is missing: one finding at 1:1 for the criterion, at the
		// criterion's severity. Clarity and Same select the same text: one unit.
		`  Acme.Headline warning strictness=10`,
		`    missing Acme.Headline.Intro error 1:1 "target not found" suggestion="Add an Intro section." criteria=[Intro]`,
		`    "# Héllo 👋🏽 wörld\n\n## Summary\nAll good.\n" offset=21 line=4 whole=true nosplit=false criteria=[Tone]`,
		`    "Héllo 👋🏽 wörld" offset=23 line=4 whole=false nosplit=false criteria=[Clarity Same]`,
		`  Acme.Summary error strictness=10`,
		`    "All good.\n" offset=58 line=7 whole=false nosplit=true criteria=[]`,
		`  Acme.Wordiness warning strictness=10`,
		`    "# Héllo 👋🏽 wörld\n\n## Summary\nAll good.\n" offset=21 line=4 whole=true nosplit=false criteria=[]`,
		"docs/b.md [docs/b.md]",
		"  Acme.Facts warning strictness=10 error: evaluator technical-accuracy needs a search model: set PERPLEXITY_API_KEY, or SEARCH_MODEL with PERPLEXITY_BASE_URL",
		// The severity override applies to the rule and to its criteria.
		`  Acme.Headline error strictness=10`,
		// Same's own target is the rule's regex but not required: the whole document.
		`    missing Acme.Headline error 1:1 "target not found" suggestion="Add the required section." criteria=[Clarity]`,
		`    missing Acme.Headline.Intro error 1:1 "target not found" suggestion="Add an Intro section." criteria=[Intro]`,
		`    "No headline here.\n" offset=0 line=1 whole=true nosplit=false criteria=[Tone Same]`,
		`  Acme.Summary error strictness=10`,
		`    missing Acme.Summary error 1:1 "target not found" suggestion="Add the required section." criteria=[]`,
		`  Acme.Wordiness warning strictness=20`,
		`    "No headline here.\n" offset=0 line=1 whole=true nosplit=false criteria=[]`,
		"docs/bad.md [docs/bad.md] error: docs/bad.md:1:7: expected UTF-8 text, found a byte that is not UTF-8 (offset 6)",
		"skipped docs/drafts/c.md: RunRules is empty in [docs/drafts/**]",
		"skipped docs/quiet.md: every rule of Acme is disabled for this file",
		"skipped notes.rst: no section of vectorlint.ini matches",
	}
	if got := renderPlan(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Positions of the target match are in the original file's coordinates.
	a := plan.Files[0]
	u := a.Rules[1].Units[2]
	if start, end := a.Doc.Position(u.Offset), a.Doc.Position(u.Offset+len(u.Text)); start != (finding.Position{Line: 4, Column: 3, ByteColumn: 3, Offset: 23}) ||
		end != (finding.Position{Line: 4, Column: 17, ByteColumn: 25, Offset: 45}) {
		t.Errorf("target span %+v to %+v", start, end)
	}
	if string(a.Doc.Source[u.Offset:u.Offset+len(u.Text)]) != u.Text {
		t.Error("unit offset does not point at its text in the source")
	}
	count := plan.Count()
	errs, warnings := count.Errors, count.Warnings
	if errs != 4 || warnings != 0 {
		t.Errorf("Count = %d errors, %d warnings; want 4, 0", errs, warnings)
	}
	// Facts cannot run on either file for the same reason: one error for the rule, with the
	// count of files (issue 32: the dry run said it once per file), then the bad file.
	var opErrs []string
	for _, e := range plan.OperationalErrors() {
		opErrs = append(opErrs, e.Error())
	}
	if want := []string{
		"Acme.Facts: evaluator technical-accuracy needs a search model: set PERPLEXITY_API_KEY, or SEARCH_MODEL with PERPLEXITY_BASE_URL (not run on 2 files)",
		"docs/bad.md:1:7: expected UTF-8 text, found a byte that is not UTF-8 (offset 6)",
	}; !reflect.DeepEqual(opErrs, want) {
		t.Errorf("OperationalErrors =\n%s\nwant\n%s", strings.Join(opErrs, "\n"), strings.Join(want, "\n"))
	}
	if nr := (*RuleNotRunError)(nil); !errors.As(plan.OperationalErrors()[0], &nr) || nr.Files != 2 || !errors.Is(nr, rules.ErrNoSearchModel) {
		t.Errorf("OperationalErrors()[0] = %#v, want a *RuleNotRunError for 2 files wrapping rules.ErrNoSearchModel", plan.OperationalErrors()[0])
	}
	// a.md: Headline 2 units + Summary 1 + Wordiness 1; b.md: Headline 1 + Wordiness 1.
	if n := plan.Calls(); n != 6 {
		t.Errorf("Calls = %d, want 6", n)
	}
}

// TestBuildPlanStdinReplacesFile: a document read from standard input under the name of a file
// that is also linted from disk replaces it (one result per path).
func TestBuildPlanStdinReplacesFile(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{
		Dir: dir, Paths: []string{"docs/b.md", "-", "docs"}, Stdin: strings.NewReader("# Buffer\n"), StdinFilename: "docs/b.md",
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range plan.Files {
		got = append(got, f.Path)
		if f.Path == "docs/b.md" && (f.Doc == nil || f.Doc.Body != "# Buffer\n") {
			t.Errorf("docs/b.md was read from disk, not from standard input")
		}
	}
	if strings.Join(got, " ") != "docs/a.md docs/b.md docs/bad.md" {
		t.Errorf("files %v", got)
	}
}

// Pre-commit names every staged Markdown file, rule files included: those under RulesPath are
// skipped with the reason, whatever the sections select, and documents still run.
func TestBuildPlanSkipsNamedRuleFiles(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{
		Dir: dir, Paths: []string{"styles/Acme/wordiness.md", filepath.Join(dir, "styles", "Acme", "summary.md"), "docs/b.md", "styles-notes.md"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range plan.Files {
		files = append(files, f.Path)
	}
	if got := strings.Join(files, " "); got != "docs/b.md styles-notes.md" {
		t.Errorf("linted %q, want %q", got, "docs/b.md styles-notes.md")
	}
	want := []finding.Skipped{
		{Path: "styles/Acme/summary.md", Reason: "in RulesPath: a rule file, not a document"},
		{Path: "styles/Acme/wordiness.md", Reason: "in RulesPath: a rule file, not a document"},
	}
	if !reflect.DeepEqual(plan.Skipped, want) {
		t.Errorf("skipped %+v, want %+v", plan.Skipped, want)
	}
}

func TestBuildPlanSearchModelAndStdin(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{
		Dir: filepath.Join(dir, "docs"), Paths: []string{"-"}, Stdin: strings.NewReader("# From stdin\n"),
		StdinFilename: "b.md", SearchModel: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := renderPlan(plan)
	want := []string{
		"b.md [docs/b.md]",
		"  Acme.Facts warning strictness=10",
		`    "# From stdin\n" offset=0 line=1 whole=true nosplit=false criteria=[Ratio]`,
		"  Acme.Headline error strictness=10",
		`    missing Acme.Headline.Intro error 1:1 "target not found" suggestion="Add an Intro section." criteria=[Intro]`,
		`    "# From stdin\n" offset=0 line=1 whole=true nosplit=false criteria=[Tone]`,
		`    "From stdin" offset=2 line=1 whole=false nosplit=false criteria=[Clarity Same]`,
		"  Acme.Summary error strictness=10",
		`    missing Acme.Summary error 1:1 "target not found" suggestion="Add the required section." criteria=[]`,
		"  Acme.Wordiness warning strictness=20",
		`    "# From stdin\n" offset=0 line=1 whole=true nosplit=false criteria=[]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBuildPlanErrors(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	tests := []struct {
		name string
		in   PlanInput
		want string
	}{
		{"stdin without a name", PlanInput{Paths: []string{"-"}}, "-: reading standard input needs --stdin-filename NAME (NAME picks the config section and is the reported path)"},
		{"stdin twice", PlanInput{Paths: []string{"-", "-"}, StdinFilename: "x.md"}, "-: standard input can be read only once"},
	}
	for _, tt := range tests {
		tt.in.Dir = dir
		_, err := BuildPlan(proj.Config, proj.Packs, tt.in)
		var pe *document.PathError
		if !errors.As(err, &pe) || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	_, err := BuildPlan(proj.Config, nil, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if ps, ok := config.IsProblems(err); !ok || len(ps) != 7 || !strings.HasSuffix(ps[0].Error(), `vectorlint.ini:3: RunRules: unknown pack "Acme" (no packs found in RulesPath)`) {
		t.Errorf("unknown pack: err = %v", err)
	}
}

// TestBuildPlanBadPaths: a PATH that names nothing to lint is that path's error in the plan
// (an operational error, exit 2), in path order among the files; the other arguments' files are
// planned as usual (issue 32: one missing path used to stop the run before any file was linted).
func TestBuildPlanBadPaths(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir,
		Paths: []string{"docs/nope.md", "docs/b.md", "gone/**/*.md", "docs/nope.md", "docs/*.txt", "docs/a.md"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fp := range plan.Files {
		line := fp.Path
		if fp.Err != nil {
			var pe *document.PathError
			if !errors.As(fp.Err, &pe) {
				t.Fatalf("%s: err %T, want *PathError", fp.Path, fp.Err)
			}
			line += " ! " + fp.Err.Error()
		}
		got = append(got, line)
	}
	want := []string{
		"docs/*.txt ! docs/*.txt: matches no file to lint (globs pick .md, .mdx, .markdown, .adoc, .asciidoc, .asc, .rst, .rest, .html, .htm, .xhtml, .txt files)",
		"docs/a.md",
		"docs/b.md",
		"docs/nope.md ! docs/nope.md: no such file or folder",
		"gone/**/*.md ! gone/**/*.md: no such folder gone (where the glob starts)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var bad []string
	for _, e := range plan.OperationalErrors() {
		if pe := (*document.PathError)(nil); errors.As(e, &pe) {
			bad = append(bad, pe.Arg)
		}
	}
	if want := []string{"docs/*.txt", "docs/nope.md", "gone/**/*.md"}; !reflect.DeepEqual(bad, want) {
		t.Errorf("operational errors of paths = %q, want %q", bad, want)
	}
}

func TestLoadProjectProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"vectorlint.ini":        "RulesPath = styles\nColour = red\n[**/*.md]\nRunRules = Acme\n",
		"styles/Acme/ok.md":     "---\nid: Ok\nname: Ok\ntype: subjective\ncriteria: [{id: A, name: A}]\n---\n# B <weight=1>\n",
		"styles/Acme/broken.md": "---\nid: Broken\nname: Broken\nseverity: fatal\n---\n",
	})
	_, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	ps, ok := config.IsProblems(err)
	if !ok {
		t.Fatalf("err = %v, want problems", err)
	}
	want := []string{
		`styles/Acme/broken.md:4: severity: expected "suggestion", "warning" or "error", found "fatal"`,
		`styles/Acme/ok.md:7: warning: rubric: heading "B" names no criterion declared in the frontmatter (expected the name or id of a criterion, found declared criteria: A)`,
		`vectorlint.ini:2: Colour: unknown global key (known keys: RulesPath, Concurrency, DefaultSeverity, Provider, Model, BaseURL, Temperature, ConfidenceThreshold, Timeout, CacheMaxSize, MaxDocumentWords, ChunkWords, Samples, Models, RulesPerCall)`,
	}
	if got := problemLines(ps, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	testutil.WriteFiles(t, dir, map[string]string{"vectorlint.ini": "RulesPath = nowhere\n"})
	_, err = config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	ps, _ = config.IsProblems(err)
	if got := problemLines(ps, dir); !reflect.DeepEqual(got, []string{`vectorlint.ini:1: RulesPath: expected an existing folder of rule packs (relative to the config file's folder), found "nowhere", which is not a folder`}) {
		t.Errorf("missing RulesPath: %v", got)
	}

	proj, err := config.LoadProject(config.ProjectOptions{RulesPath: filepath.Join(dir, "styles")})
	if ps, _ := config.IsProblems(err); len(ps) != 2 || proj.Config != nil || len(proj.Packs) != 1 || len(proj.Packs[0].Rules) != 1 {
		t.Errorf("rules only: %v %+v", err, proj)
	}
	if proj.Pack("Acme") == nil || proj.Pack("Nope") != nil {
		t.Error("Project.Pack lookup is wrong")
	}
	if _, err := config.LoadProject(config.ProjectOptions{RulesPath: filepath.Join(dir, "none")}); err == nil || !strings.HasPrefix(err.Error(), "cannot read the rules folder: ") {
		t.Errorf("missing rules folder: %v", err)
	}
}

func TestCriterionSeverity(t *testing.T) {
	t.Parallel()
	c := &rules.Criterion{ID: "C", Severity: finding.SeverityError}
	plain := &rules.Criterion{ID: "P"}
	pr := &PlannedRule{Severity: finding.SeverityWarning}
	if pr.CriterionSeverity(c) != finding.SeverityError || pr.CriterionSeverity(plain) != finding.SeverityWarning {
		t.Error("criterion severity without override")
	}
	pr.SeverityOverridden = true
	if pr.CriterionSeverity(c) != finding.SeverityWarning {
		t.Error("the configuration's override must apply to criteria")
	}
}

// TestMissingCriterionTargetSeverity: a criterion's own required target that is missing is
// reported at the criterion's severity when it sets one (spec §3 gives criteria a severity
// field), else at the rule's (spec §4); a severity override in the configuration wins for both.
func TestMissingCriterionTargetSeverity(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"vectorlint.ini": "RulesPath = styles\n[**/*.md]\nRunRules = Acme\n[loud.md]\nAcme.Guide.severity = error\n",
		"styles/Acme/guide.md": "---\nid: Guide\nname: Guide\ntype: subjective\nseverity: warning\ncriteria:\n" +
			"  - {id: Steps, name: Steps, target: {regex: '^## Steps$', required: true}}\n" +
			"  - {id: Faq, name: Faq, severity: error, target: {regex: '^## FAQ$', required: true}}\n---\nRate the guide.\n",
		"quiet.md": "# Guide\n",
		"loud.md":  "# Guide\n",
	}
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"quiet.md", "loud.md"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range plan.Files {
		for _, pr := range f.Rules {
			for _, m := range pr.Findings() {
				got[f.Path+" "+m.Rule] = m.Severity.String()
			}
		}
	}
	want := map[string]string{
		"quiet.md Acme.Guide.Steps": "warning", // no severity of its own: the rule's
		"quiet.md Acme.Guide.Faq":   "error",   // its own severity
		"loud.md Acme.Guide.Steps":  "error",   // the configuration's override
		"loud.md Acme.Guide.Faq":    "error",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("missing-target severities %v, want %v", got, want)
	}
	proj.Config.Sections[len(proj.Config.Sections)-1].Overrides[0].Severity = finding.SeverityWarning
	plan, _ = BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"loud.md"}})
	for _, pr := range plan.Files[0].Rules {
		for _, m := range pr.Findings() {
			if m.Severity != finding.SeverityWarning {
				t.Errorf("override to warning: %s at %s", m.Rule, m.Severity)
			}
		}
	}
}

// problemLines is each problem's message, with its file relative to dir.
func problemLines(ps finding.Problems, dir string) []string {
	var out []string
	for _, p := range ps {
		p.File = strings.TrimPrefix(p.File, dir+string(filepath.Separator))
		out = append(out, p.Error())
	}
	return out
}
