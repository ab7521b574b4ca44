// Package llmtest is a fake OpenAI-compatible server for tests and benchmarks: real HTTP on a
// local port (net/http/httptest), so the code under test runs its real client, retries,
// timeouts and parsing. No test needs the internet or a key.
//
// It serves POST /v1/chat/completions and /v1/embeddings (also without the /v1 prefix, and
// Azure's /openai/deployments/{name}/… paths), and the other shapes a Weval custom model may
// speak: OpenAI's legacy /v1/completions, Anthropic's /v1/messages and Gemini's
// …/models/{model}:generateContent. Every generation shape is parsed into the same Request
// fields (Request.API names the shape), so rules and matchers work alike, and is answered in
// its own reply shape. It offers:
//
//   - scripted replies: rules matching a request (SystemContains, UserContains,
//     LastUserContains, MessageContains, ModelIs, All, or any func) answer with a text or JSON
//     content (Text, JSON, Fenced), or a sequence of replies (ServerError() then Text("ok"):
//     the first call fails, later ones succeed); a default reply for the rest;
//   - latency: a fixed latency for every reply (WithLatency, for benchmarks) and per rule or
//     per reply;
//   - faults: any status with any body (Status), 429 with Retry-After (RateLimited), a reply
//     that never comes (Hang, until the client gives up), a connection closed before or in
//     the middle of the reply (CloseConnection, CloseMidResponse), malformed or truncated
//     JSON, valid HTTP that is not a completion (HTMLPage, NoChoices), and servers that reject
//     json_schema or json_object response formats with a 400 (RejectJSONSchema,
//     RejectJSONMode);
//   - observation: the request log with parsed bodies and headers (Requests), call counts
//     (Calls, EmbeddingCalls, Rule.Hits), the highest number of requests in flight at once
//     (MaxInFlight), and realistic usage: prompt tokens are one per four characters of each
//     message plus four per message, completion tokens one per four characters of the reply
//     (the same estimate as llm.EstimateTokens);
//   - a prompt cache like the providers': a prefix of MinCachedPrompt tokens or more that the
//     server has seen is reported as cached (OpenAI's prompt_tokens_details.cached_tokens, in
//     steps of 128; Anthropic's cache_read_input_tokens for the prefix up to cache_control,
//     cache_creation_input_tokens the first time), and Request.CacheBreakpoints and
//     Request.PromptCacheKey show what the client marked (promptcache.go);
//   - deterministic embeddings (HashEmbedding: a normalised hashed bag of words, so texts
//     sharing words are similar) or your own (WithEmbedder).
//
// Construction needs no testing.T, so benchmark programs can use NewServer and Close; tests
// use Start(t), which closes the server at the end of the test.
//
//	srv := llmtest.Start(t, llmtest.RejectJSONSchema())
//	srv.On(llmtest.UserContains("in order to"),
//		llmtest.RateLimited("1"),
//		llmtest.Fenced(map[string]any{"violations": []any{map[string]any{"quoted_text": "in order to", "message": "Say 'to'."}}}))
//	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
//
//	client, _ := llm.New(llm.Config{BaseDelay: time.Millisecond})
//	ep := llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}
//	resp, err := client.CompleteJSON(ctx, llm.Request{Endpoint: ep, Messages: msgs, Schema: schema}, nil)
//
//	if srv.Calls() != 3 { … }                        // json_schema rejected, 429, then the reply
//	if srv.Requests()[2].ResponseFormatType() != "json_object" { … }
//	for _, r := range srv.Requests() {
//		if strings.Contains(string(r.Body), "sk-test") { … } // keys travel only in headers
//	}
package llmtest
