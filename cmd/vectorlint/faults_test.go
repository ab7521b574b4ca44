package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Fault injection through the lint command: every fault the fake server offers, and replies
// that break the contract, against one rule of one file. For each the test asserts the retry
// (how many requests the faulty rule made), the exact error reported for that rule and file,
// that every other rule and file keeps its result, and the exit code (2 when the run could
// not do all its work).

// faultProject has two documents and three rules: Steady (never faulty), Probe (a
// semi-objective rule the faults hit) and Rated (a subjective rule for the criteria contract).
func faultProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/steady.md": "---\nid: Steady\nname: Steady\n---\n" +
			"Flag nothing.\n",
		"rules/Acme/probe.md": "---\nid: Probe\nname: Probe\nseverity: error\n---\n" +
			"Flag wordy phrases.\n",
		"rules/Acme/rated.md": "---\nid: Rated\nname: Rated\ntype: subjective\n" +
			"criteria:\n  - {id: Clarity, name: Clarity, weight: 3}\n  - {id: Tone, name: Tone, weight: 1}\n" +
			"---\nRate the text.\n",
		"docs/a.md": "In order to start, run the setup script.\nThen read the guide.\n",
		"docs/b.md": "In order to stop, press the red button twice.\n",
	}
}

// Matchers of the fault project's calls.
var (
	probeRule = llmtest.SystemContains(`<rule name="Probe">`)
	ratedRule = llmtest.SystemContains(`<rule name="Rated">`)
	onA       = llmtest.UserContains("start, run the setup")
	probeOnA  = llmtest.All(probeRule, onA)
	ratedOnA  = llmtest.All(ratedRule, onA)
)

// scriptFaultDefaults answers every call of the fault project correctly: Probe finds "In
// order to", Rated gives 3 and 4, Steady finds nothing.
func scriptFaultDefaults(srv *llmtest.Server) {
	srv.On(probeRule, llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to", "line": 1, "message": `Say "to".`, "fix": "To"}}}))
	srv.On(ratedRule, llmtest.JSON(ratedReply(3, 4)))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
}

func ratedReply(clarity, tone any) map[string]any {
	return map[string]any{"criteria": []any{
		map[string]any{"id": "Clarity", "name": "Clarity", "score": clarity, "summary": "ok", "violations": []any{}},
		map[string]any{"id": "Tone", "name": "Tone", "score": tone, "summary": "ok", "violations": []any{}},
	}}
}

// faultRun is the outcome of one lint run of the fault project, reduced to what the suite
// compares: scores per file and rule, errors per file and rule, unverified quotes.
type faultRun struct {
	code       int
	scores     map[string]string // "docs/a.md Acme.Probe" → "6.4"
	errors     map[string]string // "docs/a.md Acme.Probe" → message (host replaced)
	unverified []string          // "docs/a.md Acme.Probe: quote"
	warnings   string            // the warning lines of standard error
	calls      int
}

func runFaultProject(t *testing.T, srv *llmtest.Server, tune func(*llm.Config)) faultRun {
	t.Helper()
	dir := t.TempDir()
	writeTestTree(t, dir, faultProject())
	var stdout, stderr bytes.Buffer
	env := fakeEnv(srv)
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		tuneLLM: func(c *llm.Config) {
			c.BaseDelay, c.MaxDelay = time.Millisecond, 5*time.Millisecond
			if tune != nil {
				tune(c)
			}
		}}
	code := a.run(context.Background(), []string{"--output", "json", "--no-cache", "--verbose", "docs"})
	r := cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	r.noKey(t)
	res := decodeJSON(t, r.stdout)
	out := faultRun{code: code, scores: map[string]string{}, errors: map[string]string{}, calls: res.Usage.Calls}
	// --verbose logs every request and retry; the suite compares the warnings only.
	for _, line := range strings.SplitAfter(r.stderr, "\n") {
		if strings.HasPrefix(line, "vectorlint: warning: ") {
			out.warnings += line
		}
	}
	for _, f := range res.Files {
		for _, s := range f.Scores {
			out.scores[f.Path+" "+s.Rule] = fmt.Sprintf("%.1f", s.Score)
		}
		for _, e := range f.Errors {
			out.errors[f.Path+" "+e.Rule] = hostless(e.Message, srv)
		}
		for _, u := range f.Unverified {
			out.unverified = append(out.unverified, f.Path+" "+u.Rule+": "+u.Quote)
		}
	}
	return out
}

// faultBaseline is the result of the fault project when nothing goes wrong.
var faultBaseline = map[string]string{
	"docs/a.md Acme.Probe": "1.7", "docs/a.md Acme.Rated": "7.8", "docs/a.md Acme.Steady": "10.0",
	"docs/b.md Acme.Probe": "0.0", "docs/b.md Acme.Rated": "7.8", "docs/b.md Acme.Steady": "10.0",
}

// withoutKey returns the baseline scores without key (the one the fault made fail).
func withoutKey(key string) map[string]string {
	m := map[string]string{}
	for k, v := range faultBaseline {
		if k != key {
			m[k] = v
		}
	}
	return m
}

func TestLintFaultBaseline(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	r := runFaultProject(t, srv, nil)
	if r.code != exitFindings || len(r.errors) != 0 || fmt.Sprint(r.scores) != fmt.Sprint(faultBaseline) || r.calls != 6 {
		t.Fatalf("baseline: exit %d, errors %v, scores %v, calls %d", r.code, r.errors, r.scores, r.calls)
	}
}

// TestLintFaults is the fault table of the lint command.
func TestLintFaults(t *testing.T) {
	t.Parallel()
	const probeA, ratedA = "docs/a.md Acme.Probe", "docs/a.md Acme.Rated"
	huge := strings.Repeat("overloaded ", 100_000) // a 1.1 MB error body
	tests := []struct {
		name string
		// match selects the faulty calls (default probeOnA) and replies answers them.
		match   llmtest.Matcher
		replies []llmtest.Reply
		tune    func(*llm.Config)
		// hits is how many requests the faulty calls made.
		hits int
		// failed is the (file, rule) that failed and its error; "" when the fault was survived.
		failed, err string
		// minGap is a lower bound of the time between the first two faulty requests
		// (Retry-After honoured).
		minGap     time.Duration
		unverified []string
		warnings   string
	}{
		{name: "429 with Retry-After, then success", replies: []llmtest.Reply{llmtest.RateLimited("0.2"), okProbe()},
			hits: 2, minGap: 200 * time.Millisecond},
		{name: "429 with an HTTP-date Retry-After in the past, then success",
			replies: []llmtest.Reply{llmtest.RateLimited("Wed, 21 Oct 2015 07:28:00 GMT"), okProbe()}, hits: 2},
		{name: "429 with retry-after-ms, then success",
			replies: []llmtest.Reply{{Status: 429, Body: `{"error":{"message":"slow down"}}`, Header: map[string]string{"retry-after-ms": "150"}}, okProbe()},
			hits:    2, minGap: 150 * time.Millisecond},
		{name: "429 always", replies: []llmtest.Reply{llmtest.RateLimited("0")}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 429 Too Many Requests: Rate limit reached for requests (4 attempts)"},
		{name: "429 asking to wait longer than the limit", replies: []llmtest.Reply{llmtest.RateLimited("120")}, hits: 1, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 429 Too Many Requests: Rate limit reached for requests (the server asks to wait 2m0s, longer than the 1m0s limit)"},
		{name: "500, then success", replies: []llmtest.Reply{llmtest.ServerError(), okProbe()}, hits: 2},
		{name: "500 three times, then success", replies: []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), llmtest.ServerError(), okProbe()}, hits: 4},
		{name: "500 always", replies: []llmtest.Reply{llmtest.ServerError()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 500 Internal Server Error: The server had an error while processing your request. (4 attempts)"},
		{name: "502 with an HTML body", replies: []llmtest.Reply{{Status: 502, Body: "<html><body>Bad gateway</body></html>", ContentType: "text/html"}}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: HTTP 502 Bad Gateway: the body began "<html><body>Bad gateway</body></html>" (4 attempts)`},
		{name: "500 with a 1 MB body is echoed only in part", replies: []llmtest.Reply{{Status: 500, Body: huge, ContentType: "text/plain"}}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: HTTP 500 Internal Server Error: the body began "` + strings.TrimSpace(strings.Repeat("overloaded ", 11)) + `…" (4 attempts)`},
		{name: "400 is not retried", replies: []llmtest.Reply{llmtest.Status(400, `{"error":{"message":"context too long"}}`)}, hits: 1, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 400 Bad Request: context too long"},
		{name: "hang past the timeout, then success", replies: []llmtest.Reply{llmtest.Hang(), okProbe()},
			tune: func(c *llm.Config) { c.Timeout = time.Second }, hits: 2},
		// A call with its retries is bounded by 3 × the timeout: the third attempt is cut short.
		{name: "hang always", replies: []llmtest.Reply{llmtest.Hang()},
			tune: func(c *llm.Config) { c.Timeout = time.Second }, hits: 3, failed: probeA,
			err: "llm: chat completion with test-model at HOST: no complete reply within 1s per attempt, and the call gave up at its limit of 3s (3 × the timeout) (3 attempts)"},
		{name: "connection closed, then success", replies: []llmtest.Reply{llmtest.CloseConnection(), okProbe()}, hits: 2},
		{name: "connection closed always", replies: []llmtest.Reply{llmtest.CloseConnection()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: connection failed: the server closed the connection without replying (4 attempts)"},
		{name: "connection closed mid-response always", replies: []llmtest.Reply{llmtest.CloseMidResponse()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: connection failed: the server closed the connection in the middle of the reply (4 attempts)"},
		{name: "malformed JSON, then success", replies: []llmtest.Reply{llmtest.MalformedJSON(), okProbe()}, hits: 2},
		{name: "malformed JSON always", replies: []llmtest.Reply{llmtest.MalformedJSON()}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: the server's reply is not valid JSON (invalid character ']' looking for beginning of value); it began "{\"id\":\"chatcmpl-malformed\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"…" (4 attempts)`},
		{name: "truncated JSON always", replies: []llmtest.Reply{llmtest.TruncatedJSON()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: the server's reply is cut off after 138 bytes (truncated JSON) (4 attempts)"},
		{name: "an HTML page with status 200", replies: []llmtest.Reply{llmtest.HTMLPage()}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: the server's reply is not valid JSON (invalid character '<' looking for beginning of value); it began "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>" (4 attempts)`},
		{name: "a completion without choices", replies: []llmtest.Reply{llmtest.NoChoices()}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: the reply has no choices; it began "{\"object\":\"list\",\"data\":[]}" (4 attempts)`},

		// Replies that break the contract: sent back once with the problem, then an error.
		{name: "text instead of JSON, then a good reply", replies: []llmtest.Reply{llmtest.Text("Looks fine to me."), okProbe()}, hits: 2},
		{name: "violation without a quote twice", replies: []llmtest.Reply{llmtest.JSON(map[string]any{"violations": []any{map[string]any{"line": 1, "message": "Wordy."}}})},
			hits: 2, failed: probeA, err: `llm: reply of test-model at HOST rejected after one retry: violations[0].quoted_text: expected the exact words of the text that break the rule, found no quoted_text (fields: "line", "message"); the reply began "{\"violations\":[{\"line\":1,\"message\":\"Wordy.\"}]}"`},
		{name: "wrong criterion ids", match: ratedOnA,
			replies: []llmtest.Reply{llmtest.JSON(map[string]any{"criteria": []any{
				map[string]any{"id": "Brevity", "score": 3}, map[string]any{"id": "Voice", "score": 2}}})},
			hits: 2, failed: ratedA, err: `llm: reply of test-model at HOST rejected after one retry: criteria: expected a rating for every criterion (Clarity, Tone), found none for "Clarity", "Tone"; the reply began "{\"criteria\":[{\"id\":\"Brevity\",\"score\":3},{\"id\":\"Voice\",\"score\":2}]}"`},
		{name: "an extra criterion is a warning", match: ratedOnA,
			replies: []llmtest.Reply{llmtest.JSON(map[string]any{"criteria": []any{
				map[string]any{"id": "Clarity", "score": 3}, map[string]any{"id": "Tone", "score": 4}, map[string]any{"id": "Voice", "score": 1}}})},
			hits: 1, warnings: "vectorlint: warning: docs/a.md: Acme.Rated (lines 1-2): the reply rates a criterion the rule does not have (\"Voice\"); ignored\n"},
		{name: "a rating out of range", match: ratedOnA, replies: []llmtest.Reply{llmtest.JSON(ratedReply(3, 7))},
			hits: 2, failed: ratedA, err: `llm: reply of test-model at HOST rejected after one retry: criteria[1].score: expected an integer from 1 to 4, found 7; the reply began "{\"criteria\":[{\"id\":\"Clarity\",\"name\":\"Clarity\",\"score\":3,\"summary\":\"ok\",\"violations\":[]},{\"id\":\"Tone\",\"name\":\"Tone\",\"scor…"`},
		{name: "a rating out of range, then a good reply", match: ratedOnA, replies: []llmtest.Reply{llmtest.JSON(ratedReply(0, 4)), llmtest.JSON(ratedReply(3, 4))},
			hits: 2},
		{name: "a quote that is not in the document", replies: []llmtest.Reply{llmtest.JSON(map[string]any{"violations": []any{
			map[string]any{"quoted_text": "In order to", "line": 1, "message": `Say "to".`, "fix": "To"},
			map[string]any{"quoted_text": "leverage synergies", "line": 2, "message": "Jargon."}}})},
			hits: 1, unverified: []string{"docs/a.md Acme.Probe: leverage synergies"}},
		{name: "a line number outside the document", replies: []llmtest.Reply{llmtest.JSON(map[string]any{"violations": []any{
			map[string]any{"quoted_text": "In order to", "line": 999, "message": `Say "to".`, "fix": "To"}}})},
			hits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			match := tt.match
			if match == nil {
				match = probeOnA
			}
			faulty := srv.On(match, tt.replies...)
			scriptFaultDefaults(srv)
			r := runFaultProject(t, srv, tt.tune)
			if faulty.Hits() != tt.hits {
				t.Errorf("the faulty call made %d requests, want %d", faulty.Hits(), tt.hits)
			}
			wantCode, wantScores := exitFindings, faultBaseline
			if tt.failed != "" {
				wantCode, wantScores = exitFailure, withoutKey(tt.failed)
			}
			if r.code != wantCode {
				t.Errorf("exit %d, want %d", r.code, wantCode)
			}
			if fmt.Sprint(r.scores) != fmt.Sprint(wantScores) {
				t.Errorf("scores\n got %v\nwant %v", r.scores, wantScores)
			}
			var errs []string
			for k, v := range r.errors {
				errs = append(errs, k+": "+v)
			}
			sort.Strings(errs)
			var wantErrs []string
			if tt.failed != "" {
				wantErrs = []string{tt.failed + ": " + tt.err}
			}
			if fmt.Sprintf("%q", errs) != fmt.Sprintf("%q", wantErrs) {
				t.Errorf("errors\n got %q\nwant %q", errs, wantErrs)
			}
			if fmt.Sprint(r.unverified) != fmt.Sprint(tt.unverified) {
				t.Errorf("unverified %v, want %v", r.unverified, tt.unverified)
			}
			if r.warnings != tt.warnings {
				t.Errorf("warnings %q, want %q", r.warnings, tt.warnings)
			}
			if tt.minGap > 0 {
				var times []time.Time
				for _, req := range srv.Requests() {
					if match(&req) {
						times = append(times, req.Time)
					}
				}
				if len(times) < 2 || times[1].Sub(times[0]) < tt.minGap {
					t.Errorf("the retry came before the server's Retry-After (%v): requests at %v", tt.minGap, times)
				}
			}
		})
	}
}

// okProbe is the Probe rule's good reply.
func okProbe() llmtest.Reply {
	return llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to", "line": 1, "message": `Say "to".`, "fix": "To"}}})
}

// runWideRun runs the fault project (2 files × 3 rules) with env and returns the result.
func runWideRun(t *testing.T, env map[string]string, args ...string) cliResult {
	t.Helper()
	dir := t.TempDir()
	writeTestTree(t, dir, faultProject())
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		tuneLLM:   func(c *llm.Config) { c.BaseDelay, c.MaxDelay = time.Millisecond, 5*time.Millisecond }}
	code := a.run(context.Background(), append([]string{"--no-cache", "--concurrency", "2"}, append(args, "docs")...))
	r := cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	r.noKey(t)
	return r
}

// TestLintRunWideFaults is the fault table of failures that are facts about the whole run:
// the server refuses the connection, its host does not resolve, TLS fails, it rejects the key,
// refuses access, or has no such model. None of them gives a line per rule per file: stderr
// holds one message naming the provider, host, cause and the setting that fixes it, the
// report's last line names the cause with the count of rule runs not done, the exit code is
// 2, and no request is started after the failure (at most the 2 in flight reached the server).
func TestLintRunWideFaults(t *testing.T) {
	t.Parallel()
	plain := llmtest.Start(t)
	untrusted := llmtest.Start(t, llmtest.WithTLS())
	keyed := llmtest.Start(t, llmtest.RequireAPIKey("sk-the-right-key-0123456789"))
	forbidden := llmtest.Start(t)
	forbidden.SetDefault(llmtest.Status(403, `{"error":{"message":"Project does not have access to model test-model"}}`))
	unknown := llmtest.Start(t)
	unknown.SetDefault(llmtest.Status(404, `{"error":{"message":"The model test-model does not exist","code":"model_not_found"}}`))
	closed := llmtest.ClosedURL(t)
	const baseURLs = "--base-url, OPENAI_BASE_URL or BaseURL in vectorlint.ini"
	tests := []struct {
		name    string
		baseURL string
		srv     *llmtest.Server // counts the requests, when there is a server
		message string          // HOST stands for the host of baseURL
		cause   string
	}{
		{"connection refused", closed, nil,
			"llm: cannot connect to HOST (openai): connection refused (4 attempts); is a server running there? Check " + baseURLs,
			"connection refused to HOST"},
		{"host that does not resolve", "http://api.vectorlint-test.invalid/v1", nil,
			"llm: cannot resolve the host of HOST (openai): no such host api.vectorlint-test.invalid (4 attempts); check the host name in " + baseURLs + ", and the network",
			"cannot resolve api.vectorlint-test.invalid"},
		{"plain HTTP addressed with https", strings.Replace(plain.URL, "http://", "https://", 1), plain,
			"llm: TLS handshake with HOST (openai) failed: the server answered in plain HTTP, not TLS (4 attempts); the server speaks plain HTTP: use an http:// URL in " + baseURLs,
			"TLS handshake with HOST failed"},
		{"untrusted certificate", untrusted.URL, untrusted,
			"llm: TLS handshake with HOST (openai) failed: the server's certificate is not trusted: x509: certificate signed by unknown authority (4 attempts); " +
				"check the URL in " + baseURLs + "; a server with a private certificate must have its authority trusted (SSL_CERT_FILE)",
			"TLS handshake with HOST failed"},
		{"401 wrong key", keyed.URL, keyed,
			"llm: HOST (openai) rejected the API key: HTTP 401 Unauthorized: Incorrect API key provided.; set OPENAI_API_KEY to a valid key",
			"HTTP 401 Unauthorized from HOST"},
		{"403 forbidden", forbidden.URL, forbidden,
			"llm: HOST (openai) refused access to model test-model: HTTP 403 Forbidden: Project does not have access to model test-model; " +
				"check that the key in OPENAI_API_KEY may use this model, or choose another with --model, OPENAI_MODEL or Model in vectorlint.ini",
			"HTTP 403 Forbidden from HOST"},
		{"404 unknown model", unknown.URL, unknown,
			"llm: HOST (openai) has no model test-model or no such endpoint: HTTP 404 Not Found: The model test-model does not exist; " +
				"check the model name in --model, OPENAI_MODEL or Model in vectorlint.ini and the URL in " + baseURLs,
			"HTTP 404 Not Found for model test-model at HOST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"OPENAI_BASE_URL": tt.baseURL, "OPENAI_API_KEY": testAPIKey, "OPENAI_MODEL": "test-model"}
			host := llm.Endpoint{BaseURL: tt.baseURL}.Host()
			if strings.HasSuffix(host, ".invalid") {
				// RFC 6761 reserves .invalid; without a resolver that says so the text differs.
				var dnsErr *net.DNSError
				if _, err := net.LookupHost(host); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
					t.Skipf("the resolver does not answer NXDOMAIN for %s (%v): this case needs one", host, err)
				}
			}
			before := 0
			if tt.srv != nil {
				before = len(tt.srv.Requests())
			}
			r := runWideRun(t, env)
			message := strings.ReplaceAll(tt.message, "HOST", host)
			cause := strings.ReplaceAll(tt.cause, "HOST", host)
			r.expect(t, exitFailure, "LLM usage: 0 calls, 0 input and 0 output tokens\n"+
				"✖ 0 errors and 0 warnings in 2 files; 6 rule runs could not complete ("+cause+").\n",
				"vectorlint: "+message+" (6 rule runs not done)\n")
			if tt.srv != nil {
				if n := len(tt.srv.Requests()) - before; n > 2 {
					t.Errorf("the server got %d requests, want at most the 2 in flight", n)
				}
			}
			// JSON: the cause once, at the top, with the count; no file lists it.
			js := runWideRun(t, env, "--output", "json")
			var res struct {
				Files []struct {
					Errors []finding.RuleError
					NotRun int
				}
				RunErrors []finding.RunError
				Summary   finding.Summary
			}
			if err := json.Unmarshal([]byte(js.stdout), &res); err != nil {
				t.Fatal(err)
			}
			want := []finding.RunError{{Cause: cause, Message: message, NotRun: 6}}
			if js.code != exitFailure || fmt.Sprint(res.RunErrors) != fmt.Sprint(want) || len(res.Files) != 2 ||
				len(res.Files[0].Errors)+len(res.Files[1].Errors) != 0 || res.Files[0].NotRun != 3 || res.Summary.NotRun != 6 {
				t.Errorf("json: exit %d, %+v", js.code, res)
			}
		})
	}
}

// TestLintRunWideFaultsAtScale: 50 files × 8 rules (400 rule runs) against a closed port, with
// the production retry settings, end in seconds with a handful of lines on stderr; against a
// server that rejects the key, refuses access or lacks the model, no request is started
// after the first failure (at most the Concurrency calls in flight reached the server).
func TestLintRunWideFaultsAtScale(t *testing.T) {
	t.Parallel()
	files := map[string]string{"vectorlint.ini": "RulesPath = rules\nConcurrency = 8\n[**/*.md]\nRunRules = Acme\n"}
	for i := range 8 {
		files[fmt.Sprintf("rules/Acme/r%d.md", i)] = fmt.Sprintf("---\nid: R%d\nname: R%d\n---\nFlag problem %d.\n", i, i, i)
	}
	for i := range 50 {
		files[fmt.Sprintf("docs/d%02d.md", i)] = fmt.Sprintf("Document %d says something.\n", i)
	}
	dir := t.TempDir()
	writeTestTree(t, dir, files)
	run := func(env map[string]string) (cliResult, time.Duration) {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		start := time.Now()
		code := a.run(context.Background(), []string{"--no-cache", "docs"})
		return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}, time.Since(start)
	}
	closed := llmtest.ClosedURL(t)
	r, elapsed := run(map[string]string{"OPENAI_BASE_URL": closed, "OPENAI_API_KEY": testAPIKey, "OPENAI_MODEL": "test-model"})
	host := llm.Endpoint{BaseURL: closed}.Host()
	if r.code != exitFailure || elapsed > 15*time.Second || strings.Count(r.stderr, "\n") > 5 {
		t.Errorf("closed port: exit %d after %v, stderr (%d lines):\n%s", r.code, elapsed, strings.Count(r.stderr, "\n"), r.stderr)
	}
	if want := "✖ 0 errors and 0 warnings in 50 files; 400 rule runs could not complete (connection refused to " + host + ").\n"; !strings.HasSuffix(r.stdout, want) ||
		strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("closed port: stdout\n%s\nwant the usage line and %q", r.stdout, want)
	}

	for _, status := range []int{401, 403, 404} {
		srv := llmtest.Start(t)
		srv.SetDefault(llmtest.Status(status, ""))
		r, _ := run(fakeEnv(srv))
		if r.code != exitFailure || srv.Calls() > 8 || strings.Count(r.stderr, "\n") != 1 || strings.Count(r.stdout, "\n") != 2 {
			t.Errorf("%d: exit %d, %d requests (want at most 8), stdout:\n%s\nstderr:\n%s", status, r.code, srv.Calls(), r.stdout, r.stderr)
		}
	}
}

// TestLintHungServer: a server that accepts the connection and never answers, with --timeout
// 2s, 10 files × 2 rules: the run ends in seconds (each attempt 2 s, a call with its retries
// at most 6 s; a host that has answered nothing is stopped when the first calls give up, and
// the others then fail at once); standard error, not a terminal, says what is in flight while
// nothing finishes (the stall interval is set short through the client's configuration), then
// names the failure once.
func TestLintHungServer(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Hang())
	files := map[string]string{
		"vectorlint.ini":    "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/one.md": "---\nid: One\nname: One\n---\nFlag problems.\n",
		"rules/Acme/two.md": "---\nid: Two\nname: Two\n---\nFlag other problems.\n",
	}
	for i := range 10 {
		files[fmt.Sprintf("docs/d%d.md", i)] = fmt.Sprintf("Some text %d.\n", i)
	}
	dir := t.TempDir()
	writeTestTree(t, dir, files)
	var stdout, stderr bytes.Buffer
	env := fakeEnv(srv)
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		// The production backoff without its jitter (waits of 0.5 s and 1 s), so that the
		// third attempt starts at 5.5 s and is cut short at 6 s.
		tuneLLM: func(c *llm.Config) { c.StallInterval, c.Rand = 700*time.Millisecond, func() float64 { return 0 } }}
	start := time.Now()
	code := a.run(context.Background(), []string{"--no-cache", "--timeout", "2s", "docs"})
	elapsed := time.Since(start)
	if code != exitFailure || elapsed > 10*time.Second {
		t.Fatalf("exit %d after %v", code, elapsed)
	}
	if out, want := hostless(stdout.String(), srv), "LLM usage: 0 calls, 0 input and 0 output tokens\n"+
		"✖ 0 errors and 0 warnings in 10 files; 20 rule runs could not complete (no reply from HOST).\n"; out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	lines := strings.Split(strings.TrimSuffix(hostless(stderr.String(), srv), "\n"), "\n")
	if len(lines) < 3 || len(lines) > 10 {
		t.Fatalf("stderr: %d lines, want a stall report about every 0.7s and the failure:\n%s", len(lines), stderr.String())
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "vectorlint: waiting for the model: 8 calls in flight to HOST, the oldest for ") ||
			!strings.Contains(l, "; none has finished for ") {
			t.Errorf("stderr line %q", l)
		}
	}
	// The third attempt starts at 5.5 s only if the second one's timeout fires on time: on a
	// loaded machine it may not, and the call gives up after 2 attempts.
	want := "vectorlint: llm: HOST (openai) sends no reply: no complete reply within 2s per attempt, " +
		"and the call gave up at its limit of 6s (3 × the timeout) (%d attempts); check that the server works, " +
		"or allow more time with --timeout or Timeout in vectorlint.ini (20 rule runs not done)"
	if last := lines[len(lines)-1]; last != fmt.Sprintf(want, 3) && last != fmt.Sprintf(want, 2) {
		t.Errorf("last stderr line\n%s\nwant\n%s", last, fmt.Sprintf(want, 3))
	}
	if n := srv.Calls(); n > 24 {
		t.Errorf("%d requests, want at most 8 calls × 3 attempts", n)
	}
}
