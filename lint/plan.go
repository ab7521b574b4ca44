package lint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/internal/safefile"
	"github.com/vectorlint/vectorlint/rules"
)

// Project is a configuration with its loaded, validated rule packs.
type Project struct {
	// Config is nil when the project was loaded from a rules folder alone (validate --rules).
	Config *Config
	Packs  []*rules.Pack
	// Warnings are problems that do not stop a run.
	Warnings rules.Problems
	// StyleGuide is the project's style guide in prose (VECTORLINT.md), sent to the model with
	// every rule; empty when there is none.
	StyleGuide string
	// StyleGuidePath is the file StyleGuide was read from ("" when there is none).
	StyleGuidePath string
	// ZeroConfig is true when no configuration file was found and Config was synthesized for
	// the style guide alone (see ZeroConfig).
	ZeroConfig bool
}

// ProjectOptions says what LoadProject loads. FindProject fills it for the commands.
type ProjectOptions struct {
	// ConfigPath is the configuration file ("" to load only RulesPath, or for zero-config).
	ConfigPath string
	// RulesPath, when set, replaces the configuration's RulesPath.
	RulesPath string
	// StyleGuidePath is the project's style guide (VECTORLINT.md), "" for none. With no
	// ConfigPath and no RulesPath, the project is zero-config: every Markdown file is checked
	// against the guide (see ZeroConfig).
	StyleGuidePath string
}

// LoadProject loads the configuration, every rule pack and the style guide, and checks them
// against each other. All problems are collected before it gives up: when any is an error, it
// returns them all (errors and warnings) as a rules.Problems error. Other errors are I/O
// failures.
//
// A project with a configuration (a file, or zero-config) also gets the built-in packs
// (rules.BuiltinPacks; rules.StyleGuidePack when there is a style guide), unless a pack of
// RulesPath has the same name: the user's pack then replaces the built-in one, with a
// LevelNote problem saying so. A rules folder loaded on its own (RulesPath without ConfigPath)
// gets no built-in packs.
func LoadProject(opts ProjectOptions) (*Project, error) {
	var (
		proj     = &Project{}
		problems rules.Problems
	)
	// Packs that an error already reported may have emptied or hidden: the configuration is
	// still checked against the rest, so validate lists every problem at once.
	var (
		rulesUnreadable bool
		incompletePacks = map[string]bool{}
	)
	if opts.StyleGuidePath != "" {
		zeroConfig := opts.ConfigPath == "" && opts.RulesPath == ""
		guide, ps, err := loadStyleGuide(opts.StyleGuidePath, zeroConfig)
		if err != nil {
			return nil, err
		}
		problems = append(problems, ps...)
		incompletePacks[rules.StyleGuidePackName] = ps.HasErrors()
		proj.StyleGuide, proj.StyleGuidePath = guide, opts.StyleGuidePath
		if zeroConfig {
			proj.Config, proj.ZeroConfig = ZeroConfig(opts.StyleGuidePath), true
		}
	}
	rulesPath := opts.RulesPath
	if opts.ConfigPath != "" {
		data, err := safefile.ReadFile(opts.ConfigPath, rules.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("cannot read the configuration: %w", err)
		}
		cfg, ps := ParseConfig(opts.ConfigPath, data)
		problems = append(problems, ps...)
		proj.Config = cfg
		if rulesPath == "" {
			rulesPath = cfg.RulesPath
		} else {
			cfg.RulesPath = rulesPath
		}
		if rulesPath != "" && cfg.RulesPathLine > 0 && opts.RulesPath == "" {
			if fi, err := os.Stat(rulesPath); err != nil || !fi.IsDir() {
				problems = append(problems, rules.Problem{File: cfg.Path, Line: cfg.RulesPathLine, Field: "RulesPath",
					Expected: "an existing folder of rule packs (relative to the config file's folder)",
					Found:    fmt.Sprintf("%q, which is not a folder", cfg.RulesPathValue)})
				rulesPath, rulesUnreadable = "", true
			}
		}
	}
	if rulesPath != "" {
		packs, ps, err := rules.LoadPacks(rulesPath)
		if err != nil {
			if opts.RulesPath != "" {
				return nil, fmt.Errorf("cannot read the rules folder: %w", err)
			}
			problems = append(problems, rules.Problem{File: proj.Config.Path, Line: proj.Config.RulesPathLine,
				Field: "RulesPath", Message: "cannot read the rules folder: " + err.Error()})
			rulesUnreadable = true
		}
		proj.Packs = packs
		problems = append(problems, ps...)
		for _, p := range ps {
			if p.Level != rules.LevelError {
				continue
			}
			if rel, err := filepath.Rel(rulesPath, p.File); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
				incompletePacks[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] = true
			}
		}
	}
	if proj.Config != nil {
		var ps rules.Problems
		proj.Packs, ps = addBuiltinPacks(proj.Packs, proj.StyleGuide != "", proj.ZeroConfig)
		problems = append(problems, ps...)
	}
	if proj.Config != nil {
		incomplete := func(pack string) bool { return rulesUnreadable || incompletePacks[pack] }
		problems = append(problems, checkConfig(proj.Config, proj.Packs, incomplete)...)
	}
	problems.Sort()
	if problems.HasErrors() {
		return proj, problems
	}
	proj.Warnings = problems
	return proj, nil
}

// Pack returns the project's pack with the given name, or nil.
func (p *Project) Pack(name string) *rules.Pack {
	for _, pk := range p.Packs {
		if pk.Name == name {
			return pk
		}
	}
	return nil
}

// PlanInput is what a lint run was asked to do.
type PlanInput struct {
	// Dir is the working directory: relative PATHs and reported paths are relative to it.
	Dir string
	// Paths are the PATH arguments (files, folders, globs; "-" for standard input).
	Paths []string
	// Stdin is read when a PATH is "-"; StdinFilename is then its reported path and picks the
	// config section.
	Stdin         io.Reader
	StdinFilename string
	// SearchModel tells whether a search model is configured for technical-accuracy rules
	// (rules.SearchModelConfigured).
	SearchModel bool
	// Lazy leaves every file unread: BuildPlan then only finds the files, picks their
	// configuration sections, rules and skip reasons, and sorts them; each FilePlan's Doc, Err
	// and Rules are filled when it is prepared (FilePlan.Prepare). Evaluate prepares each file
	// when its pool reaches it and releases it once its result is emitted, so a lint run's
	// memory stays flat however many files there are. Without Lazy, BuildPlan prepares every
	// file (as Plan.Prepare does), which a caller that shows the whole plan needs.
	Lazy bool
}

// Plan is what a lint run will do: for each file, the rules that apply (after configuration
// overrides) and, for each rule, the texts the model evaluates. The files of a lazy plan
// (PlanInput.Lazy) are read and planned only when they are prepared.
type Plan struct {
	Config *Config
	// Files are sorted by path.
	Files []*FilePlan
	// Skipped lists files no rule applies to, sorted by path.
	Skipped []Skipped
}

// FilePlan is the plan for one file.
type FilePlan struct {
	// Path is the reported path (relative to the working directory when inside it).
	Path string
	// RelPath is the path relative to the config's folder that selected the sections.
	RelPath string
	// Doc is nil when the file could not be read; Err says why (an operational error: exit 2).
	Doc *Document
	Err error
	// Rules are sorted by rule id.
	Rules []*PlannedRule

	// How the file is read and planned, kept small since a lazy plan holds one FilePlan per
	// file for the whole run: env is nil for a FilePlan made by hand, which is complete as it
	// is; the file is read from standard input, else from abs, else from env.dir joined with
	// Path. prepared tells whether Doc, Err and Rules are filled.
	env      *planEnv
	set      *ruleSet
	abs      string
	stdin    bool
	prepared bool
}

// planEnv is what preparing any file of a plan needs.
type planEnv struct {
	cfg         *Config
	searchModel bool
	dir         string
	readStdin   func() ([]byte, error)
}

// ruleSet is the rules that apply to the files matched by one combination of configuration
// sections, with the settings of each; files with the same sections share it.
type ruleSet struct {
	rules    []*rules.Rule
	settings []RuleSettings
	// skip says why no rule applies ("" when rules apply); err is an unknown pack in RunRules.
	skip string
	err  error
}

// Prepared reports whether Doc, Err and Rules are filled: always, except for a file of a lazy
// plan (PlanInput.Lazy) that was not prepared yet or was released by Evaluate.
func (fp *FilePlan) Prepared() bool { return fp.env == nil || fp.prepared }

// Prepare reads the file and works out what each rule evaluates on it (Doc or Err, and Rules),
// unless that is done. A file that cannot be read gets Err, an operational error. Standard input
// is read once: preparing its FilePlan again after Evaluate released it gives an Err.
func (fp *FilePlan) Prepare() {
	if fp.Prepared() {
		return
	}
	fp.prepared = true
	var (
		data []byte
		err  error
	)
	switch {
	case fp.stdin:
		data, err = fp.env.readStdin()
	case fp.abs != "":
		data, err = safefile.ReadFile(fp.abs, MaxDocumentSize)
	default:
		data, err = safefile.ReadFile(filepath.Join(fp.env.dir, filepath.FromSlash(fp.Path)), MaxDocumentSize)
	}
	if err != nil {
		fp.Err = fmt.Errorf("%s: cannot read the file: %w", fp.Path, unwrapPathError(err))
		return
	}
	doc, err := NewDocument(fp.Path, data)
	if err != nil {
		fp.Err = err
		return
	}
	fp.Doc = doc
	targets := &targetCache{doc: doc}
	fp.Rules = make([]*PlannedRule, 0, len(fp.set.rules))
	for i, r := range fp.set.rules {
		fp.Rules = append(fp.Rules, planRule(doc, r, fp.set.settings[i], fp.env.cfg, fp.env.searchModel, targets))
	}
	slices.SortFunc(fp.Rules, func(a, b *PlannedRule) int { return strings.Compare(a.ID, b.ID) })
}

// release drops what Prepare filled, so the document, its units and chunks can be collected.
// A FilePlan made by hand is left alone.
func (fp *FilePlan) release() {
	if fp.env == nil {
		return
	}
	fp.Doc, fp.Err, fp.Rules, fp.prepared = nil, nil, nil, false
}

// Prepare prepares every file of the plan (FilePlan.Prepare), in path order.
func (p *Plan) Prepare() {
	for _, f := range p.Files {
		f.Prepare()
	}
}

// PlannedRule is one rule on one file, with the configuration applied.
type PlannedRule struct {
	Rule *rules.Rule
	// Kind evaluates the rule (KindOf(Rule)).
	Kind Kind
	// ID is "Pack.RuleId".
	ID string
	// Severity and Strictness are the effective values: an override from the configuration,
	// else the frontmatter, else DefaultSeverity / 10.
	Severity   rules.Severity
	Strictness float64
	// SeverityOverridden is true when the configuration set the severity; it then applies to
	// the rule's criteria too.
	SeverityOverridden bool
	// Units are the texts to evaluate: units with a missing target first, then the others in
	// document order.
	Units []*Unit
	// Err is set when the rule cannot run on this file (a target regex that timed out, a
	// technical-accuracy rule without a search model): an operational error.
	Err error
}

// Unit is one text a rule evaluates, with the criteria evaluated on it. Criteria whose
// effective targets select the same text share one unit (and one model call per chunk).
type Unit struct {
	// Criteria evaluated on this text (all of a semi-objective rule's criteria, which only guide
	// the model; nil for a rule without criteria).
	Criteria []*rules.Criterion
	// Target is the effective target (nil: the rule has none).
	Target *rules.Target
	// WholeDocument is true when Text is the whole body: no target, or a target that is not
	// required and did not match.
	WholeDocument bool
	// Text is the evaluated text; Offset its byte offset in the document's Source and Line its
	// first line.
	Text   string
	Offset int
	Line   int
	// NoSplit is set for rules with evaluateAs: document, and for checklists.
	NoSplit bool
	// Checklist is the rule's compiled `should` list when the rule is a checklist: its points are
	// scored on Text by the blueprint engine, and only its LLM-judged points call the model.
	Checklist *blueprint.Rubric
	// Missing is set when the target is required and did not match: no model call, score 0,
	// and this "target not found" finding.
	Missing *Finding

	// kind is the kind of the unit's rule.
	kind Kind
}

// NeedsCall reports whether the unit is evaluated (by the model, or by its checklist).
func (u *Unit) NeedsCall() bool { return u.Missing == nil }

// ModelCalls is the number of model calls the unit makes, as its rule's kind says: one per
// chunk, or for a checklist one per LLM-judged point (none when all its points are
// deterministic functions).
func (u *Unit) ModelCalls() int {
	switch {
	case u.Missing != nil:
		return 0
	case u.kind == nil: // a Unit made by hand: evaluated as a semi-objective rule's
		return len(u.Chunks())
	}
	return u.kind.modelCalls(u)
}

// Chunks returns the chunks the model evaluates for this unit: none for a missing target, one
// for evaluateAs: document, else SplitChunks.
func (u *Unit) Chunks() []Chunk {
	switch {
	case u.Missing != nil:
		return nil
	case u.NoSplit:
		return []Chunk{{Text: u.Text, Offset: u.Offset, Line: u.Line, Words: CountWords(u.Text)}}
	}
	return SplitChunks(u.Text, u.Offset, u.Line)
}

// CriterionSeverity is the severity of a criterion's findings: the configuration's override for
// the rule when there is one, else the criterion's own, else the rule's.
func (pr *PlannedRule) CriterionSeverity(c *rules.Criterion) rules.Severity {
	if !pr.SeverityOverridden && c.Severity != rules.SeverityUnset {
		return c.Severity
	}
	return pr.Severity
}

// Findings returns the rule's deterministic findings ("target not found").
func (pr *PlannedRule) Findings() []Finding {
	var out []Finding
	for _, u := range pr.Units {
		if u.Missing != nil {
			out = append(out, *u.Missing)
		}
	}
	return out
}

// TargetNotFound is the message of a missing required target's finding.
const TargetNotFound = "target not found"

// BuildPlan works out which rules apply to which files and what each evaluates. It fails
// before any work for bad PATHs and for a project with errors; a file that cannot be read or a
// rule that cannot run on a file is recorded in the plan (FilePlan.Err, PlannedRule.Err). With
// PlanInput.Lazy the files are not read yet: see there.
func BuildPlan(cfg *Config, packs []*rules.Pack, in PlanInput) (*Plan, error) {
	byName := map[string]*rules.Pack{}
	for _, p := range packs {
		byName[p.Name] = p
	}
	if ps := CheckConfig(cfg, packs); ps.HasErrors() {
		return nil, ps
	}
	var (
		files     []string
		notRead   []Skipped
		stdinUsed bool
	)
	var args []string
	for _, a := range in.Paths {
		if a == "-" {
			if stdinUsed {
				return nil, &PathError{Arg: "-", Reason: "standard input can be read only once"}
			}
			if in.StdinFilename == "" {
				return nil, &PathError{Arg: "-", Reason: "reading standard input needs --stdin-filename NAME (NAME picks the config section and is the reported path)"}
			}
			stdinUsed = true
			continue
		}
		args = append(args, a)
	}
	if len(args) > 0 {
		found, skipped, err := Discover(in.Dir, args, []string{cfg.RulesPath})
		if err != nil {
			return nil, err
		}
		files = found
		for _, s := range skipped {
			notRead = append(notRead, Skipped{Path: displayPath(in.Dir, s.Path), Reason: s.Reason})
		}
	}

	plan := &Plan{Config: cfg, Skipped: notRead}
	env := &planEnv{cfg: cfg, searchModel: in.SearchModel, dir: in.Dir}
	type source struct {
		abs   string
		stdin bool
	}
	sources := make([]source, 0, len(files)+1)
	for _, f := range files {
		sources = append(sources, source{abs: f})
	}
	if stdinUsed {
		name := in.StdinFilename
		if !filepath.IsAbs(name) {
			name = filepath.Join(in.Dir, name)
		}
		stdin := in.Stdin
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		abs := filepath.Clean(name)
		// The document on standard input (an editor's buffer) replaces the file of the same
		// name found on disk: one result per path.
		sources = slices.DeleteFunc(sources, func(s source) bool { return s.abs == abs })
		read := false
		env.readStdin = func() ([]byte, error) {
			if read {
				return nil, errors.New("standard input was read already")
			}
			read = true
			data, err := io.ReadAll(io.LimitReader(stdin, MaxDocumentSize+1))
			if err == nil && len(data) > MaxDocumentSize {
				// The rest is not read: standard input may never end.
				return nil, &safefile.TooLargeError{Size: int64(len(data)), Limit: MaxDocumentSize, AtLeast: true}
			}
			return data, err
		}
		sources = append(sources, source{abs: abs, stdin: true})
	}

	sets := map[string]*ruleSet{}
	for _, src := range sources {
		path := displayPath(in.Dir, src.abs)
		rel, err := filepath.Rel(cfg.Dir, src.abs)
		if err != nil {
			rel = src.abs
		}
		rel = filepath.ToSlash(rel)
		// A rule file named explicitly (pre-commit passes every staged Markdown file) is not a
		// document: the folder walk already leaves RulesPath out, and so does this.
		if cfg.RulesPath != "" && withinDir(cfg.RulesPath, src.abs) {
			plan.Skipped = append(plan.Skipped, Skipped{Path: path, Reason: "in RulesPath: a rule file, not a document"})
			continue
		}
		set := resolveRules(cfg, byName, cfg.Settings(rel), sets)
		if set.err != nil {
			return nil, set.err
		}
		if set.skip != "" {
			plan.Skipped = append(plan.Skipped, Skipped{Path: path, Reason: set.skip})
			continue
		}
		if rel == path {
			rel = path // one string for both
		}
		fp := &FilePlan{Path: path, RelPath: rel, env: env, set: set, stdin: src.stdin}
		if !src.stdin && filepath.Join(in.Dir, filepath.FromSlash(path)) != src.abs {
			fp.abs = src.abs // not derivable from the reported path
		}
		plan.Files = append(plan.Files, fp)
		if !in.Lazy {
			fp.Prepare()
		}
	}
	slices.SortFunc(plan.Files, func(a, b *FilePlan) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(plan.Skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	return plan, nil
}

// resolveRules returns the rules that apply to a file with the given settings, and their
// settings, from sets when a file with the same sections was resolved before.
func resolveRules(cfg *Config, byName map[string]*rules.Pack, settings FileSettings, sets map[string]*ruleSet) *ruleSet {
	var key strings.Builder // the matching sections, by identity
	for _, s := range settings.Sections {
		fmt.Fprintf(&key, "%p,", s)
	}
	if set, ok := sets[key.String()]; ok {
		return set
	}
	set := &ruleSet{}
	sets[key.String()] = set
	if set.skip = skipReason(settings); set.skip != "" {
		return set
	}
	seenPack := map[string]bool{}
	for _, name := range settings.RunRules {
		if seenPack[name] {
			continue
		}
		seenPack[name] = true
		pack := byName[name]
		if pack == nil {
			set.err = fmt.Errorf("%s:%d: RunRules: unknown pack %q", cfg.Path, settings.RunRulesFrom.RunRulesLine, name)
			return set
		}
		for _, r := range pack.Rules {
			rs := settings.Rule(pack.Name, r.ID)
			if rs.Disabled {
				continue
			}
			set.rules = append(set.rules, r)
			set.settings = append(set.settings, rs)
		}
	}
	if len(set.rules) == 0 {
		set.skip = "every rule of " + strings.Join(settings.RunRules, ", ") + " is disabled for this file"
	}
	return set
}

// skipReason says why no rule applies to a file, or "" when rules apply.
func skipReason(s FileSettings) string {
	switch {
	case len(s.Sections) == 0:
		return "no section of vectorlint.ini matches"
	case s.RunRulesFrom == nil:
		return "no matching section of vectorlint.ini sets RunRules"
	case len(s.RunRules) == 0:
		return fmt.Sprintf("RunRules is empty in [%s]", s.RunRulesFrom.Pattern)
	}
	return ""
}

// displayPath returns path relative to dir when it is inside dir, else path, with slashes.
func displayPath(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}

// unwrapPathError drops the path os.PathError repeats (the message already names the file).
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// targetCache runs each distinct target once per document.
type targetCache struct {
	doc     *Document
	results []targetResult
}

type targetResult struct {
	target *rules.Target
	match  rules.TargetMatch
	found  bool
	err    error
}

func (c *targetCache) find(t *rules.Target) targetResult {
	for _, r := range c.results {
		if r.target.Equal(t) {
			return r
		}
	}
	m, found, err := t.Find(c.doc.Body)
	r := targetResult{target: t, match: m, found: found, err: err}
	c.results = append(c.results, r)
	return r
}

// planRule works out one rule's units on a document.
func planRule(doc *Document, r *rules.Rule, rs RuleSettings, cfg *Config, searchModel bool, targets *targetCache) *PlannedRule {
	pr := &PlannedRule{Rule: r, Kind: KindOf(r), ID: r.FullID(), Strictness: r.Strictness, Severity: cfg.DefaultSeverity}
	if r.Severity != rules.SeverityUnset {
		pr.Severity = r.Severity
	}
	if rs.Severity != nil {
		pr.Severity, pr.SeverityOverridden = *rs.Severity, true
	}
	if rs.Strictness != nil {
		pr.Strictness = *rs.Strictness
	}
	if rules.CheckRunnable(r, searchModel) != nil {
		pr.Err = rules.ErrNoSearchModel
		return pr
	}

	// The kind groups the criteria by the text they evaluate: a semi-objective rule (or one
	// without criteria) is one unit with the rule's target, a subjective rule's criteria may
	// have targets of their own.
	layout := pr.Kind.layout(r)
	for _, g := range layout.groups {
		u := &Unit{Criteria: g.criteria, Target: g.target, NoSplit: r.EvaluateAs == rules.EvaluateDocument || layout.whole,
			Checklist: r.Should, kind: pr.Kind}
		res := targetResult{}
		if g.target != nil {
			res = targets.find(g.target)
			if res.err != nil {
				pr.Err = res.err
				pr.Units = nil
				return pr
			}
		}
		switch {
		case g.target != nil && res.found:
			u.Text = res.match.Text
			u.Offset = doc.BodyOffset + res.match.Start
		case g.target != nil && g.target.Required:
			id, sev := pr.ID, pr.Severity
			if g.own {
				id, sev = r.CriterionID(g.criteria[0]), pr.CriterionSeverity(g.criteria[0])
			}
			start := Position{Line: 1, Column: 1, ByteColumn: 1, Offset: 0}
			u.Missing = &Finding{Rule: id, Severity: sev, Message: TargetNotFound,
				Suggestion: g.target.EffectiveSuggestion(), Start: start, End: start}
		default:
			u.WholeDocument = true
			u.Text = doc.Body
			u.Offset = doc.BodyOffset
		}
		if u.Missing == nil {
			u.Line = doc.Position(u.Offset).Line
		}
		pr.Units = mergeUnit(pr.Units, u, g.own)
	}
	slices.SortStableFunc(pr.Units, func(a, b *Unit) int {
		switch {
		case (a.Missing == nil) != (b.Missing == nil):
			if a.Missing != nil {
				return -1
			}
			return 1
		}
		return a.Offset - b.Offset
	})
	return pr
}

// mergeUnit adds u to units, joining the unit that evaluates the same text. A missing target
// of the rule is reported once; a criterion's own missing target once per criterion.
func mergeUnit(units []*Unit, u *Unit, own bool) []*Unit {
	for _, x := range units {
		switch {
		case u.Missing == nil && x.Missing == nil && x.Offset == u.Offset && len(x.Text) == len(u.Text):
			x.Criteria = append(x.Criteria, u.Criteria...)
			return units
		case u.Missing != nil && x.Missing != nil && !own && x.Missing.Rule == u.Missing.Rule:
			x.Criteria = append(x.Criteria, u.Criteria...)
			return units
		}
	}
	return append(units, u)
}

// Count returns the numbers of deterministic findings at error and warning severity (of the
// prepared files: every file unless the plan is lazy).
func (p *Plan) Count() (errs, warnings int) {
	for _, f := range p.Files {
		for _, r := range f.Rules {
			for _, fd := range r.Findings() {
				if fd.Severity == rules.SeverityError {
					errs++
				} else {
					warnings++
				}
			}
		}
	}
	return errs, warnings
}

// OperationalErrors returns the files that could not be read and the rules that cannot run (of
// the prepared files: every file unless the plan is lazy).
func (p *Plan) OperationalErrors() []error {
	var out []error
	for _, f := range p.Files {
		if f.Err != nil {
			out = append(out, f.Err)
		}
		for _, r := range f.Rules {
			if r.Err != nil {
				out = append(out, fmt.Errorf("%s: %s: %w", f.Path, r.ID, r.Err))
			}
		}
	}
	return out
}

// Calls returns the number of model calls the plan needs (one per chunk of each unit that
// needs a call; of the prepared files: every file unless the plan is lazy).
func (p *Plan) Calls() int {
	n := 0
	for _, f := range p.Files {
		for _, r := range f.Rules {
			if r.Err != nil {
				continue
			}
			for _, u := range r.Units {
				n += u.ModelCalls()
			}
		}
	}
	return n
}

// withinDir reports whether path is dir or below it (both absolute and clean).
func withinDir(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
