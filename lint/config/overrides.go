package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/suggest"
	"github.com/vectorlint/vectorlint/rules"
)

// Rule settings of vectorlint.ini checked against the loaded packs (spec/linter.md §2).
//
// Configurations written for the original VectorLint must keep running: it accepts any key in a
// section and ignores what it does not use, and its own documentation writes keys that name no
// setting ("TechnicalAccuracy.threshold = 8.0"), rules its later presets renamed or removed,
// and settings a rule has no use for. Each of those is a warning naming the key and its line
// (printed on every run, not only with --verbose), never an error. A value vectorlint cannot
// read for a setting it has ("Pack.Rule.severity = fatal") stays an error, and so does a
// misspelt global key.

// ruleSettingNames are the settings a rule has in a section key ("Pack.Rule.severity"), for
// "did you mean" suggestions.
func ruleSettingNames() []string { return []string{"severity", "strictness"} }

// overrideChecker checks the overrides of one configuration against its packs.
type overrideChecker struct {
	cfg    *Config
	packs  []*rules.Pack
	byName map[string]*rules.Pack
	// found describes the packs there are, for messages about an unknown pack.
	found string
	// incomplete(pack) is true for a pack an earlier error may have emptied; incomplete("")
	// when packs may be missing altogether (checkConfig).
	incomplete func(pack string) bool
}

// check returns the problems of one override.
func (c *overrideChecker) check(o Override) finding.Problems {
	if o.Kind == OverrideUnknown && o.Rule == "" {
		// "strictness = 7": a rule's setting with no rule named.
		setting := strings.ToLower(o.Setting)
		return c.warn(o, fmt.Sprintf("names no rule (a rule's %s is set with Pack.Rule.%s or Rule.%s); ignored", setting, setting, setting))
	}
	if o.Kind == OverrideUnknown && o.Setting == "" {
		// "X.Y = value": a rule turned on or off with a value vectorlint cannot read, or a
		// setting it does not have for the rule X.
		if p := c.byName[o.Pack]; p != nil && p.Rule(o.Rule) != nil {
			return finding.Problems{{File: c.cfg.Path, Line: o.Line, Field: o.Key,
				Expected: `"disabled" or "enabled"`, Found: strconv.Quote(o.Value)}}
		}
		if c.incomplete(o.Pack) {
			return nil
		}
		if p := c.byName[o.Pack]; p != nil {
			return c.warn(o, c.noRuleIn(p, o.Rule))
		}
		return c.warn(o, unknownSetting(o.Rule, "rule "+strconv.Quote(o.Pack)))
	}
	matched, problem := c.rulesOf(o)
	if problem != nil {
		return finding.Problems{*problem}
	}
	switch {
	case o.Kind == OverrideUnknown:
		return c.warn(o, unknownSetting(o.Setting, "rule "+strconv.Quote(o.Pack+"."+o.Rule)))
	case o.Kind == OverrideStrictness && len(matched) > 0:
		// Strictness weighs violations in a semi-objective rule's density score; other kinds
		// are scored otherwise, and the original silently ignored it there.
		for _, r := range matched {
			if r.Kind() == rules.KindSemiObjective { // scored by density
				return nil
			}
		}
		r := matched[0]
		why := "a subjective rule is scored from its criteria's ratings"
		if r.Kind() == rules.KindChecklist {
			why = "a checklist rule is scored by the coverage of its points"
		}
		return c.warn(o, fmt.Sprintf("strictness has no effect on %s: %s; ignored", r.FullID(), why))
	}
	return nil
}

// rulesOf returns the rules an override names (by id or alias; every pack's for a packless
// key), or the warning that it names none. A key that may name a rule of a pack an earlier
// error left incomplete gets neither.
func (c *overrideChecker) rulesOf(o Override) ([]*rules.Rule, *finding.Problem) {
	if o.Pack == "" {
		var matched []*rules.Rule
		for _, p := range c.packs {
			if r := p.Rule(o.Rule); r != nil {
				matched = append(matched, r)
			}
		}
		if len(matched) > 0 || c.incomplete("") || slices.ContainsFunc(c.packs, func(p *rules.Pack) bool { return c.incomplete(p.Name) }) {
			return matched, nil
		}
		msg := fmt.Sprintf("no pack has a rule with id %q; ignored", o.Rule)
		if note := rules.RetiredBuiltinRule(o.Rule); note != "" && c.builtinVectorLint() {
			msg = fmt.Sprintf("%s is %s; ignored", o.Rule, note)
		}
		return nil, &c.warn(o, msg)[0]
	}
	if c.incomplete(o.Pack) {
		return nil, nil
	}
	p := c.byName[o.Pack]
	if p == nil {
		return nil, &c.warn(o, fmt.Sprintf("unknown pack %q (%s); ignored", o.Pack, c.found))[0]
	}
	if r := p.Rule(o.Rule); r != nil {
		return []*rules.Rule{r}, nil
	}
	return nil, &c.warn(o, c.noRuleIn(p, o.Rule))[0]
}

// noRuleIn is the message for a rule id a pack does not have.
func (c *overrideChecker) noRuleIn(p *rules.Pack, id string) string {
	if note := rules.RetiredBuiltinRule(id); note != "" && p.Builtin && p.Name == rules.BuiltinPackName {
		return fmt.Sprintf("%s.%s is %s; ignored", p.Name, id, note)
	}
	ids := make([]string, len(p.Rules))
	for i, r := range p.Rules {
		ids[i] = r.ID
	}
	hint := ""
	if s := suggest.Closest(id, ids, 2); s != "" {
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	return fmt.Sprintf("pack %s has no rule with id %q (%sits rules: %s); ignored", p.Name, id, hint, strings.Join(ids, ", "))
}

// builtinVectorLint reports whether the built-in VectorLint pack is loaded (not replaced by a
// pack of the same name).
func (c *overrideChecker) builtinVectorLint() bool {
	p := c.byName[rules.BuiltinPackName]
	return p != nil && p.Builtin
}

// warn is a warning about an override's key.
func (c *overrideChecker) warn(o Override, msg string) finding.Problems {
	return finding.Problems{{File: c.cfg.Path, Line: o.Line, Field: o.Key, Message: msg, Level: finding.LevelWarning}}
}

// unknownSetting is the message for a setting vectorlint does not have.
func unknownSetting(setting, of string) string {
	lower := strings.ToLower(setting)
	if lower == "enabled" || lower == "disabled" {
		return fmt.Sprintf("vectorlint has no setting %q for %s: a rule is turned on or off with Pack.Rule = enabled or disabled; ignored", setting, of)
	}
	msg := fmt.Sprintf("vectorlint has no setting %q for %s (a rule's settings are severity and strictness, and Pack.Rule = disabled or enabled)", setting, of)
	if s := suggest.Closest(lower, ruleSettingNames(), 2); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg + "; ignored"
}
