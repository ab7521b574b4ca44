package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// upload posts content as a batch file with purpose and returns the status and reply.
func upload(t *testing.T, s *Server, purpose, content string) (int, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("purpose", purpose)
	fw, _ := mw.CreateFormFile("file", "in.jsonl")
	io.WriteString(fw, content)
	mw.Close()
	res, err := http.Post(s.URL+"/files", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	json.NewDecoder(res.Body).Decode(&v)
	return res.StatusCode, v
}

func getJSON(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	json.NewDecoder(res.Body).Decode(&v)
	return res.StatusCode, v
}

// TestOpenAIBatchEndpoints: the upload checks its purpose, the batch its endpoint and window,
// the states move on each poll, and the files hold the answers of the server's rules.
func TestOpenAIBatchEndpoints(t *testing.T) {
	t.Parallel()
	s := Start(t)
	s.On(UserContains("one"), Text("first"))
	s.On(UserContains("two"), Status(503, ""))
	if code, v := upload(t, s, "fine-tune", "{}\n"); code != 400 || !strings.Contains(v["error"].(map[string]any)["message"].(string), `expected purpose batch, found "fine-tune"`) {
		t.Fatalf("wrong purpose: %d %v", code, v)
	}
	lines := `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"one"}]}}` + "\n" +
		`{"custom_id":"b","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"two"}]}}` + "\n"
	code, file := upload(t, s, "batch", lines)
	if code != 200 || file["purpose"] != "batch" {
		t.Fatalf("upload: %d %v", code, file)
	}
	body := `{"input_file_id":"` + file["id"].(string) + `","endpoint":"/v1/chat/completions","completion_window":"1h"}`
	res, _ := http.Post(s.URL+"/batches", "application/json", strings.NewReader(body))
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Fatalf("a 1h window: %d", res.StatusCode)
	}
	body = strings.Replace(body, "1h", "24h", 1)
	res, _ = http.Post(s.URL+"/batches", "application/json", strings.NewReader(body))
	var b map[string]any
	json.NewDecoder(res.Body).Decode(&b)
	res.Body.Close()
	var states []string
	for range 4 {
		_, v := getJSON(t, s.URL+"/batches/"+b["id"].(string))
		states = append(states, v["status"].(string))
		b = v
	}
	if strings.Join(states, " ") != "validating in_progress finalizing completed" {
		t.Fatalf("states %v", states)
	}
	if rc := b["request_counts"].(map[string]any); rc["completed"] != 1.0 || rc["failed"] != 1.0 || rc["total"] != 2.0 {
		t.Fatalf("counts %v", rc)
	}
	out := string(s.File(b["output_file_id"].(string)))
	errs := string(s.File(b["error_file_id"].(string)))
	if !strings.Contains(out, `"custom_id":"a"`) || !strings.Contains(out, `"content":"first"`) ||
		!strings.Contains(errs, `"custom_id":"b"`) || !strings.Contains(errs, `"status_code":503`) {
		t.Fatalf("output %s\nerrors %s", out, errs)
	}
	if s.Calls() != 0 || len(s.BatchLines()) != 2 || s.BatchLines()[1].LastUser() != "two" {
		t.Fatalf("%d calls, lines %v", s.Calls(), s.BatchLines())
	}
	if code, _ := getJSON(t, s.URL+"/batches/batch_404"); code != 404 {
		t.Fatalf("unknown batch: %d", code)
	}
}

// TestAnthropicBatchEndpoints: a message batch is in progress, then ended with its results.
func TestAnthropicBatchEndpoints(t *testing.T) {
	t.Parallel()
	s := Start(t)
	s.On(UserContains("late"), BatchExpired())
	body := `{"requests":[{"custom_id":"a","params":{"model":"c","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}},` +
		`{"custom_id":"b","params":{"model":"c","max_tokens":10,"messages":[{"role":"user","content":"late"}]}}]}`
	res, err := http.Post(s.URL+"/messages/batches", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	json.NewDecoder(res.Body).Decode(&b)
	res.Body.Close()
	id := b["id"].(string)
	if b["processing_status"] != "in_progress" {
		t.Fatalf("created: %v", b)
	}
	if code, _ := getJSON(t, s.URL+"/messages/batches/"+id+"/results"); code != 404 {
		t.Fatalf("results before the end: %d", code)
	}
	getJSON(t, s.URL+"/messages/batches/"+id) // in_progress
	_, v := getJSON(t, s.URL+"/messages/batches/"+id)
	if v["processing_status"] != "ended" || v["results_url"] != s.URL+"/messages/batches/"+id+"/results" {
		t.Fatalf("ended: %v", v)
	}
	res, _ = http.Get(v["results_url"].(string))
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	got := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(got) != 2 || !strings.Contains(got[0], `"type":"succeeded"`) || got[1] != `{"custom_id":"b","result":{"type":"expired"}}` {
		t.Fatalf("results:\n%s", data)
	}
}
