package rubric

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/node"
)

// Options control Parse and ParseBlock.
type Options struct {
	// File names the file in problems.
	File string
	// Owner names what the points belong to in problems (a prompt id, a rule id), and
	// OwnerKind what it is ("rule"; "" means "prompt").
	Owner     string
	OwnerKind string
	// Defs are reusable definitions for $ref (a blueprint's point_defs): a mapping of names to
	// a JavaScript string (expanded as $js) or a point object, given as decoded YAML or JSON
	// (map[string]any) or as a *node.Node.
	Defs any
	// LineOffset is added to the lines of a *yaml.Node, for a list parsed out of a larger file
	// (a rule's frontmatter starts on line 2, after its "---").
	LineOffset int
	// Prepare, when set, prepares each function point as it is parsed (the engine's
	// points.Prepare: the function compiled, scripts included) instead of the parser's own
	// Check, which cannot compile JavaScript. What it reports is reported where the point is,
	// in order with the parser's own problems.
	Prepare func(*Point) error
}

// Parse parses a `should` list given as a decoded YAML or JSON value (as produced by
// gopkg.in/yaml.v3 or encoding/json, or a *yaml.Node to keep line numbers). It is how the
// linter reads a rule's `should` list and the evaluate package a list of points. It returns the
// problems at LevelError; when there are none the Rubric is usable, and its authoring warnings
// are in the returned Rubric's Warnings. A point whose function is unknown or cannot
// be prepared is a warning: the point scores 0 with the error (a rule treats it as an error).
func Parse(raw any, opts Options) (Rubric, finding.Problems) {
	should, diags := ParseBlock(raw, "should", opts)
	r := Rubric{Should: should}
	var errs finding.Problems
	for _, d := range diags {
		if d.Level == finding.LevelError {
			errs = append(errs, d)
		} else {
			r.Warnings = append(r.Warnings, d)
		}
	}
	if errs != nil {
		return Rubric{}, errs
	}
	return r, nil
}

// ParseBlock parses one block of points (a should or should_not list, named name in
// messages) and returns its entries and every problem, errors and warnings, in the order
// found. Entries with errors are left out. Blueprints parse their prompts' blocks with it.
func ParseBlock(raw any, name string, opts Options) ([]Entry, finding.Problems) {
	p := &parser{file: opts.File, ownerKind: opts.OwnerKind, prepare: opts.Prepare}
	n, err := node.FromAny(raw)
	if err != nil {
		p.add(finding.LevelError, CodeInvalid, 0, opts.Owner, "%s", err.Error())
		return nil, p.diags
	}
	if opts.Defs != nil {
		d, err := node.FromAny(opts.Defs)
		if err != nil {
			p.add(finding.LevelError, CodeInvalid, 0, opts.Owner, "point definitions: %s", err.Error())
			return nil, p.diags
		}
		p.defs = d
	}
	pp := pointParser{p: p, prompt: opts.Owner}
	entries := pp.block(n, name)
	if opts.LineOffset != 0 {
		for i := range p.diags {
			if p.diags[i].Line > 0 {
				p.diags[i].Line += opts.LineOffset
			}
		}
		for _, pt := range (Rubric{Should: entries}).Points() {
			if pt.Line > 0 {
				pt.Line += opts.LineOffset
			}
		}
	}
	return entries, p.diags
}

// parser collects the problems of one block.
type parser struct {
	file, ownerKind string
	diags           finding.Problems
	// defs is the point_defs mapping (nil without one).
	defs    *node.Node
	prepare func(*Point) error
}

func (p *parser) add(level finding.Level, code string, line int, prompt, format string, args ...any) {
	p.diags = append(p.diags, finding.Problem{File: p.file, Line: line, Field: Subject(p.ownerKind, prompt), Level: level, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) errorf(line int, prompt, format string, args ...any) {
	p.add(finding.LevelError, CodeInvalid, line, prompt, format, args...)
}

func (p *parser) warnf(code string, line int, prompt, format string, args ...any) {
	p.add(finding.LevelWarning, code, line, prompt, format, args...)
}

// pick returns the value of the first key present and warns when a later alias is present too.
func (p *parser) pick(n *node.Node, prompt string, keys ...string) (*node.Node, string) {
	v, name, ignored := n.Pick(keys...)
	for _, k := range ignored {
		p.warnf(CodeAliasConflict, n.KeyLine(k), prompt, "both %q and %q are given; only %q is used", name, k, name)
	}
	return v, name
}

type pointParser struct {
	p      *parser
	prompt string
	depth  int
}

// block parses a should/should_not list.
func (pp pointParser) block(v *node.Node, name string) []Entry {
	if v.Kind != node.ListKind {
		pp.p.errorf(v.Line, pp.prompt, "expected %s to be a list of points, found %s", name, v.Describe())
		return nil
	}
	out := []Entry{}
	for i, item := range v.Items {
		if item.Kind != node.ListKind {
			if pt := pp.point(item); pt != nil {
				out = append(out, Entry{Point: pt})
			}
			continue
		}
		path := []*Point{}
		for _, sub := range item.Items {
			switch sub.Kind {
			case node.NullKind:
				continue
			case node.ListKind:
				pp.p.errorf(sub.Line, pp.prompt, "%s item %d: expected an alternative path to be a list of points, found a nested list inside it (paths cannot nest)", name, i+1)
				continue
			}
			if pt := pp.point(sub); pt != nil {
				path = append(path, pt)
			}
		}
		switch {
		case len(item.Items) == 0:
			pp.p.warnf(CodeEmptyPath, item.Line, pp.prompt, "%s item %d is an empty list (ignored)", name, i+1)
			continue
		case len(path) == 0:
			continue
		case len(item.Items) == 1:
			pp.p.warnf(CodeSinglePointPath, item.Line, pp.prompt,
				"%s item %d is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting (\"- - x\" → \"- x\")", name, i+1)
		}
		out = append(out, Entry{Path: path})
	}
	return out
}

// quotedCallRe matches a string that is a function call written in quotes: "$icontains: 'x'".
var quotedCallRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$[A-Za-z_]+\s*:`) })

// point parses one point; nil after an error.
func (pp pointParser) point(v *node.Node) *Point {
	switch v.Kind {
	case node.StringKind:
		s := v.Str
		// A lone "$" names no function: it is text, as in Weval's parser (which takes a string as
		// a zero-argument call only when something follows the "$").
		if strings.HasPrefix(s, "$") && len(s) > 1 {
			pt := &Point{Written: s[1:], Fn: normaliseFn(s[1:]), Multiplier: 1, Line: v.Line}
			if quotedCallRe().MatchString(s) {
				pp.p.warnf(CodeQuotedFunction, v.Line, pp.prompt,
					"%s is a quoted function call: the quotes make it one string, which names a function %q that does not exist (the point scores 0); write it as a mapping without the outer quotes", node.QuoteShort(s), pt.Fn)
				pt.err = &UnknownFunctionError{Name: pt.Written, Quoted: true}
				return pt
			}
			pp.prepare(pt)
			return pt
		}
		if strings.TrimSpace(s) == "" {
			pp.p.errorf(v.Line, pp.prompt, "expected a point, found an empty string")
			return nil
		}
		return &Point{Text: s, Multiplier: 1, Line: v.Line}
	case node.MapKind:
		return pp.objectPoint(v)
	}
	pp.p.errorf(v.Line, pp.prompt, "expected a point (a string, {$function: argument}, {\"criterion\": \"citation\"} or {text|fn, weight, citation}), found %s", v.Describe())
	return nil
}

func (pp pointParser) objectPoint(v *node.Node) *Point {
	var fnKeys []int
	for i, k := range v.Keys {
		if strings.HasPrefix(k.Str, "$") {
			fnKeys = append(fnKeys, i)
		}
	}
	if len(fnKeys) > 1 {
		pp.p.errorf(v.Line, pp.prompt, "expected one $function per point, found %s and %s", v.Keys[fnKeys[0]].Str, v.Keys[fnKeys[1]].Str)
		return nil
	}
	hasFull := v.Get("text") != nil || v.Get("point") != nil || v.Get("fn") != nil
	if len(fnKeys) == 1 {
		i := fnKeys[0]
		name := v.Keys[i].Str[1:]
		if hasFull {
			pp.p.errorf(v.Line, pp.prompt, "a point cannot have both %s and text/point/fn, found %s", v.Keys[i].Str, v.Describe())
			return nil
		}
		pp.warnUnknown(v, v.Keys[i].Str)
		if name == "ref" {
			return pp.ref(v, v.Vals[i])
		}
		return pp.fnPoint(v, name, v.Vals[i], true)
	}
	if hasFull {
		textNode, textKey := pp.p.pick(v, pp.prompt, "text", "point")
		fnNode := v.Get("fn")
		if textNode != nil && fnNode != nil {
			pp.p.errorf(v.Line, pp.prompt, "a point cannot have both %s and fn, found %s", textKey, v.Describe())
			return nil
		}
		pp.warnUnknown(v, "text", "point", "fn", "arg", "fnArgs")
		if fnNode != nil {
			if fnNode.Kind != node.StringKind || strings.TrimPrefix(fnNode.Str, "$") == "" {
				pp.p.errorf(fnNode.Line, pp.prompt, "expected fn to be a function name such as \"contains\", found %s", fnNode.Describe())
				return nil
			}
			name := strings.TrimPrefix(fnNode.Str, "$")
			args, _ := pp.p.pick(v, pp.prompt, "fnArgs", "arg")
			if name == "ref" {
				if args == nil {
					pp.p.errorf(v.Line, pp.prompt, "fn: ref needs the definition name in arg")
					return nil
				}
				return pp.ref(v, args)
			}
			return pp.fnPoint(v, name, args, args != nil)
		}
		if textNode.Kind != node.StringKind || strings.TrimSpace(textNode.Str) == "" {
			pp.p.errorf(textNode.Line, pp.prompt, "expected %s to be a non-empty string, found %s", textKey, textNode.Describe())
			return nil
		}
		pt := &Point{Text: textNode.Str, Line: v.Line}
		if !pp.weightAndCitation(v, pt) {
			return nil
		}
		return pt
	}
	if len(v.Keys) == 1 && v.Vals[0].Kind == node.StringKind {
		if strings.TrimSpace(v.Keys[0].Str) == "" {
			pp.p.errorf(v.Line, pp.prompt, "expected a criterion as the key of a {\"criterion\": \"citation\"} point, found an empty key")
			return nil
		}
		return &Point{Text: v.Keys[0].Str, Citation: v.Vals[0].Str, Multiplier: 1, Line: v.Line}
	}
	pp.p.errorf(v.Line, pp.prompt, "expected a point ({$function: argument}, {\"criterion\": \"citation\"} or an object with text, point or fn), found %s", v.Describe())
	return nil
}

// warnUnknown warns about keys of a point object that are neither listed nor weight/citation.
func (pp pointParser) warnUnknown(v *node.Node, allowed ...string) {
	for _, k := range v.Keys {
		switch k.Str {
		case "weight", "multiplier", "citation":
			continue
		}
		known := false
		for _, a := range allowed {
			if k.Str == a {
				known = true
			}
		}
		if !known {
			pp.p.warnf(CodeUnknownField, k.Line, pp.prompt, "unknown point field %q (ignored)", k.Str)
		}
	}
}

func (pp pointParser) fnPoint(v *node.Node, name string, args *node.Node, hasArgs bool) *Point {
	pt := &Point{Written: name, Fn: normaliseFn(name), Line: v.Line, HasArgs: hasArgs}
	if hasArgs {
		if err := checkFinite(args); err != nil {
			pp.p.errorf(args.Line, pp.prompt, "$%s: %v", name, err)
			return nil
		}
		pt.Args = args.ToAny()
	}
	if !pp.weightAndCitation(v, pt) {
		return nil
	}
	pp.prepare(pt)
	return pt
}

// prepare checks the point's function (or has Options.Prepare compile it) and reports
// authoring mistakes as warnings: the point still parses (and scores 0 with the error) so one
// broken check does not hide the rest.
func (pp pointParser) prepare(pt *Point) {
	pt.err = pp.p.check(pt)
	if pt.err == nil {
		return
	}
	var unknown *UnknownFunctionError
	if errors.As(pt.err, &unknown) {
		pp.p.warnf(CodeUnknownFunction, pt.Line, pp.prompt, "%v", pt.err)
		return
	}
	pp.p.warnf(CodeBadFunction, pt.Line, pp.prompt, "%v", pt.err)
}

// check is Options.Prepare, or Check without it.
func (p *parser) check(pt *Point) error {
	if p.prepare != nil {
		return p.prepare(pt)
	}
	return Check(pt)
}

func (pp pointParser) weightAndCitation(v *node.Node, pt *Point) bool {
	pt.Multiplier = 1
	if w, name := pp.p.pick(v, pp.prompt, "weight", "multiplier"); w != nil {
		if w.Kind != node.NumberKind || math.IsNaN(w.Num) || w.Num < 0.1 || w.Num > 10 {
			pp.p.errorf(w.Line, pp.prompt, "expected point %s to be a number between 0.1 and 10, found %s", name, w.Describe())
			return false
		}
		pt.Multiplier = w.Num
	}
	if c := v.Get("citation"); c != nil && c.Kind != node.NullKind {
		if c.Kind != node.StringKind && c.Kind != node.MapKind {
			pp.p.errorf(c.Line, pp.prompt, "expected citation to be a string or a mapping, found %s", c.Describe())
			return false
		}
		pt.Citation = c.ToAny()
	}
	return true
}

// ref expands {$ref: name}: a string definition becomes $js with that code; an object
// definition is parsed as a point. A weight or citation on the $ref overrides the definition's.
func (pp pointParser) ref(v *node.Node, arg *node.Node) *Point {
	name := ""
	switch {
	case arg.Kind == node.StringKind:
		name = strings.TrimSpace(arg.Str)
	case arg.Kind == node.MapKind && arg.Get("name") != nil && arg.Get("name").Kind == node.StringKind:
		name = strings.TrimSpace(arg.Get("name").Str)
	}
	if name == "" {
		pp.p.errorf(arg.Line, pp.prompt, "expected $ref to name a definition in point_defs, found %s", arg.Describe())
		return nil
	}
	var def *node.Node
	if pp.p.defs != nil {
		def = pp.p.defs.Get(name)
	}
	if def == nil {
		known := "none are defined"
		if pp.p.defs != nil && len(pp.p.defs.Keys) > 0 {
			known = "defined: " + strings.Join(sortedKeys(pp.p.defs), ", ")
		}
		pp.p.errorf(arg.Line, pp.prompt, "$ref %q is not defined in point_defs (%s)", name, known)
		return nil
	}
	if pp.depth >= 8 {
		pp.p.errorf(arg.Line, pp.prompt, "$ref %q: definitions refer to each other too deeply (a loop?)", name)
		return nil
	}
	var pt *Point
	switch def.Kind {
	case node.StringKind:
		pt = &Point{Written: "js", Fn: "js", Args: def.Str, HasArgs: true, Line: v.Line}
		pp.prepareQuiet(pt, name, def.Line)
	case node.MapKind:
		inner := pp
		inner.depth++
		pt = inner.point(def)
		if pt == nil {
			return nil
		}
		c := *pt
		pt = &c
		pt.Line = v.Line
	default:
		pp.p.errorf(def.Line, pp.prompt, "point_defs.%s: expected a JavaScript string or a point object, found %s", name, def.Describe())
		return nil
	}
	defWeight := pt.Multiplier
	if defWeight == 0 {
		defWeight = 1
	}
	// weightAndCitation sets the $ref's own weight (or 1) and keeps the definition's citation
	// unless the $ref gives one.
	if !pp.weightAndCitation(v, pt) {
		return nil
	}
	if v.Get("weight") == nil && v.Get("multiplier") == nil {
		pt.Multiplier = defWeight
	}
	return pt
}

// prepareQuiet prepares a point expanded from a string definition, reporting problems against
// the definition.
func (pp pointParser) prepareQuiet(pt *Point, name string, line int) {
	pt.err = pp.p.check(pt)
	if pt.err != nil {
		pp.p.warnf(CodeBadFunction, line, pp.prompt, "point_defs.%s: %v", name, pt.err)
	}
}

// checkFinite rejects NaN and infinite numbers in function arguments (JSON cannot hold them).
func checkFinite(n *node.Node) error {
	switch n.Kind {
	case node.NumberKind:
		if math.IsNaN(n.Num) || math.IsInf(n.Num, 0) {
			return fmt.Errorf("expected finite numbers in the argument, found %s", jsjson.FormatNumber(n.Num))
		}
	case node.ListKind:
		for _, c := range n.Items {
			if err := checkFinite(c); err != nil {
				return err
			}
		}
	case node.MapKind:
		for _, c := range n.Vals {
			if err := checkFinite(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// normaliseFn maps the accepted spellings of a function name to its canonical name:
// contain* → contains*, match* → matches*, imatch* → imatches*, icontain* → icontains*,
// start_with/end_with → starts_with/ends_with (with i and not_ forms), expr → js,
// external → call.
func normaliseFn(name string) string {
	// One leading "$" is the marker (fn: $js); a name that is nothing else stays as written, so
	// "$$" is the unknown function "$" rather than a point with neither text nor function.
	if rest := strings.TrimPrefix(name, "$"); rest != "" {
		name = rest
	}
	neg := ""
	if rest, ok := strings.CutPrefix(name, "not_"); ok {
		neg, name = "not_", rest
	}
	fix := func(prefix, want string) {
		if strings.HasPrefix(name, prefix) && !strings.HasPrefix(name, want) {
			name = want + name[len(prefix):]
		}
	}
	fix("icontain", "icontains")
	fix("contain", "contains")
	fix("imatch", "imatches")
	fix("match", "matches")
	fix("istart_with", "istarts_with")
	fix("start_with", "starts_with")
	fix("iend_with", "iends_with")
	fix("end_with", "ends_with")
	switch name {
	case "expr":
		name = "js"
	case "external":
		name = "call"
	}
	return neg + name
}

// sortedKeys returns the keys of a mapping node, sorted.
func sortedKeys(n *node.Node) []string {
	out := make([]string, 0, len(n.Keys))
	for _, k := range n.Keys {
		out = append(out, k.Str)
	}
	sort.Strings(out)
	return out
}
