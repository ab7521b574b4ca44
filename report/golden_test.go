package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

// render prints r in the format with opts.
func render(t testing.TB, format string, opts Options, r finding.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(format, &buf, opts, r); err != nil {
		t.Fatalf("Write(%s): %v", format, err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	tests := []struct {
		golden string
		format string
		opts   Options
		result finding.Result
	}{
		{"line.golden", FormatLine, Options{}, r},
		{"line-verbose.golden", FormatLine, Options{Verbose: true}, r},
		{"line-color.golden", FormatLine, Options{Color: true}, r},
		{"line-clean.golden", FormatLine, Options{}, cleanFixture()},
		{"json.golden", FormatJSON, Options{}, r},
		{"json-clean.golden", FormatJSON, Options{}, cleanFixture()},
		{"vale-json.golden", FormatValeJSON, Options{}, r},
		{"vale-json-clean.golden", FormatValeJSON, Options{}, cleanFixture()},
		{"rdjson.golden", FormatRDJSON, Options{}, r},
		{"rdjson-clean.golden", FormatRDJSON, Options{}, cleanFixture()},
		{"rdjsonl.golden", FormatRDJSONL, Options{}, r},
		{"github.golden", FormatGitHub, Options{}, r},
		{"sarif.golden", FormatSARIF, Options{}, r},
		// Rule descriptors from the rule files: name, first sentence, first paragraph, body.
		{"sarif-rules.golden", FormatSARIF, Options{Rules: fixtureRules(t)}, r},
		{"junit.golden", FormatJUnit, Options{}, r},
		// A run whose model server could not be reached: the cause once, with the count.
		{"line-stopped.golden", FormatLine, Options{}, stoppedFixture()},
		{"json-stopped.golden", FormatJSON, Options{}, stoppedFixture()},
		{"github-stopped.golden", FormatGitHub, Options{}, stoppedFixture()},
		{"sarif-stopped.golden", FormatSARIF, Options{}, stoppedFixture()},
		{"junit-stopped.golden", FormatJUnit, Options{}, stoppedFixture()},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			golden(t, tt.golden, render(t, tt.format, tt.opts, tt.result))
		})
	}
}

// TestGoldenFixes shows the shape of fixes in every format: an edit of the match, two edits
// inside it, an insertion, and a finding without a fix.
func TestGoldenFixes(t *testing.T) {
	t.Parallel()
	r := fixesFixture(t)
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			golden(t, "fixes-"+format+".golden", render(t, format, Options{}, r))
		})
	}
}

// TestGoldenStepSummary checks the Markdown table the github format appends to the step
// summary, after what earlier steps wrote there.
func TestGoldenStepSummary(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		golden string
		result finding.Result
	}{
		{"github-summary.golden", fixture(t)},
		{"github-summary-clean.golden", cleanFixture()},
		{"github-summary-stopped.golden", stoppedFixture()},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "summary.md")
			const earlier = "# Earlier step\n\nIts own text.\n"
			if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
				t.Fatal(err)
			}
			render(t, FormatGitHub, Options{StepSummaryPath: path}, tt.result)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte(earlier)) {
				t.Fatalf("the step summary lost what was there before:\n%s", got)
			}
			golden(t, tt.golden, got[len(earlier):])
		})
	}
}
