package jsregex

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// lineTerminators is JavaScript's LineTerminator set as a class body.
const lineTerminators = `\n\r\u2028\u2029`

// jsWord is JavaScript's word character set for \b and \B: ASCII only. Under the i flag the
// engine folds case in it, so with u it also holds ſ (U+017F) and the Kelvin sign (U+212A), as
// JavaScript's WordCharacters do with u and i; without u those two are replaced by sentinels
// in the input (see foldSplits) and stay non-word characters, as in JavaScript.
const jsWord = `[A-Za-z0-9_]`

// jsNotWordRanges is a class body for the characters that are not JavaScript word characters,
// ſ (U+017F) and the Kelvin sign (U+212A) left out (see the \W escape).
const jsNotWordRanges = "\\x00-/:-@\\[-^`{-\\u017E\\u0180-\\u2129\\u212B-\U0010FFFF"

// Word boundaries with JavaScript's ASCII word characters (regexp2's \b uses Unicode letters).
const (
	jsWordBoundary    = `(?:(?<=` + jsWord + `)(?!` + jsWord + `)|(?<!` + jsWord + `)(?=` + jsWord + `))`
	jsNotWordBoundary = `(?:(?<=` + jsWord + `)(?=` + jsWord + `)|(?<!` + jsWord + `)(?!` + jsWord + `))`
)

// syntaxFlags are the flags that change how a pattern is read.
type syntaxFlags struct {
	dotAll, multiline, ignoreCase, unicode bool
	// fold maps runes to the sentinels that stand for them when the engine's case folding
	// would equate them with runes JavaScript keeps apart (non-nil for i without u).
	fold map[rune]rune
}

// rewriter translates a JavaScript pattern into regexp2's ECMAScript dialect, rejecting the
// syntax JavaScript rejects and rewriting the constructs where regexp2 differs.
type rewriter struct {
	rs    []rune
	i     int
	f     syntaxFlags
	named bool // the pattern has named groups: \k is a named back-reference
	b     bytes.Buffer
	// groups holds a frame for each group open at w.i.
	groups []groupFrame
	// inClass is set while a character class is being rewritten.
	inClass bool
	// captures is the number of capturing groups in the pattern (for \N with u).
	captures int
	// assertion names the element just written when it is one JavaScript forbids a quantifier
	// on ("^", "$", "\b", "\B", a lookbehind, and with u a lookahead); "" otherwise.
	assertion string
}

// groupFrame is an open group: the flags to restore when it closes (nil but for a modifier
// group "(?i:…)"), and what it is when a quantifier may not follow it.
type groupFrame struct {
	saved     *syntaxFlags
	assertion string
}

// rewrite adjusts the constructs where regexp2's ECMAScript mode differs from JavaScript:
//
//   - ".", "^" and "$" (see the package comment);
//   - "\b" and "\B" use ASCII word characters;
//   - "[]" never matches and "[^]" matches anything;
//   - without u, an escaped letter that JavaScript does not define is that letter (\A is "A";
//     regexp2 would read an anchor), \p is "p"; with u it is a syntax error;
//   - modifier groups "(?ims-ims:…)" (ES2025) change i, m and s inside them: "." "^" "$" are
//     rewritten with the group's flags and i becomes regexp2's own "(?i:…)" / "(?-i:…)";
//   - groups JavaScript does not have ("(?i)", "(?#…)", "(?>…)", "(?x:…)") are syntax errors;
//   - with i and without u, runes the engine would fold together although JavaScript does not
//     (ſ and s, the Kelvin sign and k, …) are replaced by sentinels (see foldSplits);
//   - with i and u, \W excludes ſ and the Kelvin sign, as JavaScript's does.
//
// foldsSomewhere reports whether a modifier group turns i on (the sentinels of foldSplits are
// then needed in the whole pattern, and in the input, even where case matters).
func rewrite(p string, f syntaxFlags) (out string, foldsSomewhere bool, err error) {
	w := &rewriter{rs: []rune(p), f: f, named: hasNamedGroups(p), captures: countCaptures(p)}
	for w.i < len(w.rs) {
		if err := w.top(); err != nil {
			return "", false, err
		}
		foldsSomewhere = foldsSomewhere || w.f.ignoreCase
	}
	return w.b.String(), foldsSomewhere, nil
}

// hasNamedGroups reports whether the pattern declares a named group "(?<name>".
func hasNamedGroups(p string) bool {
	for i := 0; i+3 < len(p); i++ {
		if p[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(p[i:], "(?<") && p[i+3] != '=' && p[i+3] != '!' {
			return true
		}
	}
	return false
}

func (w *rewriter) peek(k int) rune {
	if w.i+k < len(w.rs) {
		return w.rs[w.i+k]
	}
	return -1
}

// top consumes one element outside a character class.
func (w *rewriter) top() error {
	c := w.rs[w.i]
	after := w.assertion
	w.assertion = ""
	if after != "" && w.quantifierAt() {
		return fmt.Errorf("nothing to repeat: %s is an assertion and cannot take a quantifier", after)
	}
	switch {
	case c == '\\':
		return w.escape(false)
	case c == '[':
		return w.class()
	case c == '(' && w.peek(1) == '?':
		mod, err := w.group()
		if err != nil {
			return err
		}
		if mod == nil {
			frame := groupFrame{}
			switch n := w.peek(2); {
			case n == '<' && (w.peek(3) == '=' || w.peek(3) == '!'):
				frame.assertion = "a lookbehind"
			case (n == '=' || n == '!') && w.f.unicode:
				frame.assertion = "a lookahead (with the u flag)"
			}
			w.groups = append(w.groups, frame)
			w.b.WriteString("(?")
			w.i += 2
			return nil
		}
		saved := w.f
		w.groups = append(w.groups, groupFrame{saved: &saved})
		w.f.dotAll = mod.set(w.f.dotAll, 's')
		w.f.multiline = mod.set(w.f.multiline, 'm')
		w.f.ignoreCase = mod.set(w.f.ignoreCase, 'i')
		switch {
		case strings.ContainsRune(mod.add, 'i'):
			w.b.WriteString("(?i:")
		case strings.ContainsRune(mod.remove, 'i'):
			w.b.WriteString("(?-i:")
		default:
			w.b.WriteString("(?:")
		}
		w.i += mod.length
		return nil
	case c == '(':
		w.groups = append(w.groups, groupFrame{})
		w.b.WriteByte('(')
	case c == ')':
		if n := len(w.groups); n > 0 {
			frame := w.groups[n-1]
			if frame.saved != nil {
				w.f = *frame.saved
			}
			w.groups = w.groups[:n-1]
			w.assertion = frame.assertion
		}
		w.b.WriteByte(')')
	case c == '.' && !w.f.dotAll:
		w.b.WriteString(`[^` + lineTerminators + `]`)
	case c == '.':
		w.b.WriteString(`[\s\S]`)
	case c == '^' && w.f.multiline:
		w.b.WriteString(`(?<![^` + lineTerminators + `])`)
		w.assertion = `"^"`
	case c == '^':
		w.b.WriteString(`(?<![\s\S])`)
		w.assertion = `"^"`
	case c == '$' && w.f.multiline:
		w.b.WriteString(`(?![^` + lineTerminators + `])`)
		w.assertion = `"$"`
	case c == '$':
		w.b.WriteString(`(?![\s\S])`)
		w.assertion = `"$"`
	default:
		w.literal(c)
	}
	w.i++
	return nil
}

// modifiers is a modifier group "(?add-remove:" (ES2025).
type modifiers struct {
	add, remove string
	length      int // runes from "(" to ":" included
}

// set returns flag's value inside the group, given its value outside.
func (m *modifiers) set(outside bool, flag rune) bool {
	switch {
	case strings.ContainsRune(m.add, flag):
		return true
	case strings.ContainsRune(m.remove, flag):
		return false
	}
	return outside
}

// group checks the "(?" at w.i: JavaScript has (?:, (?=, (?!, (?<=, (?<!, (?<name> and, since
// ES2025, the modifier groups (?ims-ims:, which it returns (nil for the others).
func (w *rewriter) group() (*modifiers, error) {
	switch n := w.peek(2); {
	case n == ':' || n == '=' || n == '!':
		return nil, nil
	case n == '<' && (w.peek(3) == '=' || w.peek(3) == '!'):
		return nil, nil
	case n == '<':
		return nil, nil // a named group; regexp2 checks the name
	case n == '#':
		return nil, errors.New(`invalid group "(?#": comments are not JavaScript regex syntax`)
	case n == '>':
		return nil, errors.New(`invalid group "(?>": atomic groups are not JavaScript regex syntax`)
	case n == 'P':
		return nil, errors.New(`invalid group "(?P": write a named group as (?<name>…)`)
	}
	end := w.i + 2
	for end < len(w.rs) && strings.ContainsRune("imnsx-", w.rs[end]) {
		end++
	}
	if end == w.i+2 || end >= len(w.rs) || (w.rs[end] != ')' && w.rs[end] != ':') {
		return nil, fmt.Errorf("invalid group %q", string(w.rs[w.i:min(w.i+3, len(w.rs))]))
	}
	text := string(w.rs[w.i : end+1])
	if w.rs[end] == ')' {
		return nil, fmt.Errorf("invalid group %q: inline flags are not JavaScript regex syntax (use the regex's flags, or a modifier group such as (?i:…))", text)
	}
	add, remove, dash := strings.Cut(string(w.rs[w.i+2:end]), "-")
	if strings.Contains(remove, "-") {
		return nil, fmt.Errorf("invalid group %q: more than one \"-\"", text)
	}
	if dash && add == "" && remove == "" {
		return nil, fmt.Errorf("invalid group %q: a modifier group names at least one flag", text)
	}
	seen := map[rune]bool{}
	for _, c := range add + remove {
		if !strings.ContainsRune("ims", c) {
			return nil, fmt.Errorf("invalid group %q: a modifier group can only change the flags i, m and s, found %q", text, c)
		}
		if seen[c] {
			return nil, fmt.Errorf("invalid group %q: the flag %q appears twice", text, c)
		}
		seen[c] = true
	}
	return &modifiers{add: add, remove: remove, length: end + 1 - w.i}, nil
}

// literal writes one pattern character, replaced by its sentinel when it has one.
func (w *rewriter) literal(c rune) {
	if s, ok := w.f.fold[c]; ok {
		w.b.WriteRune(s)
		return
	}
	if w.caseOnlyInClass(c) {
		w.b.WriteString("[" + string(c) + "]")
		return
	}
	w.b.WriteRune(c)
}

// caseOnlyInClass reports whether c, outside a class under i, must be written as a class of
// one to fold: regexp2 folds a lone character only when it is an upper- or lower-case letter,
// and so missed the case partners of titlecase letters (ǅ), Roman numerals (Ⅰ), circled
// letters (Ⓐ) and U+0345, which JavaScript matches (and which regexp2 does fold in a class).
func (w *rewriter) caseOnlyInClass(c rune) bool {
	return !w.inClass && w.f.ignoreCase && !unicode.IsUpper(c) && !unicode.IsLower(c) && unicode.SimpleFold(c) != c
}

// isSyntaxChar reports JavaScript's SyntaxCharacter set (and "/"): the only characters an
// identity escape may name with the u flag.
func isSyntaxChar(c rune) bool { return strings.ContainsRune(`^$\.*+?()[]{}|/`, c) }

// escape consumes the escape at w.i (a backslash) inside or outside a class. It writes the
// regexp2 form and returns an error for escapes JavaScript rejects.
func (w *rewriter) escape(inClass bool) error {
	_, _, err := w.classEscape(inClass)
	return err
}

// classEscape is escape that also returns the character the escape stands for, when it stands
// for one character (for class ranges).
func (w *rewriter) classEscape(inClass bool) (r rune, single bool, err error) {
	if w.i+1 >= len(w.rs) {
		return 0, false, errors.New(`\ at end of pattern`)
	}
	n := w.rs[w.i+1]
	u := w.f.unicode
	switch n {
	case 'd', 'D', 's', 'S', 'w', 'W':
		w.classShorthand(n, inClass)
		return 0, false, nil
	case 'b', 'B':
		return w.boundaryEscape(n, inClass)
	case 't', 'n', 'v', 'f', 'r':
		w.verbatim(2)
		return map[rune]rune{'t': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r'}[n], true, nil
	case 'c':
		return w.controlEscape()
	case 'x', 'u':
		return w.hexEscape(n, inClass)
	case 'k':
		if w.named || u {
			if w.peek(2) != '<' {
				return 0, false, errors.New(`invalid escape \k (expected \k<name>)`)
			}
			w.verbatim(2)
			return 0, false, nil
		}
		return w.identityEscape(n, inClass)
	case 'p', 'P':
		if u {
			w.verbatim(2)
			return 0, false, nil
		}
		return w.identityEscape(n, inClass)
	}
	if n >= '0' && n <= '9' {
		return 0, false, w.digitEscape(n, inClass)
	}
	return w.identityEscape(n, inClass)
}

// verbatim writes the next k runes as they are and consumes them.
func (w *rewriter) verbatim(k int) {
	w.b.WriteString(string(w.rs[w.i : w.i+k]))
	w.i += k
}

// identityEscape consumes \n standing for n itself (an error with the u flag unless n is a
// syntax character, or "-" in a class).
func (w *rewriter) identityEscape(n rune, inClass bool) (rune, bool, error) {
	if w.f.unicode && !isSyntaxChar(n) && !(inClass && n == '-') {
		return 0, false, fmt.Errorf(`invalid escape \%c (with the u flag only syntax characters may be escaped)`, n)
	}
	w.i += 2
	if n < unicode.MaxASCII && !unicode.IsLetter(n) && !unicode.IsDigit(n) && n != '_' {
		w.b.WriteByte('\\')
		w.b.WriteRune(n)
	} else {
		w.literal(n)
	}
	return n, true, nil
}

// classShorthand consumes \d, \D, \s, \S, \w or \W.
func (w *rewriter) classShorthand(n rune, inClass bool) {
	switch {
	case (n == 'D' || n == 'S') && w.f.ignoreCase && !inClass:
		// Their sets are closed under case folding, and regexp2 takes some 30 ms to
		// compile them with case folding on: switched off, they compile in microseconds.
		w.b.WriteString(`(?-i:\` + string(n) + `)`)
		w.i += 2
	case n == 'W' && w.f.ignoreCase:
		// regexp2 folds the members of \W under i, so ſ and the Kelvin sign (non-word
		// characters) would bring in "s" and "k". Spelt out without those two, the class is
		// JavaScript's \W with u and i; without u, ſ and the Kelvin sign reach the engine as
		// sentinels, which the last range holds.
		if inClass {
			w.b.WriteString(jsNotWordRanges)
		} else {
			// The set is closed under case folding (ſ and the Kelvin sign, whose partners
			// are word characters, are left out), so folding is switched off: regexp2 takes
			// some 15 ms to compile it with folding on.
			w.b.WriteString("(?-i:[" + jsNotWordRanges + "])")
		}
		w.i += 2
	default:
		w.verbatim(2)
	}
}

// boundaryEscape consumes \b or \B: word boundaries outside a class; in one, \b is a
// backspace and \B an identity escape.
func (w *rewriter) boundaryEscape(n rune, inClass bool) (rune, bool, error) {
	switch {
	case n == 'b' && inClass:
		w.verbatim(2) // backspace
		return '\b', true, nil
	case n == 'B' && inClass:
		return w.identityEscape(n, inClass)
	case n == 'b':
		w.b.WriteString(jsWordBoundary)
		w.assertion = `"\b"`
	default:
		w.b.WriteString(jsNotWordBoundary)
		w.assertion = `"\B"`
	}
	w.i += 2
	return 0, false, nil
}

// controlEscape consumes \c: a control character before a letter; alone, an error with the u
// flag and a backslash without.
func (w *rewriter) controlEscape() (rune, bool, error) {
	if l := w.peek(2); l >= 0 && l < unicode.MaxASCII && unicode.IsLetter(l) {
		w.verbatim(3)
		return l % 32, true, nil
	}
	if w.f.unicode {
		return 0, false, errors.New(`invalid escape \c (expected a letter after it)`)
	}
	w.b.WriteString(`\\`) // JavaScript reads a lone \c as a backslash and a "c"
	w.i++
	return '\\', true, nil
}

// hexEscape consumes \xHH, \uHHHH or, with the u flag, \u{H…}; without the digits it is an
// identity escape.
func (w *rewriter) hexEscape(n rune, inClass bool) (rune, bool, error) {
	if n == 'x' {
		if v, ok := hexDigits(w.rs, w.i+2, 2); ok {
			return w.codePoint(v, 4)
		}
		return w.identityEscape(n, inClass)
	}
	if v, ok := hexDigits(w.rs, w.i+2, 4); ok {
		return w.codePoint(v, 6)
	}
	if w.f.unicode && w.peek(2) == '{' {
		end := slices.Index(w.rs[w.i+3:], '}')
		if end > 0 {
			if v, err := strconv.ParseUint(string(w.rs[w.i+3:w.i+3+end]), 16, 32); err == nil && v <= unicode.MaxRune {
				return w.codePoint(rune(v), 4+end)
			}
		}
		return 0, false, errors.New(`invalid escape \u{…} (expected 1 to 6 hex digits up to 10FFFF)`)
	}
	return w.identityEscape(n, inClass)
}

// digitEscape consumes \0 or a back-reference \N.
func (w *rewriter) digitEscape(n rune, inClass bool) error {
	if w.f.unicode {
		// Without u, JavaScript reads \N beyond the groups as an octal escape, as regexp2's
		// ECMAScript mode does; with u it is an error, and so is \0 followed by a digit.
		end := w.i + 1
		for end < len(w.rs) && w.rs[end] >= '0' && w.rs[end] <= '9' {
			end++
		}
		digits := string(w.rs[w.i+1 : end])
		switch num, _ := strconv.Atoi(digits); {
		case n == '0' && len(digits) > 1:
			return fmt.Errorf(`invalid escape \%s (with the u flag \0 cannot be followed by a digit)`, digits)
		case n != '0' && inClass:
			return fmt.Errorf(`invalid escape \%s in a class (with the u flag a class cannot hold a back-reference)`, digits)
		case n != '0' && num > w.captures:
			return fmt.Errorf(`invalid escape \%s (a back-reference to group %s; the pattern has %d capturing groups)`, digits, digits, w.captures)
		}
	}
	w.verbatim(2)
	return nil
}

// quantifierAt reports whether a quantifier starts at w.i: "*", "+", "?", or "{n}", "{n,}",
// "{n,m}".
func (w *rewriter) quantifierAt() bool {
	switch w.rs[w.i] {
	case '*', '+', '?':
		return true
	case '{':
		j := w.i + 1
		digits := func() int {
			k := j
			for j < len(w.rs) && w.rs[j] >= '0' && w.rs[j] <= '9' {
				j++
			}
			return j - k
		}
		if digits() == 0 {
			return false
		}
		if j < len(w.rs) && w.rs[j] == ',' {
			j++
			digits()
		}
		return j < len(w.rs) && w.rs[j] == '}'
	}
	return false
}

// countCaptures counts the capturing groups of a pattern: "(" not followed by "?", and named
// groups "(?<name>", outside classes and escapes.
func countCaptures(p string) int {
	rs := []rune(p)
	n := 0
	inClass := false
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(' && (i+1 >= len(rs) || rs[i+1] != '?'):
			n++
		case c == '(' && i+3 < len(rs) && rs[i+2] == '<' && rs[i+3] != '=' && rs[i+3] != '!':
			n++
		}
	}
	return n
}

// codePoint writes the character an escape of length k at w.i stands for: the escape itself,
// or the character's sentinel when it has one.
func (w *rewriter) codePoint(v rune, k int) (rune, bool, error) {
	switch s, ok := w.f.fold[v]; {
	case ok:
		w.b.WriteRune(s)
	case w.caseOnlyInClass(v):
		w.b.WriteString("[" + string(w.rs[w.i:w.i+k]) + "]")
	default:
		w.b.WriteString(string(w.rs[w.i : w.i+k]))
	}
	w.i += k
	return v, true, nil
}

// hexDigits reads n hex digits at rs[i:].
func hexDigits(rs []rune, i, n int) (rune, bool) {
	if i+n > len(rs) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(rs[i:i+n]), 16, 32)
	return rune(v), err == nil
}

// class consumes a character class starting at w.i ("[").
func (w *rewriter) class() error {
	if w.peek(1) == ']' {
		// JavaScript: "[]" is an empty class that never matches (.NET would read "]" as a literal).
		w.b.WriteString(`(?!)`)
		w.i += 2
		return nil
	}
	if w.peek(1) == '^' && w.peek(2) == ']' {
		// JavaScript: "[^]" matches any character, line terminators included.
		w.b.WriteString(`[\s\S]`)
		w.i += 3
		return nil
	}
	w.b.WriteByte('[')
	w.i++
	w.inClass = true
	defer func() { w.inClass = false }()
	if w.peek(0) == '^' {
		w.b.WriteByte('^')
		w.i++
	}
	var extra []rune // sentinels of folded runes inside ranges
	for {
		if w.i >= len(w.rs) {
			return errors.New("missing terminating ] for character class")
		}
		if w.rs[w.i] == ']' {
			for _, s := range extra {
				w.b.WriteRune(s)
			}
			w.b.WriteByte(']')
			w.i++
			return nil
		}
		start := w.b.Len()
		lo, single, err := w.classAtom()
		if err != nil {
			return err
		}
		isRange := w.peek(0) == '-' && w.peek(1) != ']' && w.peek(1) >= 0
		if !isRange {
			continue
		}
		if !single {
			if w.f.unicode {
				return errors.New("invalid character class range (a class escape cannot be a range end)")
			}
			continue // "-" is then a literal, as in JavaScript
		}
		w.b.WriteByte('-')
		w.i++
		hi, single, err := w.classAtom()
		if err != nil {
			return err
		}
		if !single {
			if w.f.unicode {
				return errors.New("invalid character class range (a class escape cannot be a range end)")
			}
			continue
		}
		if lo > hi {
			continue // regexp2 reports it
		}
		// A folded rune inside the range is cut out of it (the engine would fold it together
		// with its ASCII partner) and its sentinel is added instead.
		var cut []rune
		for r := range w.f.fold {
			if r >= lo && r <= hi {
				cut = append(cut, r)
			}
		}
		if len(cut) == 0 {
			continue
		}
		slices.Sort(cut)
		w.b.Truncate(start)
		from := lo
		for _, r := range cut {
			if r > from {
				w.b.WriteString(classChar(from) + "-" + classChar(r-1))
			}
			from = r + 1
			if s := w.f.fold[r]; !slices.Contains(extra, s) {
				extra = append(extra, s)
			}
		}
		if from <= hi {
			w.b.WriteString(classChar(from) + "-" + classChar(hi))
		}
	}
}

// classChar writes a range end as an escape (any rune is safe inside a class that way).
func classChar(r rune) string {
	if r <= 0xFFFF {
		return fmt.Sprintf(`\u%04X`, r)
	}
	return string(r)
}

// classAtom consumes one class member: a character or an escape.
func (w *rewriter) classAtom() (rune, bool, error) {
	c := w.rs[w.i]
	switch c {
	case '\\':
		return w.classEscape(true)
	case '[':
		// A literal "[" in JavaScript; .NET would read "[a-[b]]" as class subtraction.
		w.b.WriteString(`\[`)
		w.i++
		return c, true, nil
	}
	w.literal(c)
	w.i++
	return c, true, nil
}

// foldSplits returns, for a case-insensitive regex without the u flag, the runes that
// regexp2's case folding (Unicode simple case folding, which is what JavaScript does with u)
// equates with runes JavaScript's Canonicalize keeps apart (see jsCanonicalizer): ſ (U+017F)
// and "s", the Kelvin sign (U+212A) and "k", the Ångström sign and "å", the Ohm sign and "ω",
// ẞ and ß, the Greek letters with ypogegrammeni and their prosgegrammeni forms (ᾳ and ᾼ),
// and every pair of letters outside the Basic Multilingual Plane (𐐨 and 𐐀).
// Each such rune maps to a sentinel, a private-use character of plane 15 that has no case:
// the pattern and the input are both rewritten with them, so each only matches runes that
// JavaScript treats as the same letter. Of each fold orbit, the largest JavaScript class (the
// one with the ASCII letters) keeps its runes.
func foldSplits() map[rune]rune {
	jsCanonicalize := jsCanonicalizer()
	out := map[rune]rune{}
	next := rune(0xF0000)
	for orbit := range foldOrbits {
		groups := map[rune][]rune{}
		var keys []rune
		for _, o := range orbit {
			k := jsCanonicalize(o)
			if groups[k] == nil {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], o)
		}
		if len(keys) < 2 {
			continue
		}
		// Keep the largest class (ties: the one with the smallest rune); the others get
		// sentinels.
		slices.SortFunc(keys, func(a, b rune) int {
			if d := len(groups[b]) - len(groups[a]); d != 0 {
				return d
			}
			return int(slices.Min(groups[a]) - slices.Min(groups[b]))
		})
		for _, k := range keys[1:] {
			for _, o := range groups[k] {
				out[o] = next
			}
			next++
		}
	}
	return out
}

// foldOrbits yields each orbit of Unicode simple case folding with more than one rune (k, K
// and the Kelvin sign; ǆ, ǅ and Ǆ; …), once, in the order of unicode.CaseRanges.
func foldOrbits(yield func([]rune) bool) {
	seen := map[rune]bool{}
	for _, cr := range unicode.CaseRanges {
		for r := rune(cr.Lo); r <= rune(cr.Hi); r++ {
			if seen[r] {
				continue
			}
			orbit := []rune{r}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				orbit = append(orbit, f)
			}
			for _, o := range orbit {
				seen[o] = true
			}
			if len(orbit) > 1 && !yield(orbit) {
				return
			}
		}
	}
}

// jsCanonicalizer returns JavaScript's Canonicalize(ch) for a case-insensitive regex without
// u (ECMA-262 §22.2.2.7.3): the uppercase of ch by Unicode's full (default) case conversion,
// unless that is not a single UTF-16 code unit or would map a non-ASCII character to an ASCII
// one, in which case ch itself. So ß ("SS") and ᾳ ("ΑΙ") canonicalize to themselves, and so
// does every rune outside the Basic Multilingual Plane: without u, JavaScript sees it as two
// surrogates, which have no case. The function is not safe for concurrent use.
func jsCanonicalizer() func(rune) rune {
	upper := cases.Upper(language.Und)
	return func(r rune) rune {
		if r > 0xFFFF {
			return r
		}
		full := []rune(upper.String(string(r)))
		if len(full) != 1 || full[0] > 0xFFFF {
			return r
		}
		if u := full[0]; r < 128 || u >= 128 {
			return u
		}
		return r
	}
}

// nonUnicodeFold is foldSplits computed once, on first use (not at start-up: every command
// links this package, and most never compile a case-insensitive pattern); read-only after.
var nonUnicodeFold = sync.OnceValue(foldSplits)
