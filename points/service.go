package points

import (
	"fmt"
	"math"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/redact"
)

// Service is an external HTTP service named in a blueprint's externalServices and called by
// $call.
type Service struct {
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// TimeoutMS bounds one request (default 30 s).
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// MaxRetries is the number of retries after a network error or a 5xx (default 2).
	MaxRetries *int `json:"max_retries,omitempty"`
	// RetryBackoffMS is the first retry's delay; the n-th waits n times as long (default 1 s).
	RetryBackoffMS int   `json:"retry_backoff_ms,omitempty"`
	Cache          *bool `json:"cache,omitempty"`
	// Lines locate the url and headers in the blueprint (zero for an inline $call, whose
	// point's line is used instead).
	Lines FieldLines `json:"-"`
}

// ServiceMap maps service names to services.
type ServiceMap map[string]Service

// FieldLines are the lines of a custom model's or a service's url and header values, for
// messages about their ${VAR} references (0 when unknown).
type FieldLines struct {
	// Object is the line the definition starts on.
	Object  int
	URL     int
	Headers map[string]int
}

// HeaderLine returns the line of a header's value, else the object's.
func (l FieldLines) HeaderLine(name string) int {
	if n := l.Headers[name]; n > 0 {
		return n
	}
	return l.Object
}

// URLLine returns the line of the url, else the object's.
func (l FieldLines) URLLine() int {
	if l.URL > 0 {
		return l.URL
	}
	return l.Object
}

// FieldLinesOf records the lines of a definition's url and header values. v is the decoded
// definition: a *node.Node keeps its lines; other values have none.
func FieldLinesOf(v any) FieldLines {
	n, ok := v.(*node.Node)
	if !ok || n == nil {
		return FieldLines{}
	}
	l := FieldLines{Object: n.Line}
	if u := n.Get("url"); u != nil {
		l.URL = u.Line
	}
	if h := n.Get("headers"); h != nil && h.Kind == node.MapKind {
		l.Headers = make(map[string]int, len(h.Keys))
		for i, k := range h.Keys {
			l.Headers[k.Str] = h.Vals[i].Line
		}
	}
	return l
}

// MarshalJSON writes the service with its credentials redacted (redact.URL, redact.Headers),
// so a result document or --print never holds one; ${VAR} references are kept as written.
func (s Service) MarshalJSON() ([]byte, error) {
	type plain Service // no methods: avoids recursion
	p := plain(s)
	p.URL = redact.URL(s.URL)
	p.Headers = redact.Headers(s.Headers)
	return jsjson.Marshal(p)
}

// Bounds of a service definition's numbers (0 is the default for timeout_ms and
// retry_backoff_ms): ten minutes a request, ten retries, a minute's first wait. The whole call,
// retries included, ends after 3 × its timeout anyway.
const (
	MaxServiceTimeoutMS = 600_000
	MaxServiceRetries   = 10
	MaxServiceBackoffMS = 60_000
)

// ParseService reads a service definition ({url, method, headers, timeout_ms, cache,
// max_retries, retry_backoff_ms}) from its decoded mapping (map[string]any, or a *node.Node,
// which keeps the lines); unknown keys are left to the caller. The error says which field is
// wrong.
func ParseService(v any) (Service, error) {
	n, err := node.FromAny(v)
	if err != nil {
		return Service{}, err
	}
	return serviceFromNode(n)
}

func serviceFromNode(v *node.Node) (Service, error) {
	s := Service{Lines: FieldLinesOf(v)}
	u := v.Get("url")
	if u == nil || u.Kind != node.StringKind || u.Str == "" {
		return s, fmt.Errorf("expected url to be a non-empty string, found %s", u.Describe())
	}
	s.URL = u.Str
	if m := v.Get("method"); m != nil {
		if m.Kind != node.StringKind || (m.Str != "GET" && m.Str != "POST" && m.Str != "PUT") {
			return s, fmt.Errorf("expected method GET, POST or PUT, found %s", m.Describe())
		}
		s.Method = m.Str
	}
	if h := v.Get("headers"); h != nil {
		if h.Kind != node.MapKind {
			return s, fmt.Errorf("expected headers to be a mapping of strings, found %s", h.Describe())
		}
		s.Headers = map[string]string{}
		for i, k := range h.Keys {
			if h.Vals[i].Kind != node.StringKind {
				return s, fmt.Errorf("expected header %q to be a string, found %s", k.Str, h.Vals[i].Describe())
			}
			s.Headers[k.Str] = h.Vals[i].Str
		}
	}
	// Each number has a range (spec/trust.md §8): a blueprint from someone else must not hold a
	// run for days on one call.
	intField := func(key string, hi int) (int, bool, error) {
		f := v.Get(key)
		if f == nil {
			return 0, false, nil
		}
		if f.Kind != node.NumberKind || f.Num < 0 || f.Num != math.Trunc(f.Num) || f.Num > float64(hi) {
			return 0, false, fmt.Errorf("expected %s to be a whole number from 0 to %d, found %s", key, hi, f.Describe())
		}
		return int(f.Num), true, nil
	}
	var err error
	if s.TimeoutMS, _, err = intField("timeout_ms", MaxServiceTimeoutMS); err != nil {
		return s, err
	}
	if s.RetryBackoffMS, _, err = intField("retry_backoff_ms", MaxServiceBackoffMS); err != nil {
		return s, err
	}
	n, ok, err := intField("max_retries", MaxServiceRetries)
	if err != nil {
		return s, err
	}
	if ok {
		s.MaxRetries = &n
	}
	if c := v.Get("cache"); c != nil {
		if c.Kind != node.BoolKind {
			return s, fmt.Errorf("expected cache to be true or false, found %s", c.Describe())
		}
		s.Cache = &c.Bool
	}
	return s, nil
}
