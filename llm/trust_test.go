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
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestResolveSources checks that every resolver records where the key and the base URL came
// from, reading an *Env made of real files.
func TestResolveSources(t *testing.T) {
	t.Parallel()
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
func attackerClient(t *testing.T, srv *llmtest.Server, rule *trust.Rule) *llm.Client {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c, err := llm.New(llm.Config{HTTPClient: &http.Client{Transport: tr}, Trust: rule, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClientEnforcesTrust: the client itself refuses an endpoint the trust rule does not
// allow, for chat, generation and embeddings, before any request (the attacker's server sees
// none); with the host trusted, the same calls reach it.
func TestClientEnforcesTrust(t *testing.T) {
	t.Parallel()
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
	strict, _ := trust.ParseHosts("")
	for i, err := range calls(attackerClient(t, srv, strict)) {
		var ue *trust.UntrustedHostError
		if !errors.As(err, &ue) || ue.Host != "attacker.test" || strings.Contains(err.Error(), "sk-user") {
			t.Errorf("call %d: %v, want an *UntrustedHostError", i, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the attacker's server got %d requests", n)
	}
	trusted, _ := trust.ParseHosts("attacker.test")
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
