package llm_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/runwide"
	"github.com/vectorlint/vectorlint/llm"
)

func envOf(m map[string]string) envsource.LookupFunc {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func ptr[T any](v T) *T { return &v }

// withoutSources clears an endpoint's sources, which TestResolveSources checks, so the other
// tests compare the settings alone.
func withoutSources(ep llm.Endpoint) llm.Endpoint {
	ep.KeySource, ep.BaseURLSource = envsource.Source{}, envsource.Source{}
	return ep
}

func TestResolve(t *testing.T) {
	t.Parallel()
	const key = "sk-test-0123456789abcdef"
	tests := []struct {
		name          string
		env           map[string]string
		config, flags llm.Settings
		want          llm.Endpoint
		wantErr       string
	}{
		{
			name: "openai from the key alone",
			env:  map[string]string{"OPENAI_API_KEY": key},
			want: llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: key,
				Model: "gpt-4o", Temperature: ptr(0.2)},
		},
		{
			name: "openai with model and temperature",
			env: map[string]string{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": key, "OPENAI_MODEL": "gpt-4.1",
				"OPENAI_TEMPERATURE": "0"},
			want: llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: key,
				Model: "gpt-4.1", Temperature: ptr(0.0)},
		},
		{
			name:    "openai without a key",
			env:     map[string]string{"LLM_PROVIDER": "openai"},
			wantErr: "LLM provider openai is not fully configured: set OPENAI_API_KEY",
		},
		{
			name: "openai at a local base URL needs no key",
			env:  map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1/", "OPENAI_MODEL": "llama3.2"},
			want: llm.Endpoint{Provider: "openai", BaseURL: "http://localhost:11434/v1", Model: "llama3.2",
				Temperature: ptr(0.2)},
		},
		{
			name: "azure-openai",
			env: map[string]string{"LLM_PROVIDER": "azure-openai", "AZURE_OPENAI_API_KEY": key,
				"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com/", "AZURE_OPENAI_DEPLOYMENT_NAME": "gpt4o-prod",
				"AZURE_OPENAI_API_VERSION": "2024-08-01-preview", "AZURE_OPENAI_TEMPERATURE": "0.5"},
			want: llm.Endpoint{Provider: "azure-openai", BaseURL: "https://res.openai.azure.com", APIKey: key,
				Model: "gpt4o-prod", APIVersion: "2024-08-01-preview", Temperature: ptr(0.5)},
		},
		{
			name: "azure-openai default api-version",
			env: map[string]string{"LLM_PROVIDER": "azure-openai", "AZURE_OPENAI_API_KEY": key,
				"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com", "AZURE_OPENAI_DEPLOYMENT_NAME": "d"},
			want: llm.Endpoint{Provider: "azure-openai", BaseURL: "https://res.openai.azure.com", APIKey: key,
				Model: "d", APIVersion: "2024-10-21", Temperature: ptr(0.2)},
		},
		{
			name: "azure-openai with nothing set",
			env:  map[string]string{"LLM_PROVIDER": "azure-openai"},
			wantErr: "LLM provider azure-openai is not fully configured: set AZURE_OPENAI_API_KEY, " +
				"AZURE_OPENAI_ENDPOINT (or --base-url, or BaseURL in vectorlint.ini) and " +
				"AZURE_OPENAI_DEPLOYMENT_NAME (or --model, or Model in vectorlint.ini)",
		},
		{
			name: "anthropic",
			env: map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": key,
				"ANTHROPIC_MODEL": "claude-sonnet-4-5", "ANTHROPIC_TEMPERATURE": "1"},
			want: llm.Endpoint{Provider: "anthropic", BaseURL: "https://api.anthropic.com/v1", APIKey: key,
				Model: "claude-sonnet-4-5", Temperature: ptr(1.0), MaxTokens: 4096},
		},
		// The original's environment (src/schemas/env-schemas.ts, tests/env-parser.test.ts):
		// the key alone works, with a default model and ANTHROPIC_MAX_TOKENS of 4096;
		// ANTHROPIC_TEMPERATURE is 0 to 1 ("validates temperature ranges correctly for each
		// provider": 1.5 is rejected for Anthropic, accepted for OpenAI and Azure).
		{
			name: "anthropic with only a key (uses default values for optional Anthropic fields)",
			env:  map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": key},
			want: llm.Endpoint{Provider: "anthropic", BaseURL: "https://api.anthropic.com/v1", APIKey: key,
				Model: "claude-sonnet-4-5", Temperature: ptr(0.2), MaxTokens: 4096},
		},
		{
			name: "anthropic max tokens (parses valid Anthropic environment variables)",
			env: map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": key, "ANTHROPIC_MODEL": "claude-3-haiku-20240307",
				"ANTHROPIC_MAX_TOKENS": "2048", "ANTHROPIC_TEMPERATURE": "0.5"},
			want: llm.Endpoint{Provider: "anthropic", BaseURL: "https://api.anthropic.com/v1", APIKey: key,
				Model: "claude-3-haiku-20240307", Temperature: ptr(0.5), MaxTokens: 2048},
		},
		{
			name:    "anthropic temperature above 1",
			env:     map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": key, "ANTHROPIC_TEMPERATURE": "1.5"},
			wantErr: `ANTHROPIC_TEMPERATURE: expected a number between 0 and 1 (Anthropic's range), found "1.5"`,
		},
		{
			name:    "anthropic temperature above 1 from the config",
			env:     map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": key},
			config:  llm.Settings{Temperature: ptr(1.2)},
			wantErr: `Temperature in the config file: expected a number between 0 and 1 (Anthropic's range), found "1.2"`,
		},
		{
			name: "openai temperature 1.5 is in range",
			env:  map[string]string{"OPENAI_API_KEY": key, "OPENAI_TEMPERATURE": "1.5"},
			want: llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: key,
				Model: "gpt-4o", Temperature: ptr(1.5)},
		},
		{
			name:    "anthropic max tokens not a positive whole number",
			env:     map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": key, "ANTHROPIC_MAX_TOKENS": "0"},
			wantErr: `ANTHROPIC_MAX_TOKENS: expected a whole number of tokens from 1 to 1000000, found "0"`,
		},
		{
			name: "anthropic base URL override",
			env: map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": key, "ANTHROPIC_MODEL": "m",
				"ANTHROPIC_BASE_URL": "https://proxy.example.com/anthropic/v1"},
			want: llm.Endpoint{Provider: "anthropic", BaseURL: "https://proxy.example.com/anthropic/v1", APIKey: key,
				Model: "m", Temperature: ptr(0.2), MaxTokens: 4096},
		},
		{
			name: "gemini defaults",
			env:  map[string]string{"LLM_PROVIDER": "gemini", "GEMINI_API_KEY": key, "GEMINI_TEMPERATURE": "0.7"},
			want: llm.Endpoint{Provider: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
				APIKey: key, Model: "gemini-2.5-flash", Temperature: ptr(0.7)},
		},
		{
			name:    "gemini without a key",
			env:     map[string]string{"LLM_PROVIDER": "gemini", "GEMINI_MODEL": "gemini-2.5-pro"},
			wantErr: "LLM provider gemini is not fully configured: set GEMINI_API_KEY",
		},
		{
			name:   "openai-compatible from the config file, no key",
			env:    map[string]string{"LLM_PROVIDER": "openai-compatible"},
			config: llm.Settings{BaseURL: "http://localhost:11434/v1", Model: "qwen3:8b"},
			want: llm.Endpoint{Provider: "openai-compatible", BaseURL: "http://localhost:11434/v1",
				Model: "qwen3:8b", Temperature: ptr(0.2)},
		},
		{
			name:  "openai-compatible from flags with a key",
			env:   map[string]string{"OPENAI_API_KEY": key},
			flags: llm.Settings{Provider: "openai-compatible", BaseURL: "http://gpu-box:8000/v1", Model: "mistral"},
			want: llm.Endpoint{Provider: "openai-compatible", BaseURL: "http://gpu-box:8000/v1", APIKey: key,
				Model: "mistral", Temperature: ptr(0.2)},
		},
		{
			name: "openai-compatible missing base URL and model",
			env:  map[string]string{"LLM_PROVIDER": "openai-compatible"},
			wantErr: "LLM provider openai-compatible is not fully configured: set OPENAI_BASE_URL (or --base-url, " +
				"or BaseURL in vectorlint.ini) and OPENAI_MODEL (or --model, or Model in vectorlint.ini)",
		},
		{
			name:  "a base URL flag alone selects openai-compatible",
			flags: llm.Settings{BaseURL: "http://127.0.0.1:1234/v1", Model: "local"},
			want: llm.Endpoint{Provider: "openai-compatible", BaseURL: "http://127.0.0.1:1234/v1",
				Model: "local", Temperature: ptr(0.2)},
		},
		{
			name: "nothing configured",
			env:  map[string]string{"HOME": "/home/u"},
			wantErr: "no LLM provider is configured: set OPENAI_API_KEY for OpenAI, or LLM_PROVIDER=azure-openai with " +
				"AZURE_OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_DEPLOYMENT_NAME, or LLM_PROVIDER=anthropic " +
				"with ANTHROPIC_API_KEY, or LLM_PROVIDER=gemini with GEMINI_API_KEY, or " +
				"LLM_PROVIDER=openai-compatible with OPENAI_BASE_URL and OPENAI_MODEL (or --base-url and --model); " +
				"in the environment or a .env file",
		},
		{
			name:  "flags beat the environment, which beats the config",
			env:   map[string]string{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": key, "GEMINI_API_KEY": "AIza-gem-key", "GEMINI_MODEL": "gemini-env"},
			flags: llm.Settings{Provider: "gemini", Model: "gemini-flag"},
			config: llm.Settings{Provider: "anthropic", Model: "config-model", BaseURL: "https://config.example.com/v1",
				Temperature: ptr(0.9)},
			want: llm.Endpoint{Provider: "gemini", BaseURL: "https://config.example.com/v1", APIKey: "AIza-gem-key",
				Model: "gemini-flag", Temperature: ptr(0.9)},
		},
		{
			name:   "the environment's model beats the config's",
			env:    map[string]string{"OPENAI_API_KEY": key, "OPENAI_MODEL": "gpt-env", "OPENAI_TEMPERATURE": "0.1"},
			config: llm.Settings{Model: "gpt-config", Temperature: ptr(0.9)},
			want: llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: key,
				Model: "gpt-env", Temperature: ptr(0.1)},
		},
		{
			name:   "provider from the config file",
			env:    map[string]string{"GEMINI_API_KEY": key},
			config: llm.Settings{Provider: "Gemini"},
			want: llm.Endpoint{Provider: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
				APIKey: key, Model: "gemini-2.5-flash", Temperature: ptr(0.2)},
		},
		{
			name: "provider names are case-insensitive and trimmed",
			env:  map[string]string{"LLM_PROVIDER": " OpenAI ", "OPENAI_API_KEY": key},
			want: llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: key,
				Model: "gpt-4o", Temperature: ptr(0.2)},
		},
		{
			name:    "unknown provider",
			env:     map[string]string{"LLM_PROVIDER": "perplexity"},
			wantErr: `LLM_PROVIDER: expected one of openai, azure-openai, anthropic, gemini, openai-compatible, found "perplexity"`,
		},
		{
			name:    "unknown provider flag",
			flags:   llm.Settings{Provider: "azure"},
			wantErr: `--provider: expected one of openai, azure-openai, anthropic, gemini, openai-compatible, found "azure"`,
		},
		{
			name:    "temperature that is not a number",
			env:     map[string]string{"OPENAI_API_KEY": key, "OPENAI_TEMPERATURE": "hot"},
			wantErr: `OPENAI_TEMPERATURE: expected a number between 0 and 2, found "hot"`,
		},
		{
			name:    "temperature out of range",
			env:     map[string]string{"OPENAI_API_KEY": key, "OPENAI_TEMPERATURE": "3"},
			wantErr: `OPENAI_TEMPERATURE: expected a number between 0 and 2, found "3"`,
		},
		{
			name:    "config temperature out of range",
			env:     map[string]string{"OPENAI_API_KEY": key},
			config:  llm.Settings{Temperature: ptr(-1.0)},
			wantErr: `Temperature in the config file: expected a number between 0 and 2, found "-1"`,
		},
		{
			name:    "base URL without a scheme",
			env:     map[string]string{"OPENAI_BASE_URL": "localhost:11434"},
			wantErr: `OPENAI_BASE_URL: expected an http or https URL such as http://localhost:11434/v1, found "localhost:11434"`,
		},
		{
			name:    "base URL flag without a host",
			env:     map[string]string{"OPENAI_API_KEY": key},
			flags:   llm.Settings{BaseURL: "http://"},
			wantErr: `--base-url: expected an http or https URL such as http://localhost:11434/v1, found "http://"`,
		},
		{
			name: "empty variables count as unset",
			env:  map[string]string{"LLM_PROVIDER": "", "OPENAI_API_KEY": key, "OPENAI_MODEL": " "},
			want: llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: key,
				Model: "gpt-4o", Temperature: ptr(0.2)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.Resolve(envOf(tt.env), tt.config, tt.flags)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Resolve = %#v, want error %q", got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Fatalf("error:\n got %q\nwant %q", err.Error(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got = withoutSources(got); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Resolve:\n got %#v key=%q temp=%v\nwant %#v key=%q temp=%v", got, string(got.APIKey), deref(got.Temperature),
					tt.want, string(tt.want.APIKey), deref(tt.want.Temperature))
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestResolveErrorTypes(t *testing.T) {
	t.Parallel()
	_, err := llm.Resolve(envOf(nil), llm.Settings{}, llm.Settings{})
	var nc *llm.NotConfiguredError
	if !errors.As(err, &nc) || nc.Provider != "" || !errors.Is(err, runwide.ErrNotConfigured) {
		t.Fatalf("no provider: got %T %v, want *NotConfiguredError with no provider", err, err)
	}
	_, err = llm.Resolve(envOf(map[string]string{"LLM_PROVIDER": "anthropic"}), llm.Settings{}, llm.Settings{})
	if !errors.As(err, &nc) || nc.Provider != "anthropic" ||
		!reflect.DeepEqual(nc.Missing, []string{"ANTHROPIC_API_KEY"}) {
		t.Fatalf("anthropic: got %#v", err)
	}
	_, err = llm.Resolve(envOf(map[string]string{"LLM_PROVIDER": "x"}), llm.Settings{}, llm.Settings{})
	var se *envsource.SettingError
	if !errors.As(err, &se) || se.Source != "LLM_PROVIDER" || se.Found != "x" {
		t.Fatalf("bad provider: got %#v", err)
	}
	// A nil lookup is an empty environment.
	if _, err := llm.Resolve(nil, llm.Settings{}, llm.Settings{}); !errors.Is(err, runwide.ErrNotConfigured) {
		t.Fatalf("nil env: got %v", err)
	}
}

func TestResolvePrices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env     map[string]string
		want    *llm.Prices
		wantErr string
	}{
		{env: nil, want: nil},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "2.5", "OUTPUT_PRICE_PER_MILLION": "10"},
			want: &llm.Prices{InputPerMillion: 2.5, OutputPerMillion: 10}},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "0", "OUTPUT_PRICE_PER_MILLION": " 0.6 "},
			want: &llm.Prices{InputPerMillion: 0, OutputPerMillion: 0.6}},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "2.5"},
			wantErr: `OUTPUT_PRICE_PER_MILLION: expected a price per million output tokens (INPUT_PRICE_PER_MILLION is set), found ""`},
		{env: map[string]string{"OUTPUT_PRICE_PER_MILLION": "2.5"},
			wantErr: `INPUT_PRICE_PER_MILLION: expected a price per million input tokens (OUTPUT_PRICE_PER_MILLION is set), found ""`},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "$3", "OUTPUT_PRICE_PER_MILLION": "1"},
			wantErr: `INPUT_PRICE_PER_MILLION: expected a non-negative number, found "$3"`},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "1", "OUTPUT_PRICE_PER_MILLION": "-1"},
			wantErr: `OUTPUT_PRICE_PER_MILLION: expected a non-negative number, found "-1"`},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "NaN", "OUTPUT_PRICE_PER_MILLION": "1"},
			wantErr: `INPUT_PRICE_PER_MILLION: expected a non-negative number, found "NaN"`},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "3", "OUTPUT_PRICE_PER_MILLION": "15",
			"CACHED_INPUT_PRICE_PER_MILLION": "0.3", "CACHE_WRITE_PRICE_PER_MILLION": "3.75"},
			want: &llm.Prices{InputPerMillion: 3, OutputPerMillion: 15, CachedInputPerMillion: ptr(0.3), CacheWritePerMillion: ptr(3.75)}},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "2.5", "OUTPUT_PRICE_PER_MILLION": "10", "CACHED_INPUT_PRICE_PER_MILLION": "0"},
			want: &llm.Prices{InputPerMillion: 2.5, OutputPerMillion: 10, CachedInputPerMillion: ptr(0.0)}},
		{env: map[string]string{"CACHED_INPUT_PRICE_PER_MILLION": "1.25"},
			wantErr: `INPUT_PRICE_PER_MILLION: expected a price per million input tokens (CACHED_INPUT_PRICE_PER_MILLION is set), found ""`},
		{env: map[string]string{"CACHE_WRITE_PRICE_PER_MILLION": "1.25"},
			wantErr: `INPUT_PRICE_PER_MILLION: expected a price per million input tokens (CACHE_WRITE_PRICE_PER_MILLION is set), found ""`},
		{env: map[string]string{"INPUT_PRICE_PER_MILLION": "3", "OUTPUT_PRICE_PER_MILLION": "15", "CACHE_WRITE_PRICE_PER_MILLION": "lots"},
			wantErr: `CACHE_WRITE_PRICE_PER_MILLION: expected a non-negative number, found "lots"`},
	}
	for _, tt := range tests {
		got, err := llm.ResolvePrices(envOf(tt.env))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ResolvePrices(%v) error = %v, want %q", tt.env, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ResolvePrices(%v) = %+v, %v; want %+v", tt.env, got, err, tt.want)
		}
	}
}

// TestResolveFromDotEnv: a provider configured in the project's .env resolves like one of the
// process environment, the process environment still winning.
func TestResolveFromDotEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	content := "export LLM_PROVIDER=gemini\nGEMINI_API_KEY = AIza-file-key   # from the file\nGEMINI_MODEL='gemini-2.5-pro'\nGEMINI_TEMPERATURE=0.5\n"
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	env, err := envsource.Load(envsource.Options{Process: envOf(map[string]string{"GEMINI_TEMPERATURE": "0.1"}), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := llm.Resolve(env, llm.Settings{}, llm.Settings{})
	if err != nil || ep.Provider != "gemini" || ep.Model != "gemini-2.5-pro" || string(ep.APIKey) != "AIza-file-key" ||
		*ep.Temperature != 0.1 {
		t.Fatalf("Resolve with .env = %v, %v", ep, err)
	}
	if want := (envsource.Source{Origin: envsource.OriginDotEnv, Name: "GEMINI_API_KEY", File: filepath.Join(dir, ".env"), Line: 2}); ep.KeySource != want {
		t.Errorf("KeySource = %+v, want %+v", ep.KeySource, want)
	}
}

func TestModelEndpoint(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"OPENROUTER_API_KEY": "sk-or-v1-abc", "GEMINI_API_KEY": "AIza-g", "OPENAI_API_KEY": "sk-o",
		"OLLAMA_BASE_URL": "http://gpu:11434/v1/", "MISTRAL_BASE_URL": "mistral.local"})
	tests := []struct {
		id      string
		want    llm.Endpoint
		wantErr string
	}{
		{id: "openrouter:qwen/qwen3-30b-a3b-instruct-2507", want: llm.Endpoint{Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1",
			APIKey: "sk-or-v1-abc", Model: "qwen/qwen3-30b-a3b-instruct-2507", LimitGroup: "openrouter"}},
		{id: " OpenAI : gpt-4o-mini ", want: llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: "sk-o",
			Model: "gpt-4o-mini", LimitGroup: "openai"}},
		{id: "google:gemini-2.5-flash", want: llm.Endpoint{Provider: "google", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
			APIKey: "AIza-g", Model: "gemini-2.5-flash", LimitGroup: "google"}},
		{id: "ollama:qwen3:8b", want: llm.Endpoint{Provider: "ollama", BaseURL: "http://gpu:11434/v1", Model: "qwen3:8b", LimitGroup: "ollama"}},
		{id: "anthropic:claude-3.5-haiku", wantErr: "LLM provider anthropic is not fully configured: set ANTHROPIC_API_KEY"},
		{id: "xai:grok-3", wantErr: "LLM provider xai is not fully configured: set XAI_API_KEY"},
		{id: "mistral:small", wantErr: `MISTRAL_BASE_URL: expected an http or https URL, found "mistral.local"`},
		{id: "gpt-4o", wantErr: `model id: expected "provider:model" such as "openai:gpt-4o", found "gpt-4o"`},
		{id: "bedrock:x", wantErr: `model id "bedrock:x": expected a provider among anthropic, google, groq, mistral, ollama, openai, openrouter, together, xai, found "bedrock"`},
	}
	for _, tt := range tests {
		got, err := llm.ModelEndpoint(env, tt.id)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ModelEndpoint(%q) error = %v, want %s", tt.id, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(withoutSources(got), tt.want) {
			t.Errorf("ModelEndpoint(%q) = %#v key %q, %v", tt.id, got, string(got.APIKey), err)
		}
	}
	// GOOGLE_API_KEY is preferred to GEMINI_API_KEY.
	ep, err := llm.ModelEndpoint(envOf(map[string]string{"GOOGLE_API_KEY": "AIza-google", "GEMINI_API_KEY": "AIza-g"}), "google:m")
	if err != nil || string(ep.APIKey) != "AIza-google" {
		t.Fatalf("google key %q, %v", string(ep.APIKey), err)
	}
	_, err = llm.ModelEndpoint(nil, "google:m")
	if err == nil || err.Error() != "LLM provider google is not fully configured: set GOOGLE_API_KEY or GEMINI_API_KEY" {
		t.Fatalf("google without key: %v", err)
	}
}

func TestResolveSearch(t *testing.T) {
	t.Parallel()
	ep, err := llm.ResolveSearch(envOf(map[string]string{"PERPLEXITY_API_KEY": "pplx-123"}))
	want := llm.Endpoint{Provider: "perplexity", BaseURL: "https://api.perplexity.ai", APIKey: "pplx-123", Model: "sonar-pro", LimitGroup: "perplexity"}
	if err != nil || !reflect.DeepEqual(withoutSources(ep), want) {
		t.Fatalf("ResolveSearch = %#v, %v", ep, err)
	}
	ep, err = llm.ResolveSearch(envOf(map[string]string{"PERPLEXITY_API_KEY": "k", "SEARCH_MODEL": "sonar", "PERPLEXITY_BASE_URL": "http://localhost:9000/"}))
	if err != nil || ep.Model != "sonar" || ep.BaseURL != "http://localhost:9000" {
		t.Fatalf("overrides: %#v, %v", ep, err)
	}
	_, err = llm.ResolveSearch(envOf(nil))
	if !errors.Is(err, runwide.ErrNotConfigured) || err.Error() != "LLM provider perplexity is not fully configured: set PERPLEXITY_API_KEY" {
		t.Fatalf("no key: %v", err)
	}
	// A search model served elsewhere needs no key (as rules.SearchModelConfigured allows); a
	// base URL alone, or SEARCH_MODEL at Perplexity's own API, still does.
	ep, err = llm.ResolveSearch(envOf(map[string]string{"SEARCH_MODEL": "local-search", "PERPLEXITY_BASE_URL": "http://localhost:9000/v1"}))
	if err != nil || ep.Model != "local-search" || ep.APIKey != "" {
		t.Fatalf("keyless local search model: %#v, %v", ep, err)
	}
	for _, env := range []map[string]string{
		{"PERPLEXITY_BASE_URL": "http://localhost:9000/v1"},
		{"SEARCH_MODEL": "sonar", "PERPLEXITY_BASE_URL": "https://api.perplexity.ai"},
	} {
		if _, err := llm.ResolveSearch(envOf(env)); !errors.Is(err, runwide.ErrNotConfigured) {
			t.Errorf("%v: %v, want a NotConfiguredError", env, err)
		}
	}
}
