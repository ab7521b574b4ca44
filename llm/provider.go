package llm

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/runwide"
)

// Provider is a value of LLM_PROVIDER (spec/linter.md §6).
type Provider string

// The providers of the linter's environment table.
const (
	ProviderOpenAI           Provider = "openai"
	ProviderAzureOpenAI      Provider = "azure-openai"
	ProviderAnthropic        Provider = "anthropic"
	ProviderGemini           Provider = "gemini"
	ProviderOpenAICompatible Provider = "openai-compatible"
)

// Providers returns every provider LLM_PROVIDER accepts, in documentation order.
func Providers() []Provider {
	return []Provider{ProviderOpenAI, ProviderAzureOpenAI, ProviderAnthropic, ProviderGemini, ProviderOpenAICompatible}
}

// Default base URLs and models of the hosted providers.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultOpenAIModel      = "gpt-4o"
	DefaultAnthropicBaseURL = "https://api.anthropic.com/v1"
	// DefaultAnthropicModel is the model when ANTHROPIC_MODEL is unset. The original
	// VectorLint defaults to claude-3-sonnet-20240229, which Anthropic has retired (a request
	// for it fails), so its current Sonnet alias stands in: a configuration that sets only
	// LLM_PROVIDER=anthropic and ANTHROPIC_API_KEY works, as it does in the original.
	DefaultAnthropicModel = "claude-sonnet-4-5"
	// DefaultAnthropicMaxTokens is the max_tokens of Anthropic calls when
	// ANTHROPIC_MAX_TOKENS is unset, the original VectorLint's default (Anthropic requires a
	// limit on every reply).
	DefaultAnthropicMaxTokens = 4096
	// MaxReplyTokens is the highest ANTHROPIC_MAX_TOKENS (which a project's .env may set): no
	// model writes a longer reply, so a larger number is a mistake, reported with the range
	// like every number a file sets (spec/trust.md §8).
	MaxReplyTokens       = 1_000_000
	DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta/openai"
	DefaultGeminiModel   = "gemini-2.5-flash"
	// DefaultAzureAPIVersion is the api-version sent to Azure when AZURE_OPENAI_API_VERSION is
	// unset: a generally available version that supports structured outputs.
	DefaultAzureAPIVersion = "2024-10-21"
	// DefaultTemperature is the temperature of linter calls when <NAME>_TEMPERATURE is unset.
	DefaultTemperature = 0.2
)

// ParseProvider parses an LLM_PROVIDER value (case-insensitive, surrounding space ignored).
func ParseProvider(s string) (Provider, error) {
	p := Provider(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Providers() {
		if p == known {
			return p, nil
		}
	}
	return "", fmt.Errorf("expected one of openai, azure-openai, anthropic, gemini, openai-compatible, found %q", s)
}

// Settings are the LLM settings a config file (Provider, Model, BaseURL, Temperature in
// vectorlint.ini) or the command line (--provider, --model, --base-url) may give. Empty fields
// are unset. There is deliberately no key field: API keys come only from the environment.
type Settings struct {
	Provider    string
	Model       string
	BaseURL     string
	Temperature *float64
	// BaseURLFrom says where BaseURL was written: for the config file, its path and the key's
	// line. Zero means "BaseURL in the config file" for config settings and "--base-url" for
	// flag settings.
	BaseURLFrom envsource.Source
}

// NotConfiguredError says that no provider is configured, or that the chosen one lacks
// settings. Missing lists what to set, each entry naming the variable (and the flag or ini key
// that can replace it, where there is one).
type NotConfiguredError struct {
	// Provider is empty when no provider could be chosen at all.
	Provider Provider
	Missing  []string
}

// noProviderMessage names every way to configure a provider.
const noProviderMessage = "no LLM provider is configured: set OPENAI_API_KEY for OpenAI, " +
	"or LLM_PROVIDER=azure-openai with AZURE_OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_DEPLOYMENT_NAME, " +
	"or LLM_PROVIDER=anthropic with ANTHROPIC_API_KEY, " +
	"or LLM_PROVIDER=gemini with GEMINI_API_KEY, " +
	"or LLM_PROVIDER=openai-compatible with OPENAI_BASE_URL and OPENAI_MODEL (or --base-url and --model); " +
	"in the environment or a .env file"

// Error names exactly the variables to set.
func (e *NotConfiguredError) Error() string {
	if e.Provider == "" {
		return noProviderMessage
	}
	return fmt.Sprintf("LLM provider %s is not fully configured: set %s", e.Provider, joinAnd(e.Missing))
}

// Is makes errors.Is(err, runwide.ErrNotConfigured) true.
func (e *NotConfiguredError) Is(target error) bool { return target == runwide.ErrNotConfigured }

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// providerVars are the environment names of one provider.
type providerVars struct {
	key, model, baseURL, temperature string
	defaultModel, defaultBaseURL     string
	keyRequired, modelRequired       bool
	// maxTemperature is the highest temperature the provider accepts (2, Anthropic's 1).
	maxTemperature float64
	// maxTokens names the variable of the replies' token limit, and defaultMaxTokens its
	// default ("" and 0: none, the server's default).
	maxTokens        string
	defaultMaxTokens int
}

// varsOf returns the environment names of a provider (a switch, not a map: no package-level
// state).
func varsOf(p Provider) providerVars {
	switch p {
	case ProviderOpenAI:
		return providerVars{key: "OPENAI_API_KEY", model: "OPENAI_MODEL", baseURL: "OPENAI_BASE_URL",
			temperature: "OPENAI_TEMPERATURE", defaultModel: DefaultOpenAIModel, defaultBaseURL: DefaultOpenAIBaseURL,
			keyRequired: true, maxTemperature: 2}
	case ProviderAzureOpenAI:
		return providerVars{key: "AZURE_OPENAI_API_KEY", model: "AZURE_OPENAI_DEPLOYMENT_NAME",
			baseURL: "AZURE_OPENAI_ENDPOINT", temperature: "AZURE_OPENAI_TEMPERATURE", keyRequired: true, modelRequired: true,
			maxTemperature: 2}
	case ProviderAnthropic:
		// Anthropic's temperature is 0 to 1 (the original VectorLint checks it too:
		// src/schemas/env-schemas.ts).
		return providerVars{key: "ANTHROPIC_API_KEY", model: "ANTHROPIC_MODEL", baseURL: "ANTHROPIC_BASE_URL",
			temperature: "ANTHROPIC_TEMPERATURE", defaultModel: DefaultAnthropicModel, defaultBaseURL: DefaultAnthropicBaseURL,
			keyRequired: true, maxTemperature: 1, maxTokens: "ANTHROPIC_MAX_TOKENS", defaultMaxTokens: DefaultAnthropicMaxTokens}
	case ProviderGemini:
		return providerVars{key: "GEMINI_API_KEY", model: "GEMINI_MODEL", baseURL: "GEMINI_BASE_URL",
			temperature: "GEMINI_TEMPERATURE", defaultModel: DefaultGeminiModel, defaultBaseURL: DefaultGeminiBaseURL,
			keyRequired: true, maxTemperature: 2}
	}
	// ProviderOpenAICompatible.
	return providerVars{key: "OPENAI_API_KEY", model: "OPENAI_MODEL", baseURL: "OPENAI_BASE_URL",
		temperature: "OPENAI_TEMPERATURE", modelRequired: true, maxTemperature: 2}
}

// Resolve chooses the linter's provider and builds its Endpoint from the environment (env),
// the config file's settings and the command line's, following spec/linter.md §6:
//
//   - provider: --provider, else LLM_PROVIDER, else Provider in the config, else openai when
//     OPENAI_API_KEY or OPENAI_BASE_URL is set, else openai-compatible when a base URL is given
//     by flag or config; otherwise a *NotConfiguredError naming every variable to set;
//   - model and base URL: the flag, else the provider's variable (OPENAI_MODEL,
//     AZURE_OPENAI_DEPLOYMENT_NAME, …), else the config, else the provider's default;
//   - temperature: the flag setting, else <NAME>_TEMPERATURE, else the config, else 0.2;
//   - key: only the provider's environment variable.
//
// A provider that lacks required settings gives a *NotConfiguredError listing exactly what is
// missing; a malformed value gives a *SettingError naming its source.
//
// The endpoint's KeySource and BaseURLSource record where the key and the base URL came from
// (env's Source for variables), for Trust.Check.
func Resolve(env envsource.Vars, config, flags Settings) (Endpoint, error) {
	get := func(name string) string {
		v, _ := envsource.Lookup(env, name)
		return strings.TrimSpace(v)
	}
	provider, err := resolveProvider(get, config, flags)
	if err != nil {
		return Endpoint{}, err
	}
	vars := varsOf(provider)

	ep := Endpoint{Provider: provider, APIKey: redact.Secret(get(vars.key))}
	if ep.APIKey != "" {
		ep.KeySource = envsource.SourceOf(env, vars.key)
	}
	var missing []string

	ep.Model, _ = pick(
		sourced{flags.Model, "--model"},
		sourced{get(vars.model), vars.model},
		sourced{config.Model, "Model in the config file"},
		sourced{vars.defaultModel, "default"})

	baseURL, baseSource := pick(
		sourced{flags.BaseURL, "--base-url"},
		sourced{get(vars.baseURL), vars.baseURL},
		sourced{config.BaseURL, "BaseURL in the config file"},
		sourced{vars.defaultBaseURL, "default"})
	switch baseSource {
	case "--base-url":
		ep.BaseURLSource = flags.BaseURLFrom
		if ep.BaseURLSource.Origin == envsource.OriginUnknown {
			ep.BaseURLSource = envsource.Source{Origin: envsource.OriginFlag, Name: "--base-url"}
		}
	case vars.baseURL:
		ep.BaseURLSource = envsource.SourceOf(env, vars.baseURL)
	case "BaseURL in the config file":
		ep.BaseURLSource = config.BaseURLFrom
		if ep.BaseURLSource.Origin == envsource.OriginUnknown {
			ep.BaseURLSource = envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL"}
		}
	case "default":
		ep.BaseURLSource = envsource.Source{Origin: envsource.OriginDefault, Name: "the " + string(provider) + " endpoint"}
	}

	if ep.APIKey == "" && keyRequired(provider, vars, baseURL) {
		missing = append(missing, vars.key)
	}
	if provider == ProviderAzureOpenAI && baseURL == "" {
		missing = append(missing, "AZURE_OPENAI_ENDPOINT (or --base-url, or BaseURL in vectorlint.ini)")
	}
	if provider == ProviderOpenAICompatible && baseURL == "" {
		missing = append(missing, "OPENAI_BASE_URL (or --base-url, or BaseURL in vectorlint.ini)")
	}
	if ep.Model == "" && vars.modelRequired {
		missing = append(missing, vars.model+" (or --model, or Model in vectorlint.ini)")
	}
	if len(missing) > 0 {
		return Endpoint{}, &NotConfiguredError{Provider: provider, Missing: missing}
	}

	if baseURL != "" {
		if err := checkBaseURL(baseURL); err != nil {
			return Endpoint{}, &envsource.SettingError{Source: baseSource, Expected: "an http or https URL such as http://localhost:11434/v1", Found: redact.URL(baseURL)}
		}
		ep.BaseURL = strings.TrimRight(baseURL, "/")
	}
	if provider == ProviderAzureOpenAI {
		ep.APIVersion = get("AZURE_OPENAI_API_VERSION")
		if ep.APIVersion == "" {
			ep.APIVersion = DefaultAzureAPIVersion
		}
	}

	temp, err := resolveTemperature(get, vars, config, flags)
	if err != nil {
		return Endpoint{}, err
	}
	ep.Temperature = &temp
	if vars.maxTokens != "" {
		ep.MaxTokens = vars.defaultMaxTokens
		if s := get(vars.maxTokens); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > MaxReplyTokens {
				return Endpoint{}, &envsource.SettingError{Source: vars.maxTokens, Expected: "a whole number of tokens from 1 to 1000000", Found: s}
			}
			ep.MaxTokens = n
		}
	}
	return ep, nil
}

// keyRequired reports whether the provider needs a key: hosted providers do; openai does only
// at OpenAI's own URL (OPENAI_BASE_URL pointing at a local server needs none).
func keyRequired(p Provider, vars providerVars, baseURL string) bool {
	if !vars.keyRequired {
		return false
	}
	if p == ProviderOpenAI {
		u, err := url.Parse(baseURL)
		return err != nil || u.Host == "api.openai.com"
	}
	return true
}

func resolveProvider(get func(string) string, config, flags Settings) (Provider, error) {
	for _, c := range []sourced{
		{flags.Provider, "--provider"},
		{get("LLM_PROVIDER"), "LLM_PROVIDER"},
		{config.Provider, "Provider in the config file"},
	} {
		if strings.TrimSpace(c.value) == "" {
			continue
		}
		p, err := ParseProvider(c.value)
		if err != nil {
			return "", &envsource.SettingError{Source: c.source,
				Expected: "one of openai, azure-openai, anthropic, gemini, openai-compatible", Found: c.value}
		}
		return p, nil
	}
	switch {
	case get("OPENAI_API_KEY") != "" || get("OPENAI_BASE_URL") != "":
		return ProviderOpenAI, nil
	case strings.TrimSpace(flags.BaseURL) != "" || strings.TrimSpace(config.BaseURL) != "":
		return ProviderOpenAICompatible, nil
	}
	return "", &NotConfiguredError{}
}

// resolveTemperature picks the temperature (the flag, else the provider's variable, else the
// config) and checks it against the provider's range, naming where it came from.
func resolveTemperature(get func(string) string, vars providerVars, config, flags Settings) (float64, error) {
	limit := vars.maxTemperature
	if flags.Temperature != nil {
		return checkTemperature(*flags.Temperature, "--temperature", limit)
	}
	if s := get(vars.temperature); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, &envsource.SettingError{Source: vars.temperature, Expected: temperatureRange(limit), Found: s}
		}
		return checkTemperature(v, vars.temperature, limit)
	}
	if config.Temperature != nil {
		return checkTemperature(*config.Temperature, "Temperature in the config file", limit)
	}
	return DefaultTemperature, nil
}

// checkTemperature checks v against 0..limit.
func checkTemperature(v float64, source string, limit float64) (float64, error) {
	if !(v >= 0 && v <= limit) { // also rejects NaN
		return 0, &envsource.SettingError{Source: source, Expected: temperatureRange(limit), Found: strconv.FormatFloat(v, 'g', -1, 64)}
	}
	return v, nil
}

// temperatureRange says which temperatures a provider accepts.
func temperatureRange(limit float64) string {
	if limit == 1 {
		return "a number between 0 and 1 (Anthropic's range)"
	}
	return "a number between 0 and " + strconv.FormatFloat(limit, 'g', -1, 64)
}

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("not an http(s) URL")
	}
	return nil
}

// sourced is a candidate value and where it came from.
type sourced struct{ value, source string }

// pick returns the first non-empty value and its source.
func pick(candidates ...sourced) (string, string) {
	for _, c := range candidates {
		if v := strings.TrimSpace(c.value); v != "" {
			return v, c.source
		}
	}
	return "", ""
}

// ResolvePrices reads INPUT_PRICE_PER_MILLION and OUTPUT_PRICE_PER_MILLION (prices in any
// currency per million tokens). Neither set: nil, no cost is reported. Only one set, or a value
// that is not a non-negative number: a *SettingError.
func ResolvePrices(env envsource.LookupFunc) (*Prices, error) {
	get := func(name string) (string, bool) {
		if env == nil {
			return "", false
		}
		v, ok := env(name)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	in, hasIn := get("INPUT_PRICE_PER_MILLION")
	out, hasOut := get("OUTPUT_PRICE_PER_MILLION")
	switch {
	case !hasIn && !hasOut:
		return nil, nil
	case !hasOut:
		return nil, &envsource.SettingError{Source: "OUTPUT_PRICE_PER_MILLION", Expected: "a price per million output tokens (INPUT_PRICE_PER_MILLION is set)", Found: ""}
	case !hasIn:
		return nil, &envsource.SettingError{Source: "INPUT_PRICE_PER_MILLION", Expected: "a price per million input tokens (OUTPUT_PRICE_PER_MILLION is set)", Found: ""}
	}
	var p Prices
	for _, f := range []struct {
		name, value string
		dst         *float64
	}{{"INPUT_PRICE_PER_MILLION", in, &p.InputPerMillion}, {"OUTPUT_PRICE_PER_MILLION", out, &p.OutputPerMillion}} {
		v, err := strconv.ParseFloat(f.value, 64)
		if err != nil || !(v >= 0) || v > 1e9 {
			return nil, &envsource.SettingError{Source: f.name, Expected: "a non-negative number", Found: f.value}
		}
		*f.dst = v
	}
	return &p, nil
}
