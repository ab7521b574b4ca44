package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

// The batch APIs (docs/batch.md): OpenAI's files (POST /v1/files, multipart with
// purpose=batch; GET /v1/files/{id}/content) and batches (POST /v1/batches on
// /v1/chat/completions; GET /v1/batches/{id} moving validating → in_progress → finalizing →
// completed or expired on successive polls), and Anthropic's message batches (POST
// /v1/messages/batches; GET /v1/messages/batches/{id}: in_progress, then ended; its
// results_url's JSONL). Each line is answered when the batch is created, by the same rules as
// a live request (On, SetDefault), with the body a live call would get: a batch reply equals
// the live one. A line whose reply is BatchExpired expires, one whose reply has an error
// status fails (OpenAI: a line of the error file; Anthropic: an errored result).

// batchStore is the server's files and batches.
type batchStore struct {
	files   map[string][]byte
	batches map[string]*fakeBatch
	order   []string
	lines   []Request
	n       int
	// requests counts the batch API's requests (BatchRequests).
	requests int
}

// fakeBatch is one batch and its results.
type fakeBatch struct {
	id, api    string
	total      int
	polls      int
	ok, failed int
	expired    int
	output     []byte // Anthropic: every result (OpenAI's files are in the store)
	outFile    string
	errFile    string
}

// HoldBatches keeps every batch in progress: polls never see it end.
func HoldBatches() Option { return func(s *Server) { s.holdBatches = true } }

// BatchLines returns the batch lines received, in order, each as a Request (with Batch and
// CustomID set). They are not counted in Calls.
func (s *Server) BatchLines() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.batches.lines...)
}

// BatchRequests is the number of requests received on the batch API's paths (files, batches,
// results), whatever their answer. They are not counted in Calls.
func (s *Server) BatchRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches.requests
}

// Batches returns the ids of the batches created, in order.
func (s *Server) Batches() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.batches.order...)
}

// File returns the content of an uploaded or generated file (nil when there is none).
func (s *Server) File(id string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches.files[id]
}

func (b *batchStore) nextID(prefix string) string {
	b.n++
	return fmt.Sprintf("%s%d", prefix, b.n)
}

// handleBatch answers the batch API's paths; false means path is not one of them.
func (s *Server) handleBatch(w http.ResponseWriter, hr *http.Request, path string, body []byte) bool {
	path = strings.TrimPrefix(path, "/v1")
	var handler func() (int, any, []byte)
	switch {
	case path == "/files" && hr.Method == http.MethodPost:
		handler = func() (int, any, []byte) { return s.uploadFile(hr, body) }
	case strings.HasPrefix(path, "/files/") && strings.HasSuffix(path, "/content") && hr.Method == http.MethodGet:
		handler = func() (int, any, []byte) {
			return s.fileContent(strings.TrimSuffix(strings.TrimPrefix(path, "/files/"), "/content"))
		}
	case path == "/batches" && hr.Method == http.MethodPost:
		handler = func() (int, any, []byte) { return s.createOpenAIBatch(body) }
	case strings.HasPrefix(path, "/batches/") && hr.Method == http.MethodGet:
		handler = func() (int, any, []byte) { return s.openAIBatch(strings.TrimPrefix(path, "/batches/")) }
	case path == "/messages/batches" && hr.Method == http.MethodPost:
		handler = func() (int, any, []byte) { return s.createAnthropicBatch(body) }
	case strings.HasPrefix(path, "/messages/batches/") && strings.HasSuffix(path, "/results") && hr.Method == http.MethodGet:
		handler = func() (int, any, []byte) {
			return s.anthropicResults(strings.TrimSuffix(strings.TrimPrefix(path, "/messages/batches/"), "/results"))
		}
	case strings.HasPrefix(path, "/messages/batches/") && hr.Method == http.MethodGet:
		handler = func() (int, any, []byte) {
			return s.anthropicBatch(strings.TrimPrefix(path, "/messages/batches/"), "http://"+hr.Host)
		}
	default:
		return false
	}
	s.mu.Lock()
	s.batches.requests++
	s.mu.Unlock()
	if !s.authorized(hr) {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.", "")
		return true
	}
	status, v, raw := handler()
	switch {
	case status != http.StatusOK:
		writeError(w, status, v.(string), "")
	case raw != nil:
		writeRaw(w, http.StatusOK, string(raw), "application/jsonl")
	default:
		b, _ := json.Marshal(v)
		writeRaw(w, http.StatusOK, string(b), "")
	}
	return true
}

// uploadFile stores a multipart upload whose purpose is batch.
func (s *Server) uploadFile(hr *http.Request, body []byte) (int, any, []byte) {
	_, params, err := mime.ParseMediaType(hr.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return http.StatusBadRequest, "expected a multipart/form-data upload", nil
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var purpose, name string
	var content []byte
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return http.StatusBadRequest, "malformed multipart body: " + err.Error(), nil
		}
		data, _ := io.ReadAll(p)
		switch p.FormName() {
		case "purpose":
			purpose = string(data)
		case "file":
			content, name = data, p.FileName()
		}
	}
	if purpose != "batch" {
		return http.StatusBadRequest, fmt.Sprintf("expected purpose batch, found %q", purpose), nil
	}
	if content == nil {
		return http.StatusBadRequest, "expected a file part, found none", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batches.files == nil {
		s.batches.files = map[string][]byte{}
	}
	id := s.batches.nextID("file-")
	s.batches.files[id] = content
	return http.StatusOK, map[string]any{"id": id, "object": "file", "bytes": len(content), "created_at": 1700000000,
		"filename": name, "purpose": "batch"}, nil
}

func (s *Server) fileContent(id string) (int, any, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	content, ok := s.batches.files[id]
	if !ok {
		return http.StatusNotFound, "No such File object: " + id, nil
	}
	return http.StatusOK, nil, append([]byte{}, content...)
}

// answerLine answers one batch line as a live request would be answered: its reply, its
// status and its body.
func (s *Server) answerLine(req *Request) (Reply, []byte) {
	reply, _ := s.choose(req)
	for reply.Func != nil {
		reply = reply.Func(req)
	}
	if reply.Fault == FaultBatchExpired || reply.Status != 0 && reply.Status != http.StatusOK {
		return reply, nil
	}
	if reply.Body != "" {
		return reply, []byte(reply.Body)
	}
	s.mu.Lock()
	s.batches.n++
	id := s.batches.n
	s.mu.Unlock()
	if req.API == "anthropic" {
		return reply, anthropicBody(req, reply, id, s.cacheUsage(req))
	}
	return reply, completionBody(req, reply, id, s.cacheUsage(req))
}

// errorObject is the error body of a failed line.
func errorObject(reply Reply) json.RawMessage {
	if reply.Body != "" && json.Valid([]byte(reply.Body)) {
		return json.RawMessage(reply.Body)
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": http.StatusText(reply.Status), "type": "server_error"}})
	return b
}

// createOpenAIBatch makes a batch of an uploaded file's lines and answers them.
func (s *Server) createOpenAIBatch(body []byte) (int, any, []byte) {
	var in struct {
		InputFileID      string `json:"input_file_id"`
		Endpoint         string `json:"endpoint"`
		CompletionWindow string `json:"completion_window"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return http.StatusBadRequest, "invalid JSON body", nil
	}
	if in.Endpoint != "/v1/chat/completions" || in.CompletionWindow != "24h" {
		return http.StatusBadRequest, fmt.Sprintf("expected endpoint /v1/chat/completions and completion_window 24h, found %q and %q", in.Endpoint, in.CompletionWindow), nil
	}
	s.mu.Lock()
	content, ok := s.batches.files[in.InputFileID]
	id := s.batches.nextID("batch_")
	s.mu.Unlock()
	if !ok {
		return http.StatusBadRequest, "No such File object: " + in.InputFileID, nil
	}
	fb := &fakeBatch{id: id, api: "chat"}
	var out, bad bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var l struct {
			CustomID string          `json:"custom_id"`
			Method   string          `json:"method"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.CustomID == "" || l.Method != "POST" || l.URL != "/v1/chat/completions" {
			return http.StatusBadRequest, fmt.Sprintf("line %d: expected {custom_id, method POST, url /v1/chat/completions, body}", fb.total+1), nil
		}
		req := Request{Method: l.Method, Path: l.URL, Body: l.Body, API: "chat", Batch: id, CustomID: l.CustomID}
		if err := parseBody(&req); err != nil {
			return http.StatusBadRequest, fmt.Sprintf("line %d: invalid body: %v", fb.total+1, err), nil
		}
		fb.total++
		s.mu.Lock()
		s.batches.lines = append(s.batches.lines, req)
		s.mu.Unlock()
		reply, res := s.answerLine(&req)
		var line any
		switch {
		case reply.Fault == FaultBatchExpired:
			fb.expired++
			line = map[string]any{"id": "batch_req_" + l.CustomID, "custom_id": l.CustomID, "response": nil,
				"error": map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}
			b, _ := json.Marshal(line)
			bad.Write(append(b, '\n'))
			continue
		case res == nil:
			fb.failed++
			line = map[string]any{"id": "batch_req_" + l.CustomID, "custom_id": l.CustomID,
				"response": map[string]any{"status_code": reply.Status, "request_id": "req_" + l.CustomID, "body": errorObject(reply)}, "error": nil}
			b, _ := json.Marshal(line)
			bad.Write(append(b, '\n'))
			continue
		}
		fb.ok++
		line = map[string]any{"id": "batch_req_" + l.CustomID, "custom_id": l.CustomID,
			"response": map[string]any{"status_code": 200, "request_id": "req_" + l.CustomID, "body": json.RawMessage(res)}, "error": nil}
		b, _ := json.Marshal(line)
		out.Write(append(b, '\n'))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if out.Len() > 0 {
		fb.outFile = s.batches.nextID("file-")
		s.batches.files[fb.outFile] = out.Bytes()
	}
	if bad.Len() > 0 {
		fb.errFile = s.batches.nextID("file-")
		s.batches.files[fb.errFile] = bad.Bytes()
	}
	if s.batches.batches == nil {
		s.batches.batches = map[string]*fakeBatch{}
	}
	s.batches.batches[id] = fb
	s.batches.order = append(s.batches.order, id)
	return http.StatusOK, fb.openAIObject("validating", in.InputFileID), nil
}

// openAIStates are the states a batch shows on successive polls before it ends.
func openAIStates() []string { return []string{"validating", "in_progress", "finalizing"} }

func (s *Server) openAIBatch(id string) (int, any, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fb, ok := s.batches.batches[id]
	if !ok || fb.api != "chat" {
		return http.StatusNotFound, "No such Batch object: " + id, nil
	}
	fb.polls++
	if states := openAIStates(); s.holdBatches || fb.polls <= len(states) {
		return http.StatusOK, fb.openAIObject(states[min(fb.polls, len(states))-1], ""), nil
	}
	state := "completed"
	if fb.expired > 0 {
		state = "expired"
	}
	return http.StatusOK, fb.openAIObject(state, ""), nil
}

// openAIObject is the batch object in state.
func (fb *fakeBatch) openAIObject(state, inputFile string) map[string]any {
	o := map[string]any{"id": fb.id, "object": "batch", "endpoint": "/v1/chat/completions", "completion_window": "24h",
		"status": state, "input_file_id": inputFile, "output_file_id": nil, "error_file_id": nil, "errors": nil,
		"request_counts": map[string]int{"total": fb.total, "completed": 0, "failed": 0}}
	switch state {
	case "completed", "expired":
		o["request_counts"] = map[string]int{"total": fb.total, "completed": fb.ok, "failed": fb.failed}
		if fb.outFile != "" {
			o["output_file_id"] = fb.outFile
		}
		if fb.errFile != "" {
			o["error_file_id"] = fb.errFile
		}
	case "finalizing":
		o["request_counts"] = map[string]int{"total": fb.total, "completed": fb.ok, "failed": fb.failed}
	}
	return o
}

// createAnthropicBatch makes a message batch and answers its requests.
func (s *Server) createAnthropicBatch(body []byte) (int, any, []byte) {
	var in struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(body, &in); err != nil || len(in.Requests) == 0 {
		return http.StatusBadRequest, "expected {requests: [{custom_id, params}]}", nil
	}
	s.mu.Lock()
	id := s.batches.nextID("msgbatch_")
	s.mu.Unlock()
	fb := &fakeBatch{id: id, api: "anthropic"}
	var out bytes.Buffer
	for i, r := range in.Requests {
		req := Request{Method: http.MethodPost, Path: "/v1/messages", Body: r.Params, API: "anthropic", Batch: id, CustomID: r.CustomID}
		if r.CustomID == "" {
			return http.StatusBadRequest, fmt.Sprintf("requests.%d.custom_id: expected a string", i), nil
		}
		if err := parseBody(&req); err != nil {
			return http.StatusBadRequest, fmt.Sprintf("requests.%d.params: %v", i, err), nil
		}
		fb.total++
		s.mu.Lock()
		s.batches.lines = append(s.batches.lines, req)
		s.mu.Unlock()
		reply, res := s.answerLine(&req)
		var result any
		switch {
		case reply.Fault == FaultBatchExpired:
			fb.expired++
			result = map[string]any{"type": "expired"}
		case res == nil:
			fb.failed++
			result = map[string]any{"type": "errored", "error": map[string]any{"type": "error",
				"error": map[string]any{"type": "api_error", "message": http.StatusText(reply.Status)}}}
		default:
			fb.ok++
			result = map[string]any{"type": "succeeded", "message": json.RawMessage(res)}
		}
		b, _ := json.Marshal(map[string]any{"custom_id": r.CustomID, "result": result})
		out.Write(append(b, '\n'))
	}
	fb.output = out.Bytes()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batches.batches == nil {
		s.batches.batches = map[string]*fakeBatch{}
	}
	s.batches.batches[id] = fb
	s.batches.order = append(s.batches.order, id)
	return http.StatusOK, fb.anthropicObject(false, ""), nil
}

func (s *Server) anthropicBatch(id, origin string) (int, any, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fb, ok := s.batches.batches[id]
	if !ok || fb.api != "anthropic" {
		return http.StatusNotFound, "No such message batch: " + id, nil
	}
	fb.polls++
	ended := !s.holdBatches && fb.polls > 1
	return http.StatusOK, fb.anthropicObject(ended, origin+"/v1/messages/batches/"+id+"/results"), nil
}

func (fb *fakeBatch) anthropicObject(ended bool, resultsURL string) map[string]any {
	o := map[string]any{"id": fb.id, "type": "message_batch", "processing_status": "in_progress", "results_url": nil,
		"request_counts": map[string]int{"processing": fb.total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}}
	if ended {
		o["processing_status"], o["results_url"] = "ended", resultsURL
		o["request_counts"] = map[string]int{"processing": 0, "succeeded": fb.ok, "errored": fb.failed, "canceled": 0, "expired": fb.expired}
	}
	return o
}

func (s *Server) anthropicResults(id string) (int, any, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fb, ok := s.batches.batches[id]
	if !ok || fb.api != "anthropic" || fb.polls <= 1 || s.holdBatches {
		return http.StatusNotFound, "No results for message batch " + id, nil
	}
	return http.StatusOK, nil, append([]byte{}, fb.output...)
}
