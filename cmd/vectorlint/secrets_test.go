package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Every fake credential of the secrets test contains leakMark, so a secret that is shown even in
// part (clipped, quoted, inside a URL) is found. None of them looks like a key to a pattern
// (no "sk-", "Bearer" or "key=" before them in the output), so only real redaction hides them.
const leakMark = "LEAK"

// leakEnv sets a recognisable fake credential in every variable that can hold one: each
// provider's key, the search key, and the variables blueprint headers refer to with ${VAR}.
var leakEnv = map[string]string{
	"OPENAI_API_KEY":       "oaiLEAK0001openai",
	"AZURE_OPENAI_API_KEY": "azLEAK0002azure",
	"ANTHROPIC_API_KEY":    "antLEAK0003anthropic",
	"GEMINI_API_KEY":       "gemLEAK0004gemini",
	"GOOGLE_API_KEY":       "gooLEAK0005google",
	"PERPLEXITY_API_KEY":   "pplxLEAK0006search",
	"MISTRAL_API_KEY":      "misLEAK0007mistral",
	"OPENROUTER_API_KEY":   "orLEAK0008openrouter",
	"XAI_API_KEY":          "xaiLEAK0009xai",
	"GROQ_API_KEY":         "groqLEAK0010groq",
	"TOGETHER_API_KEY":     "togLEAK0011together",
	"PROXY_KEY":            "proxyLEAK0012env",
	"CALL_KEY":             "callLEAK0013env",
}

// Credentials written into a blueprint rather than the environment.
const (
	leakModelHeader = "modelhdrLEAK0014literal"
	leakCallHeader  = "callhdrLEAK0015literal"
	leakURLPassword = "urlpassLEAK0016"
	leakURLQuery    = "urlqueryLEAK0017"
	leakBadURLPass  = "badurlLEAK0018"
	// In a .env line without "=", in base URLs and in the fact-check endpoint.
	leakDotEnv       = "dotenvLEAK0019"
	leakBaseURLPass  = "basepassLEAK0020"
	leakBaseURLQuery = "basequeryLEAK0021"
	leakFactcheck    = "factLEAK0022"
)

// echoCredentials answers every request with a 401 whose message repeats every credential the
// request carried (headers and query), as some providers do.
func echoCredentials(r *llmtest.Request) llmtest.Reply {
	var got []string
	for _, h := range []string{"Authorization", "Api-Key", "X-Api-Key", "X-Goog-Api-Key"} {
		if v := r.Header.Get(h); v != "" {
			// Only the key, without "Bearer": a key-shaped pattern must not be what hides it.
			got = append(got, strings.TrimPrefix(v, "Bearer "))
		}
	}
	if r.Query != "" {
		got = append(got, "query="+r.Query)
	}
	msg, _ := json.Marshal("Incorrect API key provided: " + strings.Join(got, ", "))
	return llmtest.Status(401, `{"error":{"message":`+string(msg)+`,"type":"invalid_request_error"}}`)
}

// answerAll answers every request of the secrets test successfully: lint rules, claims, search,
// judges, bias and generation.
func answerAll(r *llmtest.Request) llmtest.Reply {
	sys, last := r.System(), r.LastUser()
	switch {
	case strings.Contains(sys, "You extract factual claims"):
		return llmtest.JSON(map[string]any{"claims": []any{map[string]any{"claim": "Go 1.0 shipped in 2009.", "quoted_text": "Go 1.0 shipped in 2009", "line": 1}}})
	case strings.Contains(sys, `<rule name="Facts">`):
		return llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Accuracy", "name": "Accuracy", "score": 2, "summary": "s",
			"violations": []any{map[string]any{"quoted_text": "Go 1.0 shipped in 2009", "line": 1, "message": "It was 2012."}}}}})
	case strings.Contains(sys, "<rule name="):
		return llmtest.JSON(map[string]any{"violations": []any{map[string]any{"quoted_text": "in order to", "line": 1, "message": `Say "to".`, "confidence": 0.9}}})
	case strings.Contains(last, "<CRITERION>") || strings.Contains(sys, "<CRITERION>"):
		return llmtest.Text("<reflection>ok</reflection>\n<classification>CLASS_FULLY_PRESENT</classification>")
	case strings.Contains(strings.ToLower(sys+last), "bias"):
		return llmtest.JSON(map[string]any{"score": 0.1, "reason": "neutral"})
	}
	return llmtest.Text("Paris is the capital of France.")
}

// callService is a $call service that rejects every request, echoing the credentials it was
// sent: the query, every header value and the basic-auth password.
func callService(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got := []string{"query=" + r.URL.RawQuery}
		for k, v := range r.Header {
			got = append(got, k+"="+strings.Join(v, ","))
		}
		if _, pass, ok := r.BasicAuth(); ok {
			got = append(got, "password="+pass)
		}
		sort.Strings(got)
		msg, _ := json.Marshal("bad credentials: " + strings.Join(got, " "))
		if strings.HasPrefix(r.URL.Path, "/ok-status") {
			// 200 with the error in the body: "the service reported an error: …".
			fmt.Fprintf(w, `{"error": %s}`, msg)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error": %s}`, msg)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSecretsNeverLeak runs every command — lint in every output format with --verbose and
// --show-prompt, validate, init, every evaluator, blueprint check, check --print and run with
// its result document and HTML report, version — with fake credentials in every provider
// variable, in custom model headers (${VAR} and literal), in $call URLs and headers, in the
// $factcheck endpoint, in base URLs and in a broken .env, against fake providers that succeed,
// and that fail echoing the credentials they were sent. No
// credential may appear, even in part, in stdout, stderr, the cache, the result document, the
// HTML report, the step summary or any other file a command wrote.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	good := llmtest.Start(t)
	good.SetDefault(llmtest.Dynamic(answerAll))
	echo := llmtest.Start(t)
	echo.On(llmtest.Any(), llmtest.Dynamic(echoCredentials)) // a rule, so embeddings echo too
	svc := callService(t)
	echoRoot := strings.TrimSuffix(echo.URL, "/v1")
	svcHostPort := strings.TrimPrefix(svc.URL, "http://")

	root := t.TempDir()
	cache := filepath.Join(root, "cache")
	// Files the test writes that hold credentials on purpose; every other file is checked.
	inputs := map[string]bool{}
	write := func(rel, content string) string {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(content, leakMark) {
			inputs[path] = true
		}
		return path
	}
	project := filepath.Join(root, "project")
	write("project/vectorlint.ini", "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n")
	write("project/rules/Acme/wordiness.md", "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\nFlag wordy phrases.\n")
	write("project/rules/Acme/facts.md", "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\ntype: subjective\n"+
		"criteria: [{id: Accuracy, name: Accuracy}]\n---\nCheck the claims against the evidence.\n")
	write("project/docs/a.md", "In order to start, note that Go 1.0 shipped in 2009.\n")

	bp := "title: Secrets\n" +
		"models:\n" +
		"  - openai:gpt-good\n" +
		"  - mistral:echoes\n" +
		"  - id: proxy:claude\n    url: " + echoRoot + "/v1/messages\n    modelName: claude-x\n    inherit: anthropic\n    headers: {x-api-key: \"${PROXY_KEY}\"}\n" +
		"  - id: proxy:literal\n    url: " + echoRoot + "/v1/chat/completions\n    modelName: lit\n    inherit: openai\n    headers: {Authorization: \"Bearer " + leakModelHeader + "\"}\n" +
		"  - id: proxy:gem\n    url: " + echoRoot + "/v1beta/models/g:generateContent\n    modelName: g\n    inherit: google\n    headers: {x-goog-api-key: \"${PROXY_KEY}\"}\n" +
		"externalServices:\n" +
		"  checker: {url: \"" + svc.URL + "/named?api_key=" + leakURLQuery + "\", headers: {X-Key: \"${CALL_KEY}\", X-Auth-Token: \"" + leakCallHeader + "\"}, max_retries: 0}\n" +
		"evaluationConfig:\n  llm-coverage:\n    judges:\n      - {id: j1, model: \"openrouter:judge-good\", approach: standard}\n      - {id: j2, model: \"xai:judge-echo\", approach: standard}\n" +
		"---\n" +
		"- id: capital\n  prompt: What is the capital of France?\n  should:\n    - Names Paris\n" +
		"    - $call: {service: checker, claim: \"{response}\"}\n" +
		"    - $call: {url: \"http://user:" + leakURLPassword + "@" + svcHostPort + "/inline?token=" + leakURLQuery + "\", headers: {Authorization: \"Token ${CALL_KEY}\"}, max_retries: 0}\n" +
		"    - $call: {url: \"http://user:" + leakURLPassword + "@" + svcHostPort + "/ok-status?sig=" + leakURLQuery + "\", headers: {X-Auth-Token: \"" + leakCallHeader + "\"}}\n" +
		"    - $call: {url: \"http://user:" + leakBadURLPass + "@" + svcHostPort + ":99999/%zz\"}\n" +
		"    - $factcheck: dates\n"
	write("bp/secrets.yml", bp)
	// A project whose .env has a key on a line without "=" (a syntax error that quotes the line).
	dotenvProject := filepath.Join(root, "dotenv")
	write("dotenv/vectorlint.ini", "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n")
	write("dotenv/rules/Acme/wordiness.md", "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n")
	write("dotenv/docs/a.md", "In order to start.\n")
	write("dotenv/bp.yml", "- {id: p, prompt: Q, should: [x]}\n")
	write("dotenv/.env", "OPENAI_BASE_URL=http://127.0.0.1:1/v1\nOPENAI_API_KEY "+leakDotEnv+"\n")

	env := map[string]string{
		"OPENAI_BASE_URL": good.URL, "OPENAI_MODEL": "m",
		"PERPLEXITY_BASE_URL": echo.URL,
		"MISTRAL_BASE_URL":    echo.URL, "OPENROUTER_BASE_URL": good.URL, "XAI_BASE_URL": echo.URL,
		"GITHUB_STEP_SUMMARY":    filepath.Join(root, "summary.md"),
		"FACTCHECK_ENDPOINT_URL": svc.URL + "/fact?key=" + leakFactcheck,
	}
	for k, v := range leakEnv {
		env[k] = v
	}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range env {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	failing := with(map[string]string{"OPENAI_BASE_URL": echo.URL})

	type run struct {
		name string
		dir  string
		env  map[string]string
		args []string
	}
	// Runs whose name has one of these reach the echoing provider or service: their output
	// must show "[redacted]" where the echoed credential was, which proves the test saw it.
	echoing := []string{"failing", "lint line ok", "azure", "anthropic", "gemini", "openai-compatible", "blueprint run"}
	var runs []run
	lintFlags := []string{"--verbose", "--show-prompt", "--cache-dir", cache, "docs"}
	for _, format := range []string{"line", "json", "vale-json", "rdjson", "rdjsonl", "github", "sarif", "junit"} {
		for name, e := range map[string]map[string]string{"ok": env, "failing": failing} {
			runs = append(runs, run{"lint " + format + " " + name, project, e, append([]string{"--output", format}, lintFlags...)})
		}
	}
	for _, p := range []map[string]string{
		{"LLM_PROVIDER": "azure-openai", "AZURE_OPENAI_ENDPOINT": echoRoot, "AZURE_OPENAI_DEPLOYMENT_NAME": "dep"},
		{"LLM_PROVIDER": "anthropic", "ANTHROPIC_BASE_URL": echo.URL, "ANTHROPIC_MODEL": "claude-x"},
		{"LLM_PROVIDER": "gemini", "GEMINI_BASE_URL": echo.URL},
		{"LLM_PROVIDER": "openai-compatible", "OPENAI_BASE_URL": echo.URL},
	} {
		runs = append(runs, run{"lint " + p["LLM_PROVIDER"], project, with(p), append([]string{"--no-cache"}, lintFlags...)})
	}
	// Base URLs carrying credentials: one that is not http(s) (a setting error quoting it), one
	// that answers 404 (the query swallows the path).
	for name, base := range map[string]string{
		"bad scheme": "ftp://user:" + leakBaseURLPass + "@127.0.0.1/v1?api_key=" + leakBaseURLQuery,
		"404":        "http://user:" + leakBaseURLPass + "@" + strings.TrimPrefix(echo.URL, "http://") + "?api_key=" + leakBaseURLQuery,
	} {
		e := with(map[string]string{"OPENAI_BASE_URL": base, "PERPLEXITY_BASE_URL": base})
		runs = append(runs,
			run{"lint base URL " + name, project, e, append([]string{"--no-cache"}, lintFlags...)},
			run{"evaluate bias base URL " + name, project, e, []string{"evaluate", "bias", "--response", "a", "--dimension", "age", "--expected", "0", "--tolerance", "0.5", "--no-cache"}},
			run{"blueprint base URL " + name, filepath.Join(root, "bp"), e, []string{"blueprint", "run", "secrets.yml", "--no-cache", "--models", "openai:x", "--out-dir", filepath.Join(root, "results-base")}},
		)
	}
	for _, args := range [][]string{{"docs"}, {"validate"}, {"evaluate", "bias", "--response", "a", "--dimension", "age", "--expected", "0", "--tolerance", "0.5"},
		{"blueprint", "run", "bp.yml", "--out-dir", filepath.Join(root, "results-dotenv")}} {
		runs = append(runs, run{".env " + args[0], dotenvProject, map[string]string{}, args})
	}
	runs = append(runs,
		run{"lint from cache", project, env, append([]string{"--output", "json"}, lintFlags...)},
		run{"validate", project, env, []string{"validate"}},
		run{"init", filepath.Join(root, "fresh"), env, []string{"init"}},
		run{"version", project, env, []string{"version"}},
	)
	for _, metric := range []string{"exact_match", "f1", "bleu", "rouge_l"} {
		runs = append(runs, run{"evaluate " + metric, project, env, []string{"evaluate", metric, "--response", "Paris", "--ground-truth", "Paris.", "--threshold", "0.5", "--verbose"}})
	}
	for name, e := range map[string]map[string]string{"ok": env, "failing": failing} {
		evalFlags := []string{"--verbose", "--cache-dir", cache}
		if name == "failing" {
			evalFlags = []string{"--verbose", "--no-cache"}
		}
		runs = append(runs,
			run{"evaluate semantic_similarity " + name, project, e, append([]string{"evaluate", "semantic_similarity", "--response", "Paris", "--ground-truth", "The capital is Paris", "--threshold", "0.1"}, evalFlags...)},
			run{"evaluate bias " + name, project, e, append([]string{"evaluate", "bias", "--response", "Nurses are kind.", "--dimension", "gender", "--expected", "0", "--tolerance", "0.5"}, evalFlags...)},
			run{"evaluate coverage " + name, project, e, append([]string{"evaluate", "coverage", "--response", "Paris.", "--points", "[Names Paris, {$contains: Paris}]", "--threshold", "0.5"}, evalFlags...)},
		)
	}
	bpDir := filepath.Join(root, "bp")
	runs = append(runs,
		run{"blueprint check", bpDir, env, []string{"blueprint", "check", "secrets.yml"}},
		run{"blueprint check --print", bpDir, env, []string{"blueprint", "check", "--print", "secrets.yml"}},
		run{"blueprint run", bpDir, env, []string{"blueprint", "run", "secrets.yml", "--allow-net", "--allow-env", "PROXY_KEY,CALL_KEY", "--cache-dir", cache,
			"--html", filepath.Join(root, "report.html"), "--out-dir", filepath.Join(root, "results")}},
		run{"blueprint run json", bpDir, env, []string{"blueprint", "run", "secrets.yml", "--allow-net", "--allow-env", "PROXY_KEY", "--allow-env", "CALL_KEY", "--no-cache", "--output", "json",
			"--out-dir", filepath.Join(root, "results-json"), "--eval-method", "llm-coverage,similarity,embedding"}},
		run{"blueprint run without --allow-net", bpDir, env, []string{"blueprint", "run", "secrets.yml", "--allow-env", "PROXY_KEY", "--cache-dir", cache, "--out-dir", filepath.Join(root, "results-nonet")}},
		run{"blueprint, no --allow-env", bpDir, env, []string{"blueprint", "run", "secrets.yml", "--allow-net", "--no-cache", "--out-dir", filepath.Join(root, "results-noenv")}},
	)

	if err := os.MkdirAll(filepath.Join(root, "fresh"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		res := runVectorlint(t, r.dir, r.env, "", r.args...)
		for stream, text := range map[string]string{"stdout": res.stdout, "stderr": res.stderr} {
			if leaks := findLeaks(text); leaks != nil {
				t.Errorf("%s (exit %d): %s shows credentials:\n%s", r.name, res.code, stream, strings.Join(leaks, "\n"))
			}
		}
		for _, e := range echoing {
			if strings.Contains(r.name, e) && !strings.Contains(res.stdout+res.stderr, "[redacted]") {
				t.Errorf("%s (exit %d): no echoed credential was redacted, so the run did not test it:\n%s\n%s", r.name, res.code, res.stdout, res.stderr)
			}
		}
		if testing.Verbose() {
			t.Logf("%s: exit %d, %d+%d bytes", r.name, res.code, len(res.stdout), len(res.stderr))
		}
	}

	// Every file a command wrote: cache entries, result documents, the HTML report, the step
	// summary, init's files.
	written := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || inputs[path] {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		written++
		if leaks := findLeaks(path); leaks != nil {
			t.Errorf("a file name shows credentials: %s", strings.Join(leaks, "\n"))
		}
		if leaks := findLeaks(string(data)); leaks != nil {
			t.Errorf("%s shows credentials:\n%s", strings.TrimPrefix(path, root), strings.Join(leaks, "\n"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// The test must have exercised what it claims: the providers were called and failed with
	// the echo, the cache, results, report and summary exist.
	for _, want := range []string{"report.html", "summary.md", "results", "cache", "fresh/vectorlint.ini"} {
		if _, err := os.Stat(filepath.Join(root, want)); err != nil {
			t.Errorf("%s was not written: %v", want, err)
		}
	}
	if good.Calls() == 0 || echo.Calls() == 0 {
		t.Errorf("%d calls to the answering provider and %d to the echoing one", good.Calls(), echo.Calls())
	}
	sent := map[string]bool{}
	for _, req := range echo.Requests() {
		for _, v := range req.Header {
			for k, s := range leakEnv {
				if strings.Contains(strings.Join(v, " "), s) {
					sent[k] = true
				}
			}
			if strings.Contains(strings.Join(v, " "), leakModelHeader) {
				sent["literal model header"] = true
			}
		}
	}
	for _, k := range []string{"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "PERPLEXITY_API_KEY",
		"MISTRAL_API_KEY", "XAI_API_KEY", "PROXY_KEY", "literal model header"} {
		if !sent[k] {
			t.Errorf("no request to the echoing provider carried %s: the test does not check its redaction", k)
		}
	}
	t.Logf("%d commands, %d files checked", len(runs), written)
}

// leakRe finds a credential of the secrets test, or any part of one around leakMark, or the
// basic-auth encoding of a $call URL's user info.
var leakRe = regexp.MustCompile(`[^\s"'<>&;,]*(?:` + leakMark + `|` +
	regexp.QuoteMeta(base64.StdEncoding.EncodeToString([]byte("user:"+leakURLPassword))) + `|` +
	regexp.QuoteMeta(base64.StdEncoding.EncodeToString([]byte("user:"+leakBadURLPass))) + `)[^\s"'<>&;,]*`)

// findLeaks returns each line of text showing a credential, clipped around it.
func findLeaks(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if m := leakRe.FindStringIndex(line); m != nil {
			start, end := max(0, m[0]-80), min(len(line), m[1]+40)
			out = append(out, "  …"+line[start:end]+"…")
			if len(out) == 5 {
				return append(out, "  (and more)")
			}
		}
	}
	return out
}
