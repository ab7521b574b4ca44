package finding

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// goldenJSON are the native JSON documents the golden files of the printers and the command
// hold: written by JSONWriter from hand-built and real runs.
var goldenJSON = []string{
	"../report/testdata/json.golden",
	"../report/testdata/json-clean.golden",
	"../report/testdata/json-stopped.golden",
	"../report/testdata/fixes-json.golden",
	"../cmd/vectorlint/testdata/lint/engine-scores.golden",
	"../cmd/vectorlint/testdata/lint/baseline.golden",
}

// readGolden reads one of goldenJSON.
func readGolden(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestJSONRoundTrip: the writer and the reader are each other's inverse on every golden json
// document, byte for byte: what ReadJSON reads, WriteJSON writes back unchanged, fixes
// ("fix" and "edits") included.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, path := range goldenJSON {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			want := readGolden(t, path)
			r, err := ReadJSON(bytes.NewReader(want), path)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := WriteJSON(&got, *r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("written back differently:\n%s\n--- want\n%s", got.Bytes(), want)
			}
		})
	}
}

func TestReadJSONErrors(t *testing.T) {
	t.Parallel()
	valid := string(readGolden(t, "../report/testdata/json.golden"))
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"empty", "", "r.json: expected a JSON document, found nothing"},
		{"not JSON", "hello", "r.json: expected JSON, found a syntax error at byte 1 (invalid character 'h' looking for beginning of value)"},
		{"cut short", valid[:len(valid)/2], "r.json: expected a whole JSON document, found one cut short"},
		{"two documents", valid + valid, "r.json: expected one JSON document, found more after it"},
		{"an array", "[]", "r.json: expected a JSON object, found a JSON array"},
		{"no version", `{"files": [], "summary": {}}`, "r.json: version: expected the vectorlint version that wrote the document, found nothing"},
		{"no files", `{"version": "1", "summary": {}}`, "r.json: files: expected the list of linted files, found nothing"},
		{"no summary", `{"version": "1", "files": []}`, "r.json: summary: expected the run's totals, found nothing"},
		{"files not a list", `{"version": "1", "files": {}, "summary": {}}`, "r.json: files: expected a JSON array, found a JSON object"},
		{"a negative baselined count", `{"version": "1", "files": [{"path": "a", "findings": [], "scores": [], "baselined": -1}], "summary": {}}`,
			"r.json: files[0].baselined: expected a count of 0 or more, found -1"},
		{"a file without a path", `{"version": "1", "files": [{"findings": [], "scores": []}], "summary": {}}`,
			"r.json: files[0].path: expected the file's path, found nothing"},
		{"a file without findings", `{"version": "1", "files": [{"path": "a", "scores": []}], "summary": {}}`,
			"r.json: files[0].findings: expected a list of findings, found nothing"},
		{"files out of order", `{"version": "1", "files": [{"path": "b", "findings": [], "scores": []}, {"path": "a", "findings": [], "scores": []}], "summary": {"files": 2}}`,
			`r.json: files[1].path: expected files in increasing path order, found "a" after "b"`},
		{"a line of 0", strings.Replace(valid, `"line": 6,`, `"line": 0,`, 1),
			"r.json: files[1].findings[1]: expected lines and columns of 1 or more, found 0:26-6:37"},
		{"a string line", strings.Replace(valid, `"line": 6,`, `"line": "6",`, 1),
			"r.json: files[1].findings[1].line: expected a JSON number, found a JSON string"},
		{"an end before the start", strings.Replace(valid, `"endLine": 6,`, `"endLine": 5,`, 1),
			"r.json: files[1].findings[1]: expected an end at or after the start, found 6:26-5:37"},
		{"an unknown severity", strings.Replace(valid, `"severity": "error"`, `"severity": "fatal"`, 1),
			`r.json: files[1].findings[0].severity: expected "suggestion", "warning" or "error", found "fatal"`},
		{"a finding without a rule", strings.Replace(valid, `"rule": "Acme.Headline.ValueCommunication",`, ``, 1),
			"r.json: files[1].findings[0].rule: expected a value, found nothing"},
		{"a score over 10", strings.Replace(valid, `"score": 8.4`, `"score": 84`, 1),
			`r.json: files[1].scores[`},
		{"totals that do not add up", strings.Replace(valid, `"errors": 3,`, `"errors": 2,`, 1),
			"r.json: summary: expected the totals of the files listed ("},
		{"negative usage", strings.Replace(valid, `"calls": 7,`, `"calls": -1,`, 1),
			"r.json: usage: expected counts of 0 or more, found "},
		{"negative cached input", strings.Replace(valid, `"outputTokens": 678,`, `"outputTokens": 678, "cachedInputTokens": -1,`, 1),
			"r.json: usage: expected counts of 0 or more, found "},
		{"more cached than input", strings.Replace(valid, `"outputTokens": 678,`, `"outputTokens": 678, "cachedInputTokens": 12000, "cacheWriteTokens": 346,`, 1),
			"r.json: usage: expected cachedInputTokens and cacheWriteTokens within inputTokens, found "},
		{"invalid UTF-8", "{\"version\": \"\xff\"}", "r.json: expected UTF-8 JSON, found invalid UTF-8"},
		{"an edit without its text", strings.Replace(valid, `"newText": "to"`, `"newText": null`, 1),
			"r.json: files[1].findings[1].edits[0]: expected offset, endOffset and newText, found a field missing"},
		{"an edit ending before it starts", strings.Replace(valid, "\"offset\": 74,\n              \"endOffset\": 85", "\"offset\": 74,\n              \"endOffset\": 70", 1),
			"r.json: files[1].findings[1].edits[0]: expected byte offsets of 0 or more, the end at or after the start, found 74-70"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.doc == valid {
				t.Fatal("the edit did not apply")
			}
			_, err := ReadJSON(strings.NewReader(tt.doc), "r.json")
			var re *ReadError
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.As(err, &re) {
				t.Errorf("err = %v\nwant a *ReadError starting %q", err, tt.want)
			}
		})
	}
}

// TestReadJSONDropsUnsafeEdits: an edit that would write a bidi override or an escape, which
// vectorlint never writes, leaves its finding without a fix when a json result is read back
// (vectorlint merge), so no output made from it offers the fix; the other fixes are kept.
func TestReadJSONDropsUnsafeEdits(t *testing.T) {
	t.Parallel()
	valid := string(readGolden(t, "../report/testdata/fixes-json.golden"))
	for _, bad := range []string{`\u202e`, `\u001b[2J`} {
		doc := strings.Replace(valid, `"newText": "“"`, `"newText": "“`+bad+`"`, 1)
		if doc == valid {
			t.Fatal("the fixture has no edit writing “")
		}
		got, err := ReadJSON(strings.NewReader(doc), "r.json")
		if err != nil {
			t.Fatal(err)
		}
		fixes, without := 0, 0
		for _, fr := range got.Files {
			for _, f := range fr.Findings {
				switch {
				case f.Edits != nil:
					fixes++
				case f.Match == `"tools"`:
					without++
				}
			}
		}
		if without != 1 || fixes == 0 {
			t.Errorf("%s: %d findings with a fix, the quotes' finding without one %d times; want it once", bad, fixes, without)
		}
	}
}

func TestReadJSONLaterFields(t *testing.T) {
	t.Parallel()
	doc := `{"version": "9", "files": [{"path": "a.md", "findings": [], "scores": [], "reviewers": 3}], "summary": {"files": 1, "errors": 0, "warnings": 0, "unverified": 0, "operationalErrors": 0}, "usage": {"calls": 0, "cachedCalls": 0, "inputTokens": 0, "outputTokens": 0, "cost": null}, "extra": {"x": 1}}`
	r, err := ReadJSON(strings.NewReader(doc), "later.json")
	if err != nil || len(r.Files) != 1 || r.Files[0].Path != "a.md" {
		t.Fatalf("%+v, %v", r, err)
	}
}

func TestFillByteColumns(t *testing.T) {
	doc := "# T\n\nLe café 👋 in order to\n"
	i := strings.Index(doc, "in order to")
	t.Parallel()
	f := Finding{Match: "in order to", Start: at(doc, i), End: at(doc, i+len("in order to"))}
	want := f
	f.Start.ByteColumn, f.End.ByteColumn = f.Start.Column, f.End.Column
	fr := FileResult{Findings: []Finding{f}}
	FillByteColumns(&fr, []byte(doc))
	if !reflect.DeepEqual(fr.Findings[0], want) || want.Start.ByteColumn == want.Start.Column {
		t.Errorf("got %+v, want %+v", fr.Findings[0], want)
	}
	// A document that changed since: the columns stay as they are.
	fr = FileResult{Findings: []Finding{f}}
	FillByteColumns(&fr, []byte("# T\n\nSomething else entirely, much longer than before.\n"))
	FillByteColumns(&fr, []byte("short"))
	if !reflect.DeepEqual(fr.Findings[0], f) {
		t.Errorf("changed document: %+v", fr.Findings[0])
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	read, err := ReadJSON(bytes.NewReader(readGolden(t, "../report/testdata/json.golden")), "json.golden")
	if err != nil {
		t.Fatal(err)
	}
	r := *read
	// Split the fixture in two runs, each with its share of files and usage, the same skipped
	// file and the same run error.
	a, b := r, r
	a.Files, b.Files = r.Files[:1], r.Files[1:]
	a.Usage = Usage{Calls: 5, CachedCalls: 1, InputTokens: 100, OutputTokens: 10, CachedInputTokens: 60, CacheWriteTokens: 30}
	b.Usage = Usage{Calls: 7, InputTokens: 200, OutputTokens: 20, CachedInputTokens: 150}
	cost := 0.5
	b.Usage.Cost = &cost
	a.RunErrors = []RunError{{Cause: "down", Message: "the server is down", NotRun: 2}}
	b.RunErrors = []RunError{{Cause: "down", Message: "the server is down", NotRun: 3}}
	got, err := Merge([]*Result{&b, &a}, []string{"b.json", "a.json"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Files, r.Files) || !reflect.DeepEqual(got.Skipped, r.Skipped) || got.Summary != r.Summary {
		t.Errorf("merged files, skipped or summary differ:\n%+v\n%+v", got, r)
	}
	if got.Usage.Calls != 12 || got.Usage.CachedCalls != 1 || got.Usage.InputTokens != 300 || got.Usage.OutputTokens != 30 ||
		got.Usage.CachedInputTokens != 210 || got.Usage.CacheWriteTokens != 30 || got.Usage.Cost == nil || *got.Usage.Cost != 0.5 {
		t.Errorf("usage %+v", got.Usage)
	}
	if len(got.RunErrors) != 1 || got.RunErrors[0].NotRun != 5 {
		t.Errorf("run errors %+v", got.RunErrors)
	}
	_, err = Merge([]*Result{&a, &r}, []string{"a.json", "r.json"})
	var me *MergeError
	if !errors.As(err, &me) || err.Error() != "docs/clean.md is in both a.json and r.json: the results to merge must be of different files (the shares of one --shard run)" {
		t.Errorf("overlap: %v", err)
	}
}

func FuzzReadJSON(f *testing.F) {
	for _, path := range goldenJSON {
		f.Add(readGolden(f, path))
	}
	f.Add([]byte(`{"version": "1", "files": [], "summary": {"files": 0}}`))
	f.Add([]byte(`{"version": "1", "files": [{"path": "a.md", "findings": [{"rule": "A.B", "severity": "warning", "message": "m", "line": 1, "column": 1, "endLine": 1, "endColumn": 3, "offset": 0, "endOffset": 2, "votes": {"for": 2, "of": 3}}], "scores": [{"rule": "A.B", "type": "semi-objective", "score": 9.5, "samples": 3}]}], "summary": {"files": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data), "f.json")
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		// What was read writes and reads back to the same result.
		var buf bytes.Buffer
		if err := WriteJSON(&buf, *r); err != nil {
			t.Fatal(err)
		}
		again, err := ReadJSON(&buf, "again.json")
		if err != nil {
			t.Fatalf("reading back what was written: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(normalize(again), normalize(r)) {
			t.Fatalf("round trip differs:\n%+v\n%+v", again, r)
		}
	})
}

// normalize makes empty lists nil, as the json output writes them either way.
func normalize(r *Result) *Result {
	c := *r
	c.Files = nil
	for _, fr := range r.Files {
		if len(fr.Findings) == 0 {
			fr.Findings = nil
		}
		if len(fr.Scores) == 0 {
			fr.Scores = nil
		}
		if len(fr.Unverified) == 0 {
			fr.Unverified = nil
		}
		if len(fr.Errors) == 0 {
			fr.Errors = nil
		}
		c.Files = append(c.Files, fr)
	}
	if len(c.Skipped) == 0 {
		c.Skipped = nil
	}
	if len(c.RunErrors) == 0 {
		c.RunErrors = nil
	}
	return &c
}

// TestPositionIn: an edit inside a finding's match is placed from the match's own text, across
// CRLF and LF line breaks and multi-byte characters; outside the match it cannot be.
func TestPositionIn(t *testing.T) {
	f := Finding{Match: "ab\r\ncé d\nx", Start: Position{Line: 3, Column: 5, ByteColumn: 6, Offset: 20},
		End: Position{Line: 5, Column: 2, ByteColumn: 2, Offset: 31}}
	for _, tt := range []struct {
		offset int
		want   Position
		ok     bool
	}{
		{20, f.Start, true},
		{21, Position{Line: 3, Column: 6, ByteColumn: 7, Offset: 21}, true},
		{24, Position{Line: 4, Column: 1, ByteColumn: 1, Offset: 24}, true},
		{27, Position{Line: 4, Column: 3, ByteColumn: 4, Offset: 27}, true}, // after "cé"
		{30, Position{Line: 5, Column: 1, ByteColumn: 1, Offset: 30}, true},
		{31, f.End, true},
		{19, Position{}, false},
		{32, Position{}, false},
	} {
		got, ok := positionIn(f, tt.offset)
		if got != tt.want || ok != tt.ok {
			t.Errorf("positionIn(%d) = %+v, %v; want %+v, %v", tt.offset, got, ok, tt.want, tt.ok)
		}
	}
}

// TestVotesAndSamplesRoundTrip: a finding's votes and a score's samples are written only when
// set, read back as written, and a vote count that is no majority of anything is refused.
func TestVotesAndSamplesRoundTrip(t *testing.T) {
	t.Parallel()
	f := Finding{Rule: "A.B", Severity: SeverityWarning, Message: "m", Match: "ab",
		Start: Position{Line: 1, Column: 1, ByteColumn: 1}, End: Position{Line: 1, Column: 3, ByteColumn: 3, Offset: 2}}
	plain, err := json.Marshal(f)
	if err != nil || strings.Contains(string(plain), "votes") {
		t.Fatalf("without votes: %s, %v", plain, err)
	}
	f.Votes = &Votes{For: 2, Of: 3}
	voted, err := json.Marshal(f)
	if err != nil || !strings.HasSuffix(string(voted), `,"votes":{"for":2,"of":3}}`) {
		t.Fatalf("with votes: %s, %v", voted, err)
	}
	r := Result{Files: []FileResult{{Path: "a.md", Findings: []Finding{f},
		Scores: []Score{{Rule: "A.B", Type: SemiObjective, Score: 9.5, Samples: 3}}}},
		Totals: Totals{Summary: Summary{Files: 1, Warnings: 1}}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"samples": 3`) {
		t.Errorf("samples not written:\n%s", buf.String())
	}
	back, err := ReadJSON(&buf, "v.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Files[0]; got.Findings[0].Votes == nil || *got.Findings[0].Votes != (Votes{For: 2, Of: 3}) || got.Scores[0].Samples != 3 {
		t.Errorf("read back %+v", got)
	}
	bad := `{"version": "1", "files": [{"path": "a.md", "findings": [{"rule": "A.B", "severity": "warning", "message": "m", "line": 1, "column": 1, "endLine": 1, "endColumn": 3, "offset": 0, "endOffset": 2, "votes": {"for": 4, "of": 3}}], "scores": []}], "summary": {"files": 1}}`
	_, err = ReadJSON(strings.NewReader(bad), "bad.json")
	var re *ReadError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "files[0].findings[0].votes") || !strings.Contains(err.Error(), "for 4, of 3") {
		t.Errorf("bad votes: %v", err)
	}
}
