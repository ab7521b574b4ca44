package finding

import "encoding/json"

// findingJSON is the native JSON shape of a finding (docs/output-formats.md).
type findingJSON struct {
	Rule       string     `json:"rule"`
	Severity   Severity   `json:"severity"`
	Message    string     `json:"message"`
	Suggestion string     `json:"suggestion,omitempty"`
	Fix        string     `json:"fix,omitempty"`
	Match      string     `json:"match,omitempty"`
	Line       int        `json:"line"`
	Column     int        `json:"column"`
	EndLine    int        `json:"endLine"`
	EndColumn  int        `json:"endColumn"`
	Offset     int        `json:"offset"`
	EndOffset  int        `json:"endOffset"`
	Analysis   string     `json:"analysis,omitempty"`
	Edits      []TextEdit `json:"edits,omitempty"`
}

// MarshalJSON writes the native JSON shape with flat position fields, the fix's edits
// ("edits") when there is a fix, and "fix", the text that replaces the whole match, when the
// fix is that (Replacement).
func (f Finding) MarshalJSON() ([]byte, error) {
	fix, _ := f.Replacement()
	return json.Marshal(findingJSON{
		Rule: f.Rule, Severity: f.Severity, Message: f.Message, Suggestion: f.Suggestion, Fix: fix,
		Match: f.Match, Line: f.Start.Line, Column: f.Start.Column, EndLine: f.End.Line,
		EndColumn: f.End.Column, Offset: f.Start.Offset, EndOffset: f.End.Offset, Analysis: f.Analysis,
		Edits: f.Edits,
	})
}

// textEditJSON is the native JSON shape of an edit.
type textEditJSON struct {
	Offset    int    `json:"offset"`
	EndOffset int    `json:"endOffset"`
	NewText   string `json:"newText"`
}

// MarshalJSON writes {"offset", "endOffset", "newText"}: byte offsets in the file, end
// exclusive.
func (e TextEdit) MarshalJSON() ([]byte, error) {
	return json.Marshal(textEditJSON{Offset: e.Start.Offset, EndOffset: e.End.Offset, NewText: e.NewText})
}
