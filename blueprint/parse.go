package blueprint

import (
	"errors"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// ParseOptions control Parse.
type ParseOptions struct {
	// File is the path of the blueprint as given by the user. It names the file in
	// problems, gives the blueprint its id (see idFromPath) and, by its extension, the
	// format: ".json" is JSON, anything else YAML.
	File string
	// ID, when not empty, replaces the id derived from File.
	ID string
	// Format forces "json" or "yaml" whatever the extension.
	Format string
}

// MaxFileSize is the largest blueprint, responses file or model collection read, in bytes
// (64 MiB).
const MaxFileSize = 64 << 20

// readFile reads a blueprint, responses or collection file through root, the project root
// (internal/tree; nil opens a root at the file's folder): a regular file (never a FIFO, a
// device or a /proc file, which could hang the run or hold secrets, nor a link leading out of
// the root) of at most MaxFileSize bytes. Errors are *fs.PathError values naming the path.
func readFile(root *tree.Root, path string) ([]byte, error) {
	if root == nil {
		r, err := tree.Open(filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		defer r.Close()
		root = r
	}
	return root.ReadFile(path, MaxFileSize)
}

// ParseFile reads and parses a blueprint file (through a root at its folder); its id comes
// from path as given.
func ParseFile(path string) (*Blueprint, error) {
	data, err := readFile(nil, path)
	if err != nil {
		return nil, err
	}
	return Parse(data, ParseOptions{File: path})
}

// blueprintSuffixes are stripped from a file name to make the blueprint id, longest first.
var blueprintSuffixes = []string{".civic.yaml", ".civic.yml", ".weval.yaml", ".weval.yml", ".yaml", ".yml", ".json"}

// idFromPath derives a blueprint id from its path as the original does: the extension
// (.civic.yml, .weval.yml, .yml, .yaml, .json and the .yaml forms) is stripped and "/" becomes
// "__", so "subdir/my-test.yml" is "subdir__my-test". A leading "./", "../" or "/" is dropped.
func idFromPath(p string) string {
	p = path.Clean(strings.ReplaceAll(filepath.ToSlash(p), `\`, "/"))
	for {
		switch {
		case strings.HasPrefix(p, "../"):
			p = p[3:]
			continue
		case strings.HasPrefix(p, "/"):
			p = p[1:]
			continue
		}
		break
	}
	lower := strings.ToLower(p)
	for _, suf := range blueprintSuffixes {
		if strings.HasSuffix(lower, suf) {
			p = p[:len(p)-len(suf)]
			break
		}
	}
	return strings.ReplaceAll(p, "/", "__")
}

// promptSignals are the keys that make a first YAML document a prompt rather than a header.
var promptSignals = []string{"prompt", "promptText", "messages", "should", "points", "expect", "expects", "expectations", "ideal", "idealResponse", "should_not"}

// Parse parses and normalises a blueprint in any of the four structures of the format, in YAML
// or JSON. On failure the error is a *ParseError listing every problem with its line, or
// a *ParseError wrapping the YAML/JSON syntax error. Warnings (authoring mistakes that do not
// stop the blueprint from running) are in the returned Blueprint's Warnings.
func Parse(data []byte, opts ParseOptions) (*Blueprint, error) {
	p := &parser{file: opts.File}
	bp := &Blueprint{File: opts.File, ID: opts.ID}
	if bp.ID == "" {
		bp.ID = idFromPath(opts.File)
	}
	format := opts.Format
	if format == "" {
		format = "yaml"
		if strings.HasSuffix(strings.ToLower(opts.File), ".json") {
			format = "json"
		}
	}
	var docs []*node.Node
	var err error
	if format == "json" {
		var n *node.Node
		n, err = node.DecodeJSON(data)
		if n != nil {
			docs = []*node.Node{n}
		}
	} else {
		docs, err = node.DecodeYAML(data)
	}
	if err != nil {
		var se *node.SyntaxError
		if errors.As(err, &se) {
			p.add(finding.LevelError, rubric.CodeSyntax, se.Line, "", "%s", se.Error())
		} else {
			p.add(finding.LevelError, rubric.CodeSyntax, 0, "", "%v", err)
		}
		return nil, p.result()
	}
	if len(docs) == 0 {
		p.add(finding.LevelError, rubric.CodeInvalid, 0, "", "expected a blueprint (a header and prompts), found an empty file")
		return nil, p.result()
	}

	header, prompts := p.split(docs)
	if header != nil {
		p.header(bp, header)
	}
	if bp.Models == nil {
		bp.Models = []Model{{ID: "CORE"}}
	}
	seen := map[string]int{}
	for i, pn := range prompts {
		pr := p.prompt(bp, i, pn)
		if pr == nil {
			continue
		}
		if first, dup := seen[pr.ID]; dup {
			renamed := pr.ID
			for n := 2; ; n++ {
				if _, taken := seen[renamed]; !taken {
					break
				}
				renamed = pr.ID + "-" + strconv.Itoa(n)
			}
			p.warnf(CodeDuplicateID, pr.Line, pr.ID, "duplicate prompt id (first used at line %d); this prompt is renamed %q so both are scored; give it an id of its own", first, renamed)
			pr.ID = renamed
		}
		seen[pr.ID] = pr.Line
		bp.Prompts = append(bp.Prompts, pr)
	}
	if bp.Prompts == nil {
		bp.Prompts = []*Prompt{}
		if len(prompts) == 0 {
			p.warnf(rubric.CodeInvalid, docs[0].Line, "", "the blueprint has no prompts (expected prompt documents after the header, or a prompts list)")
		}
	}
	if err := p.result(); err != nil {
		return nil, err
	}
	bp.Warnings = p.diags
	return bp, nil
}

type parser struct {
	file  string
	diags finding.Problems
	defs  *node.Node // point_defs mapping
	// defaultRenderAs is the header's render_as.
	defaultRenderAs string
	// systemsKey and systemsLine name the header's list of system prompts (system, systemPrompt
	// or systems given as a list) when it has entries.
	systemsKey  string
	systemsLine int
}

func (p *parser) add(level finding.Level, code string, line int, prompt, format string, args ...any) {
	p.diags = append(p.diags, finding.Problem{File: p.file, Line: line, Field: rubric.Subject("", prompt), Level: level, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) errorf(line int, prompt, format string, args ...any) {
	p.add(finding.LevelError, rubric.CodeInvalid, line, prompt, format, args...)
}

func (p *parser) warnf(code string, line int, prompt, format string, args ...any) {
	p.add(finding.LevelWarning, code, line, prompt, format, args...)
}

// result returns a *ParseError when any error was found.
func (p *parser) result() error {
	sortProblems(p.diags)
	for _, d := range p.diags {
		if d.Level == finding.LevelError {
			return &ParseError{File: p.file, Problems: p.diags}
		}
	}
	return nil
}

// split separates the header from the prompt nodes (spec §2 "Detection").
func (p *parser) split(docs []*node.Node) (header *node.Node, prompts []*node.Node) {
	first := docs[0]
	rest := docs[1:]
	addDocs := func(ds []*node.Node) {
		for _, d := range ds {
			if d.Kind == node.ListKind {
				prompts = append(prompts, d.Items...)
			} else {
				prompts = append(prompts, d)
			}
		}
	}
	switch {
	case first.Kind == node.ListKind:
		addDocs(docs)
	case first.Kind == node.MapKind && first.Get("prompts") != nil:
		header = &node.Node{Kind: node.MapKind, Line: first.Line}
		for i, k := range first.Keys {
			if k.Str == "prompts" {
				continue
			}
			header.Keys = append(header.Keys, k)
			header.Vals = append(header.Vals, first.Vals[i])
		}
		pl := first.Get("prompts")
		if pl.Kind != node.ListKind {
			p.errorf(pl.Line, "", "expected prompts to be a list of prompts, found %s", pl.Describe())
		} else {
			prompts = append(prompts, pl.Items...)
		}
		addDocs(rest)
	case first.Kind == node.MapKind && hasAny(first, promptSignals):
		addDocs(docs)
	case first.Kind == node.MapKind:
		header = first
		addDocs(rest)
	default:
		p.errorf(first.Line, "", "expected the first document to be a header mapping or a list of prompts, found %s", first.Describe())
		addDocs(rest)
	}
	return header, prompts
}

func hasAny(n *node.Node, keys []string) bool {
	for _, k := range keys {
		if n.Get(k) != nil {
			return true
		}
	}
	return false
}

// pick returns the value of the first key present and warns when a later alias is present too.
func (p *parser) pick(n *node.Node, prompt string, keys ...string) (*node.Node, string) {
	v, name, ignored := n.Pick(keys...)
	for _, k := range ignored {
		p.warnf(rubric.CodeAliasConflict, n.KeyLine(k), prompt, "both %q and %q are given; only %q is used", name, k, name)
	}
	return v, name
}

func (p *parser) header(bp *Blueprint, h *node.Node) {
	known := map[string]bool{}
	for _, k := range []string{"id", "configId", "title", "configTitle", "description", "author", "reference", "references",
		"citation", "citations", "tags", "models", "system", "systemPrompt", "systems", "temperature", "temperatures",
		"evaluationConfig", "point_defs", "defs", "tools", "toolUse", "context", "render_as", "noCache",
		"externalServices", "concurrency"} {
		known[k] = true
	}
	for _, k := range h.Keys {
		if !known[k.Str] {
			p.warnf(rubric.CodeUnknownField, k.Line, "", "unknown header field %q (ignored)", k.Str)
		}
	}
	if v, name := p.pick(h, "", "id", "configId"); v != nil {
		p.warnf(CodeIgnoredID, v.Line, "", "%q is ignored: the blueprint id comes from the file path (%q); remove it", name, bp.ID)
	}
	if v, name := p.pick(h, "", "title", "configTitle"); v != nil {
		bp.Title, _ = p.text(v, "", name)
	}
	if v := h.Get("description"); v != nil {
		bp.Description, _ = p.text(v, "", "description")
	}
	if v := h.Get("author"); v != nil {
		bp.Author = p.author(v)
	}
	if v, name := p.pick(h, "", "reference", "citation", "references", "citations"); v != nil {
		bp.References = p.references(v, name)
	}
	if v := h.Get("tags"); v != nil {
		bp.Tags = p.strings(v, "", "tags")
	}
	if v := h.Get("models"); v != nil {
		bp.Models = p.models(v)
	}
	p.headerSystems(bp, h)
	p.headerTemperatures(bp, h)
	if v := h.Get("concurrency"); v != nil {
		if n, ok := p.integer(v, "", "concurrency", 1, llm.MaxConcurrency); ok {
			bp.Concurrency = &n
		}
	}
	if v := h.Get("evaluationConfig"); v != nil {
		bp.Evaluation = p.evalConfig(v)
	}
	if v, name := p.pick(h, "", "point_defs", "defs"); v != nil {
		if v.Kind != node.MapKind {
			p.errorf(v.Line, "", "expected %s to be a mapping of definition names to points or JavaScript, found %s", name, v.Describe())
		} else {
			p.defs = v
			bp.PointDefs = v.ToAny()
		}
	}
	if v := h.Get("tools"); v != nil {
		bp.Tools = p.tools(v)
	}
	if v := h.Get("toolUse"); v != nil {
		bp.ToolUse = p.toolUse(v)
	}
	if v := h.Get("context"); v != nil {
		bp.Context = v.ToAny()
	}
	if v := h.Get("render_as"); v != nil {
		bp.RenderAs = p.renderAs(v, "")
		p.defaultRenderAs = bp.RenderAs
	}
	if v := h.Get("noCache"); v != nil {
		if b, ok := p.boolean(v, "", "noCache"); ok {
			bp.NoCache = &b
		}
	}
	if v := h.Get("externalServices"); v != nil {
		bp.Services = p.services(v)
	}
}

// headerSystems reads the header's system prompt (system, systemPrompt), or its list of
// system prompts (systems), each a variant of every prompt.
func (p *parser) headerSystems(bp *Blueprint, h *node.Node) {
	if v, name := p.pick(h, "", "system", "systemPrompt", "systems"); v != nil && v.Kind != node.NullKind {
		if v.Kind == node.ListKind {
			firstNull := 0
			for _, item := range v.Items {
				switch item.Kind {
				case node.NullKind:
					// Weval's run-config rule: one null (no system prompt) is a variant; a second
					// would be the same variant again.
					if firstNull != 0 {
						p.errorf(item.Line, "", "expected at most one null entry in %s (null runs the prompts without a system prompt), found a second null (the first is at line %d)", name, firstNull)
						continue
					}
					firstNull = item.Line
					bp.Systems = append(bp.Systems, nil)
				case node.StringKind:
					s := item.Str
					bp.Systems = append(bp.Systems, &s)
				default:
					p.errorf(item.Line, "", "expected each entry of %s to be a system prompt string or null, found %s", name, item.Describe())
				}
			}
			if len(v.Items) > 0 {
				p.systemsKey, p.systemsLine = name, h.KeyLine(name)
			}
		} else if s, ok := p.text(v, "", name); ok {
			bp.System = &s
		}
	}
}

// headerTemperatures reads the header's temperature and its list of temperatures.
func (p *parser) headerTemperatures(bp *Blueprint, h *node.Node) {
	if v := h.Get("temperature"); v != nil {
		if f, ok := p.numberIn(v, "", "temperature", 0, maxTemperature); ok {
			bp.Temperature = &f
		}
	}
	if v := h.Get("temperatures"); v != nil {
		if v.Kind != node.ListKind {
			p.errorf(v.Line, "", "expected temperatures to be a list of numbers, found %s", v.Describe())
		} else {
			bp.Temperatures = []float64{}
			for _, item := range v.Items {
				if f, ok := p.numberIn(item, "", "each temperature", 0, maxTemperature); ok {
					bp.Temperatures = append(bp.Temperatures, f)
				}
			}
		}
	}
}

func (p *parser) text(v *node.Node, prompt, what string) (string, bool) {
	if v.Kind != node.StringKind {
		p.errorf(v.Line, prompt, "expected %s to be a string, found %s", what, v.Describe())
		return "", false
	}
	return v.Str, true
}

// numberIn reads a number from lo to hi (spec/trust.md §8: every number a blueprint sets has
// a range; the error names it and the value found).
func (p *parser) numberIn(v *node.Node, prompt, what string, lo, hi float64) (float64, bool) {
	if v.Kind != node.NumberKind || !(v.Num >= lo && v.Num <= hi) {
		p.errorf(v.Line, prompt, "expected %s to be a number from %s to %s, found %s", what,
			jsjson.FormatNumber(lo), jsjson.FormatNumber(hi), v.Describe())
		return 0, false
	}
	return v.Num, true
}

// integer reads a whole number from lo to hi.
func (p *parser) integer(v *node.Node, prompt, what string, lo, hi int) (int, bool) {
	if v.Kind != node.NumberKind || v.Num != math.Trunc(v.Num) || v.Num < float64(lo) || v.Num > float64(hi) {
		p.errorf(v.Line, prompt, "expected %s to be a whole number from %d to %d, found %s", what, lo, hi, v.Describe())
		return 0, false
	}
	return int(v.Num), true
}

func (p *parser) boolean(v *node.Node, prompt, what string) (bool, bool) {
	if v.Kind != node.BoolKind {
		p.errorf(v.Line, prompt, "expected %s to be true or false, found %s", what, v.Describe())
		return false, false
	}
	return v.Bool, true
}

// strings reads a list of strings; a single string is accepted as a list of one.
func (p *parser) strings(v *node.Node, prompt, what string) []string {
	if v.Kind == node.StringKind {
		return []string{v.Str}
	}
	if v.Kind != node.ListKind {
		p.errorf(v.Line, prompt, "expected %s to be a list of strings, found %s", what, v.Describe())
		return nil
	}
	out := make([]string, 0, len(v.Items))
	for _, item := range v.Items {
		if item.Kind != node.StringKind {
			p.errorf(item.Line, prompt, "expected each entry of %s to be a string, found %s", what, item.Describe())
			continue
		}
		out = append(out, item.Str)
	}
	return out
}

func (p *parser) stringMap(v *node.Node, prompt, what string) map[string]string {
	if v.Kind != node.MapKind {
		p.errorf(v.Line, prompt, "expected %s to be a mapping of strings, found %s", what, v.Describe())
		return nil
	}
	out := make(map[string]string, len(v.Keys))
	for i, k := range v.Keys {
		val := v.Vals[i]
		switch val.Kind {
		case node.StringKind:
			out[k.Str] = val.Str
		case node.NumberKind:
			out[k.Str] = jsjson.FormatNumber(val.Num)
		case node.BoolKind:
			out[k.Str] = strconv.FormatBool(val.Bool)
		default:
			p.errorf(val.Line, prompt, "expected %s.%s to be a string, found %s", what, k.Str, val.Describe())
		}
	}
	return out
}
