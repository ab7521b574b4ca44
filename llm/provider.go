package llm

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/runwide"
)

// Provider names a provider of the provider table (providers.go): a value of LLM_PROVIDER
// (spec/linter.md §6), the prefix of a Weval model id (spec/blueprints.md §6), the search
// model's provider, or a custom model's inherit value. An Endpoint's Provider chooses how its
// requests are addressed (Azure OpenAI's deployment path and api-key header).
type Provider string

// Providers returns every provider LLM_PROVIDER accepts, in documentation order.
func Providers() []Provider {
	var out []Provider
	for _, p := range linterProviders() {
		out = append(out, p.name)
	}
	return out
}

// MaxReplyTokens is the highest token limit of a reply a setting may ask for
// (ANTHROPIC_MAX_TOKENS, which a project's .env may set; a blueprint's thinkingBudget): no model
// writes a longer reply, so a larger number is a mistake, reported with the range like every
// number a file sets (spec/trust.md §8).
const MaxReplyTokens = 1_000_000

// defaultTemperature is the temperature of linter calls when no setting gives one, and
// maxTemperature the top of the providers' ranges (a provider's own range may be narrower).
const (
	defaultTemperature = 0.2
	maxTemperature     = 2
)

// parseProvider parses an LLM_PROVIDER value (case-insensitive, surrounding space ignored).
func parseProvider(s string) (providerSpec, bool) {
	name := Provider(strings.ToLower(strings.TrimSpace(s)))
	for _, p := range linterProviders() {
		if p.name == name {
			return p, true
		}
	}
	return providerSpec{}, false
}

// providerNames lists the values of LLM_PROVIDER for messages: "openai, azure-openai, …".
func providerNames() string {
	var names []string
	for _, p := range linterProviders() {
		names = append(names, string(p.name))
	}
	return strings.Join(names, ", ")
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

// Error names exactly the variables to set.
func (e *NotConfiguredError) Error() string {
	if e.Provider == "" {
		return noProviderMessage()
	}
	return fmt.Sprintf("LLM provider %s is not fully configured: set %s", e.Provider, joinAnd(e.Missing))
}

// Is makes errors.Is(err, runwide.ErrNotConfigured) true.
func (e *NotConfiguredError) Is(target error) bool { return target == runwide.ErrNotConfigured }

// noProviderMessage names every way to configure a provider: the variables the provider chosen
// without LLM_PROVIDER needs, then LLM_PROVIDER=<name> with the required variables of each
// other provider (and, for one that needs no key, the flags that can give them instead).
func noProviderMessage() string {
	var auto string
	var others []string
	for _, p := range linterProviders() {
		required := p.requiredVars()
		if p.auto {
			auto = joinAnd(required) + " for " + p.title
			continue
		}
		s := "LLM_PROVIDER=" + string(p.name) + " with " + joinAnd(required)
		if !p.keyRequired {
			s += " (or " + joinAnd(p.requiredFlags()) + ")"
		}
		others = append(others, s)
	}
	return "no LLM provider is configured: set " + strings.Join(append([]string{auto}, others...), ", or ") +
		"; in the environment or a .env file"
}

// requiredVars are the variables a linter provider cannot do without: its key when it needs
// one, and its base URL and model when it has no default.
func (p providerSpec) requiredVars() []string {
	var out []string
	if p.keyRequired {
		out = append(out, p.keyVar)
	}
	if p.defaultBaseURL == "" {
		out = append(out, p.baseURLVar)
	}
	if p.defaultModel == "" {
		out = append(out, p.modelVar)
	}
	return out
}

// requiredFlags are the flags that can give the required settings of a provider without a key.
func (p providerSpec) requiredFlags() []string {
	var out []string
	if p.defaultBaseURL == "" {
		out = append(out, "--base-url")
	}
	if p.defaultModel == "" {
		out = append(out, "--model")
	}
	return out
}

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

// The names of settings in messages and sources.
const (
	flagBaseURL   = "--base-url"
	flagModel     = "--model"
	configBaseURL = "BaseURL in the config file"
	configModel   = "Model in the config file"
	byDefault     = "default"
)

// Resolve chooses the linter's provider and builds its Endpoint from the environment (env),
// the config file's settings and the command line's, following spec/linter.md §6 and the
// provider table:
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
// missing; a malformed value gives an *envsource.SettingError naming its source.
//
// The endpoint's KeySource and BaseURLSource record where the key and the base URL came from
// (env's Source for variables), for the trust rule (Client.CheckTrust).
func Resolve(env envsource.Vars, config, flags Settings) (Endpoint, error) {
	get := getter(env)
	p, err := resolveProvider(get, config, flags)
	if err != nil {
		return Endpoint{}, err
	}
	ep := Endpoint{Provider: p.name, APIKey: redact.Secret(get(p.keyVar))}
	if ep.APIKey != "" {
		ep.KeySource = envsource.SourceOf(env, p.keyVar)
	}
	ep.Model, _ = pick(
		sourced{flags.Model, flagModel},
		sourced{get(p.modelVar), p.modelVar},
		sourced{config.Model, configModel},
		sourced{p.defaultModel, byDefault})
	baseURL, baseSource := pick(
		sourced{flags.BaseURL, flagBaseURL},
		sourced{get(p.baseURLVar), p.baseURLVar},
		sourced{config.BaseURL, configBaseURL},
		sourced{p.defaultBaseURL, byDefault})
	ep.BaseURLSource = baseURLSource(env, p, baseSource, config, flags)

	if missing := p.missing(ep, baseURL); len(missing) > 0 {
		return Endpoint{}, &NotConfiguredError{Provider: p.name, Missing: missing}
	}
	if baseURL != "" {
		if err := checkBaseURL(baseURL); err != nil {
			return Endpoint{}, &envsource.SettingError{Source: baseSource, Expected: "an http or https URL such as http://localhost:11434/v1", Found: redact.URL(baseURL)}
		}
		ep.BaseURL = strings.TrimRight(baseURL, "/")
	}
	if p.apiVersionVar != "" {
		ep.APIVersion = cmp.Or(get(p.apiVersionVar), p.defaultAPIVersion)
	}
	temp, err := resolveTemperature(get, p, config, flags)
	if err != nil {
		return Endpoint{}, err
	}
	ep.Temperature = &temp
	if ep.MaxTokens, err = resolveMaxTokens(get, p); err != nil {
		return Endpoint{}, err
	}
	return ep, nil
}

// getter reads a variable of env, trimmed ("" when unset).
func getter(env envsource.Vars) func(string) string {
	return func(name string) string {
		if name == "" {
			return ""
		}
		v, _ := envsource.Lookup(env, name)
		return strings.TrimSpace(v)
	}
}

// baseURLSource says where the base URL Resolve picked came from (source is pick's).
func baseURLSource(env envsource.Vars, p providerSpec, source string, config, flags Settings) envsource.Source {
	switch source {
	case flagBaseURL:
		if flags.BaseURLFrom.Origin == envsource.OriginUnknown {
			return envsource.Source{Origin: envsource.OriginFlag, Name: flagBaseURL}
		}
		return flags.BaseURLFrom
	case p.baseURLVar:
		return envsource.SourceOf(env, p.baseURLVar)
	case configBaseURL:
		if config.BaseURLFrom.Origin == envsource.OriginUnknown {
			return envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL"}
		}
		return config.BaseURLFrom
	case byDefault:
		return envsource.Source{Origin: envsource.OriginDefault, Name: "the " + string(p.name) + " endpoint"}
	}
	return envsource.Source{}
}

// missing lists the settings an endpoint of p lacks, each with the flag or ini key that can
// give it instead (there is none for a key).
func (p providerSpec) missing(ep Endpoint, baseURL string) []string {
	var out []string
	if ep.APIKey == "" && p.needsKey(baseURL) {
		out = append(out, p.keyVar)
	}
	if baseURL == "" {
		out = append(out, p.baseURLVar+" (or --base-url, or BaseURL in vectorlint.ini)")
	}
	if ep.Model == "" {
		out = append(out, p.modelVar+" (or --model, or Model in vectorlint.ini)")
	}
	return out
}

// needsKey reports whether the linter needs a key at baseURL: hosted providers do; one whose
// key is needed only at its own host (openai) does elsewhere only when baseURL is not a URL.
func (p providerSpec) needsKey(baseURL string) bool {
	if !p.keyRequired {
		return false
	}
	if p.keyOnlyAtOwnHost {
		u, err := url.Parse(baseURL)
		own, _ := url.Parse(p.defaultBaseURL)
		return err != nil || u.Host == own.Host
	}
	return true
}

// resolveProvider picks the linter's provider: the first of --provider, LLM_PROVIDER and
// Provider in the config that is set, else the one chosen by its own variables (openai), else
// the one a base URL alone chooses (openai-compatible).
func resolveProvider(get func(string) string, config, flags Settings) (providerSpec, error) {
	for _, c := range []sourced{
		{flags.Provider, "--provider"},
		{get("LLM_PROVIDER"), "LLM_PROVIDER"},
		{config.Provider, "Provider in the config file"},
	} {
		if strings.TrimSpace(c.value) == "" {
			continue
		}
		p, ok := parseProvider(c.value)
		if !ok {
			return providerSpec{}, &envsource.SettingError{Source: c.source, Expected: "one of " + providerNames(), Found: c.value}
		}
		return p, nil
	}
	baseURLGiven := strings.TrimSpace(flags.BaseURL) != "" || strings.TrimSpace(config.BaseURL) != ""
	for _, p := range linterProviders() {
		if p.auto && (get(p.keyVar) != "" || get(p.baseURLVar) != "") {
			return p, nil
		}
	}
	for _, p := range linterProviders() {
		if p.byBaseURL && baseURLGiven {
			return p, nil
		}
	}
	return providerSpec{}, &NotConfiguredError{}
}

// resolveTemperature picks the temperature (the flag, else the provider's variable, else the
// config) and checks it against the provider's range, naming where it came from.
func resolveTemperature(get func(string) string, p providerSpec, config, flags Settings) (float64, error) {
	if flags.Temperature != nil {
		return checkTemperature(*flags.Temperature, "--temperature", p)
	}
	if s := get(p.temperatureVar); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, &envsource.SettingError{Source: p.temperatureVar, Expected: p.temperatureRange(), Found: s}
		}
		return checkTemperature(v, p.temperatureVar, p)
	}
	if config.Temperature != nil {
		return checkTemperature(*config.Temperature, "Temperature in the config file", p)
	}
	return defaultTemperature, nil
}

// checkTemperature checks v against p's range.
func checkTemperature(v float64, source string, p providerSpec) (float64, error) {
	if !(v >= 0 && v <= p.maxTemperature) { // also rejects NaN
		return 0, &envsource.SettingError{Source: source, Expected: p.temperatureRange(), Found: strconv.FormatFloat(v, 'g', -1, 64)}
	}
	return v, nil
}

// temperatureRange says which temperatures a provider accepts, naming the provider when its
// range is narrower than the others'.
func (p providerSpec) temperatureRange() string {
	s := "a number between 0 and " + strconv.FormatFloat(p.maxTemperature, 'g', -1, 64)
	if p.maxTemperature != maxTemperature {
		s += " (" + p.title + "'s range)"
	}
	return s
}

// resolveMaxTokens reads the provider's limit on a reply's tokens (0: none).
func resolveMaxTokens(get func(string) string, p providerSpec) (int, error) {
	if p.maxTokensVar == "" {
		return 0, nil
	}
	s := get(p.maxTokensVar)
	if s == "" {
		return p.defaultMaxTokens, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxReplyTokens {
		return 0, &envsource.SettingError{Source: p.maxTokensVar, Expected: "a whole number of tokens from 1 to " + strconv.Itoa(MaxReplyTokens), Found: s}
	}
	return n, nil
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
// currency per million tokens), and the optional CACHED_INPUT_PRICE_PER_MILLION and
// CACHE_WRITE_PRICE_PER_MILLION (without them, the provider's share of the input price).
// Neither input nor output set: nil, no cost is reported. Only one set, a cache price without
// them, or a value that is not a non-negative number: an *envsource.SettingError.
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
	cached, hasCached := get("CACHED_INPUT_PRICE_PER_MILLION")
	write, hasWrite := get("CACHE_WRITE_PRICE_PER_MILLION")
	switch {
	case !hasIn && !hasOut && (hasCached || hasWrite):
		name := "CACHED_INPUT_PRICE_PER_MILLION"
		if !hasCached {
			name = "CACHE_WRITE_PRICE_PER_MILLION"
		}
		return nil, &envsource.SettingError{Source: "INPUT_PRICE_PER_MILLION",
			Expected: "a price per million input tokens (" + name + " is set)", Found: ""}
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
	for _, f := range []struct {
		name, value string
		set         bool
		dst         **float64
	}{{"CACHED_INPUT_PRICE_PER_MILLION", cached, hasCached, &p.CachedInputPerMillion},
		{"CACHE_WRITE_PRICE_PER_MILLION", write, hasWrite, &p.CacheWritePerMillion}} {
		if !f.set {
			continue
		}
		v, err := strconv.ParseFloat(f.value, 64)
		if err != nil || !(v >= 0) || v > 1e9 {
			return nil, &envsource.SettingError{Source: f.name, Expected: "a non-negative number", Found: f.value}
		}
		*f.dst = &v
	}
	return &p, nil
}
