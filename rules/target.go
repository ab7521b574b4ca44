package rules

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/internal/jsregex"
)

// DefaultTargetFlags are the flags of a target that does not set `flags`.
const DefaultTargetFlags = "mu"

// TargetFlags are the JavaScript regex flags a target may use (spec/linter.md §3).
const TargetFlags = "gimsuy"

// DefaultTargetSuggestion is the suggestion of a "target not found" finding when the target
// has no `suggestion`.
const DefaultTargetSuggestion = "Add the required section."

// Target selects the part of a document a rule (or criterion) evaluates, or requires it to exist.
// The regex is a JavaScript regex run on the document without its frontmatter.
type Target struct {
	Regex string
	// Flags are the flags in effect (DefaultTargetFlags when the frontmatter sets none).
	Flags string
	// Group is the capture group whose text is evaluated (0: the whole match).
	Group    int
	Required bool
	// Suggestion is the target's suggestion as written ("" when not set); see EffectiveSuggestion.
	Suggestion string
	// Line is the line of the `target` key in the rule file (0 when built with NewTarget).
	Line int

	re *jsregex.Regexp
}

// NewTarget compiles a target. flags "" means DefaultTargetFlags.
func NewTarget(regex, flags string, group int, required bool, suggestion string) (*Target, error) {
	if flags == "" {
		flags = DefaultTargetFlags
	}
	if err := checkTargetFlags(flags); err != nil {
		return nil, err
	}
	re, err := jsregex.Compile(regex, flags)
	if err != nil {
		return nil, err
	}
	if group < 0 || group > re.NumGroups() {
		return nil, fmt.Errorf("group %d does not exist in /%s/ (it has %d capture groups)", group, regex, re.NumGroups())
	}
	return &Target{Regex: regex, Flags: flags, Group: group, Required: required, Suggestion: suggestion, re: re}, nil
}

// checkTargetFlags rejects flags outside TargetFlags (jsregex accepts a few more that mean
// nothing for targets).
func checkTargetFlags(flags string) error {
	for _, f := range flags {
		if !strings.ContainsRune(TargetFlags, f) {
			return fmt.Errorf("unknown flag %q (expected some of %q)", f, TargetFlags)
		}
	}
	return nil
}

// EffectiveSuggestion is the suggestion of a "target not found" finding.
func (t *Target) EffectiveSuggestion() string {
	if t.Suggestion != "" {
		return t.Suggestion
	}
	return DefaultTargetSuggestion
}

// Equal reports whether two targets select the same text in every document.
func (t *Target) Equal(o *Target) bool {
	if t == nil || o == nil {
		return t == o
	}
	return t.Regex == o.Regex && t.Flags == o.Flags && t.Group == o.Group
}

// String returns the target as /regex/flags, with the group when it is not 0.
func (t *Target) String() string {
	s := "/" + t.Regex + "/" + t.Flags
	if t.Group != 0 {
		s += fmt.Sprintf(" group %d", t.Group)
	}
	return s
}

// TargetMatch is the text a target selected: byte offsets into the searched text, end exclusive.
type TargetMatch struct {
	Text       string
	Start, End int
}

// ErrTargetNotCompiled is returned by Find on a Target that was not built by Parse or NewTarget.
var ErrTargetNotCompiled = errors.New("target regex not compiled (build targets with rules.NewTarget)")

// Find runs the target on text and returns the selected group's text. found is false when the
// regex does not match, when the group did not take part in the match, or when it matched
// only empty text (there is nothing to evaluate). err is set when the match ran out of time.
func (t *Target) Find(text string) (m TargetMatch, found bool, err error) {
	if t.re == nil {
		return TargetMatch{}, false, ErrTargetNotCompiled
	}
	match, err := t.re.FindStringMatch(text)
	if err != nil {
		return TargetMatch{}, false, fmt.Errorf("target %s: %w", t, err)
	}
	if match == nil || t.Group >= len(match.Groups) {
		return TargetMatch{}, false, nil
	}
	g := match.Groups[t.Group]
	if g == nil || g.Text == "" {
		return TargetMatch{}, false, nil
	}
	return TargetMatch{Text: g.Text, Start: g.ByteStart, End: g.ByteEnd}, true, nil
}
