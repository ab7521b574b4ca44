package blueprint

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/points"
)

// Responses are model responses given to a run instead of generating them (`blueprint run
// --responses FILE`), read from JSON Lines or from Weval's fixtures JSON.
type Responses struct {
	// File is the path the responses were read from.
	File string

	byPrompt map[string]map[string][]string
	defaults map[string][]string
	models   []string
	lines    map[string]int // first line mentioning each prompt id

	// Set by Generate: whether the responses were generated, the conversations as sent (with
	// the variant's system prompt) and which of their messages were generated, and the pairs
	// whose generation failed.
	generated      bool
	histories      map[string]map[string][]points.Message
	generatedFlags map[string]map[string][]bool
	failures       map[string]map[string]string
	// stopped holds, for the failed pairs whose failure is the run's (runWide) or the circuit
	// breaker's, that failure.
	stopped map[string]map[string]error
	// tripped are the circuit breakers that opened (*BreakerError), in order.
	tripped []error
}

// trippedBreakers returns the circuit breakers that opened during generation (*BreakerError), in the
// order they opened: each model skipped for the rest of the run.
func (r *Responses) trippedBreakers() []error { return append([]error(nil), r.tripped...) }

func newResponses(file string) *Responses {
	return &Responses{File: file, byPrompt: map[string]map[string][]string{}, defaults: map[string][]string{}, lines: map[string]int{},
		histories: map[string]map[string][]points.Message{}, generatedFlags: map[string]map[string][]bool{}, failures: map[string]map[string]string{}}
}

// failureOf returns why the generation of a prompt × model failed ("", false when it did not,
// or when the responses were not generated).
func (r *Responses) failureOf(promptID, modelID string) (string, bool) {
	msg, ok := r.failures[promptID][modelID]
	return msg, ok
}

// stopOf returns the run-wide failure behind a pair's failure (runWide), or nil.
func (r *Responses) stopOf(promptID, modelID string) error {
	return r.stopped[promptID][modelID]
}

// isGenerated reports whether the responses come from Generate rather than a file.
func (r *Responses) isGenerated() bool { return r.generated }

// LoadResponses reads a responses file (through a root at its folder).
func LoadResponses(path string) (*Responses, error) {
	data, err := readFile(nil, path)
	if err != nil {
		return nil, err
	}
	return ParseResponses(data, path)
}

// ParseResponses reads responses in either format:
//
//   - JSON Lines: one {"promptId": "…", "model": "…", "response": "…"} per line, or with
//     "turns": ["…", "…"] instead of "response" for a prompt with several generated turns;
//   - Weval's fixtures JSON: {"responses": {"<promptId>": {"default": "…" | ["…"],
//     "byModel": {"<model>": "…" | ["…"]}}}}.
//
// Errors name the file and line, what was expected and what was found.
func ParseResponses(data []byte, file string) (*Responses, error) {
	r := newResponses(file)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: expected JSON Lines or fixtures JSON with responses, found an empty file", file)
	}
	if trimmed[0] == '{' {
		if n, err := node.DecodeJSON(trimmed); err == nil && n.Kind == node.MapKind && n.Get("responses") != nil {
			if err := r.fixtures(n, lineOffset(data, trimmed)); err != nil {
				return nil, err
			}
			return r, nil
		}
	}
	if err := r.jsonLines(data); err != nil {
		return nil, err
	}
	return r, nil
}

// lineOffset returns how many lines precede trimmed within data.
func lineOffset(data, trimmed []byte) int {
	i := bytes.Index(data, trimmed)
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte{'\n'})
}

func (r *Responses) errf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", r.File, line, fmt.Sprintf(format, args...))
}

func (r *Responses) add(line int, prompt, model string, turns []string) error {
	m := r.byPrompt[prompt]
	if m == nil {
		m = map[string][]string{}
		r.byPrompt[prompt] = m
		r.lines[prompt] = line
	}
	if _, dup := m[model]; dup {
		return r.errf(line, "a second response for prompt %q and model %q; each pair may be given once", prompt, model)
	}
	m[model] = turns
	r.addModel(model)
	return nil
}

func (r *Responses) addModel(model string) {
	for _, m := range r.models {
		if m == model {
			return
		}
	}
	r.models = append(r.models, model)
}

func (r *Responses) jsonLines(data []byte) error {
	var errs []error
	for i, raw := range bytes.Split(data, []byte{'\n'}) {
		line := i + 1
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if len(errs) >= 20 {
			errs = append(errs, fmt.Errorf("%s: more errors not shown", r.File))
			break
		}
		n, err := node.DecodeJSON(raw)
		if err != nil {
			var se *node.SyntaxError
			if errors.As(err, &se) {
				err = r.errf(line, "expected a JSON object {\"promptId\", \"model\", \"response\"}: %s", se.Reason)
			}
			errs = append(errs, err)
			continue
		}
		if n.Kind != node.MapKind {
			errs = append(errs, r.errf(line, "expected a JSON object {\"promptId\", \"model\", \"response\"}, found %s", n.Describe()))
			continue
		}
		prompt, ok1 := nonEmptyString(n.Get("promptId"))
		model, ok2 := nonEmptyString(n.Get("model"))
		if !ok1 {
			errs = append(errs, r.errf(line, "expected \"promptId\" to be a non-empty string, found %s", n.Get("promptId").Describe()))
			continue
		}
		if !ok2 {
			errs = append(errs, r.errf(line, "expected \"model\" to be a non-empty string, found %s", n.Get("model").Describe()))
			continue
		}
		resp, turns := n.Get("response"), n.Get("turns")
		var got []string
		switch {
		case resp != nil && turns != nil:
			errs = append(errs, r.errf(line, "expected \"response\" or \"turns\", found both"))
			continue
		case resp != nil:
			if resp.Kind != node.StringKind {
				errs = append(errs, r.errf(line, "expected \"response\" to be a string, found %s", resp.Describe()))
				continue
			}
			got = []string{resp.Str}
		case turns != nil:
			var err error
			if got, err = stringList(turns); err != nil {
				errs = append(errs, r.errf(line, "expected \"turns\" to be a non-empty list of strings, found %s", turns.Describe()))
				continue
			}
		default:
			errs = append(errs, r.errf(line, "expected \"response\" (a string) or \"turns\" (a list of strings), found neither"))
			continue
		}
		if err := r.add(line, prompt, model, got); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if len(r.byPrompt) == 0 {
		return fmt.Errorf("%s: expected at least one response, found none", r.File)
	}
	return nil
}

func nonEmptyString(n *node.Node) (string, bool) {
	if n == nil || n.Kind != node.StringKind || n.Str == "" {
		return "", false
	}
	return n.Str, true
}

// stringList reads a string (one turn) or a non-empty list of strings.
func stringList(n *node.Node) ([]string, error) {
	if n.Kind == node.StringKind {
		return []string{n.Str}, nil
	}
	if n.Kind != node.ListKind || len(n.Items) == 0 {
		return nil, errors.New("not a list")
	}
	out := make([]string, len(n.Items))
	for i, item := range n.Items {
		if item.Kind != node.StringKind {
			return nil, errors.New("not a string")
		}
		out[i] = item.Str
	}
	return out, nil
}

// fixtureShapes names the forms of a fixture response, for errors.
const fixtureShapes = `a string, a non-empty list of strings or {"turns": [...]}`

// fixtureTurns reads the generated turns of a fixture response: a string (one turn), a
// non-empty list of strings (one a turn), or Weval's {"turns": ["…"], "final": "…"}: the turns
// of the `assistant: null` messages, then the final turn when given. The error is what was
// found instead.
func fixtureTurns(n *node.Node) ([]string, error) {
	if n.Kind != node.MapKind {
		turns, err := stringList(n)
		if err != nil {
			return nil, errors.New(n.Describe())
		}
		return turns, nil
	}
	for _, k := range n.Keys {
		if k.Str != "turns" && k.Str != "final" {
			return nil, fmt.Errorf("the key %q", k.Str)
		}
	}
	t := n.Get("turns")
	if t == nil {
		return nil, errors.New("an object without \"turns\"")
	}
	turns, err := stringList(t)
	if err != nil || t.Kind != node.ListKind {
		return nil, fmt.Errorf("\"turns\" as %s", t.Describe())
	}
	if f := n.Get("final"); f != nil {
		if f.Kind != node.StringKind {
			return nil, fmt.Errorf("\"final\" as %s", f.Describe())
		}
		turns = append(turns, f.Str)
	}
	return turns, nil
}

func (r *Responses) fixtures(n *node.Node, offset int) error {
	resp := n.Get("responses")
	if resp.Kind != node.MapKind {
		return r.errf(resp.Line+offset, "expected \"responses\" to map prompt ids to {default, byModel}, found %s", resp.Describe())
	}
	for i, k := range resp.Keys {
		prompt, v := k.Str, resp.Vals[i]
		line := v.Line + offset
		if v.Kind != node.MapKind {
			return r.errf(line, "prompt %q: expected {\"default\": …, \"byModel\": {…}}, found %s", prompt, v.Describe())
		}
		for _, kk := range v.Keys {
			// "notes" documents a fixture in Weval's format (FixtureResponseSpec) and is ignored.
			if kk.Str != "default" && kk.Str != "byModel" && kk.Str != "notes" {
				return r.errf(kk.Line+offset, "prompt %q: unknown key %q (expected \"default\", \"byModel\" or \"notes\")", prompt, kk.Str)
			}
		}
		if r.lines[prompt] == 0 {
			r.lines[prompt] = line
		}
		if d := v.Get("default"); d != nil {
			turns, err := fixtureTurns(d)
			if err != nil {
				return r.errf(d.Line+offset, "prompt %q: expected \"default\" to be %s, found %s", prompt, fixtureShapes, err)
			}
			r.defaults[prompt] = turns
		}
		if bm := v.Get("byModel"); bm != nil {
			if bm.Kind != node.MapKind {
				return r.errf(bm.Line+offset, "prompt %q: expected \"byModel\" to map model ids to responses, found %s", prompt, bm.Describe())
			}
			for j, mk := range bm.Keys {
				turns, err := fixtureTurns(bm.Vals[j])
				if err != nil {
					return r.errf(bm.Vals[j].Line+offset, "prompt %q, model %q: expected %s, found %s", prompt, mk.Str, fixtureShapes, err)
				}
				if err := r.add(mk.Line+offset, prompt, normaliseModelID(mk.Str), turns); err != nil {
					return err
				}
			}
		}
		if v.Get("default") == nil && v.Get("byModel") == nil {
			return r.errf(line, "prompt %q: expected \"default\" or \"byModel\", found neither", prompt)
		}
	}
	if len(resp.Keys) == 0 {
		return r.errf(resp.Line+offset, "expected at least one prompt under \"responses\", found none")
	}
	return nil
}

// Models returns the model ids that have responses, in order of first appearance.
func (r *Responses) Models() []string { return append([]string(nil), r.models...) }

// hasDefaults reports whether some prompt has a "default" response (fixtures only), which
// applies to every model without a response of its own.
func (r *Responses) hasDefaults() bool { return len(r.defaults) > 0 }

// Turns returns the generated turns given for a prompt and model: the model's own, else the
// prompt's default.
func (r *Responses) Turns(promptID, modelID string) ([]string, bool) {
	if t, ok := r.byPrompt[promptID][modelID]; ok {
		return t, true
	}
	t, ok := r.defaults[promptID]
	return t, ok
}

// fixture returns the turns a fixtures file gives a prompt × model variant: the variant's own
// (its effective id, such as "openai:gpt-4o[temp:0.7]"), else its model's ("openai:gpt-4o"),
// else a byModel key ending in "*" that prefixes the model id ("openai:gpt-4o*"), else the
// prompt's default; Weval's pickFixtureValue (src/lib/fixtures-service.ts) looks up the model,
// the wildcard and the default the same way.
func (r *Responses) fixture(promptID, variantID, modelID string) ([]string, bool) {
	byModel := r.byPrompt[promptID]
	for _, id := range []string{variantID, modelID} {
		if t, ok := byModel[id]; ok {
			return t, true
		}
	}
	var keys []string
	for k := range byModel {
		if strings.HasSuffix(k, "*") && strings.HasPrefix(modelID, strings.TrimSuffix(k, "*")) {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) }) // the most specific
		return byModel[keys[0]], true
	}
	t, ok := r.defaults[promptID]
	return t, ok
}

// unknownPrompts returns a warning for each prompt id the responses mention that the blueprint
// does not have (its responses are ignored).
func (r *Responses) unknownPrompts(bp *Blueprint) []string {
	known := map[string]bool{}
	for _, p := range bp.Prompts {
		known[p.ID] = true
	}
	var out []string
	for _, id := range r.PromptIDs() {
		if !known[id] {
			out = append(out, fmt.Sprintf("%s:%d: responses for prompt %q, which the blueprint does not have (ignored)", r.File, r.lineOf(id), id))
		}
	}
	return out
}

// PromptIDs returns every prompt id mentioned, sorted.
func (r *Responses) PromptIDs() []string {
	out := make([]string, 0, len(r.lines))
	for id := range r.lines {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// lineOf returns the first line mentioning a prompt id (0 when unknown).
func (r *Responses) lineOf(promptID string) int { return r.lines[promptID] }
