package evaluate

import (
	"context"
	"errors"

	"github.com/vectorlint/vectorlint/llm"
)

// ModelEmbedder returns an [Embedder] that calls an OpenAI-compatible /embeddings endpoint
// through client (ep.Model is the embedding model). The call shares the client's retries,
// concurrency limit, cache and usage accounting.
func ModelEmbedder(client *llm.Client, ep llm.Endpoint) Embedder {
	return EmbedderFunc(func(ctx context.Context, texts []string) ([][]float64, error) {
		if client == nil {
			return nil, ErrNoModel
		}
		return client.Embed(ctx, ep, texts)
	})
}

// ModelCompleter returns a [Completer] that calls an OpenAI-compatible chat endpoint through
// client, asking for a JSON object (response_format json_object where the server supports it).
// A reply that holds no JSON object is retried once with the problem quoted back to the model;
// the evaluator then checks the object against its own contract.
func ModelCompleter(client *llm.Client, ep llm.Endpoint) Completer {
	return CompleterFunc(func(ctx context.Context, system, user string) (string, error) {
		if client == nil {
			return "", ErrNoModel
		}
		resp, err := client.CompleteJSON(ctx, llm.Request{
			Endpoint: ep,
			Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
			JSONMode: true,
			Label:    "evaluate",
		}, requireObject)
		if err != nil {
			return "", err
		}
		return resp.JSON, nil
	})
}

// requireObject accepts a JSON object and rejects arrays and scalars, so the one retry is spent
// on replies that cannot possibly satisfy an evaluator's contract.
func requireObject(jsonText string) error {
	for _, c := range jsonText {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return nil
		}
		break
	}
	return errors.New("expected a JSON object")
}
