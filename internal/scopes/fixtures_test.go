package scopes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// TestFixtures reads pages in the style of real documentation — an Antora page, a Sphinx page,
// a generated HTML page — in which every construct that is not prose holds a word starting
// with "zq": none of them may reach the text a model is shown, every prose sentence must, and
// the scopes, comments and headings found are those of the golden file beside each page
// (go test -update rewrites them).
func TestFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		prose    []string
		comments int
		headings string
	}{
		{"antora.adoc", []string{
			"= Configure the Acme gateway",
			"The Acme gateway routes requests between your services.",
			"You configure it with a YAML file and environment variables.",
			"* A running cluster, see the installation guide.",
			"* The `…` command-line tool from the releases page.",
			"* Access to `…`.",
			"NOTE: The gateway reads its configuration once at start-up.",
			"Restart the gateway after every change to the configuration.",
			"gateway.yaml",
			"The route that matches every request.",
			"The check prints the routes it found.",
			"How long the gateway waits for a service, in seconds.",
			"For details, read the prerequisites and the upgrade notes.",
			"Press `…` to stop the gateway.The gateway stops within ten seconds.",
		}, 1, "1 Configure the Acme gateway|2 Prerequisites|2 Write the configuration"},
		{"sphinx.rst", []string{
			"Getting started with Acme SDK",
			"The Acme SDK lets your Python programs talk to the gateway.",
			"Install the package with pip:",
			"You can also install it from source:",
			"   The SDK supports Python 3.9 and later.",
			"Create a client with `…` and call `…`, as",
			"the reference explains. See the changelog",
			"and `…` for details. Set `…` before you start.",
			"The name of the service.",
			"The |project| team reviews every change.",
			"The footnote explains the review process.",
			"Seconds to wait for a response.",
			"Read `…` for more.",
		}, 2, "1 Getting started with Acme SDK|2 Installation|2 First request"},
		{"page.html", []string{
			"Acme CLI reference",
			"The Acme CLI manages your clusters from the terminal.",
			"Install it with `…` and check the version.",
			"Press `…` to cancel, or read the guide",
			"at `…`.",
			"The cost grows as `…` does.",
			"Next steps",
			"Use `…` and `…` in your scripts.",
		}, 1, "1 Acme CLI reference|2 Next steps"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", tt.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			syn := SyntaxOf(tt.file)
			res, err := Scan(src, syn)
			if err != nil {
				t.Fatal(err)
			}
			shown, _ := Show(string(src), 0, res.Scopes)
			if i := strings.Index(shown, "zq"); i >= 0 {
				t.Errorf("the model would be shown %q:\n%s", shown[i:min(len(shown), i+30)], shown)
			}
			for _, p := range tt.prose {
				if !strings.Contains(shown, p) {
					t.Errorf("the model would not be shown %q:\n%s", p, shown)
				}
			}
			if lines(shown) != lines(string(src)) {
				t.Errorf("the shown text has %d lines, the page %d", lines(shown), lines(string(src)))
			}
			if len(res.Comments) != tt.comments {
				t.Errorf("%d comments, want %d", len(res.Comments), tt.comments)
			}
			for _, c := range res.Comments {
				if strings.Contains(string(src[c.Start:c.End]), "vectorlint-disable\n") {
					t.Errorf("comment %q: the control in code is not a comment", src[c.Start:c.End])
				}
			}
			var hs []string
			for _, h := range res.Headings {
				hs = append(hs, string(rune('0'+h.Level))+" "+string(src[h.Start:h.End]))
			}
			if got := strings.Join(hs, "|"); got != tt.headings {
				t.Errorf("headings %q, want %q", got, tt.headings)
			}
			testutil.Golden(t, path+".golden", describe(string(src), syn))
		})
	}
}
