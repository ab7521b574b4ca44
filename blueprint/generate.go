package blueprint

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
)

// defaultMaxTokens is the max_tokens of every generated turn unless a custom model's
// parameters say otherwise (spec §6).
const defaultMaxTokens = 1500

// maxPairsInFlight bounds the prompt × model pairs worked on at once (generated, or scored by
// Run). The client's limits bound the calls; this bounds the goroutines and memory of a run
// over thousands of pairs, and is high enough to keep every provider's limit busy.
const maxPairsInFlight = 256

// Generation's robustness settings, Weval's defaults (--gen-timeout-ms 30000, --gen-retries 1
// in src/cli/commands/run-config.ts): a generation attempt that has not answered in 30 s is
// given up, and tried once more.
const (
	DefaultGenTimeout = 30 * time.Second
	DefaultGenRetries = 1
)

// DefaultProviderConcurrency is the most calls in flight to one provider at once (every model
// of "openrouter:…" shares it; a custom model shares it with the others on its server), on
// top of the client's overall limit. Providers rate-limit per account, so a run over many
// models of one provider should not flood it.
const DefaultProviderConcurrency = 4

// defaultTemperature is the temperature of a generation when neither the blueprint's header
// nor the prompt sets one: Weval's DEFAULT_TEMPERATURE (src/cli/services/llm-service.ts).
const defaultTemperature = 0.0

// modelVariant is one way a model is run: a model with one temperature and one system prompt.
type modelVariant struct {
	// ID is the effective model id used in results: the model id, then "[temp:T]" (always: T
	// is defaultTemperature when the header sets none), then "[sp_idx:i]" when the blueprint
	// gives several system prompts.
	ID    string
	Model Model
	// Temperature is the header's temperature of this variant, or defaultTemperature when the
	// header sets none (then a prompt's own temperature, when it has one, is sent instead).
	Temperature *float64
	// SystemIndex indexes the blueprint's system prompt list (Blueprint.Systems); -1 when the
	// blueprint has none and each prompt's own system prompt (or the global one) applies.
	SystemIndex int
}

// formatTemperature writes a temperature as model id suffixes show it: as JavaScript writes
// the number ("0", "0.7", "0.25", "1"), since Weval builds the suffix with a template string
// (`[temp:${temperature}]`, since its "fix temps" change; it used toFixed(1) before).
func formatTemperature(t float64) string { return jsjson.FormatNumber(t) }

// headerTemperature reports whether the blueprint's header sets a temperature (temperatures or
// temperature).
func headerTemperature(bp *Blueprint) bool { return len(bp.Temperatures) > 0 || bp.Temperature != nil }

// modelVariants returns the variants to run for the given models, in order: each model, each
// temperature (temperatures, else temperature, else defaultTemperature), each system prompt of
// a systems list. Duplicate effective ids are dropped.
func modelVariants(bp *Blueprint, models []Model) []modelVariant {
	def := defaultTemperature
	temps := []*float64{&def}
	switch {
	case len(bp.Temperatures) > 0:
		temps = temps[:0]
		for _, t := range bp.Temperatures {
			temps = append(temps, &t)
		}
	case bp.Temperature != nil:
		temps = []*float64{bp.Temperature}
	}
	systems := []int{-1}
	if len(bp.Systems) > 0 {
		systems = systems[:0]
		for i := range bp.Systems {
			systems = append(systems, i)
		}
	}
	var out []modelVariant
	seen := map[string]bool{}
	for _, m := range models {
		for _, t := range temps {
			for _, s := range systems {
				id := m.ID + "[temp:" + formatTemperature(*t) + "]"
				if len(bp.Systems) > 1 {
					id += "[sp_idx:" + strconv.Itoa(s) + "]"
				}
				if seen[id] {
					continue
				}
				seen[id] = true
				out = append(out, modelVariant{ID: id, Model: m, Temperature: t, SystemIndex: s})
			}
		}
	}
	return out
}

var spIdxRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[sp_idx:(\d+)\]`) })

// systemPrompt returns the system prompt of a prompt run by a variant whose system index is
// idx: the blueprint's idx-th system prompt when it gives a list (a prompt's own is then a parse
// error, as in Weval, unless empty), else the prompt's, else the blueprint's.
func systemPrompt(bp *Blueprint, p *Prompt, idx int) *string {
	if len(bp.Systems) > 0 {
		if idx < 0 || idx >= len(bp.Systems) {
			idx = 0
		}
		return bp.Systems[idx]
	}
	if p.System != nil {
		return p.System
	}
	return bp.System
}

// requestTemperature is the temperature sent when variant v generates prompt p: the header's
// (the variant's), else the prompt's own, else defaultTemperature, as Weval chooses it
// (`tempValue ?? promptConfig.temperature ?? config.temperature ?? DEFAULT_TEMPERATURE` in
// src/cli/services/comparison-pipeline-service.non-stream.ts).
func requestTemperature(bp *Blueprint, p *Prompt, v modelVariant) *float64 {
	switch {
	case v.Temperature != nil && headerTemperature(bp):
		return v.Temperature
	case p.Temperature != nil:
		return p.Temperature
	case v.Temperature != nil:
		return v.Temperature
	}
	def := defaultTemperature
	return &def
}

// systemIndexOf reads the [sp_idx:i] suffix of an effective model id (-1 without one), so
// responses given for system variants are scored against their system prompt.
func systemIndexOf(modelID string) int {
	m := spIdxRe().FindStringSubmatch(modelID)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return n
}

// GenerateOptions control Generate.
type GenerateOptions struct {
	// Client makes the calls: its cache, retries, overall concurrency limit and usage.
	Client *llm.Client
	// LookupEnv reads the providers' keys (<PROVIDER>_API_KEY), base URL overrides
	// (<PROVIDER>_BASE_URL) and the ${VAR} references in custom models' urls and headers. The
	// command passes its environment (with .env files, each value knowing its source); nil
	// means no variables.
	LookupEnv envsource.Vars
	// AllowEnv names the variables ${VAR} references may read (--allow-env); any other
	// reference fails its model. The client's trust rule (llm.Config.Trust) then decides
	// whether a custom model's url may receive a value the user holds.
	AllowEnv points.AllowEnv
	// ProviderConcurrency limits the calls in flight to one provider (DefaultProviderConcurrency
	// when 0).
	ProviderConcurrency int
	// MaxTokens of each generated turn (1500 when 0, Weval's default).
	MaxTokens int
	// Timeout bounds each attempt of a generation call (DefaultGenTimeout when 0; --gen-timeout-ms).
	// The whole call, retries included, is bounded by retry.CallTimeoutFactor times it.
	Timeout time.Duration
	// Attempts is how many times a generation call is tried: 1 + --gen-retries
	// (DefaultGenRetries + 1 when 0). Which failures are retried is the client's rule (429,
	// 5xx, time-outs, broken connections and replies).
	Attempts int
	// Fixtures, when set, are responses used instead of generating (Weval's --fixtures, in
	// either format of ParseResponses): a prompt × variant with one is not generated. A
	// fixture is looked up by the variant's id, then its model's, then a byModel key ending in
	// "*" that prefixes the model id, then the prompt's default. Its turns must be as many as the
	// prompt generates.
	Fixtures *Responses
	// FixturesStrict makes a prompt × variant without a fixture an error instead of a
	// generation (--fixtures-strict): no model is called.
	FixturesStrict bool
	// OnPair is called after each prompt × variant is done (from the goroutine that did it), for
	// progress reports; nil means none.
	OnPair func(promptID, modelID string, err error)
}

// target is how one model is called.
type target struct {
	custom *CustomModel
	url    string // the custom model's url, its ${VAR} references expanded
	ep     llm.Endpoint
	api    llm.API
	err    error
}

// Generate asks every variant of the given models (see modelVariants) for its turns of every
// prompt: one per `assistant: null`, each appended to the conversation before the next, plus
// a final one when the conversation ends with the user. Calls run concurrently within the
// client's limits. A prompt × variant whose generation fails is recorded in the returned
// Responses (Run reports it in the result's errors) and the others go on; Generate itself
// fails only when ctx ends.
//
// A model whose generations fail breakerThreshold times in a row is skipped for the rest of
// the run (the circuit breaker, as in Weval): its remaining pairs fail with a *BreakerError
// without a call. So that the count is checked before each call rather than while calls queue,
// a model has at most ProviderConcurrency pairs in flight; those already in flight when the
// breaker opens finish.
func Generate(ctx context.Context, bp *Blueprint, models []Model, opts GenerateOptions) (*Responses, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	variants := modelVariants(bp, models)
	resp := newResponses("")
	resp.generated = true
	for _, v := range variants {
		resp.addModel(v.ID)
	}
	gen := &generation{bp: bp, opts: opts, targets: map[string]target{}, perModel: map[string]*semaphore.Weighted{},
		brk: newBreaker(breakerThreshold)}
	for _, v := range variants {
		if _, ok := gen.targets[v.Model.ID]; !ok {
			gen.targets[v.Model.ID] = resolveTarget(bp, v.Model, opts)
		}
	}
	for _, v := range variants {
		if gen.perModel[v.Model.ID] == nil {
			gen.perModel[v.Model.ID] = semaphore.NewWeighted(int64(opts.ProviderConcurrency))
		}
	}
	results := make([][]pairResult, len(bp.Prompts))
	// A pair's failure is recorded in its result, so no goroutine returns an error.
	var g errgroup.Group
	g.SetLimit(maxPairsInFlight)
	for i, p := range bp.Prompts {
		results[i] = make([]pairResult, len(variants))
		for j, v := range variants {
			g.Go(func() error {
				results[i][j] = gen.pair(ctx, p, v)
				if opts.OnPair != nil {
					opts.OnPair(p.ID, v.ID, results[i][j].err)
				}
				return nil
			})
		}
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp.tripped = gen.brk.tripped
	resp.recordGenerated(bp, variants, results)
	return resp, nil
}

// withDefaults checks the options of Generate and fills in the defaults of those not set.
func (opts GenerateOptions) withDefaults() (GenerateOptions, error) {
	if opts.Client == nil {
		return opts, errors.New("blueprint: Generate needs GenerateOptions.Client")
	}
	if opts.FixturesStrict && opts.Fixtures == nil {
		return opts, errors.New("blueprint: GenerateOptions.FixturesStrict needs Fixtures")
	}
	if opts.ProviderConcurrency <= 0 {
		opts.ProviderConcurrency = DefaultProviderConcurrency
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = defaultMaxTokens
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultGenTimeout
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultGenRetries + 1
	}
	return opts, nil
}

// generation is what every pair of one Generate call shares: each model's endpoint, its
// slots (ProviderConcurrency pairs in flight) and the circuit breaker.
type generation struct {
	bp       *Blueprint
	opts     GenerateOptions
	targets  map[string]target
	perModel map[string]*semaphore.Weighted
	brk      *breaker
}

// pairResult is the generation of one prompt × variant.
type pairResult struct {
	turns     []string
	history   []points.Message
	generated []bool
	err       error
}

// pair generates one prompt × variant: its fixture when there is one, else a call to the
// model unless its endpoint failed or its breaker is open.
func (gen *generation) pair(ctx context.Context, p *Prompt, v modelVariant) pairResult {
	var r pairResult
	opts := gen.opts
	fixture, fixed := []string(nil), false
	if opts.Fixtures != nil {
		fixture, fixed = opts.Fixtures.fixture(p.ID, v.ID, v.Model.ID)
	}
	if t := gen.targets[v.Model.ID]; fixed {
		// A fixture stands for the model: no call, nothing for the breaker to count.
		r.turns = fixture
		if r.history, r.generated, r.err = conversation(gen.bp, p, v.ID, fixture); r.err != nil {
			r.err = fmt.Errorf("the fixture in %s: %w", opts.Fixtures.File, r.err)
		}
	} else if opts.FixturesStrict {
		r.err = fmt.Errorf("no fixture response for this prompt and model in %s (--fixtures-strict)", opts.Fixtures.File)
	} else if t.err != nil {
		r.err = t.err
	} else if r.err = gen.perModel[v.Model.ID].Acquire(ctx, 1); r.err == nil {
		if r.err = gen.brk.check(v.Model.ID); r.err == nil {
			r.turns, r.history, r.generated, r.err = generatePair(ctx, gen.bp, p, v, t, opts)
			gen.brk.record(v.Model.ID, r.err)
		}
		gen.perModel[v.Model.ID].Release(1)
	}
	return r
}

// recordGenerated records each prompt × variant's generation: its turns and conversation, or
// its failure (and the run-wide failure or open breaker behind it, reported once each).
func (r *Responses) recordGenerated(bp *Blueprint, variants []modelVariant, results [][]pairResult) {
	for i, p := range bp.Prompts {
		for j, v := range variants {
			pr := results[i][j]
			if pr.err != nil {
				setCell(r.failures, p.ID, v.ID, pr.err.Error())
				// Failures of the run, and pairs the breaker skipped, are reported once each.
				var be *BreakerError
				rw := points.RunWide(pr.err)
				if rw == nil && errors.As(pr.err, &be) {
					rw = be
				}
				if rw != nil {
					if r.stopped == nil {
						r.stopped = map[string]map[string]error{}
					}
					setCell(r.stopped, p.ID, v.ID, rw)
				}
				continue
			}
			setCell(r.byPrompt, p.ID, v.ID, pr.turns)
			setCell(r.histories, p.ID, v.ID, pr.history)
			setCell(r.generatedFlags, p.ID, v.ID, pr.generated)
		}
	}
}

// checkModel reports why a model cannot be called with the options' environment (an unknown
// provider, a key that is not set, a ${VAR} reference that is not allowed or not set, or an
// endpoint the client's trust rule refuses: an *trust.UntrustedHostError), or nil. Generate
// records the same error for every prompt of such a model; the command uses checkModel to
// warn once, or to stop before any call when the trust rule refuses a model.
func checkModel(bp *Blueprint, m Model, opts GenerateOptions) error {
	if opts.ProviderConcurrency <= 0 {
		opts.ProviderConcurrency = DefaultProviderConcurrency
	}
	return resolveTarget(bp, m, opts).err
}

// resolveTarget builds the endpoint of a model: a provider:model id through llm.ModelEndpoint,
// a custom model from its url, modelName, inherit, format and headers (${VAR} references
// expanded as opts.AllowEnv allows). The client's trust rule checks the endpoint.
func resolveTarget(bp *Blueprint, m Model, opts GenerateOptions) target {
	limit := opts.ProviderConcurrency
	if m.Custom == nil {
		ep, err := llm.ModelEndpoint(opts.LookupEnv, m.ID)
		if err != nil {
			return target{err: err}
		}
		ep.MaxConcurrency = limit
		if opts.Client != nil {
			if err := opts.Client.CheckTrust(ep); err != nil {
				return target{err: err}
			}
		}
		ep.SettingNames.Model = "the model id " + m.ID + " (the blueprint's models, or --models)"
		ep.SettingNames.Timeout = "--gen-timeout-ms"
		return target{ep: ep, api: llm.APIChat}
	}
	cm := m.Custom
	what := fmt.Sprintf("custom model %q", cm.ID)
	rawURL, urlUsed, err := points.ExpandEnv(cm.URL, opts.LookupEnv, opts.AllowEnv, "url of "+what)
	if err != nil {
		return target{err: err}
	}
	headers, headerUsed, err := points.ExpandHeaders(cm.Headers, opts.LookupEnv, opts.AllowEnv, what)
	if err != nil {
		return target{err: err}
	}
	group := "custom"
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		group += " " + u.Host
	}
	ep := llm.Endpoint{Provider: llm.Provider(strings.ToLower(cm.Inherit)), Model: cm.ModelName, Headers: headers,
		MaxConcurrency: limit, LimitGroup: group, BaseURL: rawURL,
		// What --allow-env put in the url and headers is redacted like a key, in replies too.
		Secrets:       points.EnvSecrets(opts.LookupEnv, append(headerUsed, urlUsed...)),
		KeySource:     points.HeldSource(append(headerUsed, urlUsed...)),
		BaseURLSource: envsource.Source{Origin: envsource.OriginBlueprint, Name: "url of " + what, File: bp.File, Line: cm.Lines.URLLine()},
		SettingNames: llm.SettingNames{
			Key:     "the headers of custom model " + cm.ID,
			BaseURL: "the url of custom model " + cm.ID,
			Model:   "the modelName of custom model " + cm.ID,
			Timeout: "--gen-timeout-ms"}}
	if opts.Client != nil {
		if err := opts.Client.CheckTrust(ep); err != nil {
			return target{err: err}
		}
	}
	// The request goes to the url itself (GenerateRequest.URL), not to a base URL plus a path.
	ep.BaseURL = ""
	return target{custom: cm, url: rawURL, ep: ep, api: llm.APIFor(cm.Inherit, cm.Format)}
}

// generatePair generates the turns of one prompt for one variant.
func generatePair(ctx context.Context, bp *Blueprint, p *Prompt, v modelVariant, t target, opts GenerateOptions) ([]string, []points.Message, []bool, error) {
	noCache := false
	if bp.NoCache != nil {
		noCache = *bp.NoCache
	}
	if p.NoCache != nil {
		noCache = *p.NoCache
	}
	system := systemPrompt(bp, p, v.SystemIndex)
	temperature := requestTemperature(bp, p, v)
	want := p.generatedTurnCount()
	var msgs []llm.Message
	var turns []string
	call := func() error {
		label := fmt.Sprintf("generate %s × %s", p.ID, v.ID)
		if want > 1 {
			label += fmt.Sprintf(" turn %d", len(turns)+1)
		}
		var resp *llm.Response
		var err error
		if t.custom == nil {
			resp, err = opts.Client.Complete(ctx, llm.Request{Endpoint: t.ep, Messages: msgs, Temperature: temperature,
				MaxTokens: opts.MaxTokens, NoCache: noCache, Label: label, Timeout: opts.Timeout, MaxAttempts: opts.Attempts})
		} else {
			cm := t.custom
			req := llm.GenerateRequest{Endpoint: t.ep, URL: t.url, API: t.api, Messages: msgs, Temperature: temperature,
				MaxTokens: opts.MaxTokens, PromptFormat: cm.PromptFormat, ReasoningEffort: cm.ReasoningEffort,
				ParameterMapping: cm.ParameterMapping, Parameters: cm.Parameters, NoCache: noCache, Label: label,
				Timeout: opts.Timeout, MaxAttempts: opts.Attempts}
			if cm.ThinkingBudget != nil {
				req.ThinkingBudget = int(*cm.ThinkingBudget)
			}
			resp, err = opts.Client.Generate(ctx, req)
		}
		if err == nil && strings.TrimSpace(resp.Content) == "" {
			switch {
			case resp.Refusal != "":
				err = fmt.Errorf("the model refused: %s", shorten(resp.Refusal, 200))
			case resp.FinishReason != "":
				err = fmt.Errorf("the model returned an empty reply (finish reason %q)", resp.FinishReason)
			default:
				err = errors.New("the model returned an empty reply")
			}
		}
		if err != nil {
			if want > 1 {
				return fmt.Errorf("turn %d of %d: %w", len(turns)+1, want, err)
			}
			return err
		}
		turns = append(turns, resp.Content)
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content})
		return nil
	}
	hasSystemMessage := false
	for _, m := range p.Messages {
		if m.Role == "system" {
			hasSystemMessage = true
		}
	}
	if system != nil && !hasSystemMessage {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: *system})
	}
	for _, m := range p.Messages {
		if m.Role == "assistant" && m.Content == nil {
			if err := call(); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		msgs = append(msgs, llm.Message{Role: llm.Role(m.Role), Content: m.Text()})
	}
	if len(p.Messages) > 0 && p.Messages[len(p.Messages)-1].Role == "user" {
		if err := call(); err != nil {
			return nil, nil, nil, err
		}
	}
	history, generated := buildHistory(system, p, turns)
	return turns, history, generated, nil
}
