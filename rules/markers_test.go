package rules

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseMarkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		marked string
		text   string
		spans  []Span
	}{
		{"We met to plan the release.", "We met to plan the release.", nil},
		{"", "", nil},
		{"We met {==in order to==} plan the release.", "We met in order to plan the release.", []Span{{7, 18}}},
		{"{==Leverage==} the {==robust==} API.", "Leverage the robust API.", []Span{{0, 8}, {13, 19}}},
		// Touching spans stay two spans.
		{"{==each==}{==and every==}", "eachand every", []Span{{0, 4}, {4, 13}}},
		// Offsets are bytes: "café" is 5 bytes.
		{"Le café {==est==} prêt.", "Le café est prêt.", []Span{{9, 12}}},
		// A span may cross lines; text outside markers is kept byte for byte.
		{"# Title\r\n\r\nThe file {==must be\nsaved==}.\n", "# Title\r\n\r\nThe file must be\nsaved.\n", []Span{{20, 33}}},
		// Inside a span the first "==}" closes it; "=" and "{=" alone are text.
		{"a {==x = y==} and {=b=} c", "a x = y and {=b=} c", []Span{{2, 7}}},
		{"{===x==}", "=x", []Span{{0, 2}}},
	}
	for _, tt := range tests {
		text, spans, err := ParseMarkers(tt.marked)
		if err != nil || text != tt.text || !reflect.DeepEqual(spans, tt.spans) {
			t.Errorf("ParseMarkers(%q) = %q, %v, %v; want %q, %v", tt.marked, text, spans, err, tt.text, tt.spans)
			continue
		}
		if back := MarkSpans(text, spans); back != tt.marked {
			t.Errorf("MarkSpans(%q, %v) = %q, want %q", text, spans, back, tt.marked)
		}
	}
}

func TestParseMarkersErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		marked string
		want   MarkerError
		msg    string
	}{
		{"We met {==in order to plan.", MarkerError{MarkerUnclosed, 7, 1, 8},
			`line 1, column 8: "{==" is never closed by "==}"`},
		{"We met in order to==} plan.", MarkerError{MarkerUnopened, 18, 1, 19},
			`line 1, column 19: "==}" closes no "{=="`},
		{"first line\nsé {==a {==b==} c==}", MarkerError{MarkerNested, 20, 2, 9},
			`line 2, column 9: "{==" inside a marked span (spans cannot nest)`},
		{"Here {====} is nothing.", MarkerError{MarkerEmpty, 5, 1, 6},
			`line 1, column 6: an empty span: mark at least one word between "{==" and "==}"`},
		{"Here {== \n ==} is white space.", MarkerError{MarkerEmpty, 5, 1, 6},
			`line 1, column 6: an empty span: mark at least one word between "{==" and "==}"`},
		// The first problem is the one reported.
		{"a ==} b {==", MarkerError{MarkerUnopened, 2, 1, 3}, `line 1, column 3: "==}" closes no "{=="`},
	}
	for _, tt := range tests {
		text, spans, err := ParseMarkers(tt.marked)
		var me *MarkerError
		if !errors.As(err, &me) || *me != tt.want || err.Error() != tt.msg || text != "" || spans != nil {
			t.Errorf("ParseMarkers(%q) = %q, %v, %v (%+v); want %+v: %s", tt.marked, text, spans, err, me, tt.want, tt.msg)
		}
	}
}

// FuzzParseMarkers checks the marker parser's contract: no panic; on success, spans inside the
// stripped text, in order, not overlapping, none empty or only white space, and the markers put
// back give the input; on failure, a *MarkerError whose position is the marker at fault.
func FuzzParseMarkers(f *testing.F) {
	for _, s := range []string{
		"", "plain", "We met {==in order to==} plan.", "{==a==}{==b==}", "{====}", "{==a", "a==}",
		"{=={==a==}==}", "{===x==}", "x {== \t ==} y", "é{==ü==}\n{==ß==}", "{{==a==}==", "==}{==",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, marked string) {
		text, spans, err := ParseMarkers(marked)
		if err != nil {
			var me *MarkerError
			if !errors.As(err, &me) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if me.Offset < 0 || me.Offset >= len(marked) || me.Line < 1 || me.Column < 1 ||
				!strings.HasPrefix(marked[me.Offset:], MarkOpen) && !strings.HasPrefix(marked[me.Offset:], MarkClose) {
				t.Fatalf("error %+v does not point at a marker of %q", me, marked)
			}
			if text != "" || spans != nil {
				t.Fatalf("error with a result: %q, %v", text, spans)
			}
			return
		}
		at := 0
		for _, s := range spans {
			if s.Start < at || s.End <= s.Start || s.End > len(text) {
				t.Fatalf("span %v out of order or range (previous end %d, text length %d)", s, at, len(text))
			}
			if strings.TrimSpace(text[s.Start:s.End]) == "" {
				t.Fatalf("span %v is only white space: %q", s, text[s.Start:s.End])
			}
			if utf8.ValidString(marked) && (!utf8.ValidString(text[:s.Start]) || !utf8.ValidString(text[s.Start:s.End])) {
				t.Fatalf("span %v splits a character of %q", s, text)
			}
			at = s.End
		}
		if back := MarkSpans(text, spans); back != marked {
			t.Fatalf("markers put back give %q, want %q", back, marked)
		}
		if len(spans) == 0 && text != marked {
			t.Fatalf("no span, but the text changed: %q → %q", marked, text)
		}
	})
}
