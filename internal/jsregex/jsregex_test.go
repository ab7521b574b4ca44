package jsregex

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestJavaScriptSemantics(t *testing.T) {
	tests := []struct {
		name, pattern, flags, input string
		want                        string // "" means no match expected
		wantMatch                   bool
	}{
		{"dot excludes LF", `a.b`, "", "a\nb", "", false},
		{"dot excludes CR", `a.b`, "", "a\rb", "", false},
		{"dot excludes U+2028", `a.b`, "", "a\u2028b", "", false},
		{"dotAll", `a.b`, "s", "a\nb", "a\nb", true},
		{"dot in class is literal", `a[.]b`, "", "a.b", "a.b", true},
		{"escaped dot", `a\.b`, "", "axb", "", false},
		{"multiline caret after CRLF", `^b$`, "m", "a\r\nb\r\nc", "b", true},
		{"multiline caret after CR", `^b$`, "m", "a\rb\rc", "b", true},
		{"no m: caret only at start", `^b`, "", "a\nb", "", false},
		{"no m: dollar not before final LF", `b$`, "", "ab\n", "", false},
		{"dollar at end", `b$`, "", "ab", "b", true},
		{"caret in class is negation", `[^a]+`, "", "aab", "b", true},
		{"escaped caret", `\^x`, "", "a^x", "^x", true},
		{"ignore case", `HELLO`, "i", "say hello", "hello", true},
		{"unicode whitespace", `a\sb`, "", "a\u00a0b", "a\u00a0b", true},
		{"digit is ASCII", `\d`, "u", "\u0663", "", false},
		{"word is ASCII", `\w+`, "u", "é", "", false},
		{"unicode property needs u", `\p{L}+`, "u", "Paraná!", "Paraná", true},
		{"lookbehind", `(?<=\$)\d+`, "", "cost $42", "42", true},
		{"named group", `(?<y>\d{4})`, "", "in 2024", "2024", true},
		{"emoji code point", `\u{1F600}`, "u", "x😀", "😀", true},
		{"H1 target", `^#\s+(.+)$`, "mu", "intro\n# Title here\nbody", "# Title here", true},
		{"empty class never matches", `[]a]`, "", "xa]", "", false},
		{"negated empty class matches anything", `a[^]b`, "", "a\nb", "a\nb", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			re, err := Compile(tc.pattern, tc.flags)
			if err != nil {
				t.Fatalf("Compile(%q, %q): %v", tc.pattern, tc.flags, err)
			}
			m, err := re.FindStringMatch(tc.input)
			if err != nil {
				t.Fatalf("match error: %v", err)
			}
			if (m != nil) != tc.wantMatch {
				t.Fatalf("matched = %v, want %v", m != nil, tc.wantMatch)
			}
			if m != nil && m.Groups[0].Text != tc.want {
				t.Fatalf("match = %q, want %q", m.Groups[0].Text, tc.want)
			}
		})
	}
}

func TestSpansInRunesAndBytes(t *testing.T) {
	re, err := Compile(`(café) (x)?(😀)`, "u")
	if err != nil {
		t.Fatal(err)
	}
	m, err := re.FindStringMatch("à café 😀")
	if err != nil || m == nil {
		t.Fatalf("no match: %v", err)
	}
	if got, want := m.Groups[1].Span, (Span{RuneStart: 2, RuneEnd: 6, ByteStart: 3, ByteEnd: 8}); got != want {
		t.Errorf("group 1 span = %+v, want %+v", got, want)
	}
	if m.Groups[2] != nil {
		t.Errorf("group 2 did not participate, got %+v", m.Groups[2])
	}
	if got, want := m.Groups[3].Span, (Span{RuneStart: 7, RuneEnd: 8, ByteStart: 9, ByteEnd: 13}); got != want {
		t.Errorf("group 3 span = %+v, want %+v", got, want)
	}
	if re.NumGroups() != 3 {
		t.Errorf("NumGroups = %d, want 3", re.NumGroups())
	}
}

func TestFindAll(t *testing.T) {
	re, _ := Compile(`\d+`, "g")
	ms, err := re.FindAllStringMatch("1 22 333", -1)
	if err != nil || len(ms) != 3 || ms[2].Groups[0].Text != "333" {
		t.Fatalf("got %d matches, err %v", len(ms), err)
	}
	ms, _ = re.FindAllStringMatch("1 22 333", 2)
	if len(ms) != 2 {
		t.Fatalf("limit 2 gave %d", len(ms))
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct{ pattern, flags, wantSubstr string }{
		{`(abc`, "", "invalid regular expression /(abc/"},
		{`abc`, "q", `unknown flag 'q'`},
		{`abc`, "gg", `flag 'g' given twice`},
		{`[abc`, "", "missing terminating ]"},
		{`abc\`, "", `\ at end of pattern`},
		{`a`, "uv", `cannot be combined`},
	}
	for _, tc := range tests {
		_, err := Compile(tc.pattern, tc.flags)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Compile(%q,%q) error = %v, want *SyntaxError", tc.pattern, tc.flags, err)
		}
		if !strings.Contains(err.Error(), tc.wantSubstr) {
			t.Errorf("Compile(%q,%q) error = %q, want it to contain %q", tc.pattern, tc.flags, err, tc.wantSubstr)
		}
	}
}

func TestCatastrophicBacktrackingIsBounded(t *testing.T) {
	re, err := Compile(`(a+)+$`, "", WithTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.Repeat("a", 40) + "b"
	_, err = re.MatchString(secret)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("error message quotes the input: %q", err)
	}
}

func TestSplitInlineFlags(t *testing.T) {
	tests := []struct{ in, rest, flags string }{
		{"(?i)not a (financial|tax) advisor", "not a (financial|tax) advisor", "i"},
		{"(?is)x", "x", "is"},
		{"(?:abc)", "(?:abc)", ""},
		{"(?<=a)b", "(?<=a)b", ""},
		{"plain", "plain", ""},
	}
	for _, tc := range tests {
		rest, flags := SplitInlineFlags(tc.in)
		if rest != tc.rest || flags != tc.flags {
			t.Errorf("SplitInlineFlags(%q) = %q, %q; want %q, %q", tc.in, rest, flags, tc.rest, tc.flags)
		}
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{`^#\s+(.+)$`, `[]a]`, `(?<=a)b`, `a.b`, `\u{1F600}`, `(a+)+$`, `[^\]]`, `\`} {
		f.Add(s, "mu", "# Title\nbody é 😀")
	}
	f.Fuzz(func(t *testing.T, pattern, flags, input string) {
		re, err := Compile(pattern, flags, WithTimeout(20*time.Millisecond))
		if err != nil {
			return
		}
		m, err := re.FindStringMatch(input)
		if err != nil || m == nil {
			return
		}
		g := m.Groups[0]
		if g.ByteStart < 0 || g.ByteEnd > len(input) || g.ByteStart > g.ByteEnd {
			t.Fatalf("span %+v out of range for input of %d bytes", g.Span, len(input))
		}
		// Invalid UTF-8 is matched as U+FFFD, so only valid text (every caller's: documents are
		// checked, model replies decoded from JSON) must equal its byte span.
		if utf8.ValidString(input) && input[g.ByteStart:g.ByteEnd] != g.Text {
			t.Fatalf("byte span text %q != group text %q", input[g.ByteStart:g.ByteEnd], g.Text)
		}
	})
}
