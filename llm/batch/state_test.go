package batch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/tree"
)

const goodKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestLoadBadState: a state file that is not ours, or is damaged, is an error naming the file
// and what was expected and found.
func TestLoadBadState(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "openai")
	b := f.batcher(t)
	good := `{"kind":"vectorlint-batch","version":1,"id":"vl-1","provider":"openai","baseURL":"http://127.0.0.1:1/v1","model":"m",` +
		`"parts":[{"providerID":"batch_1","requests":[{"customID":"r1","key":"` + goodKey + `"}]}]}`
	for _, tc := range []struct {
		name, content, want string
	}{
		{"not JSON", "{", `expected a JSON object, found invalid JSON (unexpected end of JSON input)`},
		{"foreign", `{"name":"package.json"}`, `expected kind "vectorlint-batch", found ""`},
		{"version", strings.Replace(good, `"version":1`, `"version":2`, 1), `expected version 1, found 2`},
		{"id", strings.Replace(good, `"id":"vl-1"`, `"id":"vl-2"`, 1), `expected id "vl-1" (the file's name), found "vl-2"`},
		{"provider", strings.Replace(good, `"provider":"openai"`, `"provider":"gemini"`, 1), `expected provider openai or anthropic, found "gemini"`},
		{"no parts", strings.Replace(good, `"parts":[`, `"parts":[],"x":[`, 1), `expected at least one provider batch in parts, found none`},
		{"bad key", strings.Replace(good, goodKey, "../../etc", 1), `expected a customID and a key of 64 hex digits in request 1 of part 1, found customID "r1" and key "../../etc"`},
		{"twice", strings.Replace(good, `}]}]}`, `},{"customID":"r1","key":"`+goodKey+`"}]}]}`, 1), `expected unique custom ids, found "r1" twice`},
	} {
		if err := os.MkdirAll(filepath.Join(f.dir, ".vectorlint", "batches"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.dir, ".vectorlint", "batches", "vl-1.json"), []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := b.Load("vl-1")
		var se *StateError
		if !errors.As(err, &se) || err.Error() != "batch state .vectorlint/batches/vl-1.json: "+tc.want {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
	os.WriteFile(filepath.Join(f.dir, ".vectorlint", "batches", "vl-1.json"), []byte(good), 0o644)
	if s, err := b.Load("vl-1"); err != nil || s.Requests() != 1 {
		t.Fatalf("good state: %v", err)
	}
	_, err := b.Load("vl-404")
	if !errors.As(err, new(*NotFoundError)) || err.Error() != "no batch vl-404 in this project: .vectorlint/batches/vl-404.json does not exist" {
		t.Fatalf("missing: %v", err)
	}
	for _, id := range []string{"../x", "a/b", "", ".hidden"} {
		if _, err := b.Load(id); err == nil || !strings.Contains(err.Error(), "expected letters, digits, - and _") {
			t.Fatalf("id %q: %v", id, err)
		}
	}
}

// TestStateConfinedToTree: a .vectorlint/batches that links out of the tree is not written
// through or read through.
func TestStateConfinedToTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "openai")
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(f.dir, ".vectorlint"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.dir, ".vectorlint", "batches")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(outside, "vl-1.json"), []byte("{}"), 0o644)
	b := f.batcher(t)
	_, err := b.Submit(context.Background(), f.requests(1), "fp")
	if err == nil || !errors.As(err, new(*tree.LeavesRootError)) {
		t.Fatalf("submit with the state folder outside the tree: %v", err)
	}
	if n := f.srv.BatchRequests(); n != 0 {
		t.Fatalf("submit sent %d requests before finding it could not save the state", n)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("%d files written outside the tree", len(entries)-1)
	}
	if _, err := b.Load("vl-1"); !errors.As(err, new(*tree.LeavesRootError)) {
		t.Fatalf("load through a link out of the tree: %v", err)
	}
}

// FuzzParseState: any content is a state or a *StateError, never a panic; a state accepted
// has the id asked for and well-formed keys.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"kind":"vectorlint-batch","version":1,"id":"vl-1","provider":"openai","baseURL":"u","parts":[{"providerID":"b","requests":[{"customID":"r1","key":"` + goodKey + `"}]}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseState(data, "vl-1")
		if err != nil {
			if s != nil || err.Error() == "" {
				t.Fatalf("state %v with error %v", s, err)
			}
			return
		}
		if s.ID != "vl-1" || len(s.Parts) == 0 {
			t.Fatalf("accepted %+v", s)
		}
		for _, p := range s.Parts {
			for _, it := range p.Requests {
				if !keyPattern().MatchString(it.Key) || it.CustomID == "" {
					t.Fatalf("accepted item %+v", it)
				}
			}
		}
	})
}

// FuzzParseResultLine: any line is an outcome with a custom id, or an error, never a panic.
func FuzzParseResultLine(f *testing.F) {
	for _, l := range []string{
		`{"custom_id":"r1","response":{"status_code":200,"body":{"choices":[]}},"error":null}`,
		`{"custom_id":"r1","response":null,"error":{"code":"batch_expired","message":"m"}}`,
		`{"custom_id":"r1","response":{"status_code":500,"body":{"error":{"message":"x"}}}}`,
		`{"custom_id":"r1","result":{"type":"succeeded","message":{"content":[]}}}`,
		`{"custom_id":"r1","result":{"type":"errored","error":{"type":"error","error":{"type":"a","message":"b"}}}}`,
		`{"custom_id":"r1","result":{"type":"expired"}}`,
	} {
		f.Add("openai", []byte(l))
		f.Add("anthropic", []byte(l))
	}
	f.Fuzz(func(t *testing.T, wire string, line []byte) {
		id, o, err := parseResultLine(wire, line)
		if err != nil {
			if id != "" || err.Error() == "" {
				t.Fatalf("id %q with error %v", id, err)
			}
			return
		}
		if id == "" || o.ok && len(o.body) == 0 || !o.ok && o.reason == "" {
			t.Fatalf("line %q: id %q, outcome %+v", line, id, o)
		}
	})
}

// TestParseResultLine checks each shape's outcome exactly.
func TestParseResultLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		wire, line string
		want       outcome
		err        string
	}{
		{"openai", `{"custom_id":"r1","response":{"status_code":200,"body":{"id":"x"}},"error":null}`, outcome{ok: true, body: []byte(`{"id":"x"}`)}, ""},
		{"openai", `{"custom_id":"r1","error":{"code":"batch_expired","message":"late"}}`, outcome{expired: true, reason: "batch_expired: late"}, ""},
		{"openai", `{"custom_id":"r1","response":{"status_code":429,"body":{"error":{"message":"slow down"}}}}`, outcome{reason: "HTTP 429: slow down"}, ""},
		{"openai", `{"response":{"status_code":200,"body":{}}}`, outcome{}, "expected a custom_id, found none"},
		{"openai", `{"custom_id":"r1"}`, outcome{}, "expected a response or an error, found neither"},
		{"openai", `nope`, outcome{}, `expected a JSON object, found "nope" (invalid character 'o' in literal null (expecting 'u'))`},
		{"anthropic", `{"custom_id":"r1","result":{"type":"succeeded","message":{"id":"m"}}}`, outcome{ok: true, body: []byte(`{"id":"m"}`)}, ""},
		{"anthropic", `{"custom_id":"r1","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"busy"}}}}`, outcome{reason: "overloaded_error: busy"}, ""},
		{"anthropic", `{"custom_id":"r1","result":{"type":"canceled"}}`, outcome{expired: true, reason: "the batch was canceled before this request was made"}, ""},
		{"anthropic", `{"custom_id":"r1","result":{"type":"maybe"}}`, outcome{}, `expected a result of type succeeded, errored, expired or canceled, found "maybe"`},
		{"anthropic", `{"custom_id":"r1"}`, outcome{}, "expected a result, found none"},
	} {
		id, o, err := parseResultLine(tc.wire, []byte(tc.line))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || id != "r1" || o.ok != tc.want.ok || o.expired != tc.want.expired || o.reason != tc.want.reason || string(o.body) != string(tc.want.body) {
			t.Errorf("%s: %q %+v %v, want %+v", tc.line, id, o, err, tc.want)
		}
	}
}
