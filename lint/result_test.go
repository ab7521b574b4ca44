package lint

import (
	"encoding/json"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

func TestRounded1MarshalsLikeTheOriginal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{3.548, "3.5"},
		{9.25, "9.3"}, // 3 violations in 400 words at strictness 10; %.1f would give 9.2
		{10, "10.0"},
		{0, "0.0"},
		{6.774, "6.8"},
	}
	for _, tc := range tests {
		got, err := json.Marshal(finding.Rounded1(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Rounded1(%v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestFindingJSONShape(t *testing.T) {
	t.Parallel()
	f := finding.Finding{Rule: "Acme.Wordiness", Severity: finding.SeverityError, Message: "Say 'to'.", Match: "in order to",
		Start: finding.Position{Line: 3, Column: 5, Offset: 42}, End: finding.Position{Line: 3, Column: 16, Offset: 53}}
	got, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rule":"Acme.Wordiness","severity":"error","message":"Say 'to'.","match":"in order to","line":3,"column":5,"endLine":3,"endColumn":16,"offset":42,"endOffset":53}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := json.Marshal(finding.Finding{}); err == nil {
		t.Error("a finding without a severity must not serialise")
	}
}
