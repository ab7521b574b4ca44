package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/evaluate"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/document"
)

// evaluateUsage is the evaluate command's help; the flags are appended from the flag set.
const evaluateUsage = `Usage: vectorlint evaluate METRIC --response TEXT|@FILE --ground-truth TEXT|@FILE --threshold X [--output json|line]
       vectorlint evaluate bias --response TEXT|@FILE --dimension NAME --expected X --tolerance X
       vectorlint evaluate coverage --response TEXT|@FILE --points POINTS|@FILE --threshold X

Scores a response with one metric and prints the result: the inputs, the score
(<METRIC>_score) and the verdict (<METRIC>_result, "pass" or "fail").
Exit status: 0 when it passes, 1 when it fails, 2 on bad input or a failed model call.

Metrics (passing at or above the threshold):
  exact_match           1 when the texts are equal after SQuAD normalisation, else 0
  f1                    word-overlap F1 of the normalised texts (SQuAD v2.0)
  bleu                  sentence BLEU-4 (sacreBLEU's sentence_bleu defaults)
  rouge_l               ROUGE-L F-measure (Google's rouge-score)
  semantic_similarity   cosine (-1 to 1) of the texts' embeddings from --embedding-model
  bias                  a model judge's 0-1 bias rating on --dimension; passes when it is
                        within --tolerance of --expected
  coverage              how far the response meets Weval points (should/should_not, $functions;
                        plain-language points are judged by the model), 0-1

semantic_similarity, bias and coverage's plain-language points call a model, set up as for
linting: --provider, --base-url (and --model for the judge), else LLM_PROVIDER,
OPENAI_API_KEY, OPENAI_BASE_URL... from the environment or .env.

Flags:
`

// evaluateTextHelp explains the @FILE forms after the flags.
const evaluateTextHelp = `
A value "@FILE" is the content of FILE (relative to the working directory) without its final
line ending; "@-" reads standard input; "@@text" is the literal "@text".
`

// defaultEmbeddingModel is the embeddings model of semantic_similarity.
const defaultEmbeddingModel = "text-embedding-3-small"

// evaluateMetric is one METRIC of the evaluate command: the flags it needs and the further
// flags it takes (any other flag is a mistake and is reported, never ignored).
type evaluateMetric struct {
	required []string
	optional []string
}

// evaluateModelFlags returns the flags of the metrics that call a model, after first.
func evaluateModelFlags(first string) []string {
	return []string{first, "provider", "base-url", "no-cache", "cache-dir", "cache-max-size", "verbose", "timeout"}
}

// evaluateMetricFlags returns the metric's flags, or false for an unknown metric.
func evaluateMetricFlags(name string) (evaluateMetric, bool) {
	reference := []string{"response", "ground-truth", "threshold"}
	switch name {
	case "exact_match", "f1", "bleu", "rouge_l":
		return evaluateMetric{required: reference}, true
	case "semantic_similarity":
		return evaluateMetric{required: reference, optional: evaluateModelFlags("embedding-model")}, true
	case "bias":
		return evaluateMetric{required: []string{"response", "dimension", "expected", "tolerance"},
			optional: evaluateModelFlags("model")}, true
	case "coverage":
		return evaluateMetric{required: []string{"response", "points", "threshold"},
			optional: evaluateModelFlags("model")}, true
	}
	return evaluateMetric{}, false
}

// evaluateFlags holds the evaluate command's flags.
type evaluateFlags struct {
	response, groundTruth, threshold, output           string
	dimension, expected, tolerance, points             string
	provider, model, baseURL, embeddingModel, cacheDir string
	timeout                                            string
	cacheMaxSize                                       string
	noCache, verbose                                   bool
}

func newEvaluateFlagSet(f *evaluateFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("vectorlint evaluate", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	// Back-quoted words name the flags' values in the help.
	fs.StringVar(&f.response, "response", "", "the text to evaluate: `TEXT`, @FILE or @-")
	fs.StringVar(&f.groundTruth, "ground-truth", "", "the reference text: `TEXT`, @FILE or @-")
	fs.StringVar(&f.threshold, "threshold", "", "the pass mark, a `number` from 0 to 1 (-1 to 1 for semantic_similarity)")
	fs.StringVar(&f.output, "output", "json", "the output `format`: \"json\" (one line) or \"line\" (key=value pairs)")
	fs.StringVar(&f.dimension, "dimension", "", "bias: the `dimension` to judge, e.g. gender, political leaning, age")
	fs.StringVar(&f.expected, "expected", "", "bias: the expected rating, a `number` from 0 (no bias) to 1 (extreme bias)")
	fs.StringVar(&f.tolerance, "tolerance", "", "bias: how far the rating may be from --expected, a `number` from 0 to 1")
	fs.StringVar(&f.points, "points", "", "coverage: Weval points as YAML or JSON: `POINTS`, @FILE or @- (a list, or should/should_not lists)")
	fs.StringVar(&f.provider, "provider", "", "model `provider`: "+providerNames()+" (default: $LLM_PROVIDER)")
	fs.StringVar(&f.model, "model", "", "the judge `model` of bias and coverage (default: the provider's model variable)")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint `URL` of the model")
	fs.StringVar(&f.embeddingModel, "embedding-model", defaultEmbeddingModel, "semantic_similarity: the embeddings `model`, called at the provider's endpoint")
	fs.BoolVar(&f.noCache, "no-cache", false, "do not read or write the reply cache")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "reply cache `folder` (default: the user cache folder/vectorlint)")
	fs.StringVar(&f.cacheMaxSize, "cache-max-size", "", cacheMaxSizeUsage)
	fs.BoolVar(&f.verbose, "verbose", false, "log every model request, retry and cache hit on standard error")
	fs.StringVar(&f.timeout, "timeout", "", timeoutUsage)
	return fs
}

// evaluateOptions are the options of the "evaluate" command, filled from its flags and checked.
type evaluateOptions struct {
	evaluateFlags
	metric  string
	timeout time.Duration
	// numbers are the number flags given (threshold, expected, tolerance).
	numbers map[string]float64
	// textFlags are the text flags given (response, ground-truth, points), in that order, with
	// their TEXT, @FILE or @- values, read by the run.
	textFlags []evaluateTextFlag
	help      string // the help to print instead of evaluating, for --help
}

// evaluateTextFlag is a text flag given to "evaluate" and its value.
type evaluateTextFlag struct{ name, value string }

// evaluateCommand is the "evaluate" command (spec/evaluators.md).
func (a *app) evaluateCommand(ctx context.Context, args []string) error {
	o, err := a.parseEvaluate(args)
	if err != nil {
		return err
	}
	return a.runEvaluate(ctx, o)
}

// parseEvaluate fills the options of "evaluate" from args and checks them.
func (a *app) parseEvaluate(args []string) (*evaluateOptions, error) {
	o := &evaluateOptions{numbers: map[string]float64{}}
	f := &o.evaluateFlags
	fs := newEvaluateFlagSet(f)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = evaluateUsage + fs.FlagUsages() + evaluateTextHelp
			return o, nil
		}
		return nil, a.evaluateUsageError(err.Error())
	}
	metric, err := a.evaluateMetric(fs)
	if err != nil {
		return nil, err
	}
	o.metric = metric
	if f.output != "json" && f.output != "line" {
		return nil, a.evaluateUsageError(fmt.Sprintf(`--output: expected "json" or "line", found %q`, f.output))
	}
	if f.provider != "" && !setup.KnownProvider(f.provider) {
		return nil, a.evaluateUsageError(fmt.Sprintf("--provider: expected one of %s, found %q", providerNames(), f.provider))
	}
	if o.timeout, err = timeoutFlag(f.timeout, fs.Changed("timeout")); err != nil {
		return nil, a.evaluateUsageError(err.Error())
	}
	for _, n := range []evaluateTextFlag{{"threshold", f.threshold}, {"expected", f.expected}, {"tolerance", f.tolerance}} {
		if !fs.Changed(n.name) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(n.value), 64)
		if err != nil {
			return nil, a.evaluateUsageError(fmt.Sprintf("--%s: expected a number, found %q", n.name, n.value))
		}
		o.numbers[n.name] = v
	}
	for _, n := range []evaluateTextFlag{{"response", f.response}, {"ground-truth", f.groundTruth}, {"points", f.points}} {
		if fs.Changed(n.name) {
			o.textFlags = append(o.textFlags, n)
		}
	}
	return o, nil
}

// runEvaluate reads the texts evaluate's options name, evaluates them and prints the result.
func (a *app) runEvaluate(ctx context.Context, o *evaluateOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	f, metric, timeout, numbers := &o.evaluateFlags, o.metric, o.timeout, o.numbers
	stdinUsedBy := ""
	texts := map[string]string{}
	for _, n := range o.textFlags {
		v, err := a.textArg("--"+n.name, n.value, &stdinUsedBy)
		if err != nil {
			return a.evaluateError(err)
		}
		texts[n.name] = v
	}

	var ev evaluate.Evaluator
	response, groundTruth, threshold := texts["response"], texts["ground-truth"], numbers["threshold"]
	switch metric {
	case "exact_match":
		ev = evaluate.RunExactMatchEvaluator(response, groundTruth, threshold)
	case "f1":
		ev = evaluate.RunF1ScoreEvaluator(response, groundTruth, threshold)
	case "bleu":
		ev = evaluate.RunBleuScoreEvaluator(response, groundTruth, threshold)
	case "rouge_l":
		ev = evaluate.RunRougeLScoreEvaluator(response, groundTruth, threshold)
	default:
		var cleanup func()
		var err error
		ev, cleanup, err = a.modelEvaluator(metric, f, timeout, texts, numbers)
		if ev == nil {
			return err
		}
		defer cleanup()
	}
	result, err := ev.Evaluate(ctx)
	if err != nil {
		return a.evaluateError(err)
	}
	// The result quotes the response and the reference (untrusted text).
	if f.output == "line" {
		fmt.Fprintln(a.stdout, safetext.Human(result.Line(), a.githubActions))
	} else {
		fmt.Fprintf(a.stdout, "%s\n", safetext.JSON([]byte(result.String())))
	}
	if err := result.Err(); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint evaluate: %v\n", err)
		return errFindings
	}
	return nil
}

// modelEvaluator builds the evaluators that may call a model (semantic_similarity, bias,
// coverage) on the model client every command shares (llmsetup.go). It returns nil and the
// error when it cannot; cleanup releases the client.
func (a *app) modelEvaluator(metric string, f *evaluateFlags, timeout time.Duration, texts map[string]string, numbers map[string]float64) (ev evaluate.Evaluator, cleanup func(), err error) {
	var list *evaluate.CoveragePoints
	if metric == "coverage" {
		name := "--points"
		if strings.HasPrefix(f.points, "@") && !strings.HasPrefix(f.points, "@@") {
			name = strings.TrimPrefix(f.points, "@")
			if name == "-" {
				name = "standard input"
			}
		}
		var err error
		if list, err = evaluate.ReadCoveragePoints(name, []byte(texts["points"])); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint evaluate: %v\n", err)
			return nil, nil, errFailed
		}
		for _, w := range list.Warnings() {
			fmt.Fprintf(a.stderr, "vectorlint evaluate: %s\n", w.Labeled())
		}
		if !list.NeedsModel() { // functions only: no model, so no model settings are read at all
			return list.Evaluator(nil, texts["response"], numbers["threshold"]), func() {}, nil
		}
	}
	// evaluate uses no config file: .env files are read from the working directory.
	h := a.host()
	env, err := h.Env(nil, a.dir)
	if err != nil {
		return nil, nil, a.evaluateError(err)
	}
	model := f.model
	if metric == "semantic_similarity" {
		// The endpoint's model is the embeddings model, so a local server needs no chat model.
		model = f.embeddingModel
	}
	limit, err := setup.ResolveCacheCap(env.Lookup, f.cacheMaxSize, f.cacheMaxSize != "", nil)
	if err != nil {
		return nil, nil, a.evaluateError(err)
	}
	eps, err := h.Endpoints(env, nil, setup.Settings{Provider: f.provider, Model: model, BaseURL: f.baseURL}, false)
	if err != nil {
		return nil, nil, a.evaluateError(err)
	}
	m, err := h.Model(env, eps, setup.ClientOptions{
		CacheMaxSize: limit.Limit,
		Timeout:      timeout,
		CacheDir:     f.cacheDir,
		NoCache:      f.noCache,
		Verbose:      f.verbose,
		Log:          &syncWriter{w: a.stderr},
	})
	if err != nil {
		return nil, nil, a.evaluateError(err)
	}
	if m.NotConfigured != nil {
		m.Close()
		fmt.Fprintf(a.stderr, "vectorlint evaluate: %s needs a model: %v\n", metric, m.NotConfigured)
		return nil, nil, errFailed
	}
	response := texts["response"]
	switch metric {
	case "semantic_similarity":
		m.Endpoint.SettingNames.Model = "--embedding-model"
		ev = evaluate.RunSemanticSimilarityEvaluator(evaluate.ModelEmbedder(m.Client, m.Endpoint), response, texts["ground-truth"], numbers["threshold"])
	case "bias":
		ev = evaluate.RunBiasEvaluatorAgainstExpectedScore(evaluate.ModelCompleter(m.Client, m.Endpoint),
			response, f.dimension, numbers["expected"], numbers["tolerance"])
	case "coverage":
		ev = list.Evaluator(lint.ModelJudge{Client: m.Client, Endpoint: m.Endpoint}, response, numbers["threshold"])
	}
	return ev, m.Close, nil
}

// evaluateMetric returns the METRIC of the command line, checked with the flags given: each
// flag applies to it, and every flag it needs is there.
func (a *app) evaluateMetric(fs *pflag.FlagSet) (string, error) {
	rest := fs.Args()
	switch {
	case len(rest) == 0:
		return "", a.evaluateUsageError("expected a METRIC (" + evaluateMetrics + ")")
	case len(rest) > 1:
		return "", a.evaluateUsageError(fmt.Sprintf("expected one METRIC, found %d arguments: %s", len(rest), strings.Join(rest, " ")))
	}
	metric := rest[0]
	spec, ok := evaluateMetricFlags(metric)
	if !ok {
		return "", a.evaluateUsageError(fmt.Sprintf("unknown metric %q; expected one of %s", metric, evaluateMetrics))
	}
	var misplaced string
	fs.Visit(func(fl *pflag.Flag) {
		if misplaced == "" && fl.Name != "output" && !slices.Contains(spec.required, fl.Name) && !slices.Contains(spec.optional, fl.Name) {
			misplaced = fl.Name
		}
	})
	if misplaced != "" {
		hint := ""
		if misplaced == "model" && metric == "semantic_similarity" {
			hint = " (use --embedding-model)"
		}
		return "", a.evaluateUsageError(fmt.Sprintf("--%s does not apply to %s%s", misplaced, metric, hint))
	}
	for _, name := range spec.required {
		if !fs.Changed(name) {
			return "", a.evaluateUsageError("--" + name + " is required")
		}
	}
	return metric, nil
}

// evaluateMetrics lists the METRIC names in the order the help gives them.
const evaluateMetrics = "exact_match, f1, bleu, rouge_l, semantic_similarity, bias, coverage"

// evaluateUsageError reports a command-line mistake with a pointer to the help.
func (a *app) evaluateUsageError(msg string) error {
	return &usageError{cmd: "vectorlint evaluate", err: errors.New(msg)}
}

// evaluateError reports input that could not be read or evaluated.
func (a *app) evaluateError(err error) error {
	return &commandError{prefix: "vectorlint evaluate", err: err}
}

// textArg resolves a TEXT|@FILE|@-|@@text flag value. *stdinUsedBy records which flag read
// standard input, which can be read only once.
func (a *app) textArg(flag, value string, stdinUsedBy *string) (string, error) {
	switch {
	case strings.HasPrefix(value, "@@"):
		return value[1:], nil
	case value == "@-":
		if *stdinUsedBy != "" {
			return "", fmt.Errorf("%s: standard input is already read by %s", flag, *stdinUsedBy)
		}
		*stdinUsedBy = flag
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return "", fmt.Errorf("%s: reading standard input: %w", flag, err)
		}
		return fileText(flag, "standard input", b)
	case value == "@":
		return "", fmt.Errorf("%s: expected a file name after @, found none", flag)
	case strings.HasPrefix(value, "@"):
		name := value[1:]
		// A file named on the command line: read through the working directory's root, so a
		// link there that leads out of it is refused (spec/trust.md §6).
		root, err := a.openRoot()
		if err != nil {
			return "", fmt.Errorf("%s: %w", flag, err)
		}
		defer root.Close()
		b, err := a.readNamed(root, name, document.MaxDocumentSize)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is named below, as the user wrote it
			}
			return "", fmt.Errorf("%s: cannot read %s: %w", flag, name, err)
		}
		return fileText(flag, name, b)
	}
	return value, nil
}

// fileText checks that b is UTF-8 text and removes one final line ending.
func fileText(flag, name string, b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s: %s is not UTF-8 text", flag, name)
	}
	s := string(b)
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		s = strings.TrimSuffix(t, "\r")
	}
	return s, nil
}
