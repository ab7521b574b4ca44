// Package jsregex compiles regular expressions written in JavaScript syntax with JavaScript flags
// and runs them with JavaScript semantics and a time bound.
//
// Rule authors (VectorLint targets) and blueprint authors ($matches) write JavaScript regexes.
// The engine is github.com/dlclark/regexp2/v2 in ECMAScript mode. Where that mode still differs
// from JavaScript, the pattern is rewritten before compilation:
//
//   - "." never matches a line terminator (\n, \r, U+2028, U+2029) unless the s flag is set;
//   - "^" and "$" with the m flag treat every line terminator as a line boundary (so CRLF
//     documents work), and without it they match only at the very start and end of the input;
//   - "\b" and "\B" use JavaScript's ASCII word characters;
//   - modifier groups (ES2025: "(?i:…)", "(?-i:…)", "(?ms-i:…)") change i, m and s inside them;
//   - syntax JavaScript rejects (inline flags "(?i)", comments "(?#…)", atomic groups "(?>…)",
//     escapes such as \A with the u flag) is a syntax error, and without u an escaped letter
//     JavaScript does not define is that letter (\A is "A", \Z is "Z");
//   - case-insensitive matching without u follows JavaScript's Canonicalize (ſ does not match
//     "s", the Kelvin sign does not match "k", ᾳ does not match ᾼ, a letter beyond U+FFFF
//     matches only itself); with u, Unicode simple case folding (they do).
//
// One difference is by design: without u, JavaScript sees a character beyond U+FFFF as two
// UTF-16 code units, so a class or quantifier may take half of it; this package always matches
// whole characters. TestAgainstNode compares the package with Node.js's RegExp.
//
// Matching is bounded in time: a pathological pattern returns ErrTimeout instead of hanging.
// Positions are reported both in code points (runes) and in UTF-8 bytes.
package jsregex

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// DefaultTimeout bounds one match attempt. It is generous for real documents (a 10 MB file is
// scanned by ordinary patterns in milliseconds) and short enough that catastrophic backtracking
// is reported promptly.
const DefaultTimeout = 2 * time.Second

// ErrTimeout reports that a match took longer than the regex's time limit.
var ErrTimeout = errors.New("regular expression took too long to match (catastrophic backtracking?)")

// SyntaxError reports a pattern or flag string that is not a valid JavaScript regex.
type SyntaxError struct {
	Pattern string
	Flags   string
	Reason  string
}

func (e *SyntaxError) Error() string {
	if e.Flags != "" {
		return fmt.Sprintf("invalid regular expression /%s/%s: %s", e.Pattern, e.Flags, e.Reason)
	}
	return fmt.Sprintf("invalid regular expression /%s/: %s", e.Pattern, e.Reason)
}

// Regexp is a compiled JavaScript regular expression. It is safe for concurrent use.
type Regexp struct {
	source string
	flags  string
	re     *regexp2.Regexp
	// fold maps input runes to the sentinels the pattern was written with (see foldSplits);
	// nil when the regex does not fold case without u.
	fold map[rune]rune
}

// subject returns the text the engine searches: s itself, or s with the runes of r.fold
// replaced by their sentinels (rune for rune, so rune offsets are unchanged).
func (r *Regexp) subject(s string) (string, bool) {
	if r.fold == nil || !strings.ContainsFunc(s, func(c rune) bool { _, ok := r.fold[c]; return ok }) {
		return s, false
	}
	return strings.Map(func(c rune) rune {
		if m, ok := r.fold[c]; ok {
			return m
		}
		return c
	}, s), true
}

// Span is the location of a match or capture group. Rune offsets count Unicode code points;
// byte offsets count UTF-8 bytes. Ends are exclusive.
type Span struct {
	RuneStart, RuneEnd int
	ByteStart, ByteEnd int
}

// Match is a successful match: Groups[0] is the whole match, Groups[i] capture group i.
// A group that did not participate in the match is nil.
type Match struct {
	Groups []*Group
}

// Group is one capture group's text and location.
type Group struct {
	Text string
	Span
}

// ValidFlags lists the JavaScript regex flags this package accepts. "g" and "d" only affect
// iteration state and reporting in JavaScript; the first match from the start of the input is
// the same with or without them, so they are accepted and otherwise ignored. "y" (sticky) makes
// a match start exactly where the search starts: at position 0 of the searched text, and for
// each further match of FindAllStringMatch where the previous one ended (lastIndex = 0, as a
// fresh JavaScript regex has).
const ValidFlags = "dgimsuvy"

// QuoteMeta returns a pattern that matches s literally, with any flags: a backslash before each
// of JavaScript's syntax characters and "/" (^ $ \ . * + ? ( ) [ ] { } | /), the only characters
// an identity escape may name with the u or v flag, and nothing else. Escaping more, as Go's
// regexp.QuoteMeta does for "-", makes a pattern JavaScript rejects under u ("e\-mail").
func QuoteMeta(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ { // the syntax characters are ASCII: other bytes are copied
		if isSyntaxChar(rune(s[i])) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Option changes how a regex is compiled.
type Option func(*config)

type config struct {
	timeout time.Duration
}

// WithTimeout sets the time bound of each match attempt (DefaultTimeout when unset).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Compile compiles a JavaScript regex pattern (the text between the slashes) with a JavaScript
// flag string such as "mu" or "gi".
func Compile(pattern, flags string, opts ...Option) (*Regexp, error) {
	cfg := config{timeout: DefaultTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	var (
		options = regexp2.ECMAScript
		sf      syntaxFlags
		seen    = map[rune]bool{}
	)
	for _, f := range flags {
		if !strings.ContainsRune(ValidFlags, f) {
			return nil, &SyntaxError{Pattern: pattern, Flags: flags, Reason: fmt.Sprintf("unknown flag %q (expected some of %q)", f, ValidFlags)}
		}
		if seen[f] {
			return nil, &SyntaxError{Pattern: pattern, Flags: flags, Reason: fmt.Sprintf("flag %q given twice", f)}
		}
		seen[f] = true
		switch f {
		case 'i':
			options |= regexp2.IgnoreCase
			sf.ignoreCase = true
		case 'm':
			sf.multiline = true
		case 's':
			sf.dotAll = true
		case 'u', 'v':
			options |= regexp2.Unicode
			sf.unicode = true
		}
	}
	if seen['u'] && seen['v'] {
		return nil, &SyntaxError{Pattern: pattern, Flags: flags, Reason: `flags "u" and "v" cannot be combined`}
	}
	if sf.ignoreCase && !sf.unicode {
		sf.fold = nonUnicodeFold()
	}
	rewritten, folds, err := rewrite(pattern, sf)
	if err == nil && folds && !sf.unicode && sf.fold == nil {
		// A modifier group "(?i:…)" folds case in part of the pattern: rewrite it again with
		// the sentinels everywhere, as the input will have them.
		sf.fold = nonUnicodeFold()
		rewritten, _, err = rewrite(pattern, sf)
	}
	if err != nil {
		return nil, &SyntaxError{Pattern: pattern, Flags: flags, Reason: err.Error()}
	}
	if seen['y'] {
		// regexp2's \G anchors at the position the search starts from (or the previous match
		// ended at), which is JavaScript's lastIndex for a sticky regex.
		rewritten = `\G(?:` + rewritten + `)`
	}
	re, err := regexp2.Compile(rewritten, options)
	if err != nil {
		return nil, &SyntaxError{Pattern: pattern, Flags: flags, Reason: cleanReason(err.Error())}
	}
	re.MatchTimeout = cfg.timeout
	return &Regexp{source: pattern, flags: flags, re: re, fold: sf.fold}, nil
}

// cleanReason drops regexp2's "error parsing regexp: " prefix and the repeated pattern.
func cleanReason(msg string) string {
	msg = strings.TrimPrefix(msg, "error parsing regexp: ")
	if i := strings.Index(msg, " in `"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// String returns the regex in JavaScript literal form, /source/flags.
func (r *Regexp) String() string { return "/" + r.source + "/" + r.flags }

// Source returns the pattern as written.
func (r *Regexp) Source() string { return r.source }

// Flags returns the flags as written.
func (r *Regexp) Flags() string { return r.flags }

// NumGroups returns the number of capture groups (not counting group 0).
func (r *Regexp) NumGroups() int { return len(r.re.GetGroupNumbers()) - 1 }

// MatchString reports whether s contains a match.
func (r *Regexp) MatchString(s string) (bool, error) {
	subject, _ := r.subject(s)
	ok, err := r.re.MatchString(subject)
	if err != nil {
		return false, wrapMatchErr(err)
	}
	return ok, nil
}

// FindStringMatch returns the first match in s, or nil when there is none.
func (r *Regexp) FindStringMatch(s string) (*Match, error) {
	subject, mapped := r.subject(s)
	m, err := r.re.FindStringMatch(subject)
	if err != nil {
		return nil, wrapMatchErr(err)
	}
	if m == nil {
		return nil, nil
	}
	return convert(m, s, mapped), nil
}

// FindAllStringMatch returns up to limit successive non-overlapping matches (all when limit < 0).
func (r *Regexp) FindAllStringMatch(s string, limit int) ([]*Match, error) {
	var out []*Match
	subject, mapped := r.subject(s)
	m, err := r.re.FindStringMatch(subject)
	for m != nil && (limit < 0 || len(out) < limit) {
		out = append(out, convert(m, s, mapped))
		m, err = r.re.FindNextMatch(m)
	}
	if err != nil {
		return out, wrapMatchErr(err)
	}
	return out, nil
}

// convert turns regexp2's match into ours. When the engine searched a mapped copy of s (see
// Regexp.subject), texts and byte offsets are taken from s by rune offset.
func convert(m *regexp2.Match, s string, mapped bool) *Match {
	groups := m.Groups()
	out := &Match{Groups: make([]*Group, len(groups))}
	var runeByte []int // byte offset of each rune of s, and len(s), when mapped
	if mapped {
		runeByte = make([]int, 0, len(s)+1)
		for i := range s {
			runeByte = append(runeByte, i)
		}
		runeByte = append(runeByte, len(s))
	}
	for i := range groups {
		g := &groups[i]
		if len(g.Captures) == 0 {
			continue
		}
		span := Span{RuneStart: g.RuneIndex, RuneEnd: g.RuneIndex + g.RuneLength}
		text := ""
		if mapped {
			span.ByteStart, span.ByteEnd = runeByte[span.RuneStart], runeByte[span.RuneEnd]
			text = s[span.ByteStart:span.ByteEnd]
		} else {
			bs, bl := g.ByteRange()
			span.ByteStart, span.ByteEnd = bs, bs+bl
			text = g.String()
		}
		out.Groups[i] = &Group{Text: text, Span: span}
	}
	return out
}

// wrapMatchErr turns regexp2's errors into ours. regexp2's timeout message quotes the whole
// input, which may be a 10 MB document or contain secrets; it never reaches the user.
func wrapMatchErr(err error) error {
	if errors.Is(err, regexp2.ErrBacktrackingStackLimit) {
		return fmt.Errorf("%w: backtracking limit exceeded", ErrTimeout)
	}
	if strings.Contains(err.Error(), "match timeout") {
		return ErrTimeout
	}
	return errors.New("regular expression match failed")
}

// SplitInlineFlags accepts a leading inline-flag group such as "(?i)" or "(?ims)", which
// JavaScript rejects but many pattern authors write (the Weval format doc uses it), and returns
// the pattern without it and the flags it named. Other patterns are returned unchanged.
func SplitInlineFlags(pattern string) (rest, flags string) {
	if !strings.HasPrefix(pattern, "(?") {
		return pattern, ""
	}
	end := strings.IndexByte(pattern, ')')
	if end < 3 {
		return pattern, ""
	}
	inner := pattern[2:end]
	for _, c := range inner {
		if !strings.ContainsRune("ims", c) {
			return pattern, ""
		}
	}
	return pattern[end+1:], inner
}
