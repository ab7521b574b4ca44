package blueprint

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// KeyPointExtractor distils a prompt's ideal response into key points, the rubric of a prompt
// that has an ideal response and no points of its own.
type KeyPointExtractor interface {
	ExtractKeyPoints(ctx context.Context, p *Prompt) ([]string, error)
}

// defaultExtractionModels returns the models Weval tries, in order, to extract key points when
// the blueprint names no judge models (extractKeyPoints in
// src/cli/services/llm-evaluation-service.ts).
func defaultExtractionModels() []string {
	return []string{"openai:gpt-4o-mini", "openrouter:google/gemini-1.5-flash-latest"}
}

// extractionModels returns the models that extract key points for a run: the judges' models
// (the command's, else the blueprint's evaluationConfig judges or legacy judgeModels), each
// once, else defaultExtractionModels. Weval uses only the legacy judgeModels; a blueprint that
// sends its judging to chosen models should not have its ideal responses sent elsewhere.
func extractionModels(bp *Blueprint, judges []JudgeSpec) []string {
	if len(judges) == 0 {
		var custom bool
		if judges, custom = judgesOf(bp); !custom {
			return defaultExtractionModels()
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, j := range judges {
		if !seen[j.Model] {
			seen[j.Model] = true
			out = append(out, j.Model)
		}
	}
	return out
}

// Extraction request settings, Weval's (extractKeyPoints): a low temperature and room for a
// long list.
const (
	extractionTemperature = 0.1
	extractionMaxTokens   = 2000
)

// extractionSystem is Weval's system prompt for key point extraction, word for word.
const extractionSystem = `Your role is to extract the most pertinent pieces of content and advice covered in any given response to a prompt. You are trying to distil the key things from a response in a set of points. Be concise and focus on distinct aspects. Ensure each key point is enclosed in <key_point> and </key_point> tags.`

// extractionPrompt is Weval's user message for key point extraction, word for word; %s are the
// prompt's context and the ideal response.
const extractionPrompt = `
Extract the most essential pieces of information, requirements, or advice from the <IDEAL_RESPONSE> below, considering it's an answer to the <PROMPT>. 
Distill these into distinct key points. Each key point MUST be enclosed in <key_point> and </key_point> tags. 
For example: <key_point>This is a key point.</key_point> 
Return ONLY the key points in this format, with each key point on a new line if possible, but the tags are the most important part.

<PROMPT>
%s
</PROMPT>

<IDEAL_RESPONSE>
%s
</IDEAL_RESPONSE>
`

var keyPointRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<key_point>(.*?)</key_point>`) })

// parseKeyPoints returns the key points of an extraction reply: the text of each
// <key_point>…</key_point> (tags in any case, spanning lines), trimmed, empty ones left out.
func parseKeyPoints(reply string) ([]string, error) {
	var out []string
	for _, m := range keyPointRe().FindAllStringSubmatch(reply, -1) {
		if kp := strings.TrimSpace(m[1]); kp != "" {
			out = append(out, kp)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("expected key points in <key_point>…</key_point> tags, found %q", shorten(reply, 200))
	}
	return out, nil
}

// promptContextText is the prompt as the extraction sees it, Weval's getPromptContextString:
// each message "role: content", a turn to generate "assistant (placeholder-null):
// <TO_BE_GENERATED>", separated by a line of dashes.
func promptContextText(p *Prompt) string {
	parts := make([]string, len(p.Messages))
	for i, m := range p.Messages {
		if m.Content == nil {
			parts[i] = m.Role + " (placeholder-null): <TO_BE_GENERATED>"
			continue
		}
		parts[i] = m.Role + ": " + *m.Content
	}
	return strings.Join(parts, "\n--------------------\n")
}

// extractorOptions control newLLMExtractor.
type extractorOptions struct {
	// Client makes the calls (cache, retries, limits, usage).
	Client *llm.Client
	// LookupEnv reads the models' keys and base URLs.
	LookupEnv envsource.Vars
	// Models are tried in order until one extracts key points (extractionModels).
	Models []string
	// ProviderConcurrency limits the calls in flight to one provider
	// (DefaultProviderConcurrency when 0).
	ProviderConcurrency int
}

// llmExtractor extracts key points with models, as Weval does: each model in turn is sent
// Weval's extraction prompt, and the first that answers with key points gives them. A reply
// without any is sent back once with the problem quoted (llm.CompleteChecked), then the next
// model is tried.
type llmExtractor struct {
	client  *llm.Client
	targets []extractionTarget
}

type extractionTarget struct {
	model string
	ep    llm.Endpoint
	err   error
}

// newLLMExtractor builds the extractor of a run. Models that cannot be reached are kept and
// fail with that error; Unavailable lists them.
func newLLMExtractor(opts extractorOptions) (*llmExtractor, error) {
	if opts.Client == nil {
		return nil, errors.New("blueprint: NewLLMExtractor needs ExtractorOptions.Client")
	}
	if opts.ProviderConcurrency <= 0 {
		opts.ProviderConcurrency = DefaultProviderConcurrency
	}
	e := &llmExtractor{client: opts.Client}
	for _, m := range opts.Models {
		ep, err := llm.ModelEndpoint(opts.LookupEnv, m)
		if err == nil {
			err = opts.Client.CheckTrust(ep)
		}
		ep.MaxConcurrency = opts.ProviderConcurrency
		ep.SettingNames.Model = "the key point extraction model " + m + " (--judge, or the blueprint's judges)"
		e.targets = append(e.targets, extractionTarget{model: m, ep: ep, err: err})
	}
	return e, nil
}

// unavailableModels returns, for each model that cannot be called, why.
func (e *llmExtractor) unavailableModels() []error {
	var out []error
	for _, t := range e.targets {
		if t.err != nil {
			out = append(out, fmt.Errorf("key point extraction model %s cannot be used: %w", t.model, t.err))
		}
	}
	return out
}

// ExtractKeyPoints asks each model in turn for the key points of the prompt's ideal response.
func (e *llmExtractor) ExtractKeyPoints(ctx context.Context, p *Prompt) ([]string, error) {
	if p.Ideal == nil {
		return nil, fmt.Errorf("prompt %q has no ideal response", p.ID)
	}
	if len(e.targets) == 0 {
		return nil, errors.New("no model to extract key points with")
	}
	user := fmt.Sprintf(extractionPrompt, promptContextText(p), *p.Ideal)
	temp := extractionTemperature
	check := func(content string) error {
		_, err := parseKeyPoints(content)
		return err
	}
	var failed []string
	for _, t := range e.targets {
		err := t.err
		if err == nil {
			var resp *llm.Response
			resp, err = e.client.CompleteChecked(ctx, llm.Request{Endpoint: t.ep,
				Messages:    []llm.Message{{Role: llm.RoleSystem, Content: extractionSystem}, {Role: llm.RoleUser, Content: user}},
				Temperature: &temp, MaxTokens: extractionMaxTokens, Label: "extract key points " + p.ID}, check)
			if err == nil {
				return parseKeyPoints(resp.Content)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		failed = append(failed, t.model+": "+err.Error())
	}
	return nil, errors.New(strings.Join(failed, "; "))
}

// needsKeyPoints reports whether a prompt gets its points from its ideal response: it has one,
// and no point of its own (implicit tool points count as points).
func needsKeyPoints(p *Prompt) bool {
	return p.Ideal != nil && len(p.Rubric().Points()) == 0
}

// keyPointRubric is the rubric of extracted key points: each an LLM-judged point of weight 1.
func keyPointRubric(kps []string) rubric.Rubric {
	var r rubric.Rubric
	for _, kp := range kps {
		r.Should = append(r.Should, rubric.Entry{Point: &rubric.Point{Text: kp, Multiplier: 1}})
	}
	return r
}

// extractKeyPoints extracts the key points of every prompt that needs them and has something
// to score, at once; a prompt whose extraction failed maps to its error.
func extractKeyPoints(ctx context.Context, ex KeyPointExtractor, prompts []*Prompt) (map[string][]string, map[string]error) {
	kps := make([][]string, len(prompts))
	errs := make([]error, len(prompts))
	// A prompt's failure is its own: no goroutine returns an error.
	var g errgroup.Group
	g.SetLimit(maxPairsInFlight)
	for i, p := range prompts {
		g.Go(func() error {
			kps[i], errs[i] = ex.ExtractKeyPoints(ctx, p)
			return nil
		})
	}
	_ = g.Wait()
	got, failed := map[string][]string{}, map[string]error{}
	for i, p := range prompts {
		if errs[i] != nil {
			failed[p.ID] = errs[i]
		} else {
			got[p.ID] = kps[i]
		}
	}
	return got, failed
}
