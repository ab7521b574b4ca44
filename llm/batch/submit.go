package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/internal/batchwire"
)

// Submit sends reqs, which must all go to one endpoint (provider, base URL and model), as one
// batch of ours: one line per distinct request (identical requests share a reply, as live
// calls do), split into several provider batches beyond the provider's limits. It saves the
// batch's state in the project tree (with fingerprint, the caller's, kept as given) and returns
// it. A provider without a batch API is an *UnsupportedError, before anything is sent. When a
// later part fails, the parts already submitted are saved (the state names them) and the error
// is returned with the state.
func (b *Batcher) Submit(ctx context.Context, reqs []llm.Request, fingerprint string) (*State, error) {
	if len(reqs) == 0 {
		return nil, errors.New("batch: no requests to submit")
	}
	ep := reqs[0].Endpoint
	wire, err := wireOf(ep.Provider)
	if err != nil {
		return nil, err
	}
	for i, r := range reqs[1:] {
		if r.Endpoint.Provider != ep.Provider || baseOf(r.Endpoint) != baseOf(ep) || r.Endpoint.Model != ep.Model {
			return nil, fmt.Errorf("batch: request %d goes to %s, the batch's first to %s: a batch goes to one endpoint", i+2, r.Endpoint, ep)
		}
	}
	if err := b.client.CheckTrust(ep); err != nil {
		return nil, err
	}
	parts, err := b.lines(reqs, wire)
	if err != nil {
		return nil, err
	}
	// The state must be savable before anything is paid for.
	if err := b.prepareStateDir(); err != nil {
		return nil, err
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	st := &State{Kind: stateKind, Version: stateVersion, ID: id, Provider: string(ep.Provider), BaseURL: baseOf(ep),
		Model: ep.Model, Fingerprint: fingerprint, Created: time.Now().UTC()}
	for n, p := range parts {
		var part Part
		if wire == batchwire.WireAnthropic {
			part, err = b.submitAnthropic(ctx, ep, p)
		} else {
			part, err = b.submitOpenAI(ctx, ep, id, n+1, p)
		}
		if err != nil {
			if len(st.Parts) > 0 {
				if serr := b.save(st); serr != nil {
					return nil, errors.Join(err, serr)
				}
				return st, fmt.Errorf("%w (parts 1 to %d of batch %s were submitted and saved)", err, len(st.Parts), id)
			}
			return nil, err
		}
		st.Parts = append(st.Parts, part)
		if err := b.save(st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// pending is a provider batch being built: its lines and their items.
type pending struct {
	lines [][]byte
	items []Item
	size  int64
}

// lines prepares every request (its live call's body and key) and groups the batch lines into
// provider batches within the provider's limits.
func (b *Batcher) lines(reqs []llm.Request, wire string) ([]*pending, error) {
	lim := b.limits[wire]
	seen := map[string]bool{}
	var parts []*pending
	cur := &pending{}
	for i, r := range reqs {
		call, err := b.hook.Prepare(r)
		if err != nil {
			return nil, fmt.Errorf("batch: request %d: %w", i+1, err)
		}
		if call.Wire != wire {
			return nil, &UnsupportedError{Provider: r.Endpoint.Provider}
		}
		if seen[call.Key] {
			continue
		}
		seen[call.Key] = true
		item := Item{CustomID: fmt.Sprintf("r%d", len(seen)), Key: call.Key}
		line, err := lineOf(wire, item.CustomID, call)
		if err != nil {
			return nil, fmt.Errorf("batch: request %d: %w", i+1, err)
		}
		size := int64(len(line)) + 1
		if lim.bytes > 0 && size > lim.bytes {
			return nil, fmt.Errorf("batch: request %d is %d bytes, more than a provider batch may hold (%d)", i+1, size, lim.bytes)
		}
		if len(cur.items) > 0 && (len(cur.items) >= lim.requests || cur.size+size > lim.bytes) {
			parts = append(parts, cur)
			cur = &pending{}
		}
		cur.lines, cur.items, cur.size = append(cur.lines, line), append(cur.items, item), cur.size+size
	}
	return append(parts, cur), nil
}

// lineOf is a request's batch line: OpenAI's {custom_id, method, url, body}, Anthropic's
// {custom_id, params}.
func lineOf(wire, customID string, call batchwire.Call) ([]byte, error) {
	if wire == batchwire.WireAnthropic {
		return json.Marshal(struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		}{customID, call.Body})
	}
	u, err := url.Parse(call.URL)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		CustomID string          `json:"custom_id"`
		Method   string          `json:"method"`
		URL      string          `json:"url"`
		Body     json.RawMessage `json:"body"`
	}{customID, "POST", u.Path, call.Body})
}

// endpointURL is ep's base URL with path appended.
func endpointURL(ep llm.Endpoint, path string) string {
	return strings.TrimRight(ep.BaseURL, "/") + "/" + path
}

// submitOpenAI uploads the part's lines as a JSONL file (POST /files, purpose=batch) and
// creates a batch of it on /v1/chat/completions with a 24 h window (POST /batches).
func (b *Batcher) submitOpenAI(ctx context.Context, ep llm.Endpoint, id string, n int, p *pending) (Part, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("purpose", "batch"); err != nil {
		return Part{}, err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="%s-%d.jsonl"`, id, n))
	h.Set("Content-Type", "application/jsonl")
	fw, err := mw.CreatePart(h)
	if err != nil {
		return Part{}, err
	}
	for _, l := range p.lines {
		fw.Write(l)
		fw.Write([]byte{'\n'})
	}
	if err := mw.Close(); err != nil {
		return Part{}, err
	}
	var file struct {
		ID string `json:"id"`
	}
	if err := b.call(ctx, ep, batchwire.WireOpenAI, request{op: "file upload", method: "POST", url: endpointURL(ep, "files"),
		body: buf.Bytes(), contentType: mw.FormDataContentType()}, &file); err != nil {
		return Part{}, err
	}
	if file.ID == "" {
		return Part{}, &APIError{Op: "file upload", Host: ep.Host(), Status: 200, Message: "the reply names no file id"}
	}
	u, _ := url.Parse(ep.BaseURL)
	body, _ := json.Marshal(map[string]any{"input_file_id": file.ID, "endpoint": strings.TrimRight(u.Path, "/") + "/chat/completions",
		"completion_window": "24h", "metadata": map[string]string{"vectorlint_batch": id}})
	var created openAIBatch
	if err := b.call(ctx, ep, batchwire.WireOpenAI, request{op: "create", method: "POST", url: endpointURL(ep, "batches"),
		body: body, contentType: "application/json"}, &created); err != nil {
		return Part{}, err
	}
	if created.ID == "" {
		return Part{}, &APIError{Op: "create", Host: ep.Host(), Status: 200, Message: "the reply names no batch id"}
	}
	return Part{ProviderID: created.ID, InputFileID: file.ID, Requests: p.items}, nil
}

// submitAnthropic creates a message batch of the part's lines (POST /messages/batches).
func (b *Batcher) submitAnthropic(ctx context.Context, ep llm.Endpoint, p *pending) (Part, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"requests":[`)
	for i, l := range p.lines {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(l)
	}
	buf.WriteString(`]}`)
	var created anthropicBatch
	if err := b.call(ctx, ep, batchwire.WireAnthropic, request{op: "create", method: "POST", url: endpointURL(ep, "messages/batches"),
		body: buf.Bytes(), contentType: "application/json"}, &created); err != nil {
		return Part{}, err
	}
	if created.ID == "" {
		return Part{}, &APIError{Op: "create", Host: ep.Host(), Status: 200, Message: "the reply names no batch id"}
	}
	return Part{ProviderID: created.ID, Requests: p.items}, nil
}
