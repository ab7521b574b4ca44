package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/evaluate"
)

// evaluateUsage is the evaluate command's help; the flags are appended from the flag set.
const evaluateUsage = `Usage: vectorlint evaluate METRIC --response TEXT|@FILE --ground-truth TEXT|@FILE --threshold X [--output json|line]

Scores a response against a reference text with one metric and prints the result: the inputs,
the score (<METRIC>_score) and the verdict (<METRIC>_result, "pass" or "fail").
Exit status: 0 when it passes, 1 when it fails, 2 on bad input.

Metrics (scores from 0 to 1, passing at or above the threshold):
  exact_match           1 when the texts are equal after SQuAD normalisation, else 0
  f1                    word-overlap F1 of the normalised texts (SQuAD v2.0)
  bleu                  sentence BLEU-4 (sacreBLEU's sentence_bleu defaults)
  rouge_l               ROUGE-L F-measure (Google's rouge-score)
  semantic_similarity   cosine of embeddings (needs a model: not available yet)
  bias                  a model judge's bias rating (needs a model: not available yet)

Flags:
`

// evaluateTextHelp explains the @FILE forms after the flags.
const evaluateTextHelp = `
A value "@FILE" is the content of FILE (relative to the working directory) without its final
line ending; "@-" reads standard input; "@@text" is the literal "@text".
`

// runEvaluate is the "evaluate" command (spec/evaluators.md).
func (a *app) runEvaluate(ctx context.Context, args []string) int {
	fs := pflag.NewFlagSet("vectorlint evaluate", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	// Back-quoted words name the flags' values in the help.
	response := fs.String("response", "", "the text to evaluate: `TEXT`, @FILE or @-")
	groundTruth := fs.String("ground-truth", "", "the reference text: `TEXT`, @FILE or @-")
	threshold := fs.String("threshold", "", "the pass mark, a `number` from 0 to 1")
	output := fs.String("output", "json", "the output `format`: \"json\" (one line) or \"line\" (key=value pairs)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(a.stdout, evaluateUsage+fs.FlagUsages()+evaluateTextHelp)
			return exitOK
		}
		return a.evaluateUsageError(err.Error())
	}

	rest := fs.Args()
	switch {
	case len(rest) == 0:
		return a.evaluateUsageError("expected a METRIC (" + evaluateMetrics + ")")
	case len(rest) > 1:
		return a.evaluateUsageError(fmt.Sprintf("expected one METRIC, found %d arguments: %s", len(rest), strings.Join(rest, " ")))
	}
	metric := rest[0]
	switch metric {
	case "exact_match", "f1", "bleu", "rouge_l":
	case "semantic_similarity", "bias":
		fmt.Fprintf(a.stderr, "vectorlint evaluate: %s needs a model: not available yet\n", metric)
		return exitFailure
	default:
		return a.evaluateUsageError(fmt.Sprintf("unknown metric %q; expected one of %s", metric, evaluateMetrics))
	}
	for _, name := range []string{"response", "ground-truth", "threshold"} {
		if !fs.Changed(name) {
			return a.evaluateUsageError("--" + name + " is required")
		}
	}
	if *output != "json" && *output != "line" {
		return a.evaluateUsageError(fmt.Sprintf(`--output: expected "json" or "line", found %q`, *output))
	}
	thresholdValue, err := strconv.ParseFloat(strings.TrimSpace(*threshold), 64)
	if err != nil {
		return a.evaluateUsageError(fmt.Sprintf("--threshold: expected a number, found %q", *threshold))
	}
	stdinUsedBy := ""
	responseText, err := a.textArg("--response", *response, &stdinUsedBy)
	if err != nil {
		return a.evaluateError(err)
	}
	groundTruthText, err := a.textArg("--ground-truth", *groundTruth, &stdinUsedBy)
	if err != nil {
		return a.evaluateError(err)
	}

	var ev evaluate.Evaluator
	switch metric {
	case "exact_match":
		ev = evaluate.RunExactMatchEvaluator(responseText, groundTruthText, thresholdValue)
	case "f1":
		ev = evaluate.RunF1ScoreEvaluator(responseText, groundTruthText, thresholdValue)
	case "bleu":
		ev = evaluate.RunBleuScoreEvaluator(responseText, groundTruthText, thresholdValue)
	case "rouge_l":
		ev = evaluate.RunRougeLScoreEvaluator(responseText, groundTruthText, thresholdValue)
	}
	result, err := ev.Evaluate(ctx)
	if err != nil {
		return a.evaluateError(err)
	}
	if *output == "line" {
		fmt.Fprintln(a.stdout, result.Line())
	} else {
		fmt.Fprintln(a.stdout, result.String())
	}
	if err := result.Err(); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint evaluate: %v\n", err)
		return exitFindings
	}
	return exitOK
}

// evaluateMetrics lists the METRIC names in the order the help gives them.
const evaluateMetrics = "exact_match, f1, bleu, rouge_l, semantic_similarity, bias"

// evaluateUsageError reports a command-line mistake with a pointer to the help.
func (a *app) evaluateUsageError(msg string) int {
	fmt.Fprintf(a.stderr, "vectorlint evaluate: %s\nRun \"vectorlint evaluate --help\" for usage.\n", msg)
	return exitFailure
}

// evaluateError reports input that could not be read or evaluated.
func (a *app) evaluateError(err error) int {
	fmt.Fprintf(a.stderr, "vectorlint evaluate: %v\n", err)
	return exitFailure
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
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.dir, path)
		}
		b, err := os.ReadFile(path)
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
