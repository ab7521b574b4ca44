package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
)

// Reading the json output back (ReadJSON) and joining several runs' results into one (Merge):
// `vectorlint merge` joins the results of the jobs of a sharded run (--shard K/N) and prints
// them in any format.

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
// its code-point Column (FillByteColumns sets them from the document).
func ReadJSON(r io.Reader, name string) (*finding.Result, error) {
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
	res := &finding.Result{Version: *doc.Version}
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
	if len(doc.Skipped) > 0 {
		if err := rd.decode("skipped", doc.Skipped, &res.Skipped); err != nil {
			return nil, err
		}
		for i, s := range res.Skipped {
			if s.Path == "" {
				return nil, rd.errorf(fmt.Sprintf("skipped[%d].path", i), "a path", "nothing")
			}
		}
	}
	if len(doc.RunErrors) > 0 {
		if err := rd.decode("runErrors", doc.RunErrors, &res.RunErrors); err != nil {
			return nil, err
		}
		for i, e := range res.RunErrors {
			if e.Cause == "" || e.NotRun < 0 {
				return nil, rd.errorf(fmt.Sprintf("runErrors[%d]", i), "a cause and a count of rule runs not done", fmt.Sprintf("%+v", e))
			}
		}
	}
	var sum finding.Summary
	if err := rd.decode("summary", doc.Summary, &sum); err != nil {
		return nil, err
	}
	// The totals are the files': a document whose summary does not add up was edited or cut.
	var counted finding.Summary
	for _, fr := range res.Files {
		counted.Add(fr)
	}
	if sum != counted {
		return nil, rd.errorf("summary", fmt.Sprintf("the totals of the files listed (%+v)", counted), fmt.Sprintf("%+v", sum))
	}
	res.Summary = sum
	if len(doc.Usage) > 0 {
		if err := rd.decode("usage", doc.Usage, &res.Usage); err != nil {
			return nil, err
		}
		u := res.Usage
		if u.Calls < 0 || u.CachedCalls < 0 || u.InputTokens < 0 || u.OutputTokens < 0 || (u.Cost != nil && *u.Cost < 0) {
			return nil, rd.errorf("usage", "counts of 0 or more", fmt.Sprintf("%+v", u))
		}
	}
	return res, nil
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

// fileJSON is a linted file in the json output.
type fileJSON struct {
	Path       *string              `json:"path"`
	Findings   *[]json.RawMessage   `json:"findings"`
	Scores     *[]finding.Score     `json:"scores"`
	Unverified []finding.Unverified `json:"unverified"`
	Errors     []finding.RuleError  `json:"errors"`
	NotRun     int                  `json:"notRun"`
	Ignored    int                  `json:"ignored"`
}

// findingReadJSON is a finding in the json output.
type findingReadJSON struct {
	Rule       *string `json:"rule"`
	Severity   *string `json:"severity"`
	Message    *string `json:"message"`
	Suggestion string  `json:"suggestion"`
	Fix        string  `json:"fix"`
	Match      string  `json:"match"`
	Line       *int    `json:"line"`
	Column     *int    `json:"column"`
	EndLine    *int    `json:"endLine"`
	EndColumn  *int    `json:"endColumn"`
	Offset     *int    `json:"offset"`
	EndOffset  *int    `json:"endOffset"`
	Analysis   string  `json:"analysis"`
	Edits      []struct {
		Offset    *int    `json:"offset"`
		EndOffset *int    `json:"endOffset"`
		NewText   *string `json:"newText"`
	} `json:"edits"`
}

func (rd *reader) file(field string, raw json.RawMessage) (finding.FileResult, error) {
	var f fileJSON
	if err := rd.decode(field, raw, &f); err != nil {
		return finding.FileResult{}, err
	}
	switch {
	case f.Path == nil || *f.Path == "":
		return finding.FileResult{}, rd.errorf(field+".path", "the file's path", "nothing")
	case f.Findings == nil:
		return finding.FileResult{}, rd.errorf(field+".findings", "a list of findings", "nothing")
	case f.Scores == nil:
		return finding.FileResult{}, rd.errorf(field+".scores", "a list of scores", "nothing")
	case f.NotRun < 0:
		return finding.FileResult{}, rd.errorf(field+".notRun", "a count of 0 or more", fmt.Sprint(f.NotRun))
	case f.Ignored < 0:
		return finding.FileResult{}, rd.errorf(field+".ignored", "a count of 0 or more", fmt.Sprint(f.Ignored))
	}
	fr := finding.FileResult{Path: *f.Path, Scores: *f.Scores, Unverified: f.Unverified, Errors: f.Errors, NotRun: f.NotRun, Ignored: f.Ignored}
	for i, raw := range *f.Findings {
		at := fmt.Sprintf("%s.findings[%d]", field, i)
		var fj findingReadJSON
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
		if s.Rule == "" || (s.Type != finding.SemiObjective && s.Type != finding.Subjective) || s.Score < 0 || s.Score > 10 {
			return fr, rd.errorf(fmt.Sprintf("%s.scores[%d]", field, i), "a rule, a type (semi-objective or subjective) and a score from 0 to 10",
				fmt.Sprintf("rule %q, type %q, score %v", s.Rule, s.Type, float64(s.Score)))
		}
	}
	for i, e := range fr.Errors {
		if e.Rule == "" || e.Message == "" {
			return fr, rd.errorf(fmt.Sprintf("%s.errors[%d]", field, i), "a rule and a message", fmt.Sprintf("rule %q, message %q", e.Rule, e.Message))
		}
	}
	return fr, nil
}

func (rd *reader) finding(at string, fj findingReadJSON) (finding.Finding, error) {
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
			return finding.Finding{}, rd.errorf(at+"."+r.name, "a value", "nothing")
		}
	}
	sev, err := finding.ParseSeverity(*fj.Severity)
	if err != nil {
		return finding.Finding{}, rd.errorf(at+".severity", finding.SeverityExpected, fmt.Sprintf("%q", *fj.Severity))
	}
	switch {
	case *fj.Line < 1 || *fj.Column < 1 || *fj.EndLine < 1 || *fj.EndColumn < 1:
		return finding.Finding{}, rd.errorf(at, "lines and columns of 1 or more", fmt.Sprintf("%d:%d-%d:%d", *fj.Line, *fj.Column, *fj.EndLine, *fj.EndColumn))
	case *fj.EndLine < *fj.Line || (*fj.EndLine == *fj.Line && *fj.EndColumn < *fj.Column):
		return finding.Finding{}, rd.errorf(at, "an end at or after the start", fmt.Sprintf("%d:%d-%d:%d", *fj.Line, *fj.Column, *fj.EndLine, *fj.EndColumn))
	case *fj.Offset < 0 || *fj.EndOffset < *fj.Offset:
		return finding.Finding{}, rd.errorf(at, "byte offsets of 0 or more, the end at or after the start", fmt.Sprintf("%d-%d", *fj.Offset, *fj.EndOffset))
	}
	f := finding.Finding{
		Rule: *fj.Rule, Severity: sev, Message: *fj.Message, Suggestion: fj.Suggestion,
		Match: fj.Match, Analysis: fj.Analysis,
		Start: finding.Position{Line: *fj.Line, Column: *fj.Column, ByteColumn: *fj.Column, Offset: *fj.Offset},
		End:   finding.Position{Line: *fj.EndLine, Column: *fj.EndColumn, ByteColumn: *fj.EndColumn, Offset: *fj.EndOffset},
	}
	if len(fj.Edits) == 0 {
		return f, nil
	}
	var edits []finding.TextEdit
	for i, e := range fj.Edits {
		field := fmt.Sprintf("%s.edits[%d]", at, i)
		switch {
		case e.Offset == nil || e.EndOffset == nil || e.NewText == nil:
			return finding.Finding{}, rd.errorf(field, "offset, endOffset and newText", "a field missing")
		case *e.Offset < 0 || *e.EndOffset < *e.Offset:
			return finding.Finding{}, rd.errorf(field, "byte offsets of 0 or more, the end at or after the start", fmt.Sprintf("%d-%d", *e.Offset, *e.EndOffset))
		}
		if !finding.FixableText(*e.NewText) {
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
		edits = append(edits, finding.TextEdit{Start: start, End: end, NewText: *e.NewText})
	}
	f.Edits = edits
	return f, nil
}

// positionIn is the position of a byte offset inside a finding's match, worked out from the
// match's text (the document's own between the finding's start and end); ok is false outside
// it, or when the match does not span the finding's bytes.
func positionIn(f finding.Finding, offset int) (finding.Position, bool) {
	switch {
	case offset == f.Start.Offset:
		return f.Start, true
	case offset == f.End.Offset:
		return f.End, true
	case offset < f.Start.Offset || offset > f.End.Offset || len(f.Match) != f.End.Offset-f.Start.Offset:
		return finding.Position{}, false
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

// FillByteColumns sets the byte columns of a file's findings from the document's bytes (the
// json output has only code-point columns). A finding whose offsets do not fit the document,
// or whose match is not at its offset (the file changed since), keeps ByteColumn = Column.
func FillByteColumns(fr *finding.FileResult, doc []byte) {
	for i := range fr.Findings {
		f := &fr.Findings[i]
		if f.Start.Offset < 0 || f.End.Offset < f.Start.Offset || f.End.Offset > len(doc) ||
			(f.Match != "" && string(doc[f.Start.Offset:f.End.Offset]) != f.Match) {
			continue
		}
		f.Start.ByteColumn = byteColumn(doc, f.Start.Offset)
		f.End.ByteColumn = byteColumn(doc, f.End.Offset)
		if len(f.Edits) > 0 {
			edits := make([]finding.TextEdit, len(f.Edits))
			for j, e := range f.Edits {
				e.Start.ByteColumn, e.End.ByteColumn = byteColumn(doc, e.Start.Offset), byteColumn(doc, e.End.Offset)
				edits[j] = e
			}
			f.Edits = edits
		}
	}
}

// byteColumn is the 1-based byte column of offset in doc: past the last line break before it.
func byteColumn(doc []byte, offset int) int {
	start := bytes.LastIndexAny(doc[:offset], "\n\r") + 1
	return offset - start + 1
}

// MergeError is two results that cannot be joined.
type MergeError struct {
	Path   string
	First  string
	Second string
}

// Error names the file and both documents.
func (e *MergeError) Error() string {
	return fmt.Sprintf("%s is in both %s and %s: the results to merge must be of different files (the shares of one --shard run)", e.Path, e.First, e.Second)
}

// Merge joins the results of several runs over different files (the jobs of a --shard run)
// into one: the files in path order, the skipped files once each, the run errors with the same
// cause added up, the totals recounted from the files, the usage added up (its cost when any
// run has one). names name the results in errors. A file in two results is a *MergeError.
func Merge(results []*finding.Result, names []string) (*finding.Result, error) {
	out := &finding.Result{}
	from := map[string]string{}
	skipped := map[string]bool{}
	causes := map[string]int{}
	for i, r := range results {
		if out.Version == "" {
			out.Version = r.Version
		}
		for _, fr := range r.Files {
			if first, ok := from[fr.Path]; ok {
				return nil, &MergeError{Path: fr.Path, First: first, Second: names[i]}
			}
			from[fr.Path] = names[i]
			out.Files = append(out.Files, fr)
		}
		for _, s := range r.Skipped {
			if !skipped[s.Path] {
				skipped[s.Path] = true
				out.Skipped = append(out.Skipped, s)
			}
		}
		for _, e := range r.RunErrors {
			if j, ok := causes[e.Message]; ok {
				out.RunErrors[j].NotRun += e.NotRun
				continue
			}
			causes[e.Message] = len(out.RunErrors)
			out.RunErrors = append(out.RunErrors, e)
		}
		u := r.Usage
		out.Usage.Calls += u.Calls
		out.Usage.CachedCalls += u.CachedCalls
		out.Usage.InputTokens += u.InputTokens
		out.Usage.OutputTokens += u.OutputTokens
		if u.Cost != nil {
			c := *u.Cost
			if out.Usage.Cost != nil {
				c += *out.Usage.Cost
			}
			out.Usage.Cost = &c
		}
	}
	slices.SortFunc(out.Files, func(a, b finding.FileResult) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(out.Skipped, func(a, b finding.Skipped) int { return strings.Compare(a.Path, b.Path) })
	for _, fr := range out.Files {
		out.Summary.Add(fr)
	}
	return out, nil
}
