package llm

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
)

// vars is a process environment made of m.
func vars(m map[string]string) envsource.LookupFunc {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// TestProviderTableShape checks the invariants the resolvers rely on: unique names and model-id
// prefixes, one provider chosen by its variables, one by a base URL alone, one search model,
// and every variable a linter provider needs.
func TestProviderTableShape(t *testing.T) {
	t.Parallel()
	names, prefixes := map[Provider]bool{}, map[string]bool{}
	var auto, byBaseURL, search int
	for _, p := range providerTable() {
		if p.name == "" || names[p.name] || p.title == "" {
			t.Errorf("%q: a row needs a unique name and a title", p.name)
		}
		names[p.name] = true
		if p.idPrefix != "" {
			if prefixes[p.idPrefix] || p.defaultBaseURL == "" {
				t.Errorf("%s: a model-id prefix must be unique and have a default base URL", p.name)
			}
			prefixes[p.idPrefix] = true
		}
		if p.linter && (p.keyVar == "" || p.modelVar == "" || p.baseURLVar == "" || p.temperatureVar == "" || p.maxTemperature <= 0) {
			t.Errorf("%s: a linter provider needs its key, model, base URL and temperature variables and a range", p.name)
		}
		if p.keyOnlyAtOwnHost && (!p.keyRequired || p.defaultBaseURL == "") {
			t.Errorf("%s: a key needed only at the provider's own host needs that host", p.name)
		}
		if (p.apiVersionVar == "") != (p.defaultAPIVersion == "") || (p.maxTokensVar == "") != (p.defaultMaxTokens == 0) {
			t.Errorf("%s: a variable and its default go together", p.name)
		}
		if p.auto {
			auto++
		}
		if p.byBaseURL {
			byBaseURL++
		}
		if p.search {
			search++
		}
	}
	if auto != 1 || byBaseURL != 1 || search != 1 {
		t.Errorf("auto %d, byBaseURL %d, search %d providers; want one each", auto, byBaseURL, search)
	}
}

// TestEveryLinterProviderResolves walks the table: every provider LLM_PROVIDER accepts resolves
// from its own variables to its defaults, is named with its variables when one is missing (in
// its own error and in the message for no provider at all) and in the fixes of a stop.
func TestEveryLinterProviderResolves(t *testing.T) {
	t.Parallel()
	noProvider := (&NotConfiguredError{}).Error()
	for _, p := range linterProviders() {
		t.Run(string(p.name), func(t *testing.T) {
			t.Parallel()
			if !slices.Contains(Providers(), p.name) {
				t.Errorf("Providers() = %v lacks it", Providers())
			}
			env := map[string]string{"LLM_PROVIDER": strings.ToUpper(string(p.name))}
			for _, v := range p.requiredVars() {
				env[v] = "http://models.test/" + v // a URL does for every variable
			}
			env[p.keyVar] = "sk-test-" + string(p.name)
			ep, err := Resolve(vars(env), Settings{}, Settings{})
			if err != nil {
				t.Fatalf("Resolve with %v: %v", env, err)
			}
			wantModel := cmpOr(p.defaultModel, env[p.modelVar])
			wantBase := cmpOr(p.defaultBaseURL, env[p.baseURLVar])
			if ep.Provider != p.name || ep.Model != wantModel || ep.BaseURL != wantBase || string(ep.APIKey) != env[p.keyVar] ||
				ep.KeySource != (envsource.Source{Origin: envsource.OriginProcess, Name: p.keyVar}) ||
				*ep.Temperature != defaultTemperature || ep.MaxTokens != p.defaultMaxTokens || ep.APIVersion != p.defaultAPIVersion {
				t.Errorf("Resolve = %+v", ep)
			}

			// The provider's own variables win over its defaults.
			env[p.modelVar], env[p.baseURLVar], env[p.temperatureVar] = "own-model", "https://own.test/v1", "0.5"
			ep, err = Resolve(vars(env), Settings{}, Settings{})
			if err != nil || ep.Model != "own-model" || ep.BaseURL != "https://own.test/v1" || *ep.Temperature != 0.5 ||
				ep.BaseURLSource != (envsource.Source{Origin: envsource.OriginProcess, Name: p.baseURLVar}) {
				t.Errorf("Resolve with its variables = %+v, %v", ep, err)
			}
			env[p.temperatureVar] = strconv.FormatFloat(p.maxTemperature+0.5, 'g', -1, 64)
			_, err = Resolve(vars(env), Settings{}, Settings{})
			if want := p.temperatureVar + ": expected " + p.temperatureRange() + ", found \"" + env[p.temperatureVar] + "\""; err == nil || err.Error() != want {
				t.Errorf("temperature above the range: %v, want %s", err, want)
			}

			// Without its variables, the error names each one to set.
			required := p.requiredVars()
			_, err = Resolve(vars(map[string]string{"LLM_PROVIDER": string(p.name)}), Settings{}, Settings{})
			var nc *NotConfiguredError
			switch {
			case len(required) == 0:
				if err != nil {
					t.Errorf("with nothing set: %v", err)
				}
			case !errors.As(err, &nc) || nc.Provider != p.name || len(nc.Missing) != len(required):
				t.Errorf("with nothing set: %v, want a *NotConfiguredError naming %v", err, required)
			default:
				for i, v := range required {
					if !strings.HasPrefix(nc.Missing[i], v) {
						t.Errorf("missing[%d] = %q, want %s", i, nc.Missing[i], v)
					}
				}
			}
			for _, v := range required {
				if !strings.Contains(noProvider, v) {
					t.Errorf("the message for no provider does not name %s: %s", v, noProvider)
				}
			}
			if !p.auto && !strings.Contains(noProvider, "LLM_PROVIDER="+string(p.name)+" with ") {
				t.Errorf("the message for no provider does not name LLM_PROVIDER=%s: %s", p.name, noProvider)
			}

			names := LinterSettingNames(p.name, true)
			if names.Key != p.keyVar || !strings.Contains(names.BaseURL, p.baseURLVar) || !strings.Contains(names.Model, p.modelVar) {
				t.Errorf("LinterSettingNames = %+v", names)
			}
			if got := settingNames(Endpoint{Provider: p.name}); got.Key != p.keyVar || got.BaseURL != p.baseURLVar || got.Model != p.modelVar {
				t.Errorf("settingNames = %+v", got)
			}
		})
	}
	if got := parseProviderNames(t); got != providerNames() {
		t.Errorf("an unknown LLM_PROVIDER lists %q, want %q", got, providerNames())
	}
}

// parseProviderNames returns the list of providers Resolve names for an unknown LLM_PROVIDER.
func parseProviderNames(t *testing.T) string {
	t.Helper()
	_, err := Resolve(vars(map[string]string{"LLM_PROVIDER": "nope"}), Settings{}, Settings{})
	var se *envsource.SettingError
	if !errors.As(err, &se) || se.Source != "LLM_PROVIDER" {
		t.Fatalf("unknown provider: %v", err)
	}
	return strings.TrimPrefix(se.Expected, "one of ")
}

// TestEveryModelIDProviderResolves walks the table: every model-id prefix resolves to its
// endpoint with its key, its base URL variable overrides the default, a missing key names its
// variables, and a stop's fix names them too.
func TestEveryModelIDProviderResolves(t *testing.T) {
	t.Parallel()
	for _, p := range providerTable() {
		if p.idPrefix == "" {
			continue
		}
		t.Run(p.idPrefix, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{}
			keys := p.idKeys()
			for _, k := range keys {
				env[k] = "key-of-" + k
			}
			ep, err := ModelEndpoint(vars(env), strings.ToUpper(p.idPrefix)+" : some/model:tag")
			if err != nil {
				t.Fatal(err)
			}
			if ep.Provider != Provider(p.idPrefix) || ep.Model != "some/model:tag" || ep.BaseURL != p.defaultBaseURL ||
				ep.LimitGroup != p.idPrefix || ep.Temperature != nil {
				t.Errorf("ModelEndpoint = %+v", ep)
			}
			if len(keys) > 0 && (string(ep.APIKey) != "key-of-"+keys[0] || ep.KeySource.Name != keys[0]) {
				t.Errorf("key %q from %v, want %s", ep.APIKey, ep.KeySource, keys[0])
			}

			env[p.idBaseURLVar()] = "http://127.0.0.1:9/v1/"
			if ep, err := ModelEndpoint(vars(env), p.idPrefix+":m"); err != nil || ep.BaseURL != "http://127.0.0.1:9/v1" ||
				ep.BaseURLSource.Name != p.idBaseURLVar() {
				t.Errorf("with %s: %+v, %v", p.idBaseURLVar(), ep, err)
			}

			_, err = ModelEndpoint(vars(nil), p.idPrefix+":m")
			if len(keys) == 0 {
				if err != nil {
					t.Errorf("a provider without a key: %v", err)
				}
			} else if want := "LLM provider " + p.idPrefix + " is not fully configured: set " + strings.Join(keys, " or "); err == nil || err.Error() != want {
				t.Errorf("without a key: %v, want %s", err, want)
			}
			names := settingNames(Endpoint{Provider: Provider(p.idPrefix)})
			if len(keys) > 0 && names.Key != strings.Join(keys, " or ") {
				t.Errorf("settingNames = %+v", names)
			}
		})
	}
	_, err := ModelEndpoint(vars(nil), "nope:m")
	if want := `model id "nope:m": expected a provider among ` + strings.Join(modelIDPrefixes(), ", ") + `, found "nope"`; err == nil || err.Error() != want {
		t.Errorf("unknown prefix: %v", err)
	}
}

// TestSearchProviderResolves: the search row gives ResolveSearch its variables and defaults.
func TestSearchProviderResolves(t *testing.T) {
	t.Parallel()
	p := searchProvider()
	ep, err := ResolveSearch(vars(map[string]string{p.keyVar: "pk"}))
	if err != nil || ep.Provider != p.name || ep.Model != p.defaultModel || ep.BaseURL != p.defaultBaseURL || string(ep.APIKey) != "pk" {
		t.Fatalf("ResolveSearch = %+v, %v", ep, err)
	}
	if _, err := ResolveSearch(vars(nil)); err == nil || err.Error() != "LLM provider "+string(p.name)+" is not fully configured: set "+p.keyVar {
		t.Errorf("without a key: %v", err)
	}
	if got := settingNames(Endpoint{Provider: p.name}); got.Key != p.keyVar || got.BaseURL != p.baseURLVar || got.Model != p.modelVar {
		t.Errorf("settingNames = %+v", got)
	}
}

// TestProviderTableInDocs: docs/providers.md's two provider tables are the provider table's
// rows, in its order, with its variables and defaults; the search model's sentence names its
// variables and defaults. A provider added to the table and not to the docs (or the other way
// round) fails here.
func TestProviderTableInDocs(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)

	var linter []string
	for _, p := range linterProviders() {
		linter = append(linter, linterDocRow(p))
	}
	compareDocTable(t, doc, "| `LLM_PROVIDER` | key | model (default) | base URL (default) | temperature | reply tokens |", linter)

	var ids []string
	for _, p := range providerTable() {
		if p.idPrefix == "" {
			continue
		}
		key := "none"
		if keys := p.idKeys(); len(keys) > 0 {
			key = "`" + strings.Join(keys, "` or `") + "`"
		}
		api := "chat"
		if p.native != "" {
			api = string(p.native)
		}
		ids = append(ids, "| `"+p.idPrefix+"` | "+key+" | `"+p.defaultBaseURL+"` | "+api+" |")
	}
	compareDocTable(t, doc, "| provider | key | base URL (override with `<PROVIDER>_BASE_URL`) | custom model API |", ids)

	var caching []string
	for _, p := range linterProviders() {
		read, write := cacheShares(p.name)
		share := func(f float64) string {
			if f == 1 {
				return "the input price"
			}
			return strconv.FormatFloat(f*100, 'g', -1, 64) + " % of the input price"
		}
		writes := "none"
		if p.wire == wireAnthropic {
			writes = share(write)
		}
		marks := "none"
		switch {
		case p.wire == wireAnthropic:
			marks = "`cache_control` on the shared prefix"
		case p.cacheKey:
			marks = "`prompt_cache_key`"
		}
		caching = append(caching, "| `"+string(p.name)+"` | "+share(read)+" | "+writes+" | "+marks+" |")
	}
	compareDocTable(t, doc, "| `LLM_PROVIDER` | cached input (read) | cache write | the request carries |", caching)

	s := searchProvider()
	sentence := "check claims with `" + s.modelVar + "` (default `" + s.defaultModel + "`) at\n`" + s.baseURLVar +
		"` (default `" + s.defaultBaseURL + "`) with `" + s.keyVar + "`."
	if !strings.Contains(doc, sentence) {
		t.Errorf("docs/providers.md does not say:\n%s", sentence)
	}
}

// linterDocRow is the row of docs/providers.md's LLM_PROVIDER table for p.
func linterDocRow(p providerSpec) string {
	code := func(s string) string { return "`" + s + "`" }
	setting := func(variable, def, flag, key string) string {
		switch {
		case def != "":
			return code(variable) + " (" + code(def) + ")"
		case !p.keyRequired: // the flags and the ini key can give it instead
			return code(flag) + " / " + code(key) + " / " + code(variable) + " (required)"
		}
		return code(variable) + " (required)"
	}
	key := code(p.keyVar)
	if !p.keyRequired {
		key += " (optional)"
	}
	base := setting(p.baseURLVar, p.defaultBaseURL, "--base-url", "BaseURL")
	if p.apiVersionVar != "" {
		base += "; " + code(p.apiVersionVar) + " (" + code(p.defaultAPIVersion) + ")"
	}
	temp := code(p.temperatureVar)
	if p.maxTemperature != maxTemperature {
		temp += " (0 to " + strconv.FormatFloat(p.maxTemperature, 'g', -1, 64) + ")"
	}
	tokens := "none"
	if p.maxTokensVar != "" {
		tokens = code(p.maxTokensVar) + " (" + code(strconv.Itoa(p.defaultMaxTokens)) + ", at most " + strconv.Itoa(MaxReplyTokens) + ")"
	}
	return "| " + strings.Join([]string{code(string(p.name)), key, setting(p.modelVar, p.defaultModel, "--model", "Model"), base, temp, tokens}, " | ") + " |"
}

// compareDocTable checks that the table under header in doc has exactly the rows want.
func compareDocTable(t *testing.T, doc, header string, want []string) {
	t.Helper()
	_, after, ok := strings.Cut(doc, header+"\n")
	if !ok {
		t.Fatalf("docs/providers.md has no table with the header\n%s", header)
	}
	lines := strings.Split(after, "\n")[1:] // after the |---| line
	var got []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "|") {
			break
		}
		got = append(got, l)
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/providers.md's table\n%s\nhas the rows\n%s\nwant (from the provider table)\n%s",
			header, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// cmpOr returns a, or b when a is empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
