package finding

import (
	"strconv"

	"github.com/vectorlint/vectorlint/internal/jsjson"
)

// Score is one rule's score on one file. Semi-objective scores carry Violations, Words and
// Strictness; subjective scores carry Criteria. Score is on the 0–10 scale.
type Score struct {
	Rule       string           `json:"rule"`
	Type       RuleType         `json:"type"`
	Score      Rounded1         `json:"score"`
	Violations *int             `json:"violations,omitempty"`
	Words      *int             `json:"words,omitempty"`
	Strictness *float64         `json:"strictness,omitempty"`
	Criteria   []CriterionScore `json:"criteria,omitempty"`
	// Coverage is set for a rule's `should` list scored by the points engine (0–1).
	Coverage *float64 `json:"coverage,omitempty"`
	// Partial is set when the score was computed from part of the rule's text: with
	// --changed-lines, only the chunks that hold a changed line were sent to the model.
	Partial bool `json:"partial,omitempty"`
	// Skipped says why the rule was scored without a model call: "no prose" (SkippedNoProse)
	// when the text it evaluates has no words once its skipped scopes are left out; the rule
	// then passes (docs/rules.md, "Nothing to say, nothing sent").
	Skipped string `json:"skipped,omitempty"`
	// Samples is the number of samples the rule's model evaluation took when it took more
	// than one (docs/configuration.md, "Samples"): its violations are those a strict majority
	// of them reported, its criteria's ratings the median of theirs. 0 (not written) for one.
	Samples int `json:"samples,omitempty"`
}

// SkippedNoProse is Score.Skipped for a rule whose text has no prose to evaluate: empty, front
// matter only, or code and markup only.
const SkippedNoProse = "no prose"

// CriterionScore is one subjective criterion's rating (1–4) and normalised score (1–10).
type CriterionScore struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Rating int      `json:"rating"`
	Score  Rounded1 `json:"score"`
	Weight float64  `json:"weight"`
}

// Rounded1 is a score serialised rounded to one decimal (docs/output-formats.md). The full
// precision value is kept for arithmetic.
type Rounded1 float64

// MarshalJSON writes the value rounded to one decimal, e.g. 3.5 or 10.0, rounding ties away
// from zero as the original VectorLint's toFixed(1) does (9.25 → 9.3, where %.1f gives 9.2).
func (r Rounded1) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(jsjson.Round(float64(r), 1), 'f', 1, 64)), nil
}

// Unverified is a violation the model reported whose quote could not be found in the text. It is
// not a finding and does not count in the score, but it is never dropped silently.
type Unverified struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Quote   string `json:"quote"`
	Line    int    `json:"line,omitempty"`
}

// RuleError is an operational failure of one rule on one file (an LLM call that failed after
// retries, a reply that broke the contract). Other rules' results on the file are kept.
type RuleError struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// RunError is a failure of the whole run rather than of one rule on one file: no model is
// configured, or the model's endpoint refused the connection, could not be resolved or
// reached over TLS, rejected the key, refused access or has no such model. The rule runs it
// kept from completing are counted, never listed one by one: one cause, reported once, instead
// of the same error on every rule of every file.
type RunError struct {
	// Cause is the failure in a few words: "connection refused to 127.0.0.1:9", "no LLM
	// provider is configured".
	Cause string `json:"cause"`
	// Message is the whole message: the provider, the host, the cause and what to change.
	Message string `json:"message"`
	// NotRun is the number of rule runs (one rule on one file) it kept from completing.
	NotRun int `json:"notRun"`
}

// FileResult is everything a run produced for one file. Its native JSON shape is written by
// MarshalJSON and read by ReadJSON.
type FileResult struct {
	Path       string
	Findings   []Finding
	Scores     []Score
	Unverified []Unverified
	Errors     []RuleError
	// NotRun counts the rules that could not complete on this file because of a RunError
	// (the run's RunErrors say why); their deterministic findings and scores are kept.
	NotRun int
	// Ignored counts the violations the model reported inside skipped scopes (code, URLs,
	// markup: docs/configuration.md), dropped (absent when none).
	Ignored int
	// Baselined counts the findings hidden by the run's baseline (--baseline,
	// docs/output-formats.md): accepted before, not reported, not in the exit code.
	Baselined int
	// Source is the file's content as it was linted and SourceFile the file it was read from
	// ("" for standard input), kept only when the run was asked to (lint.EvalOptions.KeepSource):
	// the bytes the findings' offsets and edits refer to. They are not written.
	Source     []byte
	SourceFile string
}

// Skipped is a file that was found but not linted, with the reason.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Words and MaxDocumentWords are set for a document not sent because its prose has more
	// words than the MaxDocumentWords limit (docs/configuration.md): its size and the limit.
	// Such a file is worth a line in every output, not only a verbose one.
	Words            int `json:"words,omitempty"`
	MaxDocumentWords int `json:"maxDocumentWords,omitempty"`
}

// Usage counts LLM calls and tokens, as the native JSON output's "usage" writes them: the model
// client's totals (llm.Usage converts into it). Calls counts replies the server produced;
// CachedCalls the replies served from the cache or shared by an identical call in flight, which
// cost no tokens. CachedInputTokens and CacheWriteTokens are the part of InputTokens the
// provider read from its prompt cache and wrote to it (absent when none; docs/providers.md,
// "Prompt caching"). Cost is nil unless prices are configured.
type Usage struct {
	Calls             int      `json:"calls"`
	CachedCalls       int      `json:"cachedCalls"`
	InputTokens       int64    `json:"inputTokens"`
	OutputTokens      int64    `json:"outputTokens"`
	CachedInputTokens int64    `json:"cachedInputTokens,omitempty"`
	CacheWriteTokens  int64    `json:"cacheWriteTokens,omitempty"`
	Cost              *float64 `json:"cost"`
	// CachedPriceAssumed is set when Cost priced cached input tokens at the provider table's
	// share of the input price because CACHED_INPUT_PRICE_PER_MILLION is not set
	// (docs/providers.md, "Prompt caching"); the line footer says so. Not in the JSON output.
	CachedPriceAssumed bool `json:"-"`
}

// Summary totals a run's files.
type Summary struct {
	Files    int `json:"files"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Suggestions counts findings at suggestion severity (absent when none).
	Suggestions       int `json:"suggestions,omitempty"`
	Unverified        int `json:"unverified"`
	OperationalErrors int `json:"operationalErrors"`
	// NotRun is the number of rule runs that could not complete because of the run's
	// RunErrors (absent when none).
	NotRun int `json:"notRun,omitempty"`
	// Ignored is the number of violations dropped because they lie inside skipped scopes
	// (absent when none).
	Ignored int `json:"ignored,omitempty"`
	// Baselined is the number of findings hidden by the baseline (absent when none).
	Baselined int `json:"baselined,omitempty"`
}

// Add counts one file's result into the summary: the file, its findings by severity, its
// unverified quotes, its operational errors and the rule runs it could not complete. It is the
// one place a summary is computed: a run, a stream of files, a merge of runs and the reader of
// the json output all total their files with it.
func (s *Summary) Add(fr FileResult) {
	s.Files++
	for _, f := range fr.Findings {
		switch f.Severity {
		case SeverityError:
			s.Errors++
		case SeverityWarning:
			s.Warnings++
		case SeveritySuggestion:
			s.Suggestions++
		}
	}
	s.Unverified += len(fr.Unverified)
	s.OperationalErrors += len(fr.Errors)
	s.NotRun += fr.NotRun
	s.Ignored += fr.Ignored
	s.Baselined += fr.Baselined
}

// atOrAbove is the number of findings at or above severity sev.
func (s Summary) atOrAbove(sev Severity) int {
	n := 0
	if sev <= SeverityError {
		n += s.Errors
	}
	if sev <= SeverityWarning {
		n += s.Warnings
	}
	if sev <= SeveritySuggestion {
		n += s.Suggestions
	}
	return n
}

// Totals close a run: the counts over all its files, the LLM usage, the files that were found
// but not linted, and what kept the run from doing all its work.
type Totals struct {
	Skipped []Skipped `json:"skipped,omitempty"`
	// RunErrors are the failures of the whole run, each with the count of rule runs it kept
	// from completing (absent when none).
	RunErrors []RunError `json:"runErrors,omitempty"`
	Summary   Summary    `json:"summary"`
	Usage     Usage      `json:"usage"`
	// Interrupted lists, in path order, the files an interruption (Ctrl-C) left unfinished:
	// not in the run's files, not reported. The JSON output has no place for it; the totals
	// line and standard error say it.
	Interrupted []string `json:"-"`
}

// Complete reports whether the run did all its work: every file was read and every rule ran
// on it, no failure of the whole run, nothing left unfinished by an interruption. The command
// exits 2 otherwise.
func (t Totals) Complete() bool {
	s := t.Summary
	return s.OperationalErrors == 0 && s.NotRun == 0 && len(t.RunErrors) == 0 && len(t.Interrupted) == 0
}

// Result is a whole run: every linted file sorted by path, and the run's totals. It is what
// the native JSON output holds, with Version the vectorlint version that wrote it.
type Result struct {
	Version string       `json:"version"`
	Files   []FileResult `json:"files"`
	Totals
}
