package llmtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

func post(t *testing.T, url, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

const chatBody = `{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello there"}],"temperature":0.2}`

func TestChatCompletionShape(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("Hello"), llmtest.Text("Hi!"))
	for _, path := range []string{"/chat/completions", "/v1/chat/completions"} {
		code, h, body := post(t, strings.TrimSuffix(s.URL, "/v1")+path, chatBody, nil)
		want := `{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"Hi!","role":"assistant"}}],` +
			`"created":1700000000,"id":"chatcmpl-ID","model":"m","object":"chat.completion",` +
			`"usage":{"completion_tokens":1,"prompt_tokens":14,"total_tokens":15}}`
		id := "chatcmpl-1"
		if path == "/v1/chat/completions" {
			id = "chatcmpl-2"
		}
		if code != 200 || h.Get("Content-Type") != "application/json" || body != strings.Replace(want, "chatcmpl-ID", id, 1) {
			t.Fatalf("%s: %d %s", path, code, body)
		}
	}
	r := s.Requests()[0]
	if r.System() != "Be brief." || r.LastUser() != "Hello there" || *r.Temperature != 0.2 || r.Model != "m" || r.IsEmbeddings() {
		t.Fatalf("parsed request %+v", r)
	}
	if s.Calls() != 2 || s.EmbeddingCalls() != 0 {
		t.Fatalf("calls %d/%d", s.Calls(), s.EmbeddingCalls())
	}
}

func TestContentParts(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	post(t, s.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`, nil)
	if got := s.Requests()[0].LastUser(); got != "ab" {
		t.Fatalf("content parts read as %q", got)
	}
}

func TestEmbeddingsShape(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	code, _, body := post(t, s.URL+"/embeddings", `{"model":"e","input":["one two","two"]}`, nil)
	var got struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || code != 200 || len(got.Data) != 2 || len(got.Data[0].Embedding) != 64 ||
		got.Usage.PromptTokens != 2+1 || got.Data[1].Index != 1 {
		t.Fatalf("%d %s", code, body)
	}
	// A single string input is accepted too.
	post(t, s.URL+"/embeddings", `{"model":"e","input":"solo"}`, nil)
	if in := s.Requests()[1].Input; len(in) != 1 || in[0] != "solo" {
		t.Fatalf("input %q", in)
	}
}

func TestHashEmbedding(t *testing.T) {
	t.Parallel()
	cos := func(a, b []float64) float64 {
		var d float64
		for i := range a {
			d += a[i] * b[i]
		}
		return d
	}
	a, b, c := llmtest.HashEmbedding("The cat sat"), llmtest.HashEmbedding("the CAT sat!"), llmtest.HashEmbedding("revenue grew")
	if cos(a, b) < 0.999 || cos(a, c) > 0.9 || cos(a, a) < 0.999 {
		t.Fatalf("cosines: same words %v, other words %v", cos(a, b), cos(a, c))
	}
	if e := llmtest.HashEmbedding(""); e[0] != 1 {
		t.Fatalf("empty text: %v", e[:3])
	}
}

func TestErrorsAndModes(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RejectJSONSchema(), llmtest.RequireAPIKey("k-123"))
	auth := map[string]string{"Authorization": "Bearer k-123"}
	tests := []struct {
		name   string
		path   string
		body   string
		header map[string]string
		code   int
		want   string
	}{
		{"unknown path", "/v1/models", chatBody, auth, 404, `{"error":{"code":null,"message":"unknown path /v1/models","param":null,"type":"invalid_request_error"}}`},
		{"bad body", "/v1/chat/completions", `{"model":`, auth, 400, `{"error":{"code":null,"message":"invalid request body: unexpected end of JSON input","param":null,"type":"invalid_request_error"}}`},
		{"no key", "/v1/chat/completions", chatBody, nil, 401, `{"error":{"code":null,"message":"Incorrect API key provided.","param":null,"type":"invalid_request_error"}}`},
		{"azure key header", "/openai/deployments/dep/chat/completions", chatBody, map[string]string{"api-key": "k-123"}, 200, ""},
		{"json_schema rejected", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":{}}}}`, auth, 400,
			`{"error":{"code":null,"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","param":"response_format","type":"invalid_request_error"}}`},
		{"json_object accepted", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_object"}}`, auth, 200, ""},
	}
	for _, tt := range tests {
		code, _, body := post(t, strings.TrimSuffix(s.URL, "/v1")+tt.path, tt.body, tt.header)
		if code != tt.code || (tt.want != "" && body != tt.want) {
			t.Errorf("%s: %d %s", tt.name, code, body)
		}
	}
	res, err := http.Get(s.URL + "/chat/completions")
	if err != nil || res.StatusCode != 405 {
		t.Fatalf("GET: %v %v", res.StatusCode, err)
	}
	res.Body.Close()
}

func TestSequencesAndFaults(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	rule := s.On(llmtest.Any(), llmtest.RateLimited("2"), llmtest.Status(503, ""), llmtest.JSON(map[string]int{"a": 1}))
	code, h, _ := post(t, s.URL+"/chat/completions", chatBody, nil)
	if code != 429 || h.Get("Retry-After") != "2" {
		t.Fatalf("first: %d %v", code, h)
	}
	code, _, body := post(t, s.URL+"/chat/completions", chatBody, nil)
	if code != 503 || body != `{"error":{"code":null,"message":"Service Unavailable","param":null,"type":"invalid_request_error"}}` {
		t.Fatalf("second: %d %s", code, body)
	}
	for i := 0; i < 2; i++ {
		code, _, body = post(t, s.URL+"/chat/completions", chatBody, nil)
		if code != 200 || !strings.Contains(body, `"content":"{\"a\":1}"`) {
			t.Fatalf("later: %d %s", code, body)
		}
	}
	if rule.Hits() != 4 {
		t.Fatalf("hits %d", rule.Hits())
	}
	s.Reset()
	if len(s.Requests()) != 0 || s.Calls() != 0 {
		t.Fatal("Reset kept the log")
	}

	// Truncated JSON: valid HTTP, half a body.
	s2 := llmtest.Start(t, llmtest.WithDefault(llmtest.TruncatedJSON()))
	code, _, body = post(t, s2.URL+"/chat/completions", chatBody, nil)
	if code != 200 || json.Valid([]byte(body)) || !strings.HasPrefix(body, `{"choices":`) {
		t.Fatalf("truncated: %d %s", code, body)
	}
	// Closing mid-response: the client sees an unexpected EOF while reading the body.
	s3 := llmtest.Start(t, llmtest.WithDefault(llmtest.CloseMidResponse()))
	res, err := http.Post(s3.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("mid-response close: %v", err)
	}
}

func TestHangIsReleasedByClose(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(llmtest.WithDefault(llmtest.Hang()))
	done := make(chan error, 1)
	go func() {
		res, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	for s.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("Close blocked on a hanging request")
	}
	<-done
}

func TestLatencyAndInFlight(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.WithLatency(50*time.Millisecond))
	s.On(llmtest.UserContains("slow"), llmtest.Text("x")).WithLatency(50 * time.Millisecond)
	start := time.Now()
	post(t, s.URL+"/chat/completions", strings.Replace(chatBody, "Hello there", "slow", 1), nil)
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Fatalf("server + rule latency gave %v, want at least 100ms", d)
	}
	done := make(chan struct{})
	for i := 0; i < 4; i++ {
		go func() { post(t, s.URL+"/chat/completions", chatBody, nil); done <- struct{}{} }()
	}
	for i := 0; i < 4; i++ {
		<-done
	}
	if got := s.MaxInFlight(); got != 4 {
		t.Fatalf("max in flight %d, want 4", got)
	}
}

// TestClosedURLAndTLS: nothing listens at ClosedURL; a WithTLS server speaks HTTPS with a
// certificate only its own client trusts.
func TestClosedURLAndTLS(t *testing.T) {
	t.Parallel()
	url := llmtest.ClosedURL(t)
	if _, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader("{}")); err == nil ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("ClosedURL: %v", err)
	}
	s := llmtest.Start(t, llmtest.WithTLS())
	if !strings.HasPrefix(s.URL, "https://") {
		t.Fatalf("URL %s", s.URL)
	}
	_, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader("{}"))
	if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("an untrusting client: %v", err)
	}
	if s.Calls() != 0 {
		t.Fatalf("%d calls", s.Calls())
	}
}
