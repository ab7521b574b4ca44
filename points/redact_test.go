package points

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// TestCallCredentialsShown checks how a $call point and a service with credentials are shown
// (point names, result documents, --print): the URL's password and credential-like query
// values, and literal credential headers, are "[redacted]"; ${VAR} references and everything
// else are kept as written.
func TestCallCredentialsShown(t *testing.T) {
	t.Parallel()
	pt := &rubric.Point{Fn: "call", HasArgs: true, Multiplier: 1, Args: map[string]any{
		"url":     "https://bot:pw1234@svc.example/check?api_key=k123&lang=en",
		"headers": map[string]any{"Authorization": "Bearer lit-token-123", "X-Key": "${CALL_KEY}", "Accept": "application/json"},
		"claim":   "{response}",
	}}
	want := `Function: call({"claim":"{response}","headers":{"Accept":"application/json","Authorization":"[redacted]","X-Key":"${CALL_KEY}"},"url":"https://bot:[redacted]@svc.example/check?api_key=[redacted]&lang=en"})`
	if got := pt.KeyPointText(); got != want {
		t.Errorf("KeyPointText:\n got %s\nwant %s", got, want)
	}
	b, err := json.Marshal(pt)
	if err != nil || strings.Contains(string(b), "pw1234") || strings.Contains(string(b), "lit-token") || strings.Contains(string(b), "k123") {
		t.Errorf("marshalled point %s (%v) shows a credential", b, err)
	}
	if !strings.Contains(pt.Args.(map[string]any)["url"].(string), "pw1234") {
		t.Error("showing the point changed the arguments it runs with")
	}

	svc := Service{URL: "http://svc.example/x?token=t0k3n&v=2", Headers: map[string]string{"X-Api-Key": "literal", "X-Env": "${K}"}}
	b, err = jsjson.Marshal(svc)
	if want := `{"url":"http://svc.example/x?token=[redacted]&v=2","headers":{"X-Api-Key":"[redacted]","X-Env":"${K}"}}`; err != nil || string(b) != want {
		t.Errorf("service:\n got %s (%v)\nwant %s", b, err, want)
	}
}

// TestCallErrorRedacted checks that a $call error never shows the credentials its request
// carried, even when the service quotes them, while the rest of the message stays.
func TestCallErrorRedacted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte("denied: key=" + r.URL.Query().Get("api_key") + " hdr=" + r.Header.Get("X-Token") +
			" env=" + r.Header.Get("X-Env") + " basic=" + user + ":" + pass + " raw=" + r.Header.Get("Authorization")))
	}))
	defer srv.Close()
	zero := 0
	svc := Service{URL: strings.Replace(srv.URL, "http://", "http://bot:pw123456@", 1) + "/c?api_key=querysecret1&lang=en",
		Headers: map[string]string{"X-Token": "Bearer headersecret1", "X-Env": "${SVC_KEY}"}, MaxRetries: &zero}
	in := &evalInput{ctx: context.Background(), subject: &Subject{Text: "r"}, env: &Env{AllowNet: true, AllowEnv: AllowEnv{"SVC_KEY": true},
		LookupEnv: envsource.LookupFunc(func(k string) (string, bool) { return map[string]string{"SVC_KEY": "envsecret12"}[k], k == "SVC_KEY" })}}
	_, _, err := callService(in, svc, map[string]any{}, defaultServiceTimeout)
	if err == nil {
		t.Fatal("no error from a 403")
	}
	want := "HTTP 403 from " + srv.URL + "/c: denied: key=[redacted] hdr=[redacted] env=[redacted] basic=bot:[redacted] raw=Basic [redacted]"
	if err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
	var re *redactedError
	if !errors.As(err, &re) || re.Unwrap() == nil {
		t.Errorf("error %T does not unwrap to the original", err)
	}
}
