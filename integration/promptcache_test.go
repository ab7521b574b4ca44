package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Provider prompt caching end to end (docs/providers.md, "Prompt caching"): the real binary
// lints 3 documents with 2 rules and a style guide against the fake server, as Anthropic
// (native Messages API, cache_control) and as OpenAI (prompt_cache_key). Each rule's calls share
// their system message; the fake caches it from the second call on, and the JSON usage, its
// cost and the line footer count the cached tokens at the provider's prices.

// cacheProject writes the project: a style guide long enough that each shared prefix (the
// instructions, the style guide and a document) passes the providers' 1,024-token minimum.
func cacheProject(t *testing.T, dir string) {
	t.Helper()
	var guide strings.Builder
	guide.WriteString("# House style\n\n")
	for i := range 90 {
		fmt.Fprintf(&guide, "- Rule %d: write short sentences, use the active voice and name the reader as you.\n", i)
	}
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"VECTORLINT.md":  guide.String(),
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"rules/Acme/passive.md": "---\nid: Passive\nname: Passive\nseverity: warning\n---\n" +
			"Flag sentences in the passive voice.\n",
	}
	for i := range 3 {
		files[fmt.Sprintf("docs/page%d.md", i)] = fmt.Sprintf("# Page %d\n\nThe deploy script of page %d is run by the team.\n", i, i)
	}
	writeFiles(t, dir, files)
}

// tokensOf counts a message as the fake server does: a token per four characters, rounded up,
// and four more per message.
func tokensOf(text string) int64 { return int64(len([]rune(text))+3)/4 + 4 }

func TestPromptCachingEndToEnd(t *testing.T) {
	bin := filepath.Join(buildVectorlint(t), "vectorlint")
	for _, tc := range []struct {
		provider string
		env      func(url string) []string
		// read and write are the provider's prices of a cached and a written token, as shares
		// of the input price.
		read, write float64
	}{
		{"anthropic", func(url string) []string {
			return []string{"LLM_PROVIDER=anthropic", "ANTHROPIC_API_KEY=" + testAPIKey, "ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_MODEL=claude-x"}
		}, 0.1, 1.25},
		{"openai", func(url string) []string {
			return []string{"LLM_PROVIDER=openai", "OPENAI_API_KEY=" + testAPIKey, "OPENAI_BASE_URL=" + url, "OPENAI_MODEL=gpt-x"}
		}, 0.5, 1},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			dir := t.TempDir()
			cacheProject(t, dir)
			srv := llmtest.Start(t, llmtest.RequireAPIKey(testAPIKey))
			srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
			env := cleanEnv(append(tc.env(srv.URL), "XDG_CACHE_HOME="+t.TempDir(), "INPUT_PRICE_PER_MILLION=3", "OUTPUT_PRICE_PER_MILLION=15")...)
			r := run(t, dir, env, 2*time.Minute, bin, "--output", "json", "--no-cache", "--concurrency", "1", "docs")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 6 {
				t.Fatalf("%d requests, want 6 (3 documents × 2 rules)", len(reqs))
			}
			// What the fake's cache model gives: the shared prefix is the instructions with the
			// style guide, then the document (spec/linter.md §13); per document the first call
			// writes it (Anthropic) or sees it (OpenAI), the other rule's call reads it.
			var input, output, cached, written int64
			seen := map[string]bool{}
			for i, q := range reqs {
				if len(q.Messages) != 3 {
					t.Fatalf("request %d: %d messages, want 3 (instructions, document, rule)", i, len(q.Messages))
				}
				prefix := q.Messages[0].Content + "\x00" + q.Messages[1].Content
				n := tokensOf(q.Messages[0].Content) + tokensOf(q.Messages[1].Content)
				if n < llmtest.MinCachedPrompt {
					t.Fatalf("request %d: shared prefix of %d tokens, below the minimum the test needs", i, n)
				}
				for _, m := range q.Messages {
					input += tokensOf(m.Content)
				}
				output += int64(len(`{"violations":[]}`)+3) / 4
				switch tc.provider {
				case "anthropic":
					if fmt.Sprint(q.CacheBreakpoints) != "[1]" || q.Path != "/v1/messages" {
						t.Fatalf("request %d: %s, cache_control on %v, want [1] (the document)", i, q.Path, q.CacheBreakpoints)
					}
					if seen[prefix] {
						cached += n
					} else {
						written += n
					}
				case "openai":
					if q.PromptCacheKey == "" || q.Path != "/v1/chat/completions" {
						t.Fatalf("request %d: %s, prompt_cache_key %q", i, q.Path, q.PromptCacheKey)
					}
					if seen[prefix] {
						cached += llmtest.MinCachedPrompt + (n-llmtest.MinCachedPrompt)/128*128
					}
				}
				seen[prefix] = true
			}
			if len(seen) != 3 {
				t.Fatalf("%d distinct shared prefixes, want one per document", len(seen))
			}
			if cached == 0 || (tc.provider == "anthropic") != (written > 0) {
				t.Fatalf("cached %d written %d", cached, written)
			}
			var out struct {
				Usage json.RawMessage `json:"usage"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("%v\n%s", err, r.stdout)
			}
			cost := (float64(input-cached-written)*3 + float64(cached)*3*tc.read + float64(written)*3*tc.write + float64(output)*15) / 1e6
			want := fmt.Sprintf(`{"calls":6,"cachedCalls":0,"inputTokens":%d,"outputTokens":%d,"cachedInputTokens":%d,`, input, output, cached)
			if written > 0 {
				want += fmt.Sprintf(`"cacheWriteTokens":%d,`, written)
			}
			var got struct {
				Cost float64 `json:"cost"`
			}
			_ = json.Unmarshal(out.Usage, &got)
			var compact bytes.Buffer
			_ = json.Compact(&compact, out.Usage)
			if !strings.HasPrefix(compact.String(), want) || math.Abs(got.Cost-cost) > 1e-12 {
				t.Fatalf("usage %s\nwant  %s\"cost\":%v}", out.Usage, want, cost)
			}
			// Without caching, the same run would cost every input token at the input price.
			if full := (float64(input)*3 + float64(output)*15) / 1e6; got.Cost >= full {
				t.Fatalf("cost %v, not below the uncached %v", got.Cost, full)
			}

			// The line footer says it too.
			srv.Reset()
			r = run(t, dir, env, 2*time.Minute, bin, "--no-cache", "--concurrency", "1", "docs")
			footer := fmt.Sprintf("LLM usage: 6 calls, %d input (%d from the provider's cache", input, cached)
			if written > 0 {
				footer += fmt.Sprintf(", %d written to it)", written)
			} else {
				footer += ")"
			}
			footer += fmt.Sprintf(" and %d output tokens, cost $%.4f", output, cost)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, footer) {
				t.Fatalf("exit %d; want the footer %q in:\n%s%s", r.code, footer, r.stdout, r.stderr)
			}
		})
	}
}
