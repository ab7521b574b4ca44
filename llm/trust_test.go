package llm_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.9.8.7": true, "[::1]:443": true, "::1": true,
		"localhost": true, "LOCALHOST:11434": true, "localhost.": true, "[::ffff:127.0.0.1]:80": true,
		// Names are never resolved; other addresses are not loopback.
		"localhost.attacker.test": false, "127.0.0.1.attacker.test": false, "attacker.test": false, "0.0.0.0": false,
		"10.0.0.1": false, "[::2]:80": false, "2130706433": false, "": false, "api.openai.com": false,
	} {
		if got := llm.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestParseTrustedHosts(t *testing.T) {
	tr, err := llm.ParseTrustedHosts(" Models.Internal , proxy.example.com:8443,,[fd00::1], gpu. ")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tr.Hosts, " "); got != "models.internal proxy.example.com:8443 [fd00::1] gpu" {
		t.Errorf("Hosts = %q", got)
	}
	for _, bad := range []string{"https://models.internal", "models.internal/v1", "user@host", "a b"} {
		_, err := llm.ParseTrustedHosts("ok.example," + bad)
		want := `VECTORLINT_TRUSTED_HOSTS: expected comma-separated host names such as models.internal or proxy.example.com:8443, found "` + bad + `"`
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if tr, err := llm.ParseTrustedHosts(""); err != nil || len(tr.Hosts) != 0 {
		t.Errorf("empty: %v, %v", tr, err)
	}
}

// TestTrustCheck is the rule of trust.md §1, origin by origin.
func TestTrustCheck(t *testing.T) {
	process := envsource.Source{Origin: envsource.OriginProcess, Name: "OPENAI_API_KEY"}
	user := envsource.Source{Origin: envsource.OriginUserConfig, Name: "OPENAI_API_KEY", File: "/home/u/.vectorlint/config.toml"}
	dotKey := envsource.Source{Origin: envsource.OriginDotEnv, Name: "OPENAI_API_KEY", File: ".env", Line: 2}
	iniURL := envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL", File: "vectorlint.ini", Line: 3}
	dotURL := envsource.Source{Origin: envsource.OriginDotEnv, Name: "OPENAI_BASE_URL", File: ".env", Line: 1}
	localURL := envsource.Source{Origin: envsource.OriginDotEnvLocal, Name: "OPENAI_BASE_URL", File: ".env.local", Line: 4}
	bpURL := envsource.Source{Origin: envsource.OriginBlueprint, Name: `url of custom model "x"`, File: "bp.yml", Line: 5}
	trust, _ := llm.ParseTrustedHosts("models.internal,proxy.example.com:8443")
	tests := []struct {
		name     string
		key, url envsource.Source
		baseURL  string
		refused  bool
	}{
		{"built-in endpoint", process, envsource.Source{Origin: envsource.OriginDefault}, "https://api.openai.com/v1", false},
		{"flag", process, envsource.Source{Origin: envsource.OriginFlag, Name: "--base-url"}, "https://anywhere.example/v1", false},
		{"process base URL", process, envsource.Source{Origin: envsource.OriginProcess, Name: "OPENAI_BASE_URL"}, "https://anywhere.example/v1", false},
		{"user config base URL", user, user, "https://anywhere.example/v1", false},
		{"ini to elsewhere", process, iniURL, "https://attacker.test/v1", true},
		{"ini to loopback", process, iniURL, "http://127.0.0.1:11434/v1", false},
		{"ini to localhost", process, iniURL, "http://localhost:11434/v1", false},
		{"ini to a trusted host", process, iniURL, "https://MODELS.internal/v1", false},
		{"ini to a trusted host on another port", process, iniURL, "https://proxy.example.com:9999/v1", true},
		{"ini to a trusted host and port", process, iniURL, "https://proxy.example.com:8443/v1", false},
		{".env to elsewhere", process, dotURL, "https://attacker.test/v1", true},
		{".env.local to elsewhere, user config key", user, localURL, "https://attacker.test/v1", true},
		{"blueprint url", process, bpURL, "https://attacker.test/x", true},
		{".env key with .env url", dotKey, dotURL, "https://attacker.test/v1", false},
		{".env key with ini url", dotKey, iniURL, "https://attacker.test/v1", false},
		{"no key", envsource.Source{}, dotURL, "https://attacker.test/v1", false},
		{"invalid url", process, dotURL, "::", true},
	}
	for _, tt := range tests {
		err := trust.Check(llm.Endpoint{BaseURL: tt.baseURL, KeySource: tt.key, BaseURLSource: tt.url})
		var ue *llm.UntrustedHostError
		if refused := errors.As(err, &ue); refused != tt.refused || (err != nil && !refused) {
			t.Errorf("%s: %v, want refused %v", tt.name, err, tt.refused)
		}
	}
	var none *llm.Trust
	if err := none.Check(llm.Endpoint{BaseURL: "https://attacker.test", KeySource: process, BaseURLSource: dotURL}); err != nil {
		t.Errorf("a nil Trust refuses: %v", err)
	}

	err := trust.Check(llm.Endpoint{BaseURL: "https://user:pw@attacker.test:8443/v1?key=k", KeySource: process, BaseURLSource: iniURL})
	want := "vectorlint.ini:3: BaseURL would send OPENAI_API_KEY (from the process environment) to attacker.test, which is not the provider's endpoint, " +
		"a loopback address or a host in VECTORLINT_TRUSTED_HOSTS: refused before any call (a file in the repository may not redirect your key). " +
		"If you trust attacker.test, add it to VECTORLINT_TRUSTED_HOSTS in the process environment (a .env file cannot set it)"
	if err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
}

// TestResolveSources checks that every resolver records where the key and the base URL came
// from, reading an *Env made of real files.
func TestResolveSources(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("OPENAI_BASE_URL=http://attacker.test/v1\nAZURE_OPENAI_ENDPOINT=https://a.test\n"+
		"PERPLEXITY_BASE_URL=https://s.test\nOPENROUTER_BASE_URL=https://r.test/v1\nGROQ_API_KEY=g\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env, err := envsource.Load(envsource.Options{Dir: dir, Process: envOf(map[string]string{"OPENAI_API_KEY": "k", "AZURE_OPENAI_API_KEY": "k",
		"AZURE_OPENAI_DEPLOYMENT_NAME": "d", "PERPLEXITY_API_KEY": "p", "OPENROUTER_API_KEY": "o", "ANTHROPIC_API_KEY": "a"})})
	if err != nil {
		t.Fatal(err)
	}
	dotenv := filepath.Join(dir, ".env")
	proc := func(name string) envsource.Source {
		return envsource.Source{Origin: envsource.OriginProcess, Name: name}
	}
	file := func(name string, line int) envsource.Source {
		return envsource.Source{Origin: envsource.OriginDotEnv, Name: name, File: dotenv, Line: line}
	}
	ini := envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL", File: "/p/vectorlint.ini", Line: 7}
	resolve := func(config, flags llm.Settings) llm.Endpoint {
		t.Helper()
		ep, err := llm.Resolve(env, config, flags)
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	check := func(what string, ep llm.Endpoint, key, base envsource.Source) {
		t.Helper()
		if ep.KeySource != key || ep.BaseURLSource != base {
			t.Errorf("%s: key from %+v, base URL from %+v; want %+v, %+v", what, ep.KeySource, ep.BaseURLSource, key, base)
		}
	}
	check("openai", resolve(llm.Settings{BaseURL: "http://ini.test", BaseURLFrom: ini}, llm.Settings{}), proc("OPENAI_API_KEY"), file("OPENAI_BASE_URL", 1))
	check("flag", resolve(llm.Settings{}, llm.Settings{BaseURL: "http://flag.test"}), proc("OPENAI_API_KEY"), envsource.Source{Origin: envsource.OriginFlag, Name: "--base-url"})
	check("azure", resolve(llm.Settings{}, llm.Settings{Provider: "azure-openai"}), proc("AZURE_OPENAI_API_KEY"), file("AZURE_OPENAI_ENDPOINT", 2))
	check("anthropic default", resolve(llm.Settings{Model: "c"}, llm.Settings{Provider: "anthropic"}), proc("ANTHROPIC_API_KEY"),
		envsource.Source{Origin: envsource.OriginDefault, Name: "the anthropic endpoint"})

	// The config file's BaseURL, when the environment sets none.
	env2 := envsource.LookupFunc(func(k string) (string, bool) {
		return map[string]string{"OPENAI_API_KEY": "k"}[k], k == "OPENAI_API_KEY"
	})
	ep, err := llm.Resolve(env2, llm.Settings{BaseURL: "http://ini.test/v1", BaseURLFrom: ini}, llm.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	check("ini", ep, proc("OPENAI_API_KEY"), ini)
	ep, _ = llm.Resolve(env2, llm.Settings{BaseURL: "http://ini.test/v1"}, llm.Settings{})
	check("ini without a file", ep, proc("OPENAI_API_KEY"), envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL"})

	search, err := llm.ResolveSearch(env)
	if err != nil {
		t.Fatal(err)
	}
	check("search", search, proc("PERPLEXITY_API_KEY"), file("PERPLEXITY_BASE_URL", 3))
	router, err := llm.ModelEndpoint(env, "openrouter:m")
	if err != nil {
		t.Fatal(err)
	}
	check("openrouter", router, proc("OPENROUTER_API_KEY"), file("OPENROUTER_BASE_URL", 4))
	groq, err := llm.ModelEndpoint(env, "groq:m")
	if err != nil {
		t.Fatal(err)
	}
	check("groq", groq, file("GROQ_API_KEY", 5), envsource.Source{Origin: envsource.OriginDefault, Name: "the groq endpoint"})
}

// attackerClient returns a client whose connections to any host go to srv, so that a
// non-loopback name such as attacker.test reaches the local server (127.0.0.1 is loopback,
// trusted by rule).
func attackerClient(t *testing.T, srv *llmtest.Server, trust *llm.Trust) *llm.Client {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c, err := llm.New(llm.Config{HTTPClient: &http.Client{Transport: tr}, Trust: trust, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClientEnforcesTrust: the client itself refuses an endpoint the trust rule does not
// allow, for chat, generation and embeddings, before any request (the attacker's server sees
// none); with the host trusted, the same calls reach it.
func TestClientEnforcesTrust(t *testing.T) {
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("ok"))
	ep := llm.Endpoint{BaseURL: "http://attacker.test/v1", Model: "m", APIKey: "sk-user-key-123456",
		KeySource:     envsource.Source{Origin: envsource.OriginProcess, Name: "OPENAI_API_KEY"},
		BaseURLSource: envsource.Source{Origin: envsource.OriginDotEnv, Name: "OPENAI_BASE_URL", File: ".env", Line: 1}}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	calls := func(c *llm.Client) []error {
		_, e1 := c.Complete(context.Background(), llm.Request{Endpoint: ep, Messages: msgs, NoCache: true})
		_, e2 := c.Generate(context.Background(), llm.GenerateRequest{Endpoint: ep, Messages: msgs, NoCache: true})
		_, e3 := c.Embed(context.Background(), ep, []string{"x"})
		return []error{e1, e2, e3}
	}
	strict, _ := llm.ParseTrustedHosts("")
	for i, err := range calls(attackerClient(t, srv, strict)) {
		var ue *llm.UntrustedHostError
		if !errors.As(err, &ue) || ue.Host != "attacker.test" || strings.Contains(err.Error(), "sk-user") {
			t.Errorf("call %d: %v, want an *UntrustedHostError", i, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the attacker's server got %d requests", n)
	}
	trusted, _ := llm.ParseTrustedHosts("attacker.test")
	for i, err := range calls(attackerClient(t, srv, trusted)) {
		if err != nil {
			t.Errorf("trusted call %d: %v", i, err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Header.Get("Authorization") != "Bearer sk-user-key-123456" {
		t.Fatalf("with the host trusted: %d requests", len(reqs))
	}
}

func FuzzParseTrustedHosts(f *testing.F) {
	for _, s := range []string{"a.example", "a, b:8443", "[::1]:80,x", "https://x", ",,", "a/b", "A.EXAMPLE.", ":", "[::1"} {
		f.Add(s, "http://a.example:8443/v1")
	}
	f.Fuzz(func(t *testing.T, list, baseURL string) {
		tr, err := llm.ParseTrustedHosts(list)
		if err != nil {
			var se *envsource.SettingError
			if !errors.As(err, &se) || se.Source != llm.TrustedHostsVar {
				t.Fatalf("error %v is not a *SettingError naming the variable", err)
			}
			return
		}
		ep := llm.Endpoint{BaseURL: baseURL, KeySource: envsource.Source{Origin: envsource.OriginProcess, Name: "K"},
			BaseURLSource: envsource.Source{Origin: envsource.OriginDotEnv, Name: "U", File: ".env", Line: 1}}
		err = tr.Check(ep)
		if err == nil {
			return
		}
		var ue *llm.UntrustedHostError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), llm.TrustedHostsVar) || !strings.HasPrefix(err.Error(), ".env:1: ") {
			t.Fatalf("refusal %v lacks the file, line or variable", err)
		}
	})
}
