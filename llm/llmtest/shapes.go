package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// apiOf names the API a request path belongs to ("" for an unknown path).
func apiOf(path string) string {
	azure := strings.HasPrefix(path, "/openai/deployments/")
	switch {
	case path == "/v1/chat/completions" || path == "/chat/completions" || azure && strings.HasSuffix(path, "/chat/completions"):
		return "chat"
	case path == "/v1/embeddings" || path == "/embeddings" || azure && strings.HasSuffix(path, "/embeddings"):
		return "embeddings"
	case path == "/v1/completions" || path == "/completions":
		return "completions"
	case path == "/v1/messages" || path == "/messages":
		return "anthropic"
	case strings.Contains(path, "/models/") && strings.HasSuffix(path, ":generateContent"):
		return "gemini"
	}
	return ""
}

// geminiModel reads the model of a …/models/{model}:generateContent path.
func geminiModel(path string) string {
	i := strings.LastIndex(path, "/models/")
	return strings.TrimSuffix(path[i+len("/models/"):], ":generateContent")
}

// parsePrompt reads a completions request's prompt.
func parsePrompt(req *Request) error {
	raw, ok := req.Params["prompt"]
	if !ok {
		return fmt.Errorf("prompt: expected a string, found nothing")
	}
	if err := json.Unmarshal(raw, &req.Prompt); err != nil {
		return fmt.Errorf("prompt: %w", err)
	}
	req.Messages = []Message{{Role: "user", Content: req.Prompt}}
	return nil
}

// parseAnthropic reads an Anthropic Messages request: model, system (a string or text
// blocks), messages, temperature, max_tokens.
func parseAnthropic(req *Request) error {
	var b struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Temperature *float64 `json:"temperature"`
		MaxTokens   *int64   `json:"max_tokens"`
	}
	if err := json.Unmarshal(req.Body, &b); err != nil {
		return err
	}
	if b.MaxTokens == nil {
		return fmt.Errorf("max_tokens: required by the Messages API, found nothing")
	}
	req.Model, req.Temperature, req.MaxTokens = b.Model, b.Temperature, b.MaxTokens
	if len(b.System) > 0 && string(b.System) != "null" {
		if marked(b.System) {
			req.CacheBreakpoints = append(req.CacheBreakpoints, len(req.Messages))
		}
		req.Messages = append(req.Messages, Message{Role: "system", Content: contentText(b.System)})
	}
	for _, m := range b.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("messages: expected role user or assistant, found %q", m.Role)
		}
		if marked(m.Content) {
			req.CacheBreakpoints = append(req.CacheBreakpoints, len(req.Messages))
		}
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: contentText(m.Content)})
	}
	return nil
}

// marked reports whether a content (a string or a list of blocks) has a block with
// cache_control {"type": "ephemeral"}.
func marked(raw json.RawMessage) bool {
	var blocks []struct {
		CacheControl *struct {
			Type string `json:"type"`
		} `json:"cache_control"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b.CacheControl != nil && b.CacheControl.Type == "ephemeral" {
			return true
		}
	}
	return false
}

// parseGemini reads a generateContent request: contents, systemInstruction and
// generationConfig. Gemini rejects unknown fields, so the fake server does too.
func parseGemini(req *Request) error {
	type content struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	}
	text := func(c content) string {
		var s strings.Builder
		for _, p := range c.Parts {
			s.WriteString(p.Text)
		}
		return s.String()
	}
	for k := range req.Params {
		switch k {
		case "contents", "systemInstruction", "generationConfig", "safetySettings", "tools", "toolConfig", "cachedContent":
		default:
			//lint:ignore ST1005 the fake server repeats Gemini's own error text
			return fmt.Errorf("Invalid JSON payload received. Unknown name %q: Cannot find field", k)
		}
	}
	var b struct {
		Contents          []content `json:"contents"`
		SystemInstruction *content  `json:"systemInstruction"`
		GenerationConfig  *struct {
			Temperature     *float64 `json:"temperature"`
			MaxOutputTokens *int64   `json:"maxOutputTokens"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(req.Body, &b); err != nil {
		return err
	}
	if b.SystemInstruction != nil {
		req.Messages = append(req.Messages, Message{Role: "system", Content: text(*b.SystemInstruction)})
	}
	for _, c := range b.Contents {
		role := c.Role
		switch role {
		case "model":
			role = "assistant"
		case "user", "":
			role = "user"
		default:
			return fmt.Errorf("contents: expected role user or model, found %q", c.Role)
		}
		req.Messages = append(req.Messages, Message{Role: role, Content: text(c)})
	}
	if g := b.GenerationConfig; g != nil {
		req.Temperature, req.MaxTokens = g.Temperature, g.MaxOutputTokens
	}
	return nil
}

func usageOf(req *Request, reply Reply) Usage {
	if reply.Usage != nil {
		return *reply.Usage
	}
	return Usage{PromptTokens: promptTokens(req.Messages), CompletionTokens: EstimateTokens(reply.Content)}
}

func finishOf(reply Reply, def string) string {
	if reply.FinishReason != "" {
		return reply.FinishReason
	}
	return def
}

// textCompletionBody is an OpenAI (legacy) completion.
func textCompletionBody(req *Request, reply Reply, id int) []byte {
	u := usageOf(req, reply)
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("cmpl-%d", id), "object": "text_completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "text": reply.Content, "finish_reason": finishOf(reply, "stop")}},
		"usage": map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
			"total_tokens": u.PromptTokens + u.CompletionTokens},
	})
	return b
}

// anthropicBody is an Anthropic Messages reply.
func anthropicBody(req *Request, reply Reply, id int, cache Usage) []byte {
	u := usageOf(req, reply)
	if reply.Usage == nil {
		u.CachedTokens, u.CacheWriteTokens = cache.CachedTokens, cache.CacheWriteTokens
	}
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("msg_%d", id), "type": "message", "role": "assistant", "model": req.Model,
		"content":     []any{map[string]any{"type": "text", "text": reply.Content}},
		"stop_reason": finishOf(reply, "end_turn"), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.PromptTokens - u.CachedTokens - u.CacheWriteTokens, "output_tokens": u.CompletionTokens,
			"cache_read_input_tokens": u.CachedTokens, "cache_creation_input_tokens": u.CacheWriteTokens},
	})
	return b
}

// geminiBody is a Gemini generateContent reply.
func geminiBody(req *Request, reply Reply) []byte {
	u := usageOf(req, reply)
	b, _ := json.Marshal(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": reply.Content}}},
			"finishReason": finishOf(reply, "STOP"), "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": u.PromptTokens, "candidatesTokenCount": u.CompletionTokens,
			"totalTokenCount": u.PromptTokens + u.CompletionTokens},
		"modelVersion": req.Model,
	})
	return b
}
