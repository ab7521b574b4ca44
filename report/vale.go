package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
)

// valeAction is Vale's suggested fix: Name "replace" with the replacement as the only parameter
// (what Vale writes for its substitution rules, and what Vale's editor integrations apply), or an
// empty Name when there is no fix.
type valeAction struct {
	Name   string
	Params []string
}

// valeAlert mirrors Vale's core.Alert as Vale serialises it (field order and capitalised keys
// included), so editor plugins written for `vale --output=JSON` read it unchanged.
type valeAlert struct {
	Action      valeAction
	Span        [2]int
	Check       string
	Description string
	Link        string
	Message     string
	Severity    string
	Match       string
	Line        int
}

// valeWriter prints `{"path": [alerts]}` like `vale --output=JSON`: files with no finding are left
// out, and a run without findings prints {}.
type valeWriter struct {
	*stream
	problems
	written int
}

// File writes the file's alerts as one member of the top-level object.
func (v *valeWriter) File(fr finding.FileResult) error {
	if err := v.begin(fr); err != nil {
		return err
	}
	v.report(fr)
	if len(fr.Findings) == 0 {
		return v.end()
	}
	alerts := make([]valeAlert, len(fr.Findings))
	for i, f := range fr.Findings {
		alerts[i] = toValeAlert(f)
	}
	b, err := json.MarshalIndent(alerts, "  ", "  ")
	if err != nil {
		return fmt.Errorf("report: %s: %w", fr.Path, err)
	}
	key, err := json.Marshal(fr.Path)
	if err != nil {
		return err
	}
	if v.written == 0 {
		v.out.WriteString("{\n  ")
	} else {
		v.out.WriteString(",\n  ")
	}
	v.written++
	v.out.Write(key)
	v.out.WriteString(": ")
	v.out.Write(b)
	return v.end()
}

// Finish closes the object.
func (v *valeWriter) Finish(finding.Totals) error {
	if err := v.finish(); err != nil {
		return err
	}
	if v.written == 0 {
		v.out.WriteString("{}\n")
	} else {
		v.out.WriteString("\n}\n")
	}
	return v.out.Flush()
}

// toValeAlert converts a finding. Vale collapses whitespace in messages, so the message is one
// line; the suggestion goes in Description (Vale's "why the message matters"), never in Link.
func toValeAlert(f finding.Finding) valeAlert {
	a := valeAlert{
		Span:        valeSpan(f),
		Check:       f.Rule,
		Description: f.Suggestion,
		Message:     strings.Join(strings.Fields(f.Message), " "),
		Severity:    f.Severity.String(),
		Match:       f.Match,
		Line:        f.Start.Line,
	}
	if text, ok := f.Replacement(); ok {
		a.Action = valeAction{Name: "replace", Params: []string{text}}
	}
	return a
}

// valeSpan is Vale's Span: [first, last] column of the match on its start line, 1-based, in
// code points, with an inclusive end (Vale computes `col + len(match) - 1` in runes). A match
// that runs past its line ends at the line's last character, as Vale clamps it; an empty match
// is [col, col].
func valeSpan(f finding.Finding) [2]int {
	start := f.Start.Column
	var end int
	if f.End.Line == f.Start.Line {
		end = f.End.Column - 1
	} else {
		first, _, _ := strings.Cut(f.Match, "\n")
		first = strings.TrimSuffix(first, "\r")
		end = start + utf8.RuneCountInString(first) - 1
	}
	if end < start {
		end = start
	}
	return [2]int{start, end}
}
