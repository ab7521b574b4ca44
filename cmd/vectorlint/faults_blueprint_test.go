package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Fault injection through "vectorlint blueprint run": the candidate models and the judge
// are fake servers; one model's generation or one judgement goes wrong in each row.

// faultBlueprint has two prompts, each with a function point and a judged point, run on two
// candidate models.
const faultBlueprint = `title: Faults
models: [openai:steady, openai:probe]
---
- id: capital
  prompt: What is the capital of France?
  should:
    - $contains: Paris
    - Names the capital
- id: river
  prompt: Which river flows through Paris?
  should:
    - $icontains: seine
    - Names the river
`

// faultGenerate answers the candidate models.
func faultGenerate(r *llmtest.Request) llmtest.Reply {
	if strings.Contains(r.LastUser(), "capital of France") {
		return llmtest.Text("Paris is the capital of France.")
	}
	return llmtest.Text("The Seine flows through Paris.")
}

type blueprintFaultRun struct {
	code           int
	stdout, stderr string
	// recorded are the string values of the result document, one a line.
	recorded string
}

// stringsOf appends every string value of a decoded JSON document to b, one a line.
func stringsOf(v any, b *strings.Builder) {
	switch x := v.(type) {
	case string:
		b.WriteString(x + "\n")
	case []any:
		for _, e := range x {
			stringsOf(e, b)
		}
	case map[string]any:
		for _, e := range x {
			stringsOf(e, b)
		}
	}
}

func runFaultBlueprint(t *testing.T, gen, judge *llmtest.Server, tune func(*llm.Config)) blueprintFaultRun {
	t.Helper()
	dir := writeBlueprintFiles(t, map[string]string{"faults.yml": faultBlueprint})
	env := map[string]string{
		"OPENAI_API_KEY": testAPIKey, "OPENAI_BASE_URL": gen.URL,
		"XAI_API_KEY": "xai-SECRET-judge-0123456789", "XAI_BASE_URL": judge.URL,
	}
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		now:       func() time.Time { return e2eNow }, jsTimeout: calmJSLimit,
		tuneLLM: func(c *llm.Config) {
			c.BaseDelay, c.MaxDelay = time.Millisecond, 5*time.Millisecond
			if tune != nil {
				tune(c)
			}
		}}
	// Generation gets Weval's one retry (--gen-retries 1) and, so that a hang costs seconds, a
	// one-second attempt limit; the judges keep the client's settings (4 attempts).
	code := a.run(context.Background(), []string{"blueprint", "run", "faults.yml", "--no-cache", "--judge", "xai:judge", "--run-label", "F",
		"--gen-timeout-ms", "1000"})
	r := blueprintFaultRun{code: code, stdout: out.String(), stderr: errOut.String()}
	for _, secret := range []string{testAPIKey, env["XAI_API_KEY"]} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("a key leaked into the output:\n%s\n%s", r.stdout, r.stderr)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, ".results", "faults", "F_*_comparison.json"))
	if len(matches) != 1 {
		t.Fatalf("result documents %v: the result is written even when evaluations fail", matches)
	}
	data, err := os.ReadFile(matches[0])
	var doc any
	if err == nil {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatalf("result document: %v", err)
	}
	var b strings.Builder
	stringsOf(doc, &b)
	r.recorded = b.String()
	r.stdout = strings.ReplaceAll(r.stdout, strings.TrimSuffix(strings.TrimPrefix(gen.URL, "http://"), "/v1"), "GEN")
	r.stdout = strings.ReplaceAll(r.stdout, strings.TrimSuffix(strings.TrimPrefix(judge.URL, "http://"), "/v1"), "JUDGE")
	return r
}

// faultTable is the line output of the fault blueprint: the table rows given, then the
// failures.
func faultTable(rows string, failures ...string) string {
	out := "Blueprint Faults (faults)\nRun F at 2025-07-05T10-20-30-123Z: 2 prompts × 2 models\n\n" +
		"PROMPT   openai:steady[temp:0]  openai:probe[temp:0]\n" + rows + "\n"
	if strings.Contains(rows, "*") {
		out += "* some points were not evaluated; the score covers the evaluated points only.\n\n"
	}
	if len(failures) > 0 {
		out += fmt.Sprintf("%d failure", len(failures))
		if len(failures) > 1 {
			out += "s"
		}
		out += ":\n"
		for _, f := range failures {
			out += "  " + f + "\n"
		}
		out += "\n"
	}
	return out + "Result written to .results/faults/F_2025-07-05T10-20-30-123Z_comparison.json\n"
}

// TestBlueprintFaults is the fault table of blueprint run: each row makes either the probe
// model's generation of one prompt or the judgement of one point fail, and asserts the
// requests made, the table (every other cell keeps its score), the failures listed, and the
// exit code.
func TestBlueprintFaults(t *testing.T) {
	t.Parallel()
	probeCapital := llmtest.All(llmtest.ModelIs("probe"), llmtest.LastUserContains("capital of France"))
	judgeRiver := llmtest.MessageContains("<CRITERION>\nNames the river\n</CRITERION>")
	allOK := faultTable("capital  1.00                   1.00\nriver    0.88                   0.88\nAVERAGE  0.94                   0.94\n")
	genFailed := func(cause string) string {
		return faultTable("capital  1.00                   —\nriver    0.88                   0.88\nAVERAGE  0.94                   0.88\n", "capital × openai:probe[temp:0]: llm: chat completion with probe at GEN: "+cause)
	}
	judgeFailed := func(cause string) string {
		var fs []string
		for _, m := range []string{"steady", "probe"} {
			fs = append(fs, "river × openai:"+m+"[temp:0]: Names the river: judging failed: all 1 judges failed: holistic(xai:judge): llm: "+cause)
		}
		return faultTable("capital  1.00                   1.00\nriver    1.00*                  1.00*\nAVERAGE  1.00                   1.00\n", fs...)
	}
	tests := []struct {
		name string
		// gen is true when the faulty requests are generations (else judgements).
		gen     bool
		match   llmtest.Matcher
		replies []llmtest.Reply
		tune    func(*llm.Config)
		hits    int
		code    int
		want    string
		// same, when set, rewrites another wording of the same failure into want's.
		same *strings.Replacer
	}{
		{name: "baseline", gen: true, match: llmtest.ModelIs("none"), replies: []llmtest.Reply{llmtest.ServerError()}, hits: 0, code: exitOK, want: allOK},
		{name: "generation: 429 with Retry-After, then success", gen: true, match: probeCapital,
			replies: []llmtest.Reply{llmtest.RateLimited("0.1"), llmtest.Text("Paris.")}, hits: 2, code: exitOK, want: allOK},
		{name: "generation: 500 always", gen: true, match: probeCapital, replies: []llmtest.Reply{llmtest.ServerError()}, hits: 2, code: exitFailure, want: genFailed("HTTP 500 Internal Server Error: The server had an error while processing your request. (2 attempts)")},
		// Two attempts of 1 s and a backoff fit in the call's 3 s limit on an idle machine; a
		// loaded one may reach the limit first, which the message then says: the same failure.
		{name: "generation: hang always", gen: true, match: probeCapital, replies: []llmtest.Reply{llmtest.Hang()},
			hits: 2, code: exitFailure, want: genFailed("no complete reply within 1s (2 attempts)"),
			same: strings.NewReplacer(" per attempt, and the call gave up at its limit of 3s (3 × the timeout)", "")},
		{name: "generation: connection closed always", gen: true, match: probeCapital, replies: []llmtest.Reply{llmtest.CloseConnection()}, hits: 2, code: exitFailure, want: genFailed("connection failed: the server closed the connection without replying (2 attempts)")},
		{name: "generation: truncated JSON always", gen: true, match: probeCapital, replies: []llmtest.Reply{llmtest.TruncatedJSON()}, hits: 2, code: exitFailure, want: genFailed("the server's reply is cut off after 134 bytes (truncated JSON) (2 attempts)")},
		{name: "generation: a 1 MB reply", gen: true, match: probeCapital,
			replies: []llmtest.Reply{llmtest.Text("Paris. " + strings.Repeat("And more about France. ", 1<<20/23))}, hits: 1, code: exitOK, want: allOK},
		{name: "judge: 500, then success", match: judgeRiver, replies: []llmtest.Reply{llmtest.ServerError(), llmtest.Dynamic(e2eJudge("judge", map[string]string{"Names the river": "CLASS_MOSTLY_PRESENT"}))},
			hits: 3, code: exitOK, want: allOK},
		{name: "judge: 500 always", match: judgeRiver, replies: []llmtest.Reply{llmtest.ServerError()}, hits: 8, code: exitFailure, want: judgeFailed("chat completion with judge at JUDGE: HTTP 500 Internal Server Error: The server had an error while processing your request. (4 attempts)")},
		{name: "judge: hang always", match: judgeRiver, replies: []llmtest.Reply{llmtest.Hang()},
			tune: func(c *llm.Config) { c.Timeout = time.Second }, hits: 6, code: exitFailure, want: judgeFailed("chat completion with judge at JUDGE: no complete reply within 1s per attempt, and the call gave up at its limit of 3s (3 × the timeout) (3 attempts)")},
		{name: "judge: malformed JSON always", match: judgeRiver, replies: []llmtest.Reply{llmtest.MalformedJSON()}, hits: 8, code: exitFailure, want: judgeFailed(`chat completion with judge at JUDGE: the server's reply is not valid JSON (invalid character ']' looking for beginning of value); it began "{\"id\":\"chatcmpl-malformed\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"…" (4 attempts)`)},
		{name: "judge: connection closed mid-response always", match: judgeRiver, replies: []llmtest.Reply{llmtest.CloseMidResponse()}, hits: 8, code: exitFailure, want: judgeFailed("chat completion with judge at JUDGE: connection failed: the server closed the connection in the middle of the reply (4 attempts)")},
		{name: "judge: no classification twice", match: judgeRiver, replies: []llmtest.Reply{llmtest.Text("It is fine, I suppose.")}, hits: 4, code: exitFailure, want: judgeFailed(`reply of judge at JUDGE rejected after one retry: expected the reply to hold <classification>CLASS_…</classification>, found "It is fine, I suppose."; the reply began "It is fine, I suppose."`)},
		{name: "judge: a class outside the scale twice", match: judgeRiver,
			replies: []llmtest.Reply{llmtest.Text("<reflection>ok</reflection><classification>CLASS_SUPERB</classification>")}, hits: 4, code: exitFailure, want: judgeFailed(`reply of judge at JUDGE rejected after one retry: expected the classification to be one of CLASS_ABSENT, CLASS_SLIGHTLY_PRESENT, CLASS_PARTIALLY_PRESENT, CLASS_MOSTLY_PRESENT, CLASS_FULLY_PRESENT, found "CLASS_SUPERB"; the reply began "<reflection>ok</reflection><classification>CLASS_SUPERB</classification>"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen, judge := llmtest.Start(t), llmtest.Start(t)
			target := judge
			if tt.gen {
				target = gen
			}
			faulty := target.On(tt.match, tt.replies...)
			gen.SetDefault(llmtest.Dynamic(faultGenerate))
			judge.SetDefault(llmtest.Dynamic(e2eJudge("judge", map[string]string{"Names the capital": "CLASS_FULLY_PRESENT", "Names the river": "CLASS_MOSTLY_PRESENT"})))
			r := runFaultBlueprint(t, gen, judge, tt.tune)
			if faulty.Hits() != tt.hits {
				t.Errorf("the faulty call made %d requests, want %d", faulty.Hits(), tt.hits)
			}
			if r.code != tt.code {
				t.Errorf("exit %d, want %d", r.code, tt.code)
			}
			if tt.same != nil {
				r.stdout, r.recorded = tt.same.Replace(r.stdout), tt.same.Replace(r.recorded)
			}
			if got := r.stdout; got != tt.want {
				t.Errorf("output\n%s\nwant\n%s", got, tt.want)
			}
			// The failure is recorded in the result document too.
			for _, line := range strings.Split(tt.want, "\n") {
				// The cause, without the host (the document has the real address).
				for _, sep := range []string{" at GEN: ", " at JUDGE: ", " rejected after one retry: "} {
					if i := strings.LastIndex(line, sep); i >= 0 {
						if cause := line[i+len(sep):]; !strings.Contains(r.recorded, cause) {
							t.Errorf("the result document does not record %q", cause)
						}
						break
					}
				}
			}
			if !strings.HasPrefix(r.stderr, "model calls: ") || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q, want only the usage line", r.stderr)
			}
		})
	}
}

// TestBlueprintRunWideFaults: an endpoint that is dead, or rejects the key, is reported once
// for the run, in the table and on standard error, with what it kept from being done, not
// once per prompt, model and point; the other endpoint's work is kept; the exit code is 2.
func TestBlueprintRunWideFaults(t *testing.T) {
	t.Parallel()
	gen := llmtest.Start(t)
	gen.SetDefault(llmtest.Dynamic(faultGenerate))
	judge := llmtest.Start(t)
	judge.SetDefault(llmtest.Dynamic(e2eJudge("judge", map[string]string{"Names the capital": "CLASS_FULLY_PRESENT", "Names the river": "CLASS_MOSTLY_PRESENT"})))
	locked := llmtest.Start(t, llmtest.RequireAPIKey("sk-the-right-key-0123456789"))
	closed := llmtest.ClosedURL(t)
	closedHost := llm.Endpoint{BaseURL: closed}.Host()
	tests := []struct {
		name         string
		genURL, jURL string
		table, stop  string
		requests     func() int // requests the failing endpoint received
	}{
		{name: "dead judge", genURL: gen.URL, jURL: closed,
			// The function points still score; the judged ones are left out of the score.
			table: "capital  1.00*                  1.00*\nriver    1.00*                  1.00*\nAVERAGE  1.00                   1.00\n\n" +
				"* some points were not evaluated; the score covers the evaluated points only.\n",
			stop: "llm: cannot connect to " + closedHost + " (xai): connection refused (4 attempts); is a server running there? Check XAI_BASE_URL (4 points not judged)"},
		{name: "generation key rejected", genURL: locked.URL, jURL: judge.URL,
			table: "capital  —                      —\nriver    —                      —\nAVERAGE  n/a                    n/a\n",
			stop: "llm: " + llm.Endpoint{BaseURL: locked.URL}.Host() + " (openai) rejected the API key: HTTP 401 Unauthorized: Incorrect API key provided.; " +
				"set OPENAI_API_KEY to a valid key (4 responses not generated)",
			requests: locked.Calls},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeBlueprintFiles(t, map[string]string{"faults.yml": faultBlueprint})
			env := map[string]string{"OPENAI_API_KEY": testAPIKey, "OPENAI_BASE_URL": tt.genURL,
				"XAI_API_KEY": "xai-SECRET-judge-0123456789", "XAI_BASE_URL": tt.jURL}
			var out, errOut bytes.Buffer
			a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir,
				lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
				now:       func() time.Time { return e2eNow }, jsTimeout: calmJSLimit,
				tuneLLM: func(c *llm.Config) { c.BaseDelay, c.MaxDelay = time.Millisecond, 5*time.Millisecond }}
			code := a.run(context.Background(), []string{"blueprint", "run", "faults.yml", "--no-cache", "--judge", "xai:judge", "--run-label", "F",
				"--concurrency", "2"})
			if code != exitFailure {
				t.Errorf("exit %d, want 2", code)
			}
			want := "Blueprint Faults (faults)\nRun F at 2025-07-05T10-20-30-123Z: 2 prompts × 2 models\n\n" +
				"PROMPT   openai:steady[temp:0]  openai:probe[temp:0]\n" + tt.table + "\n1 model endpoint could not be used:\n  " + tt.stop + "\n\n" +
				"Result written to .results/faults/F_2025-07-05T10-20-30-123Z_comparison.json\n"
			if out.String() != want {
				t.Errorf("output\n%s\nwant\n%s", out.String(), want)
			}
			message := tt.stop[:strings.LastIndex(tt.stop, " (")]
			if lines := strings.SplitAfter(errOut.String(), "\n"); lines[0] != "vectorlint blueprint run: "+message+"\n" || len(lines) > 3 {
				t.Errorf("stderr:\n%s\nwant the stop once, then the usage line", errOut.String())
			}
			if tt.requests != nil && tt.requests() > 2 {
				t.Errorf("%d requests, want at most the 2 in flight when the 401 came", tt.requests())
			}
		})
	}
}
