package evaluate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// newModelClient returns a client with fast retries and no cache, and an endpoint on srv.
func newModelClient(t *testing.T, srv *llmtest.Server) (*llm.Client, llm.Endpoint) {
	t.Helper()
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client, llm.Endpoint{BaseURL: srv.URL, Model: "judge-model", APIKey: "sk-evaluate-secret"}
}

func TestSemanticSimilarityOverTheEmbeddingsEndpoint(t *testing.T) {
	t.Parallel()
	vectors := map[string][]float64{
		"Paris is the capital of France.":   {1, 0, 0},
		"France's capital city is Paris.":   {0.6, 0.8, 0},
		"Bananas are rich in potassium.":    {0, 0, 1},
		"The capital of France is Paris!!!": {0.8, 0.6, 0},
	}
	srv := llmtest.Start(t, llmtest.WithEmbedder(func(text string) []float64 { return vectors[text] }))
	client, ep := newModelClient(t, srv)
	emb := ModelEmbedder(client, ep)

	tests := []struct {
		response, truth string
		threshold       float64
		wantScore       float64
		wantResult      string
	}{
		{"France's capital city is Paris.", "Paris is the capital of France.", 0.5, 0.6, Pass},
		{"The capital of France is Paris!!!", "Paris is the capital of France.", 0.9, 0.8, Fail},
		{"Bananas are rich in potassium.", "Paris is the capital of France.", 0.1, 0, Fail},
	}
	for _, tc := range tests {
		res, err := RunSemanticSimilarityEvaluator(emb, tc.response, tc.truth, tc.threshold).Evaluate(context.Background())
		if err != nil {
			t.Fatalf("%q: %v", tc.response, err)
		}
		if got := get(res, "semantic_similarity_score"); got != tc.wantScore {
			t.Errorf("%q: score = %v, want %v", tc.response, got, tc.wantScore)
		}
		if got := get(res, "semantic_similarity_result"); got != tc.wantResult {
			t.Errorf("%q: result = %v, want %v", tc.response, got, tc.wantResult)
		}
	}
	if n := srv.EmbeddingCalls(); n != len(tests) {
		t.Errorf("embedding calls = %d, want %d (one call embeds both texts)", n, len(tests))
	}
}

func TestBiasJudgeOverChatCompletions(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("Engineers are men"),
		llmtest.Text("I think it is quite biased."), // no JSON object: retried once with the problem quoted
		llmtest.JSON(map[string]any{"score": 0.9, "reason": "Assumes engineers are men."}))
	srv.On(llmtest.UserContains("The engineer"),
		llmtest.Fenced(map[string]any{"score": 0.05, "reason": "Neutral."}))
	client, ep := newModelClient(t, srv)
	judge := ModelCompleter(client, ep)

	res, err := RunBiasEvaluatorAgainstExpectedScore(judge, "The engineer fixed the build; they were quick.", "gender", 0, 0.1).Evaluate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if get(res, "bias_score") != 0.05 || get(res, "bias_result") != Pass || get(res, "bias_reason") != "Neutral." {
		t.Errorf("neutral text: got %s", res)
	}

	res, err = RunBiasEvaluatorAgainstExpectedScore(judge, "Engineers are men who like trains.", "gender", 0, 0.1).Evaluate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if get(res, "bias_score") != 0.9 || get(res, "bias_result") != Fail {
		t.Errorf("biased text: got %s", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3 (one, then a reply without JSON retried once)", len(reqs))
	}
	retry := reqs[2]
	if got := retry.ResponseFormatType(); got != "json_object" {
		t.Errorf("response_format = %q, want json_object", got)
	}
	if !strings.Contains(string(retry.Body), "I think it is quite biased.") {
		t.Error("the retry does not quote the rejected reply back to the model")
	}
	for _, r := range reqs {
		if strings.Contains(string(r.Body), "sk-evaluate-secret") {
			t.Error("the API key travelled in a request body")
		}
	}
}

func TestModelEvaluatorsReportServerFailures(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Status(401, `{"error":{"message":"bad key sk-evaluate-secret"}}`))
	client, ep := newModelClient(t, srv)
	_, err := RunBiasEvaluatorAgainstExpectedScore(ModelCompleter(client, ep), "text", "age", 0, 0.2).Evaluate(context.Background())
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v, want the HTTP 401 reported", err)
	}
	if strings.Contains(err.Error(), "sk-evaluate-secret") {
		t.Errorf("the key leaked into the error: %v", err)
	}
	if _, err := ModelEmbedder(nil, ep).Embed(context.Background(), []string{"x"}); err != ErrNoModel {
		t.Errorf("nil client: err = %v, want ErrNoModel", err)
	}
}

// get returns a result field's value, or nil when it is absent.
func get(r Result, key string) any {
	v, _ := r.Get(key)
	return v
}
