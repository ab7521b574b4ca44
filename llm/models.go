package llm

import (
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/redact"
)

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
// to an endpoint (spec/blueprints.md §6): the prefix is a provider of the provider table, whose
// OpenAI-compatible base URL <PREFIX>_BASE_URL overrides and whose key comes from its key
// variables (<PREFIX>_API_KEY; GOOGLE_API_KEY or GEMINI_API_KEY for google; none for ollama).
// The endpoint has no temperature (generation sets one per variant) and LimitGroup is the
// prefix, so Endpoint.MaxConcurrency limits a whole provider. A missing key is a
// *NotConfiguredError naming the variable. KeySource and BaseURLSource say where the key and
// the base URL came from (env's Source of the variables; the default base URL is built in).
func ModelEndpoint(env envsource.Vars, id string) (Endpoint, error) {
	prefix, model, err := ParseModelID(id)
	if err != nil {
		return Endpoint{}, err
	}
	p, ok := modelIDProvider(prefix)
	if !ok {
		return Endpoint{}, fmt.Errorf("model id %q: expected a provider among %s, found %q", id,
			strings.Join(modelIDPrefixes(), ", "), prefix)
	}
	get := getter(env)
	ep := Endpoint{Provider: Provider(prefix), Model: model, BaseURL: p.defaultBaseURL, LimitGroup: prefix,
		BaseURLSource: envsource.Source{Origin: envsource.OriginDefault, Name: "the " + prefix + " endpoint"}}
	baseVar := p.idBaseURLVar()
	if v := get(baseVar); v != "" {
		if err := checkBaseURL(v); err != nil {
			return Endpoint{}, &envsource.SettingError{Source: baseVar, Expected: "an http or https URL", Found: redact.URL(v)}
		}
		ep.BaseURL = strings.TrimRight(v, "/")
		ep.BaseURLSource = envsource.SourceOf(env, baseVar)
	}
	keys := p.idKeys()
	for _, k := range keys {
		if v := get(k); v != "" {
			ep.APIKey = redact.Secret(v)
			ep.KeySource = envsource.SourceOf(env, k)
			break
		}
	}
	if ep.APIKey == "" && len(keys) > 0 {
		return Endpoint{}, &NotConfiguredError{Provider: Provider(prefix), Missing: []string{strings.Join(keys, " or ")}}
	}
	return ep, nil
}

// ResolveSearch builds the endpoint of the search-capable model that checks factual claims
// (spec/linter.md §6), the provider table's search provider: SEARCH_MODEL (default sonar-pro)
// at PERPLEXITY_BASE_URL (default Perplexity's API) with PERPLEXITY_API_KEY. Without the key it
// is a *NotConfiguredError naming PERPLEXITY_API_KEY. KeySource and BaseURLSource say where the
// key and the base URL came from.
func ResolveSearch(env envsource.Vars) (Endpoint, error) {
	p := searchProvider()
	get := getter(env)
	ep := Endpoint{Provider: p.name, Model: p.defaultModel, BaseURL: p.defaultBaseURL,
		APIKey: redact.Secret(get(p.keyVar)), LimitGroup: string(p.name),
		BaseURLSource: envsource.Source{Origin: envsource.OriginDefault, Name: "the " + string(p.name) + " endpoint"}}
	if ep.APIKey != "" {
		ep.KeySource = envsource.SourceOf(env, p.keyVar)
	}
	if v := get(p.modelVar); v != "" {
		ep.Model = v
	}
	if v := get(p.baseURLVar); v != "" {
		if err := checkBaseURL(v); err != nil {
			return Endpoint{}, &envsource.SettingError{Source: p.baseURLVar, Expected: "an http or https URL", Found: redact.URL(v)}
		}
		ep.BaseURL = strings.TrimRight(v, "/")
		ep.BaseURLSource = envsource.SourceOf(env, p.baseURLVar)
	}
	// A key is needed at the provider's own API; a search model served elsewhere (SEARCH_MODEL
	// with PERPLEXITY_BASE_URL, e.g. a local server) may need none, as
	// rules.SearchModelConfigured allows.
	if ep.APIKey == "" && (ep.BaseURL == p.defaultBaseURL || get(p.modelVar) == "") {
		return Endpoint{}, &NotConfiguredError{Provider: p.name, Missing: []string{p.keyVar}}
	}
	return ep, nil
}
