package llm

import (
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/redact"
)

// hostedProvider is a provider of Weval model ids ("openrouter:qwen/qwen3-30b-a3b").
type hostedProvider struct {
	baseURL string
	keys    []string // accepted key variables, first preferred; none for local servers
}

// modelProvider returns a provider of spec/blueprints.md §6, each an OpenAI-compatible endpoint
// whose base URL <PROVIDER>_BASE_URL overrides. (A switch, not a map: no package-level state.)
func modelProvider(name string) (hostedProvider, bool) {
	switch name {
	case "openai":
		return hostedProvider{DefaultOpenAIBaseURL, []string{"OPENAI_API_KEY"}}, true
	case "openrouter":
		return hostedProvider{"https://openrouter.ai/api/v1", []string{"OPENROUTER_API_KEY"}}, true
	case "anthropic":
		return hostedProvider{DefaultAnthropicBaseURL, []string{"ANTHROPIC_API_KEY"}}, true
	case "google":
		return hostedProvider{DefaultGeminiBaseURL, []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}}, true
	case "mistral":
		return hostedProvider{"https://api.mistral.ai/v1", []string{"MISTRAL_API_KEY"}}, true
	case "together":
		return hostedProvider{"https://api.together.xyz/v1", []string{"TOGETHER_API_KEY"}}, true
	case "xai":
		return hostedProvider{"https://api.x.ai/v1", []string{"XAI_API_KEY"}}, true
	case "groq":
		return hostedProvider{"https://api.groq.com/openai/v1", []string{"GROQ_API_KEY"}}, true
	case "ollama":
		return hostedProvider{"http://localhost:11434/v1", nil}, true
	}
	return hostedProvider{}, false
}

// ModelProviders lists the provider prefixes ModelEndpoint accepts, sorted.
func ModelProviders() []string {
	return []string{"anthropic", "google", "groq", "mistral", "ollama", "openai", "openrouter", "together", "xai"}
}

// ParseModelID splits a Weval model id "provider:model" (whitespace around the colon
// tolerated; the model part may itself contain colons, as in "ollama:qwen3:8b"). The provider
// is lower-cased.
func ParseModelID(id string) (provider, model string, err error) {
	p, m, ok := strings.Cut(id, ":")
	p, m = strings.ToLower(strings.TrimSpace(p)), strings.TrimSpace(m)
	if !ok || p == "" || m == "" {
		return "", "", fmt.Errorf("model id: expected \"provider:model\" such as \"openai:gpt-4o\", found %q", id)
	}
	return p, m, nil
}

// ModelEndpoint resolves a Weval model id such as "openrouter:qwen/qwen3-30b-a3b-instruct-2507"
// to an endpoint: the provider's OpenAI-compatible base URL (overridden by <PROVIDER>_BASE_URL)
// and key (<PROVIDER>_API_KEY; GOOGLE_API_KEY or GEMINI_API_KEY for google; none for ollama).
// The endpoint has no temperature (generation sets one per variant) and LimitGroup is the
// provider, so Endpoint.MaxConcurrency limits a whole provider. A missing key is a
// *NotConfiguredError naming the variable. KeySource and BaseURLSource say where the key and
// the base URL came from (env's Source of the variables; the default base URL is built in).
func ModelEndpoint(env envsource.Vars, id string) (Endpoint, error) {
	provider, model, err := ParseModelID(id)
	if err != nil {
		return Endpoint{}, err
	}
	hp, ok := modelProvider(provider)
	if !ok {
		return Endpoint{}, fmt.Errorf("model id %q: expected a provider among %s, found %q", id,
			strings.Join(ModelProviders(), ", "), provider)
	}
	get := func(name string) string {
		v, _ := envsource.Lookup(env, name)
		return strings.TrimSpace(v)
	}
	ep := Endpoint{Provider: Provider(provider), Model: model, BaseURL: hp.baseURL, LimitGroup: provider,
		BaseURLSource: envsource.Source{Origin: envsource.OriginDefault, Name: "the " + provider + " endpoint"}}
	baseVar := strings.ToUpper(provider) + "_BASE_URL"
	if v := get(baseVar); v != "" {
		if err := checkBaseURL(v); err != nil {
			return Endpoint{}, &envsource.SettingError{Source: baseVar, Expected: "an http or https URL", Found: redact.URL(v)}
		}
		ep.BaseURL = strings.TrimRight(v, "/")
		ep.BaseURLSource = envsource.SourceOf(env, baseVar)
	}
	for _, k := range hp.keys {
		if v := get(k); v != "" {
			ep.APIKey = redact.Secret(v)
			ep.KeySource = envsource.SourceOf(env, k)
			break
		}
	}
	if ep.APIKey == "" && len(hp.keys) > 0 {
		return Endpoint{}, &NotConfiguredError{Provider: Provider(provider), Missing: []string{strings.Join(hp.keys, " or ")}}
	}
	return ep, nil
}

// Search-model defaults for evaluator: technical-accuracy (spec/linter.md §6).
const (
	DefaultSearchModel       = "sonar-pro"
	DefaultPerplexityBaseURL = "https://api.perplexity.ai"
)

// ResolveSearch builds the endpoint of the search-capable model that checks factual claims:
// SEARCH_MODEL (default sonar-pro) at PERPLEXITY_BASE_URL (default Perplexity's API) with
// PERPLEXITY_API_KEY. Without the key it is a *NotConfiguredError naming PERPLEXITY_API_KEY.
// KeySource and BaseURLSource say where the key and the base URL came from.
func ResolveSearch(env envsource.Vars) (Endpoint, error) {
	get := func(name string) string {
		v, _ := envsource.Lookup(env, name)
		return strings.TrimSpace(v)
	}
	ep := Endpoint{Provider: "perplexity", Model: DefaultSearchModel, BaseURL: DefaultPerplexityBaseURL,
		APIKey: redact.Secret(get("PERPLEXITY_API_KEY")), LimitGroup: "perplexity",
		BaseURLSource: envsource.Source{Origin: envsource.OriginDefault, Name: "the perplexity endpoint"}}
	if ep.APIKey != "" {
		ep.KeySource = envsource.SourceOf(env, "PERPLEXITY_API_KEY")
	}
	if v := get("SEARCH_MODEL"); v != "" {
		ep.Model = v
	}
	if v := get("PERPLEXITY_BASE_URL"); v != "" {
		if err := checkBaseURL(v); err != nil {
			return Endpoint{}, &envsource.SettingError{Source: "PERPLEXITY_BASE_URL", Expected: "an http or https URL", Found: redact.URL(v)}
		}
		ep.BaseURL = strings.TrimRight(v, "/")
		ep.BaseURLSource = envsource.SourceOf(env, "PERPLEXITY_BASE_URL")
	}
	// A key is needed at Perplexity's own API; a search model served elsewhere (SEARCH_MODEL
	// with PERPLEXITY_BASE_URL, e.g. a local server) may need none, as
	// rules.SearchModelConfigured allows.
	if ep.APIKey == "" && (ep.BaseURL == DefaultPerplexityBaseURL || get("SEARCH_MODEL") == "") {
		return Endpoint{}, &NotConfiguredError{Provider: "perplexity", Missing: []string{"PERPLEXITY_API_KEY"}}
	}
	return ep, nil
}
