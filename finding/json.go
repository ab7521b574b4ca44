package finding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The native JSON output (docs/output-formats.md, "json"), written and read here with one set of
// wire structs: JSONWriter writes a run one file at a time, ReadJSON reads a document back into
// the Result it was written from (`vectorlint merge` joins the results of a sharded run).
//
// Score, CriterionScore, Unverified, RuleError, RunError, Skipped, Summary and Usage are their
// own wire shapes (their fields' tags). A file and a finding have wire structs of their own, for
// two reasons: a finding's position is written flat (line, column, offset, and the same for its
// end) and its fix as "fix" and "edits"; and the reader must tell a missing field from a zero
// one, so the fields the format always writes are pointers.

// fileJSON is a linted file in the json output.
type fileJSON struct {
	Path *string `json:"path"`
	// Findings are decoded one by one, so a problem names the finding.
	Findings   *[]json.RawMessage `json:"findings"`
	Scores     *[]Score           `json:"scores"`
	Unverified []Unverified       `json:"unverified,omitempty"`
	Errors     []RuleError        `json:"errors,omitempty"`
	NotRun     int                `json:"notRun,omitempty"`
	Ignored    int                `json:"ignored,omitempty"`
	Baselined  int                `json:"baselined,omitempty"`
}

// findingJSON is a finding in the json output: its position flat, its fix as "fix" (the text
// of one edit of the whole match: Replacement) and "edits".
type findingJSON struct {
	Rule       *string    `json:"rule"`
	Severity   *string    `json:"severity"`
	Message    *string    `json:"message"`
	Suggestion string     `json:"suggestion,omitempty"`
	Fix        string     `json:"fix,omitempty"`
	Match      string     `json:"match,omitempty"`
	Line       *int       `json:"line"`
	Column     *int       `json:"column"`
	EndLine    *int       `json:"endLine"`
	EndColumn  *int       `json:"endColumn"`
	Offset     *int       `json:"offset"`
	EndOffset  *int       `json:"endOffset"`
	Analysis   string     `json:"analysis,omitempty"`
	Edits      []editJSON `json:"edits,omitempty"`
	Votes      *Votes     `json:"votes,omitempty"`
}

// editJSON is an edit in the json output: byte offsets in the file, end exclusive.
type editJSON struct {
	Offset    *int    `json:"offset"`
	EndOffset *int    `json:"endOffset"`
	NewText   *string `json:"newText"`
}

// MarshalJSON writes the finding's native JSON shape. A finding without a valid severity (a
// forgotten one) is an error.
func (f Finding) MarshalJSON() ([]byte, error) {
	sev, err := f.Severity.MarshalText()
	if err != nil {
		return nil, err
	}
	s := string(sev)
	fix, _ := f.Replacement()
	w := findingJSON{
		Rule: &f.Rule, Severity: &s, Message: &f.Message, Suggestion: f.Suggestion, Fix: fix, Match: f.Match,
		Line: &f.Start.Line, Column: &f.Start.Column, EndLine: &f.End.Line, EndColumn: &f.End.Column,
		Offset: &f.Start.Offset, EndOffset: &f.End.Offset, Analysis: f.Analysis, Votes: f.Votes,
	}
	for i := range f.Edits {
		w.Edits = append(w.Edits, f.Edits[i].wire())
	}
	return json.Marshal(w)
}

// wire is the edit's native JSON shape.
func (e *TextEdit) wire() editJSON {
	return editJSON{Offset: &e.Start.Offset, EndOffset: &e.End.Offset, NewText: &e.NewText}
}

// MarshalJSON writes {"offset", "endOffset", "newText"}: byte offsets in the file, end
// exclusive.
func (e TextEdit) MarshalJSON() ([]byte, error) { return json.Marshal(e.wire()) }

// MarshalJSON writes the file's native JSON shape. Missing findings and scores are written as []
// rather than null: every linted file appears with both lists.
func (fr FileResult) MarshalJSON() ([]byte, error) {
	findings := make([]json.RawMessage, len(fr.Findings))
	for i, f := range fr.Findings {
		b, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		findings[i] = b
	}
	scores := fr.Scores
	if scores == nil {
		scores = []Score{}
	}
	return json.Marshal(fileJSON{Path: &fr.Path, Findings: &findings, Scores: &scores, Unverified: fr.Unverified,
		Errors: fr.Errors, NotRun: fr.NotRun, Ignored: fr.Ignored, Baselined: fr.Baselined})
}

// JSONWriter writes the native JSON document of a run one file at a time, so a run over ten
// thousand files keeps memory flat: byte for byte what json.MarshalIndent of the whole Result
// with a two-space indent would give. Call File once per file, in path order, then Finish once.
// It does not buffer: give it a buffered writer.
type JSONWriter struct {
	w       io.Writer
	version string
	started bool
	files   int
}

// NewJSONWriter returns a JSONWriter of a document written by the given vectorlint version.
func NewJSONWriter(w io.Writer, version string) *JSONWriter {
	return &JSONWriter{w: w, version: version}
}

// header opens the document and its "files" list, once.
func (j *JSONWriter) header() error {
	if j.started {
		return nil
	}
	j.started = true
	v, err := json.Marshal(j.version)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(j.w, "{\n  \"version\": %s,\n  \"files\": [", v)
	return err
}

// File writes one element of "files".
func (j *JSONWriter) File(fr FileResult) error {
	if err := j.header(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(fr, "    ", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", fr.Path, err)
	}
	sep := ",\n    "
	if j.files == 0 {
		sep = "\n    "
	}
	j.files++
	if _, err := io.WriteString(j.w, sep); err != nil {
		return err
	}
	_, err = j.w.Write(b)
	return err
}

// Finish closes "files" and writes "skipped" and "runErrors" (when any), "summary" and "usage".
func (j *JSONWriter) Finish(t Totals) error {
	if err := j.header(); err != nil {
		return err
	}
	end := "]"
	if j.files > 0 {
		end = "\n  ]"
	}
	if _, err := io.WriteString(j.w, end); err != nil {
		return err
	}
	if len(t.Skipped) > 0 {
		if err := j.field("skipped", t.Skipped); err != nil {
			return err
		}
	}
	if len(t.RunErrors) > 0 {
		if err := j.field("runErrors", t.RunErrors); err != nil {
			return err
		}
	}
	if err := j.field("summary", t.Summary); err != nil {
		return err
	}
	if err := j.field("usage", t.Usage); err != nil {
		return err
	}
	_, err := io.WriteString(j.w, "\n}\n")
	return err
}

// field writes `,\n  "name": value` indented as a top-level member.
func (j *JSONWriter) field(name string, v any) error {
	b, err := json.MarshalIndent(v, "  ", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if _, err := fmt.Fprintf(j.w, ",\n  %q: ", name); err != nil {
		return err
	}
	_, err = j.w.Write(b)
	return err
}

// WriteJSON writes a whole result as its native JSON document (JSONWriter, with r.Version).
func WriteJSON(w io.Writer, r Result) error {
	j := NewJSONWriter(w, r.Version)
	for _, fr := range r.Files {
		if err := j.File(fr); err != nil {
			return err
		}
	}
	return j.Finish(r.Totals)
}

// MaxJSONSize bounds a result document ReadJSON reads.
const MaxJSONSize = 256 << 20

// ReadError is a result document that is not vectorlint's json output.
type ReadError struct {
	// Name is the document's name (its file); Field the JSON path of the problem
	// ("files[2].findings[0].line"), "" for the document as a whole.
	Name, Field string
	Expected    string
	Found       string
}

// Error reads like "a.json: files[2].findings[0].line: expected a line number of 1 or more,
// found 0".
func (e *ReadError) Error() string {
	where := e.Name
	if e.Field != "" {
		where += ": " + e.Field
	}
	return fmt.Sprintf("%s: expected %s, found %s", where, e.Expected, e.Found)
}

// ReadJSON reads a document written by the json output format (--output json) into the Result
// it was written from. Every field the format writes is checked: a document that is not
// vectorlint's json output gives a *ReadError naming the field, what was expected and what was
// found. Fields it does not know are ignored, so documents of later versions that add fields
// are read. Byte columns are not in the json output: each finding's ByteColumn is left equal to
// its code-point Column (FillByteColumns sets them from the document). A fix whose edits could
// not be written by vectorlint (FixableText) or that reach outside the finding's match is left
// out, so no output made from the result offers it.
func ReadJSON(r io.Reader, name string) (*Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxJSONSize {
		return nil, &ReadError{Name: name, Expected: fmt.Sprintf("a document of at most %d MB", MaxJSONSize>>20), Found: "a larger one"}
	}
	if !utf8.Valid(data) {
		return nil, &ReadError{Name: name, Expected: "UTF-8 JSON", Found: "invalid UTF-8"}
	}
	rd := &reader{name: name}
	var doc struct {
		Version   *string            `json:"version"`
		Files     *[]json.RawMessage `json:"files"`
		Skipped   json.RawMessage    `json:"skipped"`
		RunErrors json.RawMessage    `json:"runErrors"`
		Summary   json.RawMessage    `json:"summary"`
		Usage     json.RawMessage    `json:"usage"`
	}
	if err := rd.decode("", data, &doc); err != nil {
		return nil, err
	}
	if trailing := bytes.TrimSpace(rd.rest); len(trailing) > 0 {
		return nil, rd.errorf("", "one JSON document", "more after it")
	}
	switch {
	case doc.Version == nil:
		return nil, rd.errorf("version", "the vectorlint version that wrote the document", "nothing")
	case doc.Files == nil:
		return nil, rd.errorf("files", "the list of linted files", "nothing")
	case doc.Summary == nil:
		return nil, rd.errorf("summary", "the run's totals", "nothing")
	}
	res := &Result{Version: *doc.Version}
	for i, raw := range *doc.Files {
		fr, err := rd.file(fmt.Sprintf("files[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		if i > 0 && fr.Path <= res.Files[i-1].Path {
			return nil, rd.errorf(fmt.Sprintf("files[%d].path", i), "files in increasing path order", fmt.Sprintf("%q after %q", fr.Path, res.Files[i-1].Path))
		}
		res.Files = append(res.Files, fr)
	}
	if err := rd.totals(res, doc.Skipped, doc.RunErrors, doc.Summary, doc.Usage); err != nil {
		return nil, err
	}
	return res, nil
}

// totals reads the document's skipped files, run errors, summary and usage into res, whose
// files are read: the summary must be theirs.
func (rd *reader) totals(res *Result, skipped, runErrors, summary, usage json.RawMessage) error {
	if len(skipped) > 0 {
		if err := rd.decode("skipped", skipped, &res.Skipped); err != nil {
			return err
		}
		for i, s := range res.Skipped {
			if s.Path == "" {
				return rd.errorf(fmt.Sprintf("skipped[%d].path", i), "a path", "nothing")
			}
		}
	}
	if len(runErrors) > 0 {
		if err := rd.decode("runErrors", runErrors, &res.RunErrors); err != nil {
			return err
		}
		for i, e := range res.RunErrors {
			if e.Cause == "" || e.NotRun < 0 {
				return rd.errorf(fmt.Sprintf("runErrors[%d]", i), "a cause and a count of rule runs not done", fmt.Sprintf("%+v", e))
			}
		}
	}
	var sum Summary
	if err := rd.decode("summary", summary, &sum); err != nil {
		return err
	}
	// The totals are the files': a document whose summary does not add up was edited or cut.
	var counted Summary
	for _, fr := range res.Files {
		counted.Add(fr)
	}
	if sum != counted {
		return rd.errorf("summary", fmt.Sprintf("the totals of the files listed (%+v)", counted), fmt.Sprintf("%+v", sum))
	}
	res.Summary = sum
	if len(usage) > 0 {
		if err := rd.decode("usage", usage, &res.Usage); err != nil {
			return err
		}
		u := res.Usage
		if u.Calls < 0 || u.CachedCalls < 0 || u.InputTokens < 0 || u.OutputTokens < 0 || u.CachedInputTokens < 0 ||
			u.CacheWriteTokens < 0 || (u.Cost != nil && *u.Cost < 0) {
			return rd.errorf("usage", "counts of 0 or more", fmt.Sprintf("%+v", u))
		}
		if u.CachedInputTokens+u.CacheWriteTokens > u.InputTokens {
			return rd.errorf("usage", "cachedInputTokens and cacheWriteTokens within inputTokens", fmt.Sprintf("%+v", u))
		}
	}
	return nil
}

// reader decodes one document, naming it in errors.
type reader struct {
	name string
	// rest is what followed the first JSON value of the last decode.
	rest []byte
}

func (rd *reader) errorf(field, expected, found string) error {
	return &ReadError{Name: rd.name, Field: field, Expected: expected, Found: found}
}

// decode decodes data into v, turning encoding/json's errors into ReadErrors at field.
func (rd *reader) decode(field string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			f := field
			if te.Field != "" {
				f = strings.TrimPrefix(f+"."+te.Field, ".")
			}
			return rd.errorf(f, "a JSON "+jsonKind(te.Type.Kind().String()), "a JSON "+te.Value)
		case errors.As(err, &se):
			return rd.errorf(field, "JSON", fmt.Sprintf("a syntax error at byte %d (%v)", se.Offset, err))
		case errors.Is(err, io.EOF):
			return rd.errorf(field, "a JSON document", "nothing")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return rd.errorf(field, "a whole JSON document", "one cut short")
		}
		return rd.errorf(field, "a valid value", err.Error())
	}
	if field == "" {
		rest, _ := io.ReadAll(dec.Buffered())
		rd.rest = rest
	}
	return nil
}

// jsonKind names a Go kind the way JSON does.
func jsonKind(k string) string {
	switch k {
	case "int", "int64", "float64":
		return "number"
	case "slice":
		return "array"
	case "struct", "map":
		return "object"
	case "ptr":
		return "value"
	}
	return k
}

func (rd *reader) file(field string, raw json.RawMessage) (FileResult, error) {
	var f fileJSON
	if err := rd.decode(field, raw, &f); err != nil {
		return FileResult{}, err
	}
	switch {
	case f.Path == nil || *f.Path == "":
		return FileResult{}, rd.errorf(field+".path", "the file's path", "nothing")
	case f.Findings == nil:
		return FileResult{}, rd.errorf(field+".findings", "a list of findings", "nothing")
	case f.Scores == nil:
		return FileResult{}, rd.errorf(field+".scores", "a list of scores", "nothing")
	case f.NotRun < 0:
		return FileResult{}, rd.errorf(field+".notRun", "a count of 0 or more", fmt.Sprint(f.NotRun))
	case f.Ignored < 0:
		return FileResult{}, rd.errorf(field+".ignored", "a count of 0 or more", fmt.Sprint(f.Ignored))
	case f.Baselined < 0:
		return FileResult{}, rd.errorf(field+".baselined", "a count of 0 or more", fmt.Sprint(f.Baselined))
	}
	fr := FileResult{Path: *f.Path, Scores: *f.Scores, Unverified: f.Unverified, Errors: f.Errors, NotRun: f.NotRun, Ignored: f.Ignored, Baselined: f.Baselined}
	for i, raw := range *f.Findings {
		at := fmt.Sprintf("%s.findings[%d]", field, i)
		var fj findingJSON
		if err := rd.decode(at, raw, &fj); err != nil {
			return fr, err
		}
		fd, err := rd.finding(at, fj)
		if err != nil {
			return fr, err
		}
		fr.Findings = append(fr.Findings, fd)
	}
	for i, s := range fr.Scores {
		if s.Rule == "" || (s.Type != SemiObjective && s.Type != Subjective) || s.Score < 0 || s.Score > 10 {
			return fr, rd.errorf(fmt.Sprintf("%s.scores[%d]", field, i), "a rule, a type (semi-objective or subjective) and a score from 0 to 10",
				fmt.Sprintf("rule %q, type %q, score %v", s.Rule, s.Type, float64(s.Score)))
		}
		if s.Samples < 0 {
			return fr, rd.errorf(fmt.Sprintf("%s.scores[%d].samples", field, i), "a number of samples of 1 or more", fmt.Sprint(s.Samples))
		}
	}
	for i, e := range fr.Errors {
		if e.Rule == "" || e.Message == "" {
			return fr, rd.errorf(fmt.Sprintf("%s.errors[%d]", field, i), "a rule and a message", fmt.Sprintf("rule %q, message %q", e.Rule, e.Message))
		}
	}
	return fr, nil
}

func (rd *reader) finding(at string, fj findingJSON) (Finding, error) {
	required := []struct {
		name string
		ok   bool
	}{
		{"rule", fj.Rule != nil && *fj.Rule != ""}, {"severity", fj.Severity != nil}, {"message", fj.Message != nil},
		{"line", fj.Line != nil}, {"column", fj.Column != nil}, {"endLine", fj.EndLine != nil},
		{"endColumn", fj.EndColumn != nil}, {"offset", fj.Offset != nil}, {"endOffset", fj.EndOffset != nil},
	}
	for _, r := range required {
		if !r.ok {
			return Finding{}, rd.errorf(at+"."+r.name, "a value", "nothing")
		}
	}
	sev, err := ParseSeverity(*fj.Severity)
	if err != nil {
		return Finding{}, rd.errorf(at+".severity", SeverityExpected, fmt.Sprintf("%q", *fj.Severity))
	}
	switch {
	case *fj.Line < 1 || *fj.Column < 1 || *fj.EndLine < 1 || *fj.EndColumn < 1:
		return Finding{}, rd.errorf(at, "lines and columns of 1 or more", fmt.Sprintf("%d:%d-%d:%d", *fj.Line, *fj.Column, *fj.EndLine, *fj.EndColumn))
	case *fj.EndLine < *fj.Line || (*fj.EndLine == *fj.Line && *fj.EndColumn < *fj.Column):
		return Finding{}, rd.errorf(at, "an end at or after the start", fmt.Sprintf("%d:%d-%d:%d", *fj.Line, *fj.Column, *fj.EndLine, *fj.EndColumn))
	case *fj.Offset < 0 || *fj.EndOffset < *fj.Offset:
		return Finding{}, rd.errorf(at, "byte offsets of 0 or more, the end at or after the start", fmt.Sprintf("%d-%d", *fj.Offset, *fj.EndOffset))
	case fj.Votes != nil && (fj.Votes.For < 1 || fj.Votes.Of < fj.Votes.For):
		return Finding{}, rd.errorf(at+".votes", "for of 1 or more and of at least for", fmt.Sprintf("for %d, of %d", fj.Votes.For, fj.Votes.Of))
	}
	f := Finding{
		Rule: *fj.Rule, Severity: sev, Message: *fj.Message, Suggestion: fj.Suggestion,
		Match: fj.Match, Analysis: fj.Analysis, Votes: fj.Votes,
		Start: Position{Line: *fj.Line, Column: *fj.Column, ByteColumn: *fj.Column, Offset: *fj.Offset},
		End:   Position{Line: *fj.EndLine, Column: *fj.EndColumn, ByteColumn: *fj.EndColumn, Offset: *fj.EndOffset},
	}
	var edits []TextEdit
	for i, e := range fj.Edits {
		field := fmt.Sprintf("%s.edits[%d]", at, i)
		switch {
		case e.Offset == nil || e.EndOffset == nil || e.NewText == nil:
			return Finding{}, rd.errorf(field, "offset, endOffset and newText", "a field missing")
		case *e.Offset < 0 || *e.EndOffset < *e.Offset:
			return Finding{}, rd.errorf(field, "byte offsets of 0 or more, the end at or after the start", fmt.Sprintf("%d-%d", *e.Offset, *e.EndOffset))
		}
		if !FixableText(*e.NewText) {
			// What a fix may not write (control, bidi-override and invisible characters:
			// docs/security.md, "What a model may change"), which vectorlint never writes as
			// an edit: the finding is kept without its fix, so no output re-advertises it.
			return f, nil
		}
		start, ok1 := positionIn(f, *e.Offset)
		end, ok2 := positionIn(f, *e.EndOffset)
		if !ok1 || !ok2 {
			// Only edits inside the finding's match can be placed without the document (all
			// that vectorlint writes today): a fix reaching outside it is left out.
			return f, nil
		}
		edits = append(edits, TextEdit{Start: start, End: end, NewText: *e.NewText})
	}
	f.Edits = edits
	return f, nil
}

// positionIn is the position of a byte offset inside a finding's match, worked out from the
// match's text (the document's own between the finding's start and end); ok is false outside
// it, or when the match does not span the finding's bytes.
func positionIn(f Finding, offset int) (Position, bool) {
	switch {
	case offset == f.Start.Offset:
		return f.Start, true
	case offset == f.End.Offset:
		return f.End, true
	case offset < f.Start.Offset || offset > f.End.Offset || len(f.Match) != f.End.Offset-f.Start.Offset:
		return Position{}, false
	}
	seg := f.Match[:offset-f.Start.Offset]
	p := f.Start
	p.Offset = offset
	last := strings.LastIndexAny(seg, "\n\r")
	if last < 0 {
		p.Column += utf8.RuneCountInString(seg)
		p.ByteColumn += len(seg)
		return p, true
	}
	p.Line += strings.Count(seg, "\n") + strings.Count(seg, "\r") - strings.Count(seg, "\r\n")
	tail := seg[last+1:]
	p.Column, p.ByteColumn = utf8.RuneCountInString(tail)+1, len(tail)+1
	return p, true
}

// FillByteColumns sets the byte columns of a file's findings and their edits from the
// document's bytes (the json output has only code-point columns), with the document's line
// index. A finding whose offsets do not fit the document, or whose match is not at its offset
// (the file changed since), keeps ByteColumn = Column.
func FillByteColumns(fr *FileResult, doc []byte) {
	var x LineIndex
	indexed := false
	for i := range fr.Findings {
		f := &fr.Findings[i]
		if f.Start.Offset < 0 || f.End.Offset < f.Start.Offset || f.End.Offset > len(doc) ||
			(f.Match != "" && string(doc[f.Start.Offset:f.End.Offset]) != f.Match) {
			continue
		}
		if !indexed {
			x, indexed = NewLineIndex(string(doc)), true
		}
		f.Start.ByteColumn = x.Position(f.Start.Offset).ByteColumn
		f.End.ByteColumn = x.Position(f.End.Offset).ByteColumn
		if len(f.Edits) > 0 {
			edits := make([]TextEdit, len(f.Edits))
			for j, e := range f.Edits {
				e.Start.ByteColumn, e.End.ByteColumn = x.Position(e.Start.Offset).ByteColumn, x.Position(e.End.Offset).ByteColumn
				edits[j] = e
			}
			f.Edits = edits
		}
	}
}
