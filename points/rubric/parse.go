package rubric

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
)

// PointOptions control ParsePoints.
type PointOptions struct {
	// File names the file in diagnostics.
	File string
	// Owner names what the points belong to in diagnostics (a prompt id, a rule id), and
	// OwnerKind what it is ("rule"; "" means "prompt").
	Owner     string
	OwnerKind string
	// Defs are reusable definitions for $ref (a blueprint's point_defs): a JavaScript string
	// (expanded as $js) or a point object.
	Defs map[string]any
	// LineOffset is added to the lines of a *yaml.Node, for a list parsed out of a larger file
	// (a rule's frontmatter starts on line 2, after its "---").
	LineOffset int
}

// ParsePoints parses a `should` list given as a decoded YAML or JSON value (as produced by
// gopkg.in/yaml.v3 or encoding/json, or a *yaml.Node to keep line numbers). It is how the
// linter scores a rule's `should` list with this engine. The errors are Diagnostics of
// severity error; when there are none the Rubric is usable, and its authoring warnings are
// in the returned Rubric's Warnings.
func ParsePoints(raw any, opts PointOptions) (Rubric, []error) {
	p := &parser{file: opts.File}
	n, err := fromAny(raw, 0)
	if err != nil {
		return Rubric{}, []error{Diagnostic{File: opts.File, Prompt: opts.Owner, OwnerKind: opts.OwnerKind, Severity: SeverityError, Code: CodeInvalid, Message: err.Error()}}
	}
	if opts.Defs != nil {
		d, err := fromAny(opts.Defs, 0)
		if err != nil {
			return Rubric{}, []error{Diagnostic{File: opts.File, Prompt: opts.Owner, OwnerKind: opts.OwnerKind, Severity: SeverityError, Code: CodeInvalid, Message: "point definitions: " + err.Error()}}
		}
		p.defs = d
	}
	pp := pointParser{p: p, prompt: opts.Owner}
	r := Rubric{Should: pp.block(n, "should")}
	var errs []error
	for _, d := range p.diags {
		if d.Line > 0 {
			d.Line += opts.LineOffset
		}
		d.OwnerKind = opts.OwnerKind
		if d.Severity == SeverityError {
			errs = append(errs, d)
		} else {
			r.Warnings = append(r.Warnings, d)
		}
	}
	if errs != nil {
		return Rubric{}, errs
	}
	if opts.LineOffset != 0 {
		for _, pt := range r.Points() {
			if pt.Line > 0 {
				pt.Line += opts.LineOffset
			}
		}
	}
	return r, nil
}

// Error makes a Diagnostic usable as an error.
func (d Diagnostic) Error() string { return d.String() }

type pointParser struct {
	p      *parser
	prompt string
	depth  int
}

// block parses a should/should_not list.
func (pp pointParser) block(v *node, name string) []Entry {
	if v.kind != listKind {
		pp.p.errorf(v.line, pp.prompt, "expected %s to be a list of points, found %s", name, v.describe())
		return nil
	}
	out := []Entry{}
	for i, item := range v.list {
		if item.kind != listKind {
			if pt := pp.point(item); pt != nil {
				out = append(out, Entry{Point: pt})
			}
			continue
		}
		path := []*Point{}
		for _, sub := range item.list {
			switch sub.kind {
			case nullKind:
				continue
			case listKind:
				pp.p.errorf(sub.line, pp.prompt, "%s item %d: expected an alternative path to be a list of points, found a nested list inside it (paths cannot nest)", name, i+1)
				continue
			}
			if pt := pp.point(sub); pt != nil {
				path = append(path, pt)
			}
		}
		switch {
		case len(item.list) == 0:
			pp.p.warnf(CodeEmptyPath, item.line, pp.prompt, "%s item %d is an empty list (ignored)", name, i+1)
			continue
		case len(path) == 0:
			continue
		case len(item.list) == 1:
			pp.p.warnf(CodeSinglePointPath, item.line, pp.prompt,
				"%s item %d is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting (\"- - x\" → \"- x\")", name, i+1)
		}
		out = append(out, Entry{Path: path})
	}
	return out
}

// quotedCallRe matches a string that is a function call written in quotes: "$icontains: 'x'".
var quotedCallRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$[A-Za-z_]+\s*:`) })

// point parses one point; nil after an error.
func (pp pointParser) point(v *node) *Point {
	switch v.kind {
	case stringKind:
		s := v.str
		if strings.HasPrefix(s, "$") {
			pt := &Point{Written: s[1:], Fn: normaliseFn(s[1:]), Multiplier: 1, Line: v.line}
			if quotedCallRe().MatchString(s) {
				pp.p.warnf(CodeQuotedFunction, v.line, pp.prompt,
					"%s is a quoted function call: the quotes make it one string, which names a function %q that does not exist (the point scores 0); write it as a mapping without the outer quotes", quoteShort(s), pt.Fn)
				pt.prepErr = &UnknownFunctionError{Name: pt.Written, Quoted: true}
				return pt
			}
			pp.prepare(pt)
			return pt
		}
		if strings.TrimSpace(s) == "" {
			pp.p.errorf(v.line, pp.prompt, "expected a point, found an empty string")
			return nil
		}
		return &Point{Text: s, Multiplier: 1, Line: v.line}
	case mapKind:
		return pp.objectPoint(v)
	}
	pp.p.errorf(v.line, pp.prompt, "expected a point (a string, {$function: argument}, {\"criterion\": \"citation\"} or {text|fn, weight, citation}), found %s", v.describe())
	return nil
}

func (pp pointParser) objectPoint(v *node) *Point {
	var fnKeys []int
	for i, k := range v.keys {
		if strings.HasPrefix(k.str, "$") {
			fnKeys = append(fnKeys, i)
		}
	}
	if len(fnKeys) > 1 {
		pp.p.errorf(v.line, pp.prompt, "expected one $function per point, found %s and %s", v.keys[fnKeys[0]].str, v.keys[fnKeys[1]].str)
		return nil
	}
	hasFull := v.get("text") != nil || v.get("point") != nil || v.get("fn") != nil
	if len(fnKeys) == 1 {
		i := fnKeys[0]
		name := v.keys[i].str[1:]
		if hasFull {
			pp.p.errorf(v.line, pp.prompt, "a point cannot have both %s and text/point/fn, found %s", v.keys[i].str, v.describe())
			return nil
		}
		pp.warnUnknown(v, v.keys[i].str)
		if name == "ref" {
			return pp.ref(v, v.vals[i])
		}
		return pp.fnPoint(v, name, v.vals[i], true)
	}
	if hasFull {
		textNode, textKey := pp.p.pick(v, pp.prompt, "text", "point")
		fnNode := v.get("fn")
		if textNode != nil && fnNode != nil {
			pp.p.errorf(v.line, pp.prompt, "a point cannot have both %s and fn, found %s", textKey, v.describe())
			return nil
		}
		pp.warnUnknown(v, "text", "point", "fn", "arg", "fnArgs")
		if fnNode != nil {
			if fnNode.kind != stringKind || strings.TrimPrefix(fnNode.str, "$") == "" {
				pp.p.errorf(fnNode.line, pp.prompt, "expected fn to be a function name such as \"contains\", found %s", fnNode.describe())
				return nil
			}
			name := strings.TrimPrefix(fnNode.str, "$")
			args, _ := pp.p.pick(v, pp.prompt, "fnArgs", "arg")
			if name == "ref" {
				if args == nil {
					pp.p.errorf(v.line, pp.prompt, "fn: ref needs the definition name in arg")
					return nil
				}
				return pp.ref(v, args)
			}
			return pp.fnPoint(v, name, args, args != nil)
		}
		if textNode.kind != stringKind || strings.TrimSpace(textNode.str) == "" {
			pp.p.errorf(textNode.line, pp.prompt, "expected %s to be a non-empty string, found %s", textKey, textNode.describe())
			return nil
		}
		pt := &Point{Text: textNode.str, Line: v.line}
		if !pp.weightAndCitation(v, pt) {
			return nil
		}
		return pt
	}
	if len(v.keys) == 1 && v.vals[0].kind == stringKind {
		if strings.TrimSpace(v.keys[0].str) == "" {
			pp.p.errorf(v.line, pp.prompt, "expected a criterion as the key of a {\"criterion\": \"citation\"} point, found an empty key")
			return nil
		}
		return &Point{Text: v.keys[0].str, Citation: v.vals[0].str, Multiplier: 1, Line: v.line}
	}
	pp.p.errorf(v.line, pp.prompt, "expected a point ({$function: argument}, {\"criterion\": \"citation\"} or an object with text, point or fn), found %s", v.describe())
	return nil
}

// warnUnknown warns about keys of a point object that are neither listed nor weight/citation.
func (pp pointParser) warnUnknown(v *node, allowed ...string) {
	for _, k := range v.keys {
		switch k.str {
		case "weight", "multiplier", "citation":
			continue
		}
		known := false
		for _, a := range allowed {
			if k.str == a {
				known = true
			}
		}
		if !known {
			pp.p.warnf(CodeUnknownField, k.line, pp.prompt, "unknown point field %q (ignored)", k.str)
		}
	}
}

func (pp pointParser) fnPoint(v *node, name string, args *node, hasArgs bool) *Point {
	pt := &Point{Written: name, Fn: normaliseFn(name), Line: v.line, HasArgs: hasArgs}
	if hasArgs {
		if err := checkFinite(args); err != nil {
			pp.p.errorf(args.line, pp.prompt, "$%s: %v", name, err)
			return nil
		}
		pt.Args = args.toAny()
	}
	if !pp.weightAndCitation(v, pt) {
		return nil
	}
	pp.prepare(pt)
	return pt
}

// prepare compiles the point's function and reports authoring mistakes as warnings: the point
// still parses (and scores 0 with the error) so one broken check does not hide the rest.
func (pp pointParser) prepare(pt *Point) {
	pt.prepare()
	if pt.prepErr == nil {
		return
	}
	var unknown *UnknownFunctionError
	if errors.As(pt.prepErr, &unknown) {
		pp.p.warnf(CodeUnknownFunction, pt.Line, pp.prompt, "%v", pt.prepErr)
		return
	}
	pp.p.warnf(CodeBadFunction, pt.Line, pp.prompt, "%v", pt.prepErr)
}

func (pp pointParser) weightAndCitation(v *node, pt *Point) bool {
	pt.Multiplier = 1
	if w, name := pp.p.pick(v, pp.prompt, "weight", "multiplier"); w != nil {
		if w.kind != numberKind || math.IsNaN(w.num) || w.num < 0.1 || w.num > 10 {
			pp.p.errorf(w.line, pp.prompt, "expected point %s to be a number between 0.1 and 10, found %s", name, w.describe())
			return false
		}
		pt.Multiplier = w.num
	}
	if c := v.get("citation"); c != nil && c.kind != nullKind {
		if c.kind != stringKind && c.kind != mapKind {
			pp.p.errorf(c.line, pp.prompt, "expected citation to be a string or a mapping, found %s", c.describe())
			return false
		}
		pt.Citation = c.toAny()
	}
	return true
}

// ref expands {$ref: name}: a string definition becomes $js with that code; an object
// definition is parsed as a point. A weight or citation on the $ref overrides the definition's.
func (pp pointParser) ref(v *node, arg *node) *Point {
	name := ""
	switch {
	case arg.kind == stringKind:
		name = strings.TrimSpace(arg.str)
	case arg.kind == mapKind && arg.get("name") != nil && arg.get("name").kind == stringKind:
		name = strings.TrimSpace(arg.get("name").str)
	}
	if name == "" {
		pp.p.errorf(arg.line, pp.prompt, "expected $ref to name a definition in point_defs, found %s", arg.describe())
		return nil
	}
	var def *node
	if pp.p.defs != nil {
		def = pp.p.defs.get(name)
	}
	if def == nil {
		known := "none are defined"
		if pp.p.defs != nil && len(pp.p.defs.keys) > 0 {
			known = "defined: " + strings.Join(sortedKeys(pp.p.defs), ", ")
		}
		pp.p.errorf(arg.line, pp.prompt, "$ref %q is not defined in point_defs (%s)", name, known)
		return nil
	}
	if pp.depth >= 8 {
		pp.p.errorf(arg.line, pp.prompt, "$ref %q: definitions refer to each other too deeply (a loop?)", name)
		return nil
	}
	var pt *Point
	switch def.kind {
	case stringKind:
		pt = &Point{Written: "js", Fn: "js", Args: def.str, HasArgs: true, Line: v.line}
		pp.prepareQuiet(pt, name, def.line)
	case mapKind:
		inner := pp
		inner.depth++
		pt = inner.point(def)
		if pt == nil {
			return nil
		}
		c := *pt
		pt = &c
		pt.Line = v.line
	default:
		pp.p.errorf(def.line, pp.prompt, "point_defs.%s: expected a JavaScript string or a point object, found %s", name, def.describe())
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
	if v.get("weight") == nil && v.get("multiplier") == nil {
		pt.Multiplier = defWeight
	}
	return pt
}

// prepareQuiet prepares a point expanded from a string definition, reporting problems against
// the definition.
func (pp pointParser) prepareQuiet(pt *Point, name string, line int) {
	pt.prepare()
	if pt.prepErr != nil {
		pp.p.warnf(CodeBadFunction, line, pp.prompt, "point_defs.%s: %v", name, pt.prepErr)
	}
}

// checkFinite rejects NaN and infinite numbers in function arguments (JSON cannot hold them).
func checkFinite(n *node) error {
	switch n.kind {
	case numberKind:
		if math.IsNaN(n.num) || math.IsInf(n.num, 0) {
			return fmt.Errorf("expected finite numbers in the argument, found %s", formatJSNumber(n.num))
		}
	case listKind:
		for _, c := range n.list {
			if err := checkFinite(c); err != nil {
				return err
			}
		}
	case mapKind:
		for _, c := range n.vals {
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
	name = strings.TrimPrefix(name, "$")
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
