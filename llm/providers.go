package llm

import (
	"sort"
	"strings"
	"sync"
)

// The provider table: everything vectorlint knows about a provider is one row of it, and
// resolution (Resolve, ModelEndpoint, ResolveSearch), the messages that name what to set
// (NotConfiguredError, SettingNames, a stop's fix), the wire shape of requests and
// docs/providers.md's tables (TestProviderTableInDocs) all read it. Adding a provider is adding
// a row, plus its wire shape or native API when it has a new one.

// wire is how an OpenAI-compatible request to a provider's endpoint is addressed.
type wire int

const (
	// wireOpenAI: the operation's path under the base URL, the key as a bearer token.
	wireOpenAI wire = iota
	// wireAzure: /openai/deployments/<model>/ under the resource endpoint, the api-version query,
	// the key in the api-key header.
	wireAzure
	// wireAnthropic: not OpenAI-compatible at all: chat requests go to Anthropic's native
	// Messages API (<base URL>/messages) through anthropic-sdk-go (llm/internal/anthropic), the
	// key in x-api-key, the shared prefix marked with cache_control.
	wireAnthropic
)

// providerSpec is one row of the provider table.
type providerSpec struct {
	// name is the provider's name: the value of LLM_PROVIDER when linter is set, and an
	// Endpoint's Provider.
	name Provider
	// title names the provider in messages ("OpenAI", "Anthropic's range").
	title string
	// linter: LLM_PROVIDER accepts name (Resolve). auto: Resolve chooses this provider when
	// LLM_PROVIDER is unset and its key or base URL variable is set. byBaseURL: Resolve
	// chooses it when only a base URL is given (--base-url, BaseURL in vectorlint.ini).
	linter, auto, byBaseURL bool
	// search: the search model of technical-accuracy rules (ResolveSearch).
	search bool
	// idPrefix is the prefix of Weval model ids for this provider ("google" for Gemini;
	// ModelEndpoint), "" when it has none. A model id's base URL is overridden by
	// <IDPREFIX>_BASE_URL.
	idPrefix string

	// The provider's variables: its key, model, base URL and temperature.
	keyVar, modelVar, baseURLVar, temperatureVar string
	// idKeyVars are the variables a model id's key is read from, first preferred; nil means
	// keyVar, or no key at all when keyVar is "" (a local server).
	idKeyVars []string
	// keyRequired: the linter needs a key; keyOnlyAtOwnHost narrows that to the host of
	// defaultBaseURL (OPENAI_BASE_URL at a local server needs none).
	keyRequired, keyOnlyAtOwnHost bool
	// defaultModel and defaultBaseURL are used when no setting gives one; "" makes the
	// setting required.
	defaultModel, defaultBaseURL string
	// apiVersionVar and defaultAPIVersion: Azure's api-version query.
	apiVersionVar, defaultAPIVersion string

	// maxTemperature is the highest temperature the provider accepts.
	maxTemperature float64
	// maxTokensVar names the variable of the replies' token limit, and defaultMaxTokens its
	// default ("" and 0: none, the server's default).
	maxTokensVar     string
	defaultMaxTokens int

	// wire is how its OpenAI-compatible requests are addressed; native is the API shape of
	// Generate for a custom model that inherits from it (APIFor; "" is APIChat).
	wire   wire
	native API

	// cacheRead and cacheWrite are the provider's price of an input token read from its prompt
	// cache and written to it, as a share of the input price (0: the input price; Prices'
	// CachedInputPerMillion and CacheWritePerMillion override them). cacheKey: its chat
	// requests carry prompt_cache_key (cacheprefix.go).
	cacheRead, cacheWrite float64
	cacheKey              bool
}

// providerTable returns the rows, in documentation order. It is built once (sync.OnceValue)
// and never changed.
var providerTable = sync.OnceValue(func() []providerSpec {
	return []providerSpec{
		{name: "openai", title: "OpenAI", linter: true, auto: true, idPrefix: "openai",
			keyVar: "OPENAI_API_KEY", modelVar: "OPENAI_MODEL", baseURLVar: "OPENAI_BASE_URL", temperatureVar: "OPENAI_TEMPERATURE",
			keyRequired: true, keyOnlyAtOwnHost: true,
			defaultModel: "gpt-4o", defaultBaseURL: "https://api.openai.com/v1", maxTemperature: 2,
			cacheRead: 0.5, cacheKey: true},
		{name: "azure-openai", title: "Azure OpenAI", linter: true,
			keyVar: "AZURE_OPENAI_API_KEY", modelVar: "AZURE_OPENAI_DEPLOYMENT_NAME", baseURLVar: "AZURE_OPENAI_ENDPOINT",
			temperatureVar: "AZURE_OPENAI_TEMPERATURE", keyRequired: true,
			// A generally available version that supports structured outputs.
			apiVersionVar: "AZURE_OPENAI_API_VERSION", defaultAPIVersion: "2024-10-21",
			maxTemperature: 2, wire: wireAzure, cacheRead: 0.5, cacheKey: true},
		{name: "openrouter", title: "OpenRouter", idPrefix: "openrouter", keyVar: "OPENROUTER_API_KEY",
			defaultBaseURL: "https://openrouter.ai/api/v1"},
		// Anthropic's temperature is 0 to 1 (the original VectorLint checks it too:
		// src/schemas/env-schemas.ts), and it requires a limit on every reply: 4096 tokens, the
		// original's default. The original's default model, claude-3-sonnet-20240229, is
		// retired (a request for it fails), so the current Sonnet alias stands in: a
		// configuration that sets only LLM_PROVIDER=anthropic and ANTHROPIC_API_KEY works, as it
		// does in the original.
		{name: "anthropic", title: "Anthropic", linter: true, idPrefix: "anthropic",
			keyVar: "ANTHROPIC_API_KEY", modelVar: "ANTHROPIC_MODEL", baseURLVar: "ANTHROPIC_BASE_URL",
			temperatureVar: "ANTHROPIC_TEMPERATURE", keyRequired: true,
			defaultModel: "claude-sonnet-4-5", defaultBaseURL: "https://api.anthropic.com/v1",
			maxTemperature: 1, maxTokensVar: "ANTHROPIC_MAX_TOKENS", defaultMaxTokens: 4096, native: apiAnthropic,
			wire: wireAnthropic, cacheRead: 0.1, cacheWrite: 1.25},
		{name: "gemini", title: "Gemini", linter: true, idPrefix: "google",
			keyVar: "GEMINI_API_KEY", modelVar: "GEMINI_MODEL", baseURLVar: "GEMINI_BASE_URL", temperatureVar: "GEMINI_TEMPERATURE",
			idKeyVars: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, keyRequired: true,
			defaultModel: "gemini-2.5-flash", defaultBaseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
			maxTemperature: 2, native: apiGemini, cacheRead: 0.25},
		{name: "mistral", title: "Mistral", idPrefix: "mistral", keyVar: "MISTRAL_API_KEY", defaultBaseURL: "https://api.mistral.ai/v1"},
		{name: "together", title: "Together AI", idPrefix: "together", keyVar: "TOGETHER_API_KEY", defaultBaseURL: "https://api.together.xyz/v1"},
		{name: "xai", title: "xAI", idPrefix: "xai", keyVar: "XAI_API_KEY", defaultBaseURL: "https://api.x.ai/v1"},
		{name: "groq", title: "Groq", idPrefix: "groq", keyVar: "GROQ_API_KEY", defaultBaseURL: "https://api.groq.com/openai/v1"},
		{name: "ollama", title: "Ollama", idPrefix: "ollama", defaultBaseURL: "http://localhost:11434/v1"},
		{name: "openai-compatible", title: "an OpenAI-compatible server", linter: true, byBaseURL: true,
			keyVar: "OPENAI_API_KEY", modelVar: "OPENAI_MODEL", baseURLVar: "OPENAI_BASE_URL", temperatureVar: "OPENAI_TEMPERATURE",
			maxTemperature: 2, cacheKey: true},
		{name: "perplexity", title: "Perplexity", search: true,
			keyVar: "PERPLEXITY_API_KEY", modelVar: "SEARCH_MODEL", baseURLVar: "PERPLEXITY_BASE_URL",
			defaultModel: "sonar-pro", defaultBaseURL: "https://api.perplexity.ai"},
	}
})

// linterProviders returns the rows LLM_PROVIDER accepts, in documentation order.
func linterProviders() []providerSpec {
	var out []providerSpec
	for _, p := range providerTable() {
		if p.linter {
			out = append(out, p)
		}
	}
	return out
}

// providerNamed returns the row named name.
func providerNamed(name Provider) (providerSpec, bool) {
	for _, p := range providerTable() {
		if p.name == name {
			return p, true
		}
	}
	return providerSpec{}, false
}

// linterProvider returns the row of an LLM_PROVIDER value; an unknown one is the provider
// Resolve falls back to with a base URL alone (openai-compatible).
func linterProvider(name Provider) providerSpec {
	var fallback providerSpec
	for _, p := range providerTable() {
		switch {
		case p.linter && p.name == name:
			return p
		case p.byBaseURL:
			fallback = p
		}
	}
	return fallback
}

// modelIDProvider returns the row of a model id's prefix.
func modelIDProvider(prefix string) (providerSpec, bool) {
	for _, p := range providerTable() {
		if p.idPrefix != "" && p.idPrefix == prefix {
			return p, true
		}
	}
	return providerSpec{}, false
}

// searchProvider returns the row of the search model.
func searchProvider() providerSpec {
	for _, p := range providerTable() {
		if p.search {
			return p
		}
	}
	panic("llm: the provider table has no search provider")
}

// modelIDPrefixes lists the prefixes ModelEndpoint accepts, sorted.
func modelIDPrefixes() []string {
	var out []string
	for _, p := range providerTable() {
		if p.idPrefix != "" {
			out = append(out, p.idPrefix)
		}
	}
	sort.Strings(out)
	return out
}

// idKeys are the variables a model id's key is read from, first preferred (none: no key).
func (p providerSpec) idKeys() []string {
	switch {
	case p.idKeyVars != nil:
		return p.idKeyVars
	case p.keyVar != "":
		return []string{p.keyVar}
	}
	return nil
}

// idBaseURLVar is the variable that overrides a model id's base URL: <IDPREFIX>_BASE_URL.
func (p providerSpec) idBaseURLVar() string { return strings.ToUpper(p.idPrefix) + "_BASE_URL" }

// wireOf is the wire shape of requests to an endpoint of provider name (wireOpenAI for a
// provider the table does not know, such as a custom model's own inherit value).
func wireOf(name Provider) wire {
	if p, ok := providerNamed(name); ok {
		return p.wire
	}
	return wireOpenAI
}

// cacheShares are the prices of an input token read from and written to the prompt cache of
// provider name, as shares of the input price (1: the input price, for a provider the table
// gives none).
func cacheShares(name Provider) (read, write float64) {
	read, write = 1, 1
	if p, ok := providerNamed(name); ok {
		if p.cacheRead > 0 {
			read = p.cacheRead
		}
		if p.cacheWrite > 0 {
			write = p.cacheWrite
		}
	}
	return read, write
}
