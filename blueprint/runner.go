package blueprint

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/scoring"
)

// Progress is told how a run advances: the command's status line (*progress.Status of
// internal/progress implements it) or an editor's. A run goes through phases, each with its
// number of steps: PhaseGenerating (one step per prompt × model variant, when responses are
// generated), then PhaseScoring (one per prompt × model with a response, when the llm-coverage
// method runs). Advance may be called from several goroutines at once. Run calls Stop once,
// before it returns.
type Progress interface {
	// Phase starts a phase of total steps.
	Phase(name string, total int)
	// Advance counts n more steps of the current phase done.
	Advance(n int)
	// Stop ends the display.
	Stop()
}

// The phases of a run, as Progress is told of them (and the command's status line shows them).
const (
	PhaseGenerating = "generating responses"
	PhaseScoring    = "scoring"
)

// Evaluation methods, as --eval-method names them.
const (
	// MethodCoverage scores each response against the prompt's rubric (judges and functions).
	MethodCoverage = "llm-coverage"
	// MethodSimilarity compares each response with the prompt's ideal response offline
	// (exact match, F1, BLEU, ROUGE-L).
	MethodSimilarity = "similarity"
	// MethodEmbedding compares each response with the ideal response by the cosine of their
	// embeddings (an embeddings model is called).
	MethodEmbedding = "embedding"
)

// ParseMethods reads the evaluation methods as --eval-method names them, Weval's names and
// vectorlint's: llm-coverage, similarity, embedding, "all" (every method) or "none" (the result
// then holds the responses only), each item trimmed. "none" stands alone; an unknown name is an
// error naming the accepted ones. Weval's run-config (parseEvalMethods) ignores an unknown name
// with a warning; a typo here must not silently drop the rubric.
func ParseMethods(names []string) (Methods, error) {
	var m Methods
	none := false
	for _, n := range names {
		switch n = strings.TrimSpace(n); n {
		case MethodCoverage:
			m.Coverage = true
		case MethodSimilarity:
			m.Similarity = true
		case MethodEmbedding:
			m.Embedding = true
		case "all":
			m = Methods{Coverage: true, Similarity: true, Embedding: true}
		case "none":
			none = true
		default:
			return Methods{}, fmt.Errorf("expected %s, %s, %s, all or none, found %q", MethodCoverage, MethodSimilarity, MethodEmbedding, n)
		}
	}
	if none && len(names) > 1 {
		return Methods{}, fmt.Errorf("expected none alone (no evaluation), found it with %d other method%s", len(names)-1, node.Plural(len(names)-1))
	}
	return m, nil
}

// DefaultEmbeddingModel is the embeddings model of the embedding method (Weval's default).
const DefaultEmbeddingModel = "openai:text-embedding-3-small"

// Methods are the evaluation methods a run does.
type Methods struct {
	// Coverage runs MethodCoverage, Similarity MethodSimilarity, Embedding MethodEmbedding.
	Coverage, Similarity, Embedding bool
}

// Options configure Run: what to run (the blueprint, and its models or given responses), how
// the models are called, which evaluations are done, where the results go, and who is told of
// the progress and of problems that do not stop the run.
type Options struct {
	// Blueprint is the parsed blueprint (Parse, ParseFile). Required.
	Blueprint *Blueprint
	// Responses, when set, are scored instead of generating any (the command's --responses):
	// no model is asked for a response.
	Responses *Responses
	// Fixtures, when set, are responses used where they apply and generated where they do not
	// (Weval's --fixtures; see GenerateOptions.Fixtures); FixturesStrict makes a missing one an
	// error instead of a generation (--fixtures-strict). Not with Responses.
	Fixtures       *Responses
	FixturesStrict bool
	// Models are the models named on the command line (--models). When generating they replace
	// the blueprint's models: "provider:model" ids, collection placeholders, or the id of one of
	// the blueprint's custom models (that model). With Responses they are the model ids scored
	// (every model of the responses when empty).
	Models []string
	// CollectionsDir, when set, is the folder collection placeholders such as CORE are resolved
	// from (--collections): only the collections the run uses are read (LoadCollectionsFor).
	// Otherwise Collections resolve them; a placeholder neither defines is an error naming it.
	CollectionsDir string
	Collections    Collections

	// Client makes every model call of the run (generation, judges, embeddings): one cache, one
	// set of limits, one usage count. Required.
	Client *llm.Client
	// LookupEnv reads the providers' keys and base URLs and the variables of ${VAR}
	// references, each value knowing its source (the command passes its environment with the
	// .env files); nil means no variables.
	LookupEnv envsource.Vars
	// AllowEnv names the variables ${VAR} references may read (--allow-env). A reference the
	// run would expand to any other variable stops it before any call (*EnvRefError).
	AllowEnv points.AllowEnv
	// Trust decides where a value the user holds may be sent (spec/trust.md §1): a custom
	// model's or a $call's url receiving one elsewhere stops the run before any call
	// (*EnvTrustError). Nil allows any host.
	Trust *trust.Rule
	// AllowNet lets $call and $factcheck make HTTP requests (--allow-net), with HTTPClient
	// (http.DefaultClient when nil), always under the redirect, Referer and proxy rules of
	// docs/security.md (a copy made by safehttp.Guard).
	AllowNet   bool
	HTTPClient *http.Client
	// JSTimeout bounds each $js evaluation (and each $tool_args_match where expression) of the
	// run; 0 is points.DefaultJSTimeout. The command leaves it 0; tests raise it so that their
	// legitimate scripts cannot reach it on a loaded machine, only an attack can.
	JSTimeout time.Duration

	// Judges replace the blueprint's and the default judges (--judge); see JudgeOptions.
	Judges []JudgeSpec
	// JudgeBatch sends each judge every text point of a response in one call (--judge-batch;
	// the blueprint's evaluationConfig.llm-coverage.judgeBatch does too); see JudgeOptions.Batch.
	JudgeBatch bool
	// ProviderConcurrency limits the calls in flight to one provider
	// (DefaultProviderConcurrency when 0).
	ProviderConcurrency int
	// GenTimeout bounds each attempt of a generation (--gen-timeout-ms; DefaultGenTimeout
	// when 0) and GenAttempts is how many times it is tried (1 + --gen-retries;
	// DefaultGenRetries + 1 when 0). Judges and embeddings keep the client's settings.
	GenTimeout  time.Duration
	GenAttempts int
	// Methods are the evaluations done; the zero value does none (the result then holds the
	// responses only).
	Methods Methods
	// EmbeddingModel is the embeddings model of Methods.Embedding (DefaultEmbeddingModel when
	// empty).
	EmbeddingModel string

	// RunLabel names the run; empty means a content hash of the blueprint (as Weval does).
	RunLabel string
	// Tool is the vectorlint version and commit the result records (the command passes its
	// own; BuildVersion when empty).
	Tool ToolVersion
	// Now is the clock (time.Now when nil), injected so tests are exact.
	Now func() time.Time
	// Dir is the folder relative OutDir and HTML paths are taken from (the command's working
	// directory); messages name them as given.
	Dir string
	// Root is the project root the run's files are read and written through (internal/tree,
	// spec/trust.md §6): CollectionsDir, OutDir and HTML. A path inside it whose folder is a
	// link leading out is refused (the results folder before any call); a path the user named
	// outside it is their choice, opened through a root of its own. Nil opens a root at Dir
	// (the working directory) for the run.
	Root *tree.Root
	// OutDir, when set, is the folder the result document is written to, under
	// <OutDir>/<configId>/. It is created and proved writable before the first model call (an
	// unusable one stops the run: *OutDirError). A document that cannot be written after the
	// run does not stop it: Result.WriteErr says why.
	OutDir string
	// HTML, when set, is the file the HTML report is written to (its folder created); a report
	// that cannot be written does not stop the run: Result.HTMLErr says why.
	HTML string

	// Progress, when set, is told of the run's progress.
	Progress Progress
	// Warn receives, before the first call, each problem that does not stop the run but makes
	// part of it fail: a model or a judge that cannot be called (an unknown provider, a key that
	// is not set). May be nil. Calls are never concurrent.
	Warn func(string)
}

// OutDirError is a results folder that cannot hold the results, found before any model call.
type OutDirError struct {
	// Dir is the folder as given (Options.OutDir).
	Dir string
	Err error
}

// Error names the folder and why it cannot be used.
func (e *OutDirError) Error() string {
	return fmt.Sprintf("the results folder %s cannot hold the results: %v (no model was called)", e.Dir, e.Err)
}

// Unwrap returns the cause.
func (e *OutDirError) Unwrap() error { return e.Err }

// EnvRefError stops a run before any call: ${VAR} references the run would expand to
// variables that Options.AllowEnv does not name. Problems name each, with its line.
type EnvRefError struct {
	File     string
	Problems finding.Problems
}

// Error counts the references (the problems say which).
func (e *EnvRefError) Error() string {
	n := len(e.Problems)
	return fmt.Sprintf("%s: %d environment variable reference%s not allowed (--allow-env): no call made", e.File, n, node.Plural(n))
}

// EnvTrustError stops a run before any call: values the user holds that the blueprint would
// send to urls Options.Trust does not allow (checkEnvTrust), one error each.
type EnvTrustError struct {
	Errs []error
}

// Error joins the errors, one a line.
func (e *EnvTrustError) Error() string { return errors.Join(e.Errs...).Error() }

// Unwrap returns the errors.
func (e *EnvTrustError) Unwrap() []error { return e.Errs }

// Run runs a blueprint as the vectorlint command does, so Go programs and editors get the same
// behaviour: it checks where the results go, resolves the models (or takes the given
// responses), refuses before any call what would send a variable where it may not go, builds
// the judges, generates every model variant's responses, scores them (judges, point functions,
// similarity to the ideal response), and writes the result document and the HTML report.
//
// Problems that make part of the run fail are recorded in the Result, never returned: a model
// that failed (Errors), a point that could not be evaluated, an endpoint that stopped
// (Stopped), a file that could not be written (WriteErr, HTMLErr). The error is for what stops
// the run before it starts — invalid options, an unusable OutDir (*OutDirError), a ${VAR}
// reference that is not allowed (*EnvRefError), a value that may not be sent where it would go
// (*EnvTrustError, *trust.UntrustedHostError) — and for ctx ending, when the calls in flight stop,
// no file is written and the error is ctx's (the replies received so far are cached).
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Progress != nil {
		defer opts.Progress.Stop()
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	bp := opts.Blueprint
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	if opts.Root == nil {
		dir := opts.Dir
		if dir == "" {
			dir = "."
		}
		root, err := tree.Open(dir)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		opts.Root = root
	}
	// Where the results go is checked before the first model call: finding an unusable folder
	// after paid generation would waste the run.
	var out tree.Named
	if opts.OutDir != "" {
		var err error
		if out, err = opts.Root.Named(opts.path(opts.OutDir)); err != nil {
			return nil, &OutDirError{Dir: opts.OutDir, Err: err}
		}
		defer out.Close()
		if _, err := prepareOutDir(out.Root, out.Path, bp.ID); err != nil {
			return nil, &OutDirError{Dir: opts.OutDir, Err: err}
		}
	}
	models, scored, defaults, err := opts.models()
	if err != nil {
		return nil, err
	}
	if err := opts.checkEnv(models); err != nil {
		return nil, err
	}
	sopts, err := opts.scoring(warn)
	if err != nil {
		return nil, err
	}
	sopts.Models, sopts.DefaultModels = scored, defaults

	resp := opts.Responses
	if resp == nil {
		if resp, err = opts.generate(ctx, models, warn); err != nil {
			return nil, err
		}
	}
	res, err := Score(ctx, bp, resp, sopts)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if opts.Fixtures != nil {
		res.Warnings = append(opts.Fixtures.unknownPrompts(bp), res.Warnings...)
	}
	res.Usage = opts.Client.Usage()
	for _, se := range opts.Client.Stopped() {
		res.Stopped = append(res.Stopped, se)
	}
	res.Stopped = append(res.Stopped, resp.trippedBreakers()...)
	// The results are kept even when they cannot be saved: the run was paid for.
	if opts.OutDir != "" {
		if _, err := res.WriteFile(out.Root, out.Path); err != nil {
			res.WriteErr = err
		} else {
			res.Path = filepath.Join(opts.OutDir, res.folderName(), res.fileName())
		}
	}
	if opts.HTML != "" {
		res.HTMLErr = res.writeHTMLFile(opts.Root, opts.path(opts.HTML), opts.HTML)
	}
	return res, nil
}

// validate checks what Run needs and what may not be combined.
func (o *Options) validate() error {
	switch {
	case o.Blueprint == nil:
		return errors.New("blueprint: Run needs Options.Blueprint")
	case o.Client == nil:
		return errors.New("blueprint: Run needs Options.Client")
	case o.Responses != nil && o.Fixtures != nil:
		return errors.New("blueprint: Run takes Options.Responses (nothing generated) or Options.Fixtures (what they lack generated), not both")
	case o.FixturesStrict && o.Fixtures == nil:
		return errors.New("blueprint: Options.FixturesStrict needs Options.Fixtures")
	}
	return nil
}

// resolve replaces the collection placeholders among ms, reading CollectionsDir for the ones
// named when it is set.
func (o *Options) resolve(ms []Model) ([]Model, error) {
	colls := o.Collections
	if o.CollectionsDir != "" {
		var err error
		named, err := o.Root.Named(o.path(o.CollectionsDir))
		if err != nil {
			return nil, fmt.Errorf("model collections: %w", err)
		}
		defer named.Close()
		if colls, err = LoadCollectionsFor(named.Root, named.Path, ms); err != nil {
			return nil, err
		}
	}
	return ResolveModels(ms, colls)
}

// models returns the models to generate with, or, with given responses, the model ids to
// score and those a fixtures "default" applies to.
func (o *Options) models() (models []Model, scored, defaults []string, err error) {
	bp := o.Blueprint
	if resp := o.Responses; resp != nil {
		if len(o.Models) == 0 && len(resp.Models()) == 0 && resp.hasDefaults() {
			resolved, err := o.resolve(bp.Models)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("the responses give only default responses, so they apply to the blueprint's models: %v (or pass --models)", err)
			}
			for _, m := range resolved {
				defaults = append(defaults, m.ID)
			}
		}
		return nil, o.Models, defaults, nil
	}
	if models, err = o.resolve(modelsNamed(bp, o.Models)); err != nil {
		return nil, nil, nil, err
	}
	if len(models) == 0 {
		return nil, nil, nil, errors.New("no model to run: the blueprint lists none (give --models)")
	}
	return models, nil, nil, nil
}

// checkEnv checks the ${VAR} references the run would expand — the custom models it generates
// with, and $call points when the network is allowed: each must be named by AllowEnv, and a
// value the user holds may go only to a trusted url.
func (o *Options) checkEnv(models []Model) error {
	bp := o.Blueprint
	var refs []EnvRef
	generating := map[string]bool{}
	for _, m := range models {
		generating[m.ID] = true
	}
	for _, r := range EnvRefs(bp) {
		if (r.Call && o.AllowNet) || (!r.Call && generating[r.Model]) {
			refs = append(refs, r)
		}
	}
	if diags := CheckEnvRefs(bp, refs, o.AllowEnv); len(diags) > 0 {
		return &EnvRefError{File: bp.File, Problems: diags}
	}
	if errs := checkEnvTrust(bp, refs, o.LookupEnv, o.AllowEnv, o.Trust); len(errs) > 0 {
		return &EnvTrustError{Errs: errs}
	}
	return nil
}

// serviceClient is the client of a run's $call and $factcheck requests: c (http.DefaultClient
// when nil) under safehttp's rules, made once for the run so that its connections are shared.
func serviceClient(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	return safehttp.Guard(c)
}

// scoring builds the options of Score: the key point extractor and the judges when the
// llm-coverage method runs and needs them, and the similarity metrics. A model that cannot
// be called is warned about (an untrusted one stops the run).
func (o *Options) scoring(warn func(string)) (ScoreOptions, error) {
	bp := o.Blueprint
	sopts := ScoreOptions{
		RunLabel:   o.RunLabel,
		Tool:       o.Tool,
		Now:        o.Now,
		NoCoverage: !o.Methods.Coverage,
		Progress:   o.Progress,
		Env: points.Env{
			AllowNet:   o.AllowNet,
			HTTPClient: serviceClient(o.HTTPClient),
			LookupEnv:  o.LookupEnv,
			AllowEnv:   o.AllowEnv,
			Trust:      o.Trust,
			JSTimeout:  o.JSTimeout,
		},
	}
	// unavailable warns about each model that cannot be called, or returns the first one the
	// trust rule refuses.
	unavailable := func(errs []error) error {
		for _, e := range errs {
			var untrusted *trust.UntrustedHostError
			if errors.As(e, &untrusted) {
				return untrusted
			}
			warn(e.Error())
		}
		return nil
	}
	extracting := false
	for _, p := range bp.Prompts {
		extracting = extracting || needsKeyPoints(p)
	}
	if o.Methods.Coverage && extracting {
		ex, err := newLLMExtractor(extractorOptions{Client: o.Client, LookupEnv: o.LookupEnv,
			Models: extractionModels(bp, o.Judges), ProviderConcurrency: o.ProviderConcurrency})
		if err != nil {
			return sopts, err
		}
		if err := unavailable(ex.unavailableModels()); err != nil {
			return sopts, err
		}
		sopts.KeyPoints = ex
	}
	if o.Methods.Coverage && (extracting || hasTextPoints(bp)) {
		judge, err := NewLLMJudge(bp, JudgeOptions{Client: o.Client, LookupEnv: o.LookupEnv, Judges: o.Judges,
			ProviderConcurrency: o.ProviderConcurrency, Batch: o.JudgeBatch})
		if err != nil {
			return sopts, err
		}
		if err := unavailable(judge.unavailableJudges()); err != nil {
			return sopts, err
		}
		sopts.Env.Judge = judge
	}
	if !o.Methods.Similarity && !o.Methods.Embedding {
		return sopts, nil
	}
	sopts.Similarity = &Similarity{}
	if o.Methods.Similarity {
		sopts.Similarity.Metrics = []SimilarityMetric{
			{Name: "exact_match", Score: scoring.ExactMatch},
			{Name: "f1", Score: scoring.F1},
			{Name: "bleu", Score: scoring.BLEU},
			{Name: "rouge_l", Score: scoring.RougeL},
		}
	}
	if o.Methods.Embedding && hasIdeal(bp) {
		model := o.EmbeddingModel
		if model == "" {
			model = DefaultEmbeddingModel
		}
		ep, err := llm.ModelEndpoint(o.LookupEnv, model)
		if err != nil {
			return sopts, fmt.Errorf("--eval-method embedding: the embeddings model %s cannot be used: %v (choose another with --embedding-model)", model, err)
		}
		if err := o.Client.CheckTrust(ep); err != nil {
			return sopts, err
		}
		ep.MaxConcurrency = o.ProviderConcurrency
		if ep.MaxConcurrency <= 0 {
			ep.MaxConcurrency = DefaultProviderConcurrency
		}
		ep.SettingNames.Model = "--embedding-model"
		sopts.Similarity.Semantic = embeddingSimilarity(o.Client, ep)
	}
	return sopts, nil
}

// generate warns about each model that cannot be called (an untrusted one stops the run), then
// generates every variant's responses, telling Progress of each prompt × variant done.
func (o *Options) generate(ctx context.Context, models []Model, warn func(string)) (*Responses, error) {
	bp := o.Blueprint
	gopts := GenerateOptions{Client: o.Client, LookupEnv: o.LookupEnv, AllowEnv: o.AllowEnv,
		ProviderConcurrency: o.ProviderConcurrency, Timeout: o.GenTimeout, Attempts: o.GenAttempts,
		Fixtures: o.Fixtures, FixturesStrict: o.FixturesStrict}
	// With strict fixtures no model is called: whether one could be does not matter.
	for _, m := range models {
		if o.FixturesStrict {
			break
		}
		if err := checkModel(bp, m, gopts); err != nil {
			var untrusted *trust.UntrustedHostError
			if errors.As(err, &untrusted) {
				return nil, untrusted
			}
			warn(fmt.Sprintf("model %s cannot be called: %v", m.ID, err))
		}
	}
	if o.Progress != nil {
		o.Progress.Phase(PhaseGenerating, len(bp.Prompts)*len(modelVariants(bp, models)))
		gopts.OnPair = func(string, string, error) { o.Progress.Advance(1) }
	}
	resp, err := Generate(ctx, bp, models, gopts)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return resp, err
}

// path resolves a path of the options against Dir.
func (o *Options) path(p string) string {
	if p == "" || filepath.IsAbs(p) || o.Dir == "" {
		return p
	}
	return filepath.Join(o.Dir, p)
}

// writeHTMLFile writes the HTML report to path atomically through root (a path the user named
// outside it through a root of its own), with mode 0666 less the umask, creating its folder: a
// link at path is replaced, never written through, and a folder on the way that leads out of
// the root is refused. Errors name the file as given (name).
func (r *Result) writeHTMLFile(root *tree.Root, path, name string) error {
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		return err
	}
	n, err := root.Named(path)
	if err != nil {
		return fmt.Errorf("cannot write the report %s: %w", name, unwrapPathErr(err))
	}
	defer n.Close()
	if err := n.Root.MkdirAll(filepath.Dir(n.Path)); err != nil {
		return fmt.Errorf("cannot write the report %s: %w", name, unwrapPathErr(err))
	}
	if err := n.Root.WriteFile(n.Path, []byte(b.String())); err != nil {
		return fmt.Errorf("cannot write the report %s: %w", name, unwrapPathErr(err))
	}
	return nil
}

// modelsNamed returns the models to run: the blueprint's, or those named (a name matching one
// of the blueprint's custom models is that model).
func modelsNamed(bp *Blueprint, names []string) []Model {
	if len(names) == 0 {
		return bp.Models
	}
	custom := map[string]Model{}
	for _, m := range bp.Models {
		if m.Custom != nil {
			custom[m.ID] = m
		}
	}
	var out []Model
	for _, n := range names {
		n = strings.TrimSpace(n)
		if p, m, ok := strings.Cut(n, ":"); ok {
			n = strings.TrimSpace(p) + ":" + strings.TrimSpace(m)
		}
		if m, ok := custom[n]; ok {
			out = append(out, m)
		} else if n != "" {
			out = append(out, Model{ID: n})
		}
	}
	return out
}

// hasTextPoints reports whether any prompt has an LLM-judged point.
func hasTextPoints(bp *Blueprint) bool {
	for _, p := range bp.Prompts {
		r := p.Rubric()
		for _, pt := range r.Points() {
			if !pt.IsFunction() {
				return true
			}
		}
	}
	return false
}

// hasIdeal reports whether any prompt has an ideal response.
func hasIdeal(bp *Blueprint) bool {
	for _, p := range bp.Prompts {
		if p.Ideal != nil {
			return true
		}
	}
	return false
}

// embeddingSimilarity scores responses by the cosine of their embeddings with the ideal's
// (negative cosines count as 0), in one embeddings call per prompt.
func embeddingSimilarity(client *llm.Client, ep llm.Endpoint) func(ctx context.Context, ideal string, responses []string) ([]float64, error) {
	return func(ctx context.Context, ideal string, responses []string) ([]float64, error) {
		vecs, err := client.Embed(ctx, ep, append([]string{ideal}, responses...))
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(responses)+1 {
			return nil, fmt.Errorf("expected %d embeddings, found %d", len(responses)+1, len(vecs))
		}
		out := make([]float64, len(responses))
		for i := range responses {
			c, err := scoring.Cosine(vecs[0], vecs[i+1])
			if err != nil {
				return nil, err
			}
			out[i] = max(c, 0)
		}
		return out, nil
	}
}
