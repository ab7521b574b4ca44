package scopes

import (
	"fmt"
	"strings"
)

// describe lists what Scan finds in src: the scopes (as render does), then the comments and
// the headings, one a line; or the error.
func describe(src string, syn Syntax) string {
	res, err := Scan([]byte(src), syn)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	b.WriteString(render(src, res.Scopes))
	for _, c := range res.Comments {
		fmt.Fprintf(&b, "comment %q\n", src[c.Start:c.End])
	}
	for _, h := range res.Headings {
		fmt.Fprintf(&b, "heading %d %q", h.Level, src[h.Start:h.End])
		if h.Markup < h.Start {
			fmt.Fprintf(&b, " after %q", src[h.Markup:h.Start])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
