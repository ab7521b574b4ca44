// Package llm is the one model client of vectorlint: the linter, the blueprint judges and
// response generation all call models through a Client.
//
// A Client talks to any OpenAI-compatible Chat Completions endpoint (OpenAI, Azure OpenAI,
// Anthropic's and Gemini's OpenAI-compatible endpoints, OpenRouter, Ollama, vLLM, llama.cpp,
// LM Studio…) through the official SDK github.com/openai/openai-go: its request types, its chat
// completions and embeddings services and its request options (base URL, key, headers, Azure's
// deployment path and api-version), with the SDK's own retries off. Generate speaks the other
// shapes (Anthropic's and Gemini's native APIs, a custom model's own URL) over net/http. Each
// Request names its Endpoint (base URL, key, model, headers), so one client serves many models,
// and every call, whatever its shape, takes the same path:
//
//   - retries: 408, 409, 429, 5xx, timeouts, dropped connections and unusable 2xx bodies are
//     retried (4 attempts, exponential backoff with jitter, Retry-After honoured); other
//     statuses fail at once; every failure is an *APIError naming the host, model and status.
//     retry.HTTP retries any other HTTP request by the same policy (internal/retry);
//   - time limits: Config.Timeout (60 s) per attempt, retry.CallTimeoutFactor × that per call with
//     all its retries and waits; Config.OnStall hears of calls in flight when none finishes;
//   - stops: a failure that is a fact about an endpoint (connection refused, DNS, TLS, no reply
//     from a host that never answered, 401, 403, 404) is a *StopError, recorded for its scope;
//     every later call of that scope fails at once with it, without a request (Stopped);
//   - concurrency: at most Config.Concurrency requests in flight, plus optional per-endpoint
//     limits (Endpoint.MaxConcurrency), with golang.org/x/sync's semaphores;
//   - structured output: Request.Schema is sent as a strict json_schema response_format, and
//     falls back to json_object, then to plain text with the schema in the system message, on
//     servers that reject it (remembered per endpoint and model);
//   - reply checking: CompleteChecked and CompleteJSON ask the model once more,
//     quoting the problem, when a reply is unusable;
//   - a content-addressed cache of replies (Config.CacheDir) with atomic writes;
//   - flights: identical requests in flight at the same time are made once when they use the
//     cache, and the calls that joined one count its reply as a reply from the cache;
//   - usage: calls, cached calls, tokens and cost (lint's run result reports this Usage).
//
// The providers are one table of data (providers.go): their names, model-id prefixes,
// variables, defaults, limits and wire shapes. Resolve builds the linter's Endpoint from it and
// the environment variables of the original VectorLint (LLM_PROVIDER, OPENAI_API_KEY,
// AZURE_OPENAI_*, ANTHROPIC_*, GEMINI_*…), ModelEndpoint a blueprint model's from a Weval model
// id, ResolveSearch the search model's. The environment is internal/envsource's: the project's
// .env.local and .env and the user config (~/.vectorlint/config.toml) under the process
// environment, each value keeping its Source. The trust rule (internal/trust) decides where a
// key may be sent from those sources: a key the user holds goes to a base URL a repository file
// chose only at a loopback address or a host in VECTORLINT_TRUSTED_HOSTS (Config.Trust makes
// the client refuse every other call). Retries are internal/retry's policy, redaction
// internal/redact's. The package never reads the process environment or the working directory
// itself, and API keys never appear in its errors, events or cache files.
//
// Tests use package llmtest, a fake OpenAI-compatible server on a local port.
//
// Typical use (inside this module: envsource and trust are internal packages):
//
//	env, err := envsource.Load(envsource.Options{Process: os.LookupEnv, Dir: configDir, UserConfig: envsource.UserConfigPath(home)})
//	ep, err := llm.Resolve(env, iniSettings, flagSettings)
//	hosts, err := trust.ParseHosts(os.Getenv(trust.HostsVar))
//	client, err := llm.New(llm.Config{Concurrency: 8, CacheDir: cacheDir, Trust: hosts})
//	if err := client.CheckTrust(ep); err != nil { … } // a repository file redirects the user's key
//	resp, err := client.CompleteJSON(ctx, llm.Request{
//		Endpoint: ep,
//		Messages: []llm.Message{{Role: llm.RoleSystem, Content: rule}, {Role: llm.RoleUser, Content: text}},
//		Schema:   &llm.Schema{Name: "violations", Strict: true, Schema: schema},
//	}, validate)
package llm
