package jsregex

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// semanticsCases are shared with TestAgainstNode, which runs them in JavaScript too.
var semanticsCases = []struct {
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

func TestJavaScriptSemantics(t *testing.T) {
	t.Parallel()
	tests := semanticsCases
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
	t.Parallel()
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
	t.Parallel()
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

// TestSticky: the y flag anchors the match at the start of the searched text (and each further
// match where the previous one ended), as a fresh JavaScript regex with lastIndex 0.
func TestSticky(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, flags, input string
		want                  []string
	}{
		{`b`, "y", "ab", nil},
		{`b`, "", "ab", []string{"b"}},
		{`a`, "y", "ab", []string{"a"}},
		{`^#\s+(.+)$`, "my", "intro\n# Title", nil},
		{`^#\s+(.+)$`, "my", "# Title\nbody", []string{"# Title"}},
		{`a|b`, "gy", "abxab", []string{"a", "b"}},
		{`a|b`, "g", "abxab", []string{"a", "b", "a", "b"}},
		{`\d+,?`, "y", "12,34 56", []string{"12,", "34"}},
	}
	for _, tc := range tests {
		re, err := Compile(tc.pattern, tc.flags)
		if err != nil {
			t.Fatalf("Compile(%q, %q): %v", tc.pattern, tc.flags, err)
		}
		ms, err := re.FindAllStringMatch(tc.input, -1)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range ms {
			got = append(got, m.Groups[0].Text)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("/%s/%s on %q: matches %q, want %q", tc.pattern, tc.flags, tc.input, got, tc.want)
		}
		first, _ := re.FindStringMatch(tc.input)
		if ok, _ := re.MatchString(tc.input); ok != (len(tc.want) > 0) || (first != nil) != ok {
			t.Errorf("/%s/%s on %q: MatchString = %v, first match %v", tc.pattern, tc.flags, tc.input, ok, first)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	for _, s := range []string{`^#\s+(.+)$`, `[]a]`, `(?<=a)b`, `a.b`, `\u{1F600}`, `(a+)+$`, `[^\]]`, `\`, `(?i:a(?-i:b))`, `(?s-m:.$)x`} {
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

// jsOnlyCases are shared with TestAgainstNode, which runs them in JavaScript too.
var jsOnlyCases = []struct {
	name, pattern, flags, input string
	want                        string // the match; "-" for none
}{
	// \b and \B: JavaScript's word characters are [A-Za-z0-9_].
	{"\\b before an accented letter", `\bé`, "", " é", "-"},
	{"\\b after an accented letter", `é\b`, "u", "é ", "-"},
	{"\\b between ASCII and accented", `a\b`, "", "aé", "a"},
	{"\\b between ASCII letters", `a\b`, "", "ab", "-"},
	{"\\B beside an accented letter", `\Bé`, "", " é", "é"},
	{"\\B: ASCII then accented is a boundary", `\Bé`, "", "aé", "-"},
	{"\\B at a space", `\B `, "", "é ", " "},
	{"\\b word", `\bParaná\b`, "u", "Paranáense", "Paraná"},
	{"[\\b] is backspace", `[\b]`, "", "a\bb", "\b"},
	{"\\b with i and u: ſ is a word character", `a\b`, "iu", "a\u017f", "-"},
	{"\\b with i without u: ſ is not", `a\b`, "i", "a\u017f", "a"},
	{"\\b with i and u: Kelvin is a word character", `a\b`, "iu", "a\u212a", "-"},
	{"\\W with i: not s", `\W`, "i", "sk!", "!"},
	{"[\\W] with i: not s", `[\Wx]+`, "i", "sk!x", "!x"},
	{"[\\W] with i and u: not ſ", `[\W]`, "iu", "\u017f\u212a!", "!"},
	// Case folding.
	{"s does not match ſ without u", `s`, "i", "\u017f", "-"},
	{"S does not match ſ without u", `S`, "i", "\u017f", "-"},
	{"ſ does not match s without u", `\u017f`, "i", "s", "-"},
	{"ſ matches itself without u", `\u017f`, "i", "x\u017f", "\u017f"},
	{"s matches ſ with u", `s`, "iu", "\u017f", "\u017f"},
	{"ſ matches S with u", `\u{17f}`, "iu", "S", "S"},
	{"k does not match Kelvin without u", `k`, "i", "\u212a", "-"},
	{"Kelvin does not match K without u", `\u212A`, "i", "K", "-"},
	{"literal Kelvin does not match k without u", "\u212a", "i", "k", "-"},
	{"k matches Kelvin with u", `k`, "iu", "\u212a", "\u212a"},
	{"class range without u", `[a-z]+`, "i", "OK\u212a", "OK"},
	{"class range with u", `[a-z]+`, "iu", "OK\u212a", "OK\u212a"},
	{"negated class without u", `[^a-z]`, "i", "k\u212a", "\u212a"},
	{"range holding ſ keeps it without u", `[\u0100-\u017f]`, "i", "s\u017f", "\u017f"},
	{"range around ſ", `[\u0100-\u0200]+`, "i", "s\u0180\u017f\u0101", "\u0180\u017f\u0101"},
	{"range ending at Kelvin", `[\u2100-\u212a]+`, "i", "k\u212a", "\u212a"},
	{"\\w with i without u", `\w+`, "i", "ss\u017fk\u212a", "ss"},
	{"\\w with i and u", `\w+`, "iu", "ss\u017fk\u212a", "ss\u017fk\u212a"},
	{"\\W with i and u leaves out ſ", `\W`, "iu", "\u017f\u212a!", "!"},
	{"\\W with i without u", `\W`, "i", "s\u017f", "\u017f"},
	{"Ohm sign is not omega without u", `\u03c9`, "i", "\u2126\u03a9", "\u03a9"},
	{"Angstrom sign is not å without u", `å`, "i", "\u212b\u00c5", "\u00c5"},
	{"ẞ is not ß without u", `ß`, "i", "\u1e9e", "-"},
	{"ẞ is ß with u", `ß`, "iu", "\u1e9e", "\u1e9e"},
	{"sigma forms fold", `σ`, "i", "ς", "ς"},
	// regexp2 folds a lone character only when it is Lu or Ll; JavaScript folds these too.
	{"titlecase ǅ matches Ǆ", `ǅ`, "i", "xǄ", "Ǆ"},
	{"titlecase ǅ matches ǆ with u", `\u01C5`, "iu", "xǆ", "ǆ"},
	{"Roman numeral Ⅻ matches ⅻ", `Ⅻ`, "i", "xⅻ", "ⅻ"},
	{"circled Ⓐ matches ⓐ", `Ⓐ`, "iu", "xⓐ", "ⓐ"},
	{"U+0345 matches ι", `\u0345`, "i", "xι", "ι"},
	{"titlecase in a class", `[ǅ]`, "i", "xǆ", "ǆ"},
	// Canonicalize uses full uppercase mappings: ᾳ's is "ΑΙ", two letters, so without u ᾳ
	// only matches itself (and ᾼ, whose uppercase is also "ΑΙ", only itself).
	{"ᾳ is not ᾼ without u", `ᾳ`, "i", "ᾼ", "-"},
	{"ᾼ is not ᾳ without u", `ᾼ`, "i", "ᾳ", "-"},
	{"ᾀ is not ᾈ without u", "ᾀ", "i", "ᾈ", "-"},
	{"ᾳ is ᾼ with u", `ᾳ`, "iu", "ᾼ", "ᾼ"},
	{"ᾳ matches itself without u", `ᾳ`, "i", "ᾳ", "ᾳ"},
	{"ά still folds without u", `ά`, "i", "Ά", "Ά"},
	// Without u a letter outside the BMP is two surrogates, which have no case.
	{"𐐨 is not 𐐀 without u", "𐐨", "i", "𐐀", "-"},
	{"𐐨 matches itself without u", "𐐨", "i", "𐐨", "𐐨"},
	{"𐐨 is 𐐀 with u", "𐐨", "iu", "𐐀", "𐐀"},
	{"case-sensitive: no folding", `s`, "", "\u017fS", "-"},
	// Escapes JavaScript does not define are the letter itself without u.
	// Modifier groups (ES2025) change i, m and s inside them.
	{"(?i:) folds inside", `a(?i:b)c`, "", "xaBc", "aBc"},
	{"(?i:) does not fold outside", `a(?i:b)c`, "", "ABC", "-"},
	{"(?-i:) stops folding", `(?-i:a)b`, "i", "aB Ab", "aB"},
	{"nested modifiers", `(?i:a(?-i:b)c)`, "", "AbC ABC", "AbC"},
	{"(?s:.) matches a line break", `a(?s:.)b.`, "", "a\nb\n a\nbc", "a\nbc"},
	{"(?-s:.) does not", `a(?-s:.)b`, "s", "a\nb axb", "axb"},
	{"(?m:^) at a line start", `(?m:^b)`, "", "a\nb", "b"},
	{"(?-m:$) only at the end", `.(?-m:$)`, "m", "xy\nz", "z"},
	{"m outside (?-m:)", `.$`, "m", "xy\nz", "y"},
	{"modifiers end with their group", `(?s:(a.)).`, "", "a\n\n a\nb", "a\nb"},
	{"(?i:s) keeps ſ apart without u", `(?i:s)`, "", "\u017f", "-"},
	{"(?i:s) folds S without u", `(?i:s)`, "", "\u017fS", "S"},
	{"case-sensitive ſ beside (?i:)", `\u017f(?i:x)`, "", "sX \u017fX", "\u017fX"},
	{"case-sensitive range beside (?i:)", `[\u0100-\u017f](?i:x)`, "", "sX \u017fx", "\u017fx"},
	{"(?i:k) is the Kelvin sign with u", `(?i:k)`, "u", "\u212a", "\u212a"},
	{"\\A is A", `\Ab`, "", "xAb", "Ab"},
	{"\\Z is Z", `a\Z`, "", "aZ", "aZ"},
	{"\\z is z", `a\z`, "", "az", "az"},
	{"\\G is G", `\G`, "", "xG", "G"},
	{"\\e is e", `\e`, "", "e", "e"},
	{"\\a is a", `\a`, "", "a", "a"},
	{"\\p is p without u", `\p{L}`, "", "p{L}", "p{L}"},
	{"\\k is k without named groups", `\k`, "", "k", "k"},
	{"\\x without digits is x", `\xg`, "", "xg", "xg"},
	{"\\u without digits is u", `\u{2}`, "", "uu", "uu"},
	{"identity escape of punctuation", `\-\!`, "", "-!", "-!"},
	{"a literal [ in a class", `[[a]+`, "", "x[a[", "[a["},
	{"lone \\c is a backslash", `\c1`, "", `\c1`, `\c1`},
	{"\\cJ is LF", `a\cJb`, "", "a\nb", "a\nb"},
}

// TestJavaScriptOnlySemantics covers where regexp2 departs from JavaScript: word boundaries are
// ASCII, case folding without u follows Canonicalize (toUpperCase, never non-ASCII to ASCII),
// and escapes JavaScript does not define are letters without u.
func TestJavaScriptOnlySemantics(t *testing.T) {
	t.Parallel()
	tests := jsOnlyCases
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			re, err := Compile(tc.pattern, tc.flags)
			if err != nil {
				t.Fatalf("Compile(%q, %q): %v", tc.pattern, tc.flags, err)
			}
			m, err := re.FindStringMatch(tc.input)
			if err != nil {
				t.Fatal(err)
			}
			got := "-"
			if m != nil {
				got = m.Groups[0].Text
			}
			if got != tc.want {
				t.Errorf("/%s/%s on %q = %q, want %q", tc.pattern, tc.flags, tc.input, got, tc.want)
			}
			if ok, _ := re.MatchString(tc.input); ok != (tc.want != "-") {
				t.Errorf("MatchString = %v", ok)
			}
		})
	}
}

// TestFoldedSpans: positions and texts of a match over runes the engine saw as sentinels are
// those of the input.
func TestFoldedSpans(t *testing.T) {
	t.Parallel()
	re, err := Compile(`(\u017f+)(x)`, "gi")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := re.FindAllStringMatch("é\u017f\u017fX s\u017fx", -1)
	if err != nil || len(ms) != 2 {
		t.Fatalf("%d matches, %v", len(ms), err)
	}
	if g := ms[0].Groups[1]; g.Text != "\u017f\u017f" || g.Span != (Span{RuneStart: 1, RuneEnd: 3, ByteStart: 2, ByteEnd: 6}) {
		t.Errorf("group 1 = %q %+v", g.Text, g.Span)
	}
	if g := ms[1].Groups[0]; g.Text != "\u017fx" || g.Span != (Span{RuneStart: 6, RuneEnd: 8, ByteStart: 9, ByteEnd: 12}) {
		t.Errorf("second match = %q %+v", g.Text, g.Span)
	}
}

// notJavaScriptCases are shared with TestAgainstNode, which runs them in JavaScript too.
var notJavaScriptCases = []struct{ pattern, flags, want string }{
	{`^*a`, "", `nothing to repeat: "^" is an assertion`},
	{`a$+`, "m", `nothing to repeat: "$" is an assertion`},
	{`\b?a`, "", `nothing to repeat: "\b" is an assertion`},
	{`a\B{1,2}`, "u", `nothing to repeat: "\B" is an assertion`},
	{`(?<=a)?b`, "", `nothing to repeat: a lookbehind is an assertion`},
	{`(?=a)*b`, "u", `nothing to repeat: a lookahead (with the u flag) is an assertion`},
	{`a\1`, "u", `invalid escape \1 (a back-reference to group 1; the pattern has 0 capturing groups)`},
	{`(a)\2`, "u", `invalid escape \2`},
	{`[\1]`, "u", `invalid escape \1 in a class`},
	{`\01`, "u", `invalid escape \01`},
	{`(?i)abc`, "", `invalid group "(?i)": inline flags are not JavaScript regex syntax`},
	{`a(?i)b`, "u", `invalid group "(?i)"`},
	{`(?ii:a)`, "", `invalid group "(?ii:": the flag 'i' appears twice`},
	{`(?i-i:a)`, "", `invalid group "(?i-i:": the flag 'i' appears twice`},
	{`(?-:a)`, "", `invalid group "(?-:": a modifier group names at least one flag`},
	{`(?x:a)`, "", `invalid group "(?x:": a modifier group can only change the flags i, m and s, found 'x'`},
	{`(?i-m-s:a)`, "", `invalid group "(?i-m-s:": more than one "-"`},
	{`(?#note)a`, "", `invalid group "(?#": comments`},
	{`(?>a)b`, "", `invalid group "(?>": atomic groups`},
	{`(?P<n>a)`, "", `invalid group "(?P"`},
	{`(?x`, "", `invalid group "(?x"`},
	{`a++`, "", `nested repetition`},
	{`a*+`, "", `nested repetition`},
	{`a?+`, "", `nested repetition`},
	{`a{2}+`, "", `nested repetition`},
	{`\Aa`, "u", `invalid escape \A (with the u flag only syntax characters may be escaped)`},
	{`a\Z`, "u", `invalid escape \Z`},
	{`a\z`, "u", `invalid escape \z`},
	{`\Ga`, "u", `invalid escape \G`},
	{`\-`, "u", `invalid escape \-`},
	{`[\B]`, "u", `invalid escape \B`},
	{`\k`, "u", `invalid escape \k`},
	{`(?<n>a)\k`, "", `invalid escape \k`},
	{`\xZ`, "u", `invalid escape \x`},
	{`\u{110000}`, "u", `invalid escape \u{…}`},
	{`[z-a]`, "", `range in reverse order`},
	{`[\d-z]`, "u", `invalid character class range`},
}

// javaScriptLookalikes is JavaScript syntax that looks like notJavaScriptCases and compiles.
var javaScriptLookalikes = []string{`(?=a)*b`, `a\1`, `(a)\1`, `(?<n>a)\k<n>`, `^a{2}`, `a{,2}`, `\b{`, `(?:a)`, `(?=a)`, `(?!a)`, `(?<=a)b`, `(?<!a)b`, `(?<year>\d+)\k<year>`, `a+?`, `a{2}?`, `[\-a]`, `\/`, `[\d-z]`, `(?i:a)`, `(?-i:a)`, `(?ms-i:a)`}

// TestNotJavaScriptSyntax: constructs of other regex dialects are errors, as in JavaScript.
func TestNotJavaScriptSyntax(t *testing.T) {
	t.Parallel()
	tests := notJavaScriptCases
	for _, tc := range tests {
		_, err := Compile(tc.pattern, tc.flags)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%q, %q) error = %v, want a *SyntaxError containing %q", tc.pattern, tc.flags, err, tc.want)
		}
	}
	for _, p := range javaScriptLookalikes {
		if _, err := Compile(p, ""); err != nil {
			t.Errorf("Compile(%q): %v", p, err)
		}
	}
}

// BenchmarkCompileIgnoreCase compiles a pattern with \S, \D and \W under i: regexp2 took some
// 30 ms for each \S or \D with case folding on, so they are written with folding off.
func BenchmarkCompileIgnoreCase(b *testing.B) {
	for b.Loop() {
		if _, err := Compile(`\S+\D\W`, "i"); err != nil {
			b.Fatal(err)
		}
	}
}

// quoteMetaInputs are texts QuoteMeta must make literal patterns of: every ASCII punctuation
// character (issue 32: "-" was escaped, which the u flag rejects), the syntax characters
// together, and text beyond ASCII.
var quoteMetaInputs = func() []string {
	out := []string{"e-mail", "a/b, c:d=e! <x> #1 ~y 'q' \"w\" `z`", `^$\.*+?()[]{}|/`, "caf\u00e9 \u2014 \U0001F600 [x-y]", "(?<n>a)\\k<n>"}
	for c := byte('!'); c <= '~'; c++ {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			out = append(out, "a"+string(c)+"b")
		}
	}
	return out
}()

// quoteMetaFlags are the flag sets a quoted pattern must compile and match literally under.
var quoteMetaFlags = []string{"", "u", "v", "i", "iu", "m"}

func TestQuoteMeta(t *testing.T) {
	t.Parallel()
	for _, in := range quoteMetaInputs {
		for _, flags := range quoteMetaFlags {
			re, err := Compile(QuoteMeta(in), flags)
			if err != nil {
				t.Errorf("QuoteMeta(%q) = %q, flags %q: %v", in, QuoteMeta(in), flags, err)
				continue
			}
			m, err := re.FindStringMatch("x" + in + "y")
			if err != nil || m == nil || m.Groups[0].Text != in || m.Groups[0].ByteStart != 1 {
				t.Errorf("/%s/%s on %q: %+v, %v; want %q at 1", QuoteMeta(in), flags, "x"+in+"y", m, err, in)
			}
		}
	}
	if got, want := QuoteMeta("e-mail: a/b (c)"), `e-mail: a\/b \(c\)`; got != want {
		t.Errorf("QuoteMeta = %q, want %q", got, want)
	}
}

// FuzzQuoteMeta: any text quoted is a valid pattern under u and without it, and matches the
// text itself from its start.
func FuzzQuoteMeta(f *testing.F) {
	for _, in := range quoteMetaInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) || in == "" {
			return
		}
		for _, flags := range []string{"", "u"} {
			re, err := Compile(QuoteMeta(in), flags, WithTimeout(time.Second))
			if err != nil {
				t.Fatalf("QuoteMeta(%q) = %q, flags %q: %v", in, QuoteMeta(in), flags, err)
			}
			m, err := re.FindStringMatch(in)
			if err != nil || m == nil || m.Groups[0].Text != in || m.Groups[0].ByteStart != 0 {
				t.Fatalf("/%s/%s on %q: %+v, %v", QuoteMeta(in), flags, in, m, err)
			}
		}
	})
}
