package baseline

import (
	"errors"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

// at is a finding of rule matching the first occurrence of match in src after from.
func at(t testing.TB, src, rule, match string, from int) finding.Finding {
	t.Helper()
	i := strings.Index(src[from:], match)
	if i < 0 {
		t.Fatalf("%q not in the source", match)
	}
	i += from
	return finding.Finding{Rule: rule, Match: match, Message: "m", Start: finding.Position{Offset: i}, End: finding.Position{Offset: i + len(match)}}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	src := "# Title\n\nWe met in order to plan.\n"
	base := Fingerprint("a.md", at(t, src, "R", "in order to", 0), []byte(src))
	moved := "Intro.\n\n" + src
	tests := []struct {
		name string
		fp   string
		same bool
	}{
		{"lines inserted above", Fingerprint("a.md", at(t, moved, "R", "in order to", 0), []byte(moved)), true},
		{"CRLF line breaks", Fingerprint("a.md", at(t, strings.ReplaceAll(src, "\n", "\r\n"), "R", "in order to", 0), []byte(strings.ReplaceAll(src, "\n", "\r\n"))), true},
		{"other rule", Fingerprint("a.md", at(t, src, "S", "in order to", 0), []byte(src)), false},
		{"other file", Fingerprint("b.md", at(t, src, "R", "in order to", 0), []byte(src)), false},
		{"its line changed", Fingerprint("a.md", at(t, "We met in order to ship.\n", "R", "in order to", 0), []byte("We met in order to ship.\n")), false},
		{"another line changed", Fingerprint("a.md", at(t, "# Title!\n\nWe met in order to plan.\n", "R", "in order to", 0), []byte("# Title!\n\nWe met in order to plan.\n")), true},
	}
	for _, tt := range tests {
		if (tt.fp == base) != tt.same {
			t.Errorf("%s: same fingerprint %v, want %v", tt.name, tt.fp == base, tt.same)
		}
	}
	note := finding.Finding{Rule: "R", Message: "target not found"}
	if Fingerprint("a.md", note, nil) == Fingerprint("a.md", finding.Finding{Rule: "R", Message: "other"}, nil) {
		t.Error("notes with different messages share a fingerprint")
	}
}

// TestRoundTrip: a recorded baseline hides exactly the findings it recorded, each entry one
// finding: of three identical findings, two entries hide two.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	src := "Say it in order to say it.\nSay it in order to say it.\nSay it in order to say it.\nNew: in other words.\n"
	var fs []finding.Finding
	for i, from := 0, 0; i < 3; i++ {
		f := at(t, src, "R", "in order to", from)
		fs = append(fs, f)
		from = f.End.Offset
	}
	var rec Recorder
	rec.Add(finding.FileResult{Path: "a.md", Findings: fs[:2], Source: []byte(src)})
	data := rec.Marshal()
	set, err := Parse("b.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	other := at(t, src, "R", "in other words", 0)
	fr, hidden := set.Hide(finding.FileResult{Path: "a.md", Findings: append(fs, other), Source: []byte(src)})
	if hidden != 2 || len(fr.Findings) != 2 || fr.Findings[0].Start != fs[2].Start || fr.Findings[1].Match != "in other words" {
		t.Errorf("hidden %d, left %+v", hidden, fr.Findings)
	}
	if len(set.Stale()) != 0 {
		t.Errorf("stale %+v", set.Stale())
	}
	// A file no entry names is untouched; an entry whose file was not linted is not stale.
	set2, _ := Parse("b.json", data)
	if fr, n := set2.Hide(finding.FileResult{Path: "c.md", Findings: fs, Source: []byte(src)}); n != 0 || len(fr.Findings) != 3 || len(set2.Stale()) != 0 {
		t.Errorf("c.md: %d hidden, stale %+v", n, set2.Stale())
	}
	set2.Hide(finding.FileResult{Path: "a.md", Source: []byte(src)})
	if stale := set2.Stale(); len(stale) != 2 || stale[0].Match != "in order to" {
		t.Errorf("stale after a clean a.md: %+v", stale)
	}
	want := `{
  "kind": "vectorlint-baseline",
  "version": 1,
  "findings": [
    {
      "path": "a.md",
      "rule": "R",
      "fingerprint": "` + Fingerprint("a.md", fs[0], []byte(src)) + `",
      "match": "in order to",
      "message": "m"
    },`
	if !strings.HasPrefix(string(data), want) {
		t.Errorf("file:\n%s\nwant it to start with\n%s", data, want)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	fp := strings.Repeat("ab", 32)
	tests := []struct{ data, want string }{
		{``, "baseline b.json: expected a vectorlint baseline (JSON written by --write-baseline), found EOF"},
		{"{\n  \"kind\": \"vectorlint-baseline\",\n  x\n}", "baseline b.json: expected a vectorlint baseline (JSON written by --write-baseline), found invalid character 'x' looking for beginning of object key string at line 3"},
		{`{"kind": "other", "version": 1, "findings": []}`, `baseline b.json: expected kind "vectorlint-baseline", found "other"`},
		{`{"kind": "vectorlint-baseline", "version": 1}`, `baseline b.json: expected a "findings" list, found none`},
		{`{"kind": "vectorlint-baseline", "version": 1, "findings": [], "extra": 1}`, `baseline b.json: expected a vectorlint baseline (JSON written by --write-baseline), found unknown field "extra"`},
		{`{"kind": "vectorlint-baseline", "version": 1, "findings": [{"path": "a.md", "rule": "R", "fingerprint": "xyz"}]}`, `baseline b.json: expected a fingerprint of 64 hex digits in finding 1, found "xyz"`},
		{`{"kind": "vectorlint-baseline", "version": 1, "findings": [{"rule": "R", "fingerprint": "` + fp + `"}]}`, `baseline b.json: expected a path and a rule in finding 1, found path "", rule "R"`},
		{`{"kind": "vectorlint-baseline", "version": 1, "findings": []} {}`, `baseline b.json: expected one JSON object, found more after it`},
	}
	for _, tt := range tests {
		_, err := Parse("b.json", []byte(tt.data))
		var be *Error
		if !errors.As(err, &be) || err.Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.data, err, tt.want)
		}
	}
}

// FuzzParse: any input is a *Error or a set whose entries are all well formed; a recorded
// baseline always parses back.
func FuzzParse(f *testing.F) {
	var rec Recorder
	src := "We met in order to plan.\n"
	rec.Add(finding.FileResult{Path: "a.md", Findings: []finding.Finding{at(f, src, "R", "in order to", 0)}, Source: []byte(src)})
	f.Add(rec.Marshal())
	f.Add([]byte(`{"kind": "vectorlint-baseline", "version": 1, "findings": []}`))
	f.Add([]byte(`{"kind": "vectorlint-baseline", "version": 1, "findings": [{"path": "a.md", "rule": "R", "fingerprint": "0"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Parse("b.json", data)
		if err != nil {
			var be *Error
			if !errors.As(err, &be) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if set.Len() < 0 {
			t.Fatal("negative length")
		}
		// Hiding from an empty file and listing what is stale never fails.
		set.Hide(finding.FileResult{Path: "a.md"})
		if n := len(set.Stale()); n > set.Len() {
			t.Fatalf("%d stale of %d entries", n, set.Len())
		}
	})
}
