package blueprint

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestParseKeyPoints reads extraction replies as Weval's extractKeyPoints does
// (src/cli/services/llm-evaluation-service.ts: /<key_point>([\s\S]*?)<\/key_point>/gsi, each
// trimmed).
func TestParseKeyPoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reply string
		want  []string
		err   string
	}{
		{reply: "<key_point>Paris is the capital.</key_point>\n<key_point>It lies on the Seine.</key_point>", want: []string{"Paris is the capital.", "It lies on the Seine."}},
		{reply: "Here:\n<KEY_POINT>\n  spans\n  lines \n</Key_Point> and <key_point></key_point><key_point>  </key_point>", want: []string{"spans\n  lines"}},
		{reply: "Paris is the capital.", err: `expected key points in <key_point>…</key_point> tags, found "Paris is the capital."`},
		{reply: "<key_point>unclosed", err: `expected key points in <key_point>…</key_point> tags, found "<key_point>unclosed"`},
	}
	for _, tt := range tests {
		got, err := parseKeyPoints(tt.reply)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseKeyPoints(%q) error %v, want %s", tt.reply, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseKeyPoints(%q) = %q, %v; want %q", tt.reply, got, err, tt.want)
		}
	}
}

func TestExtractionModels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, header string
		judges       []JudgeSpec
		want         []string
	}{
		{name: "Weval's defaults", want: []string{"openai:gpt-4o-mini", "openrouter:google/gemini-1.5-flash-latest"}},
		{name: "the command's judges", judges: []JudgeSpec{{Model: "ollama:a"}, {Model: "ollama:b"}, {Model: "ollama:a"}}, want: []string{"ollama:a", "ollama:b"}},
		{name: "the blueprint's judges", header: "evaluationConfig:\n  llm-coverage:\n    judges: [{model: 'groq:x', approach: standard}]\n", want: []string{"groq:x"}},
		{name: "legacy judgeModels, as Weval", header: "evaluationConfig:\n  llm-coverage:\n    judgeModels: ['xai:y']\n", want: []string{"xai:y"}},
	}
	for _, tt := range tests {
		bp := parseTestBlueprint(t, tt.header+"---\n- {id: p, prompt: Q}\n")
		if got := extractionModels(bp, tt.judges); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestExtractKeyPoints sends Weval's extraction prompt word for word (extractKeyPoints in
// src/cli/services/llm-evaluation-service.ts, with getPromptContextString of
// src/cli/evaluators/llm-coverage-evaluator.ts as the prompt), and tries the next model when
// one fails: a reply without key points is asked again once first.
func TestExtractKeyPoints(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	first := srv.On(llmtest.ModelIs("gpt-4o-mini"), llmtest.Text("I cannot find any."))
	srv.SetDefault(llmtest.Text("<key_point>Names Paris</key_point>"))
	env := func(k string) (string, bool) {
		v, ok := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL, "OPENROUTER_API_KEY": "k", "OPENROUTER_BASE_URL": srv.URL}[k]
		return v, ok
	}
	bp := parseTestBlueprint(t, "- id: p\n  messages:\n    - system: Be brief.\n    - user: Capital of France?\n    - assistant: null\n    - user: And its river?\n  ideal: Paris, on the Seine.\n")
	ex, err := newLLMExtractor(extractorOptions{Client: newRunClient(t, nil), LookupEnv: envsource.LookupFunc(env), Models: defaultExtractionModels()})
	if err != nil {
		t.Fatal(err)
	}
	kps, err := ex.ExtractKeyPoints(context.Background(), bp.Prompts[0])
	if err != nil || !reflect.DeepEqual(kps, []string{"Names Paris"}) {
		t.Fatalf("key points %q, %v", kps, err)
	}
	reqs := srv.Requests()
	if first.Hits() != 2 || len(reqs) != 3 || reqs[2].Model != "google/gemini-1.5-flash-latest" {
		t.Fatalf("%d requests to the first model, %d in all", first.Hits(), len(reqs))
	}
	r := reqs[0]
	wantUser := "\nExtract the most essential pieces of information, requirements, or advice from the <IDEAL_RESPONSE> below, considering it's an answer to the <PROMPT>. \n" +
		"Distill these into distinct key points. Each key point MUST be enclosed in <key_point> and </key_point> tags. \n" +
		"For example: <key_point>This is a key point.</key_point> \n" +
		"Return ONLY the key points in this format, with each key point on a new line if possible, but the tags are the most important part.\n\n" +
		"<PROMPT>\nsystem: Be brief.\n--------------------\nuser: Capital of France?\n--------------------\nassistant (placeholder-null): <TO_BE_GENERATED>\n--------------------\nuser: And its river?\n</PROMPT>\n\n" +
		"<IDEAL_RESPONSE>\nParis, on the Seine.\n</IDEAL_RESPONSE>\n"
	if len(r.Messages) != 2 || !strings.HasPrefix(r.Messages[0].Content, "Your role is to extract the most pertinent") || r.Messages[1].Content != wantUser ||
		*r.Temperature != 0.1 || *r.MaxTokens != 2000 {
		t.Errorf("request %+v\nuser %q\nwant %q", r, r.Messages[1].Content, wantUser)
	}
	if !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "expected key points in <key_point>") {
		t.Errorf("the retry does not quote the problem: %+v", reqs[1].Messages)
	}
}
