package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// reasoningModel answers as OpenAI's reasoning models do: a request that sets a temperature
// other than the default is refused with a 400 naming the parameter.
func reasoningModel(reply string) llmtest.Reply {
	return llmtest.Reply{Func: func(r *llmtest.Request) llmtest.Reply {
		if t, ok := r.Params["temperature"]; ok && string(t) != "1" {
			return llmtest.Status(400, `{"error":{"message":"Unsupported value: 'temperature' does not support `+string(t)+
				` with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`)
		}
		return llmtest.Text(reply)
	}}
}

// TestTemperatureRefused: a model that accepts no temperature gets the request again without
// it (as Weval's client does), once per endpoint and model: the next calls leave it out from the
// start. Chat (lint) and Generate (blueprints) alike; other 400s are not retried this way.
func TestTemperatureRefused(t *testing.T) {
	t.Parallel()
	zero := 0.0
	t.Run("chat", func(t *testing.T) {
		s := llmtest.Start(t)
		s.SetDefault(reasoningModel("fine"))
		var log eventLog
		cfg := fastConfig()
		cfg.OnEvent = log.add
		c := newClient(t, cfg)
		req := userRequest(s, "check this")
		req.Temperature = &zero
		resp, err := c.Complete(context.Background(), req)
		if err != nil || resp.Content != "fine" {
			t.Fatalf("reply %+v, error %v", resp, err)
		}
		reqs := s.Requests()
		if len(reqs) != 2 || string(reqs[0].Params["temperature"]) != "0" || reqs[1].Params["temperature"] != nil {
			t.Fatalf("%d requests; temperatures sent: %s", len(reqs), temperaturesOf(reqs))
		}
		if _, err := c.Complete(context.Background(), userRequest(s, "and this")); err != nil {
			t.Fatal(err)
		}
		if reqs := s.Requests(); len(reqs) != 3 || reqs[2].Params["temperature"] != nil {
			t.Fatalf("the next call: %d requests; temperatures sent: %s", len(reqs), temperaturesOf(reqs))
		}
		if n := log.count(llm.EventFallback); n != 1 {
			t.Errorf("%d fallback events, want 1", n)
		}
		if fallback := log.text(); !strings.Contains(fallback, ": the model does not accept temperature, now sent without it: ") ||
			!strings.Contains(fallback, "HTTP 400 Bad Request: Unsupported value: 'temperature' does not support 0") {
			t.Errorf("no fallback event that names the temperature in:\n%s", fallback)
		}
	})
	t.Run("generate", func(t *testing.T) {
		s := llmtest.Start(t)
		s.SetDefault(reasoningModel("generated"))
		c := newClient(t, fastConfig())
		req := llm.GenerateRequest{API: llm.APIChat, Endpoint: llm.Endpoint{BaseURL: s.URL, Model: "o3", APIKey: testKey},
			Messages: conversation, Temperature: &zero, MaxTokens: 1500}
		for i := range 2 {
			req.Messages = append(conversation[:len(conversation):len(conversation)], llm.Message{Role: llm.RoleUser, Content: strings.Repeat("again ", i)})
			resp, err := c.Generate(context.Background(), req)
			if err != nil || resp.Content != "generated" {
				t.Fatalf("call %d: reply %+v, error %v", i+1, resp, err)
			}
		}
		reqs := s.Requests()
		if len(reqs) != 3 || string(reqs[0].Params["temperature"]) != "0" || reqs[1].Params["temperature"] != nil ||
			reqs[2].Params["temperature"] != nil || string(reqs[2].Params["max_tokens"]) != "1500" {
			t.Fatalf("%d requests; temperatures sent: %s", len(reqs), temperaturesOf(reqs))
		}
	})
	t.Run("other 400s", func(t *testing.T) {
		s := llmtest.Start(t)
		s.SetDefault(llmtest.Status(400, `{"error":{"message":"Invalid value for 'max_tokens'.","param":"max_tokens"}}`))
		c := newClient(t, fastConfig())
		req := userRequest(s, "x")
		req.Temperature = &zero
		if _, err := c.Complete(context.Background(), req); err == nil || s.Calls() != 1 {
			t.Fatalf("error %v after %d calls, want an error after 1", err, s.Calls())
		}
	})
}

func temperaturesOf(reqs []llmtest.Request) string {
	var out []string
	for _, r := range reqs {
		if t, ok := r.Params["temperature"]; ok {
			out = append(out, string(t))
		} else {
			out = append(out, "none")
		}
	}
	return strings.Join(out, ", ")
}
