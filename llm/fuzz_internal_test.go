package llm

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// A reply body is untrusted: whatever the server sends, the client either reads a response or
// reports a *badResponseError whose message is one clipped line (it may quote the body, never
// all of it).
func checkBadResponse(t *testing.T, body []byte, err error) {
	t.Helper()
	var bre *badResponseError
	if !errors.As(err, &bre) {
		t.Fatalf("error %T %v is not a *badResponseError", err, err)
	}
	msg := err.Error()
	if msg == "" || strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error message %q is empty or spans lines", msg)
	}
	if len(body) > 1000 && len(msg) > 600 {
		t.Fatalf("error message of %d bytes for a %d-byte body: the body is not clipped", len(msg), len(body))
	}
}

// FuzzParseChat fuzzes the chat completion body the client reads from the server.
func FuzzParseChat(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"image"},{"text":"b"}],"refusal":"no"}}]}`,
		`{"choices":[{"message":{"content":null}}]}`, `{"choices":[]}`, `{"error":{"message":"boom"}}`, `{"error":"x"}`,
		`{"choices":[{"message":{"content":42}}]}`, `{"choices":[{"message":{"content":"cut`, "", "  \n", "<html>502 Bad Gateway</html>",
		`{"usage":{"prompt_tokens":1e30}}`, `[]`, `null`,
		`{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":-3}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := parseChat(body)
		if (r == nil) == (err == nil) {
			t.Fatalf("response %v and error %v", r, err)
		}
		if err != nil {
			checkBadResponse(t, body, err)
			return
		}
		if tk := r.Tokens; tk.Cached < 0 || tk.CacheWrite != 0 || tk.Cached > max(tk.Input, 0) {
			t.Fatalf("tokens %+v: expected 0 ≤ cached ≤ input and no cache writes", tk)
		}
	})
}

// FuzzParseEmbeddings fuzzes an embeddings body: exactly n non-empty vectors in index order, or
// an error.
func FuzzParseEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[0.5]},{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":4}}`), 2)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[]}]}`), 1)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`), 2)
	f.Add([]byte(`{"data":`), 1)
	f.Add([]byte(`{"data":[]}`), 0)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		vecs, _, err := parseEmbeddings(body, n)
		if err != nil {
			checkBadResponse(t, body, err)
			return
		}
		if len(vecs) != n {
			t.Fatalf("%d vectors, asked for %d", len(vecs), n)
		}
		for i, v := range vecs {
			if len(v) == 0 {
				t.Fatalf("vector %d is empty", i)
			}
		}
	})
}

// FuzzErrorMessage fuzzes the body of an HTTP error reply: what it says is quoted in the
// error the user sees, on one line and clipped.
func FuzzErrorMessage(f *testing.F) {
	for _, s := range []string{
		`{"error":{"message":"Incorrect API key provided: sk-abc","type":"invalid_request_error","param":"model"}}`,
		`{"error":"rate limited"}`, `{"message":"m"}`, `{"detail":"d"}`, `{"detail":[{"loc":["body"],"msg":"x"}]}`,
		"<html>\n<body>502 Bad Gateway</body>\n</html>", "", strings.Repeat("x", 2000), `{"error":{"message":"` + strings.Repeat("a\n", 400) + `"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, _ := errorMessage(body)
		if strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("message %q spans lines", msg)
		}
		// At most 300 characters of a JSON message, or 120 bytes of another body quoted (up to
		// four characters each: "\x93").
		if utf8.RuneCountInString(msg) > 600 {
			t.Fatalf("message of %d characters is not clipped", utf8.RuneCountInString(msg))
		}
	})
}
