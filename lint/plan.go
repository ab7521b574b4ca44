package lint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safefile"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
)

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
	// SharedPrompt is the text sent with every model call besides the rule and the document:
	// the project's directive and style guide, counted in the token estimates
	// (PlannedRule.SharedChars).
	SharedPrompt string
	// Lazy leaves every file unread: BuildPlan then only finds the files, picks their
	// configuration sections, rules and skip reasons, and sorts them; each FilePlan's Doc, Err
	// and Rules are filled when it is prepared (FilePlan.Prepare). Evaluate prepares each file
	// when its pool reaches it and releases it once its result is emitted, so a lint run's
	// memory stays flat however many files there are. Without Lazy, BuildPlan prepares every
	// file (as Plan.Prepare does), which a caller that shows the whole plan needs.
	Lazy bool
	// MinSeverity leaves out the rules whose findings would all be below it (--min-alert-level):
	// they are not run. Zero keeps every rule.
	MinSeverity finding.Severity
	// Samples, when more than 0, is the number of samples every rule's model evaluation takes
	// (--samples), over the configuration's Samples (PlannedRule.Samples).
	Samples int
	// RulesPerCall, when more than 0, is how many semi-objective rules on the same chunk one
	// request evaluates (--rules-per-call), over the configuration's RulesPerCall
	// (FilePlan.RulesPerCall).
	RulesPerCall int
	// Root is the project root every document is found and read through (Project.Root,
	// spec/trust.md §6). Nil opens one at the configuration's folder (else Dir), kept for the
	// plan's life.
	Root *tree.Root
}

// Plan is what a lint run will do: for each file, the rules that apply (after configuration
// overrides) and, for each rule, the texts the model evaluates. The files of a lazy plan
// (PlanInput.Lazy) are read and planned only when they are prepared.
type Plan struct {
	Config *config.Config
	// Files are sorted by path.
	Files []*FilePlan
	// Skipped lists files no rule applies to, sorted by path.
	Skipped []finding.Skipped
}

// FilePlan is the plan for one file.
type FilePlan struct {
	// Path is the reported path (relative to the working directory when inside it).
	Path string
	// RelPath is the path relative to the config's folder that selected the sections.
	RelPath string
	// Doc is nil when the file could not be read; Err says why (an operational error: exit 2).
	Doc *document.Document
	Err error
	// Rules are sorted by rule id.
	Rules []*PlannedRule
	// TooLarge is set, once the file is prepared, when its prose has more words than
	// MaxDocumentWords: no rule is planned and no call made; the file is reported as skipped
	// with TooLarge's reason (docs/configuration.md, "MaxDocumentWords").
	TooLarge *TooLargeError
	// RulesPerCall is how many semi-objective rules that apply to the same chunk are
	// evaluated in one request (--rules-per-call, else config.Config.RulesPerCallFor; 0 or 1
	// is one rule per request): see callGroups.
	RulesPerCall int

	// How the file is read and planned, kept small since a lazy plan holds one FilePlan per
	// file for the whole run: env is nil for a FilePlan made by hand, which is complete as it
	// is; the file is read from standard input, else from abs, else from env.dir joined with
	// Path, through the project root (env.root), or, for a file the user named outside it,
	// through a root at outside (outside.dir, outside.read). prepared tells whether Doc, Err and
	// Rules are filled.
	env      *planEnv
	set      *ruleSet
	abs      string
	outside  *outsideFile
	stdin    bool
	prepared bool
	// changed restricts the file to its changed lines (SelectChanged with Lines; nil: the
	// whole file).
	changed *changedLines
}

// outsideFile is where a document the user named outside the project root is read: the path
// read, through a root opened at dir.
type outsideFile struct {
	dir, read string
}

// planEnv is what preparing any file of a plan needs.
type planEnv struct {
	cfg         *config.Config
	searchModel bool
	sharedChars int
	samples     int
	perCall     int
	dir         string
	root        *tree.Root
	readStdin   func() ([]byte, error)
}

// ruleSet is the rules that apply to the files matched by one combination of configuration
// sections, with the settings of each; files with the same sections share it.
type ruleSet struct {
	rules    []*rules.Rule
	settings []config.RuleSettings
	// skip says why no rule applies ("" when rules apply); err is an unknown pack in RunRules.
	skip string
	err  error
	// scopes are what the files skip (spec/linter.md §9).
	scopes document.ScopeSettings
	// perCall is the files' RulesPerCall from the configuration.
	perCall int
}

// Prepared reports whether Doc, Err and Rules are filled: always, except for a file of a lazy
// plan (PlanInput.Lazy) that was not prepared yet or was released by Evaluate.
func (fp *FilePlan) Prepared() bool { return fp.env == nil || fp.prepared }

// SourceFile is the file the plan reads ("" for standard input): Path when it is absolute,
// else Path in the working directory, or where the file was found when Path cannot say.
func (fp *FilePlan) SourceFile() string {
	switch {
	case fp.stdin:
		return ""
	case fp.abs != "":
		return fp.abs
	case fp.env == nil || filepath.IsAbs(fp.Path):
		return filepath.FromSlash(fp.Path)
	}
	return filepath.Join(fp.env.dir, filepath.FromSlash(fp.Path))
}

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
	case fp.outside != nil:
		data, err = readOutside(fp.outside)
	default:
		data, err = fp.env.root.ReadDocument(fp.SourceFile(), document.MaxDocumentSize)
	}
	if err != nil {
		fp.Err = fmt.Errorf("%s: cannot read the file: %w", fp.Path, unwrapPathError(err))
		return
	}
	doc, err := document.NewAs(fp.Path, data, fp.set.scopes.Syntax(fp.Path))
	if err != nil {
		fp.Err = err
		return
	}
	if err := doc.SkipScopes(fp.set.scopes); err != nil {
		fp.Err = err
		return
	}
	limit := fp.env.cfg.DocumentWordLimit()
	if words := doc.ProseWords(); words > limit {
		// Not sent: the words are counted once, before any rule is planned.
		fp.TooLarge = &TooLargeError{Path: fp.Path, Words: words, Limit: limit}
		return
	}
	fp.Doc = doc
	targets := &targetCache{doc: doc}
	fp.Rules = make([]*PlannedRule, 0, len(fp.set.rules))
	for i, r := range fp.set.rules {
		pr := planRule(doc, r, fp.set.settings[i], fp.env.cfg, fp.env.searchModel, targets)
		pr.SharedChars = fp.env.sharedChars
		if fp.env.samples > 0 {
			pr.Samples = fp.env.samples // --samples
		}
		for _, u := range pr.Units {
			u.samples = pr.samples()
		}
		fp.Rules = append(fp.Rules, pr)
	}
	slices.SortFunc(fp.Rules, func(a, b *PlannedRule) int { return strings.Compare(a.ID, b.ID) })
	if fp.changed != nil {
		fp.restrictRules()
	}
}

// Outside reports whether the file was named by the user outside the project root: it is read
// (their choice) but never rewritten by --fix.
func (fp *FilePlan) Outside() bool { return fp.outside != nil }

// readOutside reads a document the user named outside the project root, through a root at the
// folder it is in.
func readOutside(o *outsideFile) ([]byte, error) {
	r, err := tree.Open(o.dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadDocument(o.read, document.MaxDocumentSize)
}

// release drops what Prepare filled, so the document, its units and chunks can be collected.
// A FilePlan made by hand is left alone.
func (fp *FilePlan) release() {
	if fp.env == nil {
		return
	}
	fp.Doc, fp.Err, fp.Rules, fp.TooLarge, fp.prepared = nil, nil, nil, nil, false
}

// TooLargeError says why a document was not sent to the model: its prose has more words than
// MaxDocumentWords. Its reason is the file's Skipped reason.
type TooLargeError struct {
	Path         string
	Words, Limit int
}

// Reason is the skip reason: the document's word count, the limit and the key to raise.
func (e *TooLargeError) Reason() string {
	return fmt.Sprintf("too large to send: %d words of prose, above MaxDocumentWords = %d (raise MaxDocumentWords in vectorlint.ini to lint it)", e.Words, e.Limit)
}

func (e *TooLargeError) Error() string { return e.Path + ": " + e.Reason() }

// Skipped is the file's entry in a result's skipped files.
func (e *TooLargeError) Skipped() finding.Skipped {
	return finding.Skipped{Path: e.Path, Reason: e.Reason(), Words: e.Words, MaxDocumentWords: e.Limit}
}

// Prepare prepares every file of the plan (FilePlan.Prepare), in path order.
func (p *Plan) Prepare() {
	for _, f := range p.Files {
		f.Prepare()
	}
}

// BuildPlan works out which rules apply to which files and what each evaluates. It fails
// before any work for bad PATHs and for a project with errors; a file that cannot be read or a
// rule that cannot run on a file is recorded in the plan (FilePlan.Err, PlannedRule.Err). With
// PlanInput.Lazy the files are not read yet: see there.
func BuildPlan(cfg *config.Config, packs []*rules.Pack, in PlanInput) (*Plan, error) {
	byName := map[string]*rules.Pack{}
	for _, p := range packs {
		byName[p.Name] = p
	}
	if ps := config.Check(cfg, packs); ps.HasErrors() {
		return nil, ps
	}
	root := in.Root
	if root == nil {
		dir := cfg.Dir
		if dir == "" {
			dir = in.Dir
		}
		r, err := tree.Open(dir)
		if err != nil {
			return nil, err
		}
		root = r // kept for the plan's reads; released with it
	}
	args, stdinUsed, err := pathArgs(in)
	if err != nil {
		return nil, err
	}
	var (
		files   []document.File
		notRead []finding.Skipped
		badArgs []*document.PathError
	)
	if len(args) > 0 {
		found, skipped, bad, err := document.Search(root, in.Dir, args, []string{cfg.RulesPath})
		if err != nil {
			return nil, err
		}
		files, badArgs = found, bad
		for _, s := range skipped {
			notRead = append(notRead, finding.Skipped{Path: displayPath(in.Dir, s.Path), Reason: s.Reason})
		}
	}

	plan := &Plan{Config: cfg, Skipped: notRead}
	env := &planEnv{cfg: cfg, searchModel: in.SearchModel, dir: in.Dir, root: root, sharedChars: utf8.RuneCountInString(in.SharedPrompt),
		samples: in.Samples, perCall: in.RulesPerCall}
	sources := make([]planSource, 0, len(files)+1)
	for _, f := range files {
		src := planSource{abs: f.Path}
		if f.Outside != "" {
			src.outside = &outsideFile{dir: f.Outside, read: f.Read}
		}
		sources = append(sources, src)
	}
	if stdinUsed {
		sources = stdinSource(in, env, sources)
	}
	if err := plan.addFiles(byName, env, in, sources); err != nil {
		return nil, err
	}
	// A PATH that names nothing to lint is that path's error (exit 2), reported with the
	// results; the files of the other arguments are still linted.
	seenArg := map[string]bool{}
	for _, pe := range badArgs {
		if !seenArg[pe.Arg] {
			seenArg[pe.Arg] = true
			plan.Files = append(plan.Files, &FilePlan{Path: pe.Arg, Err: pe})
		}
	}
	slices.SortFunc(plan.Files, func(a, b *FilePlan) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(plan.Skipped, func(a, b finding.Skipped) int { return strings.Compare(a.Path, b.Path) })
	return plan, nil
}

// pathArgs returns the PATH arguments to discover, and whether "-" (standard input) is one of
// them: at most once, and only with a name for it.
func pathArgs(in PlanInput) (args []string, stdinUsed bool, _ error) {
	for _, a := range in.Paths {
		if a == "-" {
			if stdinUsed {
				return nil, false, &document.PathError{Arg: "-", Reason: "standard input can be read only once"}
			}
			if in.StdinFilename == "" {
				return nil, false, &document.PathError{Arg: "-", Reason: "reading standard input needs --stdin-filename NAME (NAME picks the config section and is the reported path)"}
			}
			stdinUsed = true
			continue
		}
		args = append(args, a)
	}
	return args, stdinUsed, nil
}

// planSource is a document to plan: its absolute path, and where it is read from.
type planSource struct {
	abs     string
	stdin   bool
	outside *outsideFile
}

// stdinSource adds the document on standard input to sources, under in.StdinFilename, and
// sets env to read it (once, at most MaxDocumentSize bytes).
func stdinSource(in PlanInput, env *planEnv, sources []planSource) []planSource {
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
	sources = slices.DeleteFunc(sources, func(s planSource) bool { return s.abs == abs })
	read := false
	env.readStdin = func() ([]byte, error) {
		if read {
			return nil, errors.New("standard input was read already")
		}
		read = true
		data, err := io.ReadAll(io.LimitReader(stdin, document.MaxDocumentSize+1))
		if err == nil && len(data) > document.MaxDocumentSize {
			// The rest is not read: standard input may never end.
			return nil, &safefile.TooLargeError{Size: int64(len(data)), Limit: document.MaxDocumentSize, AtLeast: true}
		}
		return data, err
	}
	return append(sources, planSource{abs: abs, stdin: true})
}

// addFiles plans each source: skipped (a rule file, no rule applies) or a FilePlan, prepared
// now unless in.Lazy.
func (p *Plan) addFiles(byName map[string]*rules.Pack, env *planEnv, in PlanInput, sources []planSource) error {
	cfg := p.Config
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
			p.Skipped = append(p.Skipped, finding.Skipped{Path: path, Reason: "in RulesPath: a rule file, not a document"})
			continue
		}
		set := resolveRules(cfg, byName, cfg.Settings(rel), sets, in.MinSeverity)
		if set.err != nil {
			return set.err
		}
		if set.skip != "" {
			p.Skipped = append(p.Skipped, finding.Skipped{Path: path, Reason: set.skip})
			continue
		}
		if rel == path {
			rel = path // one string for both
		}
		fp := &FilePlan{Path: path, RelPath: rel, env: env, set: set, stdin: src.stdin, outside: src.outside, RulesPerCall: set.perCall}
		if env.perCall > 0 {
			fp.RulesPerCall = env.perCall // --rules-per-call
		}
		if !src.stdin && filepath.Join(in.Dir, filepath.FromSlash(path)) != src.abs {
			fp.abs = src.abs // not derivable from the reported path
		}
		p.Files = append(p.Files, fp)
		if !in.Lazy {
			fp.Prepare()
		}
	}
	return nil
}

// resolveRules returns the rules that apply to a file with the given settings, and their
// settings, from sets when a file with the same sections was resolved before.
func resolveRules(cfg *config.Config, byName map[string]*rules.Pack, settings config.FileSettings, sets map[string]*ruleSet, minSeverity finding.Severity) *ruleSet {
	var key strings.Builder // the matching sections, by identity
	for _, s := range settings.Sections {
		fmt.Fprintf(&key, "%p,", s)
	}
	if set, ok := sets[key.String()]; ok {
		return set
	}
	set := &ruleSet{scopes: settings.Scopes(), perCall: cfg.RulesPerCallFor(settings)}
	sets[key.String()] = set
	if set.skip = config.SkipReason(settings); set.skip != "" {
		return set
	}
	seenPack := map[string]bool{}
	below := 0 // rules left out by minSeverity
	for _, name := range settings.RunRules {
		if seenPack[name] {
			continue
		}
		seenPack[name] = true
		pack := byName[name]
		if pack == nil {
			line := settings.RunRulesFrom.RunRulesLine
			if s := settings.PackSection(name); s != nil {
				line = s.RunRulesLine
			}
			set.err = fmt.Errorf("%s:%d: RunRules: unknown pack %q", cfg.Path, line, name)
			return set
		}
		for _, r := range pack.Rules {
			rs := settings.Rule(pack.Name, r.ID, r.Aliases...)
			if rs.Disabled {
				continue
			}
			if highestSeverity(r, rs, cfg.DefaultSeverity) < minSeverity {
				below++
				continue
			}
			set.rules = append(set.rules, r)
			set.settings = append(set.settings, rs)
		}
	}
	switch {
	case len(set.rules) == 0 && below > 0:
		set.skip = fmt.Sprintf("every rule of %s that runs on this file reports below --min-alert-level %s",
			strings.Join(settings.RunRules, ", "), minSeverity)
	case len(set.rules) == 0:
		set.skip = "every rule of " + strings.Join(settings.RunRules, ", ") + " is disabled for this file"
	}
	return set
}

// highestSeverity is the highest severity a rule's findings can have on a file with settings
// rs: the configuration's override, else the highest of the rule's and its criteria's own
// (a subjective criterion rated 2 to 4 reports at warning or below).
func highestSeverity(r *rules.Rule, rs config.RuleSettings, def finding.Severity) finding.Severity {
	if rs.Severity != nil {
		return *rs.Severity // it applies to the criteria too
	}
	top := def
	if r.Severity != finding.SeverityUnset {
		top = r.Severity
	}
	for _, c := range r.Criteria {
		top = max(top, c.Severity)
	}
	return top
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

// Count returns the deterministic findings counted by severity (of the prepared files: every
// file unless the plan is lazy), as a Summary of them.
func (p *Plan) Count() finding.Summary {
	var s finding.Summary
	for _, f := range p.Files {
		for _, r := range f.Rules {
			s.Add(finding.FileResult{Findings: r.Findings()})
			s.Files--
		}
		s.Files++
	}
	return s
}

// OperationalErrors returns the files that could not be read and the rules that cannot run (of
// the prepared files: every file unless the plan is lazy). A rule that cannot run for a reason
// that does not depend on the file (a technical-accuracy rule without a search model) is one
// *RuleNotRunError, at its first file's place, with the count of files: the dry run says it
// once, not once per file.
func (p *Plan) OperationalErrors() []error {
	var out []error
	notRun := map[string]*RuleNotRunError{}
	for _, f := range p.Files {
		if f.Err != nil {
			out = append(out, f.Err)
		}
		for _, r := range f.Rules {
			switch {
			case r.Err == nil:
			case errors.Is(r.Err, rules.ErrNoSearchModel):
				if e := notRun[r.ID]; e != nil {
					e.Files++
					continue
				}
				e := &RuleNotRunError{Rule: r.ID, Files: 1, Err: r.Err}
				notRun[r.ID] = e
				out = append(out, e)
			default:
				out = append(out, fmt.Errorf("%s: %s: %w", f.Path, r.ID, r.Err))
			}
		}
	}
	return out
}

// RuleNotRunError is a rule that cannot run on any of the files it applies to, for a reason
// that does not depend on the file (rules.ErrNoSearchModel).
type RuleNotRunError struct {
	Rule  string // the rule's full ID, Pack.Rule
	Files int    // how many files it applies to
	Err   error
}

// Error is "Acme.Facts: evaluator technical-accuracy needs a search model: … (not run on 3 files)".
func (e *RuleNotRunError) Error() string {
	files := "1 file"
	if e.Files != 1 {
		files = fmt.Sprintf("%d files", e.Files)
	}
	return fmt.Sprintf("%s: %v (not run on %s)", e.Rule, e.Err, files)
}

// Unwrap returns the reason the rule cannot run.
func (e *RuleNotRunError) Unwrap() error { return e.Err }

// Calls returns the number of model calls the plan needs (one per chunk and sample of each
// unit that needs a call, the semi-objective rules that share a request counted once:
// RulesPerCall; of the prepared files: every file unless the plan is lazy).
func (p *Plan) Calls() int {
	n := 0
	for _, f := range p.Files {
		if !f.Prepared() {
			continue
		}
		fileCalls(f, func(_ *FilePlan, _ *PlannedRule, u *Unit) { n += u.ModelCalls() },
			func(_ *FilePlan, g callGroup) { n += g.prs[0].samples() })
	}
	return n
}

// withinDir reports whether path is dir or below it (both absolute and clean).
func withinDir(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
