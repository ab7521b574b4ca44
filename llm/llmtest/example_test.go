package llmtest_test

import (
	"context"
	"fmt"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// A test scripts the server, points an llm.Endpoint at it and checks what was sent.
func Example() {
	srv := llmtest.NewServer() // in a test: llmtest.Start(t), closed by t.Cleanup
	defer srv.Close()

	// Replies chosen by the request's text; the first call of the second rule fails.
	srv.On(llmtest.UserContains("in order to"),
		llmtest.Fenced(map[string]any{"violations": []map[string]any{{"quoted_text": "in order to", "message": "Say 'to'."}}}))
	srv.On(llmtest.UserContains("flaky"), llmtest.ServerError(), llmtest.Text(`{"violations": []}`))

	client, _ := llm.New(llm.Config{BaseDelay: 1}) // tiny backoff for the example
	ep := llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}
	for _, text := range []string{"1\tWe did it in order to win.", "1\tA flaky server."} {
		resp, err := client.CompleteJSON(context.Background(), llm.Request{
			Endpoint: ep,
			Messages: []llm.Message{{Role: llm.RoleSystem, Content: "List wordy phrases."}, {Role: llm.RoleUser, Content: text}},
		}, nil)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(resp.JSON, "after", resp.Attempts, "attempt(s)")
	}
	req := srv.Requests()[0]
	fmt.Println(srv.Calls(), "calls; first system message:", req.System())
	fmt.Printf("usage: %+v\n", client.Usage())
	// Output:
	// {"violations":[{"message":"Say 'to'.","quoted_text":"in order to"}]} after 1 attempt(s)
	// {"violations": []} after 2 attempt(s)
	// 3 calls; first system message: List wordy phrases.
	// usage: {Calls:2 CachedCalls:0 InputTokens:38 OutputTokens:25 CachedInputTokens:0 CacheWriteTokens:0 Cost:<nil> CachedPriceAssumed:false}
}
