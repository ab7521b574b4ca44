package batch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/internal/batchwire"
)

// openAIBatch is the part of an OpenAI batch object vectorlint reads.
type openAIBatch struct {
	ID            string `json:"id"`
	Status        string `json:"status"`
	OutputFileID  string `json:"output_file_id"`
	ErrorFileID   string `json:"error_file_id"`
	RequestCounts struct {
		Total     int `json:"total"`
		Completed int `json:"completed"`
		Failed    int `json:"failed"`
	} `json:"request_counts"`
	Errors *struct {
		Data []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"data"`
	} `json:"errors"`
}

// anthropicBatch is the part of an Anthropic message batch vectorlint reads.
type anthropicBatch struct {
	ID               string `json:"id"`
	ProcessingStatus string `json:"processing_status"`
	RequestCounts    struct {
		Processing int `json:"processing"`
		Succeeded  int `json:"succeeded"`
		Errored    int `json:"errored"`
		Canceled   int `json:"canceled"`
		Expired    int `json:"expired"`
	} `json:"request_counts"`
	ResultsURL string `json:"results_url"`
}

// Counts are the requests of a batch by outcome, as the provider counts them.
type Counts struct {
	Total, Succeeded, Failed, Expired, Canceled, Pending int
}

func (c *Counts) add(o Counts) {
	c.Total += o.Total
	c.Succeeded += o.Succeeded
	c.Failed += o.Failed
	c.Expired += o.Expired
	c.Canceled += o.Canceled
	c.Pending += o.Pending
}

// PartStatus is one provider batch's state: the provider's own word for it (OpenAI:
// validating, in_progress, finalizing, completed, expired, failed, cancelling, cancelled;
// Anthropic: in_progress, canceling, ended), whether it is over, and its counts.
type PartStatus struct {
	ProviderID string
	State      string
	Done       bool
	Counts     Counts
	// Message is the provider's reason for a failed batch (OpenAI's errors).
	Message string

	openAI    *openAIBatch
	anthropic *anthropicBatch
}

// Status is a batch of ours: its parts' states and the counts summed over them. State is the
// parts' common state, or the state of the first part not done yet.
type Status struct {
	State  string
	Done   bool
	Counts Counts
	Parts  []PartStatus
}

// checkEndpoint says whether ep is the endpoint the batch was submitted to.
func checkEndpoint(st *State, ep llm.Endpoint) error {
	if string(ep.Provider) != st.Provider || baseOf(ep) != st.BaseURL || ep.Model != st.Model {
		return fmt.Errorf("batch %s was submitted to %s at %s (%s); the endpoint now is %s: set the same provider, base URL and model to follow it",
			st.ID, st.Model, st.BaseURL, st.Provider, ep)
	}
	return nil
}

// Status asks the provider for the state and counts of every part of st, with ep's key (ep
// must be the endpoint the batch was submitted to).
func (b *Batcher) Status(ctx context.Context, st *State, ep llm.Endpoint) (*Status, error) {
	if err := checkEndpoint(st, ep); err != nil {
		return nil, err
	}
	wire, err := wireOf(ep.Provider)
	if err != nil {
		return nil, err
	}
	out := &Status{Done: true}
	for _, p := range st.Parts {
		var ps PartStatus
		if wire == batchwire.WireAnthropic {
			ps, err = b.anthropicStatus(ctx, ep, p.ProviderID)
		} else {
			ps, err = b.openAIStatus(ctx, ep, p.ProviderID)
		}
		if err != nil {
			return nil, err
		}
		out.Parts = append(out.Parts, ps)
		out.Counts.add(ps.Counts)
		if !ps.Done && out.Done {
			out.Done, out.State = false, ps.State
		}
	}
	if out.Done {
		out.State = out.Parts[0].State
		for _, ps := range out.Parts[1:] {
			if ps.State != out.State {
				out.State = "ended"
			}
		}
	}
	return out, nil
}

func (b *Batcher) openAIStatus(ctx context.Context, ep llm.Endpoint, id string) (PartStatus, error) {
	var ob openAIBatch
	if err := b.call(ctx, ep, batchwire.WireOpenAI, request{op: "status", method: "GET", url: endpointURL(ep, "batches/"+pathID(id))}, &ob); err != nil {
		return PartStatus{}, err
	}
	rc := ob.RequestCounts
	ps := PartStatus{ProviderID: id, State: ob.Status, openAI: &ob,
		Counts: Counts{Total: rc.Total, Succeeded: rc.Completed, Failed: rc.Failed, Pending: max(rc.Total-rc.Completed-rc.Failed, 0)}}
	switch ob.Status {
	case "completed", "expired", "failed", "cancelled":
		ps.Done = true
		switch ob.Status {
		case "expired":
			ps.Counts.Expired, ps.Counts.Pending = ps.Counts.Pending, 0
		case "cancelled":
			ps.Counts.Canceled, ps.Counts.Pending = ps.Counts.Pending, 0
		case "failed":
			ps.Counts.Failed, ps.Counts.Pending = ps.Counts.Failed+ps.Counts.Pending, 0
		}
	}
	if ob.Errors != nil {
		var msgs []string
		for _, e := range ob.Errors.Data {
			msgs = append(msgs, strings.TrimSpace(e.Code+": "+e.Message))
		}
		ps.Message = redact.Text(strings.Join(msgs, "; "), secretsOf(ep)...)
	}
	return ps, nil
}

func (b *Batcher) anthropicStatus(ctx context.Context, ep llm.Endpoint, id string) (PartStatus, error) {
	var ab anthropicBatch
	if err := b.call(ctx, ep, batchwire.WireAnthropic, request{op: "status", method: "GET", url: endpointURL(ep, "messages/batches/"+pathID(id))}, &ab); err != nil {
		return PartStatus{}, err
	}
	rc := ab.RequestCounts
	return PartStatus{ProviderID: id, State: ab.ProcessingStatus, Done: ab.ProcessingStatus == "ended", anthropic: &ab,
		Counts: Counts{Total: rc.Processing + rc.Succeeded + rc.Errored + rc.Canceled + rc.Expired, Succeeded: rc.Succeeded,
			Failed: rc.Errored, Expired: rc.Expired, Canceled: rc.Canceled, Pending: rc.Processing}}, nil
}

// pathID escapes a provider id for a URL path.
func pathID(id string) string {
	return strings.NewReplacer("/", "%2F", "?", "%3F", "#", "%23").Replace(id)
}

// maxTransient is how many polls in a row may meet a passing failure while Collect waits.
const maxTransient = 10

// NotDoneError says that a batch is still running (Collect without waiting).
type NotDoneError struct {
	ID     string
	Status *Status
}

// Error names the batch, its state and how many requests are pending.
func (e *NotDoneError) Error() string {
	return fmt.Sprintf("batch %s is not done yet: %s, %d of %d requests pending", e.ID, e.Status.State, e.Status.Counts.Pending, e.Status.Counts.Total)
}

// Failure is a request the batch did not answer: it failed, expired or was canceled inside
// the batch, or its reply could not be read. The caller makes it live or lists it.
type Failure struct {
	// Request is its index in the requests given to Collect.
	Request  int
	CustomID string
	// Expired is set for a request the provider did not reach in its window (or canceled).
	Expired bool
	Reason  string
}

// Result is what Collect did.
type Result struct {
	Status *Status
	// Stored is the number of replies stored in the reply cache.
	Stored int
	// Failed are the requests the batch did not answer, in request order.
	Failed []Failure
	// NotInBatch are the indexes of the requests that no request of the batch matches (their
	// document, rule or settings changed since the submit): the caller makes them live.
	NotInBatch []int
	// Stale is the number of the batch's requests that no request given matches any more.
	Stale int
}

// Collect waits (when wait is set, polling every PollInterval until ctx ends) for the batch
// st to be over, downloads its results, stores each reply in the reply cache under its live
// call's key, counted at the batch price, and says which of reqs (the run's requests, planned
// again) the batch did not answer. ep must be the endpoint the batch was submitted to. Without
// wait, a batch still running is a *NotDoneError.
func (b *Batcher) Collect(ctx context.Context, st *State, ep llm.Endpoint, reqs []llm.Request, wait bool) (*Result, error) {
	if err := checkEndpoint(st, ep); err != nil {
		return nil, err
	}
	wire, err := wireOf(ep.Provider)
	if err != nil {
		return nil, err
	}
	// The requests by the key of their live call.
	byKey := map[string][]int{}
	calls := make([]batchwire.Call, len(reqs))
	for i, r := range reqs {
		c, err := b.hook.Prepare(r)
		if err != nil {
			return nil, fmt.Errorf("batch: request %d: %w", i+1, err)
		}
		calls[i] = c
		byKey[c.Key] = append(byKey[c.Key], i)
	}
	var status *Status
	for transient := 0; ; {
		status, err = b.Status(ctx, st, ep)
		if err != nil {
			// While waiting, a poll that meets a passing failure (no connection, 429, 5xx)
			// is made again at the next interval, up to maxTransient in a row.
			var ae *APIError
			if wait && errors.As(err, &ae) && (ae.Status == 0 || ae.Status == 429 || ae.Status >= 500) && transient < maxTransient {
				transient++
				if err := sleep(ctx, b.poll); err != nil {
					return nil, err
				}
				continue
			}
			return nil, err
		}
		transient = 0
		if status.Done {
			break
		}
		if !wait {
			return nil, &NotDoneError{ID: st.ID, Status: status}
		}
		if err := sleep(ctx, b.poll); err != nil {
			return nil, err
		}
	}
	res := &Result{Status: status}
	inBatch := map[string]bool{}
	failed := map[int]Failure{}
	for n, part := range st.Parts {
		ps := status.Parts[n]
		outcomes, err := b.results(ctx, ep, wire, ps)
		if err != nil {
			return nil, err
		}
		for _, it := range part.Requests {
			inBatch[it.Key] = true
			idx := byKey[it.Key]
			if len(idx) == 0 {
				res.Stale++
				continue
			}
			o, ok := outcomes[it.CustomID]
			if !ok {
				o = outcome{expired: ps.State != "failed", reason: noResult(ps)}
			}
			if o.ok {
				if err := b.hook.Store(reqs[idx[0]], calls[idx[0]], o.body, b.factor); err != nil {
					o = outcome{reason: "the reply could not be used: " + err.Error()}
				} else {
					res.Stored++
					continue
				}
			}
			for _, i := range idx {
				failed[i] = Failure{Request: i, CustomID: it.CustomID, Expired: o.expired, Reason: redact.Text(o.reason, secretsOf(ep)...)}
			}
		}
	}
	for i := range reqs {
		if f, ok := failed[i]; ok {
			res.Failed = append(res.Failed, f)
		} else if !inBatch[calls[i].Key] {
			res.NotInBatch = append(res.NotInBatch, i)
		}
	}
	return res, nil
}

// noResult is the reason of a request the provider's results leave out.
func noResult(ps PartStatus) string {
	switch {
	case ps.Message != "":
		return "the batch " + ps.State + ": " + ps.Message
	case ps.State == "expired":
		return "the batch expired before this request was made"
	}
	return "the batch (" + ps.State + ") returned no result for this request"
}

// outcome is one request's result in a batch.
type outcome struct {
	ok      bool
	body    json.RawMessage
	expired bool
	reason  string
}

// results downloads a finished part's results: OpenAI's output and error files, Anthropic's
// results_url.
func (b *Batcher) results(ctx context.Context, ep llm.Endpoint, wire string, ps PartStatus) (map[string]outcome, error) {
	out := map[string]outcome{}
	var urls []string
	if wire == batchwire.WireAnthropic {
		if ps.anthropic.ResultsURL != "" {
			urls = append(urls, ps.anthropic.ResultsURL)
		}
	} else {
		for _, id := range []string{ps.openAI.OutputFileID, ps.openAI.ErrorFileID} {
			if id != "" {
				urls = append(urls, endpointURL(ep, "files/"+pathID(id)+"/content"))
			}
		}
	}
	for _, u := range urls {
		if err := b.readResults(ctx, ep, wire, u, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxResultLine is the longest line of a result file read (a reply of 1,000,000 tokens is
// about 4 MB; its JSON escapes can double it).
const maxResultLine = 16 << 20

// readResults streams the JSONL file at u into out.
func (b *Batcher) readResults(ctx context.Context, ep llm.Endpoint, wire, u string, out map[string]outcome) error {
	res, err := b.send(ctx, ep, wire, request{op: "results download", method: "GET", url: u})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	r := bufio.NewReaderSize(res.Body, 64<<10)
	for line := 1; ; line++ {
		data, err := readLine(r)
		if len(strings.TrimSpace(string(data))) > 0 {
			id, o, perr := parseResultLine(wire, data)
			if perr != nil {
				return &APIError{Op: "results download", Host: ep.Host(), Status: res.StatusCode,
					Message: redact.Text(fmt.Sprintf("line %d: %v", line, perr), secretsOf(ep)...)}
			}
			out[id] = o
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &APIError{Op: "results download", Host: ep.Host(), Status: res.StatusCode,
				Message: redact.Text(fmt.Sprintf("line %d: %v", line, err), secretsOf(ep)...)}
		}
	}
}

// errLineTooLong reports a result line over maxResultLine.
var errLineTooLong = fmt.Errorf("a line longer than %d bytes", maxResultLine)

// readLine reads one line (without its newline) of at most maxResultLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxResultLine {
			return nil, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return []byte(strings.TrimRight(string(line), "\r\n")), err
	}
}
