package report

import (
	"bytes"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

// roundTrip writes r as json, reads it back and fills the byte columns from the fixture's
// documents.
func roundTrip(t testing.TB, r finding.Result) *finding.Result {
	t.Helper()
	r.Version = "test"
	got, err := finding.ReadJSON(bytes.NewReader(render(t, FormatJSON, Options{Version: "test"}, r)), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Files {
		if doc, ok := fixtureDocs[got.Files[i].Path]; ok {
			finding.FillByteColumns(&got.Files[i], []byte(doc))
		}
	}
	return got
}

// TestReadJSONRoundTrip reads back what the json format writes for each fixture: the same
// result, byte columns included (from the documents), and so the same output in every format.
func TestReadJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]finding.Result{"fixture": fixture(t), "clean": cleanFixture(), "stopped": stoppedFixture(),
		"fixes": fixesFixture(t)} {
		t.Run(name, func(t *testing.T) {
			got := roundTrip(t, r)
			r.Version = "test"
			r.Interrupted = nil
			for i := range r.Files {
				if r.Files[i].Findings == nil {
					r.Files[i].Findings = nil
				}
			}
			for _, format := range Formats() {
				opts := Options{Version: "test"}
				if a, b := render(t, format, opts, r), render(t, format, opts, *got); !bytes.Equal(a, b) {
					t.Errorf("%s differs after a round trip:\n%s\n---\n%s", format, a, b)
				}
			}
		})
	}
}
