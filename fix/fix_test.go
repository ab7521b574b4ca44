package fix

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/controls"
)

// pos is the finding.Position of a byte offset in text (lines end at LF; CR LF counts as one).
func pos(text string, offset int) finding.Position {
	start := strings.LastIndexByte(text[:offset], '\n') + 1
	return finding.Position{Line: strings.Count(text[:offset], "\n") + 1,
		Column: utf8.RuneCountInString(text[start:offset]) + 1, ByteColumn: offset - start + 1, Offset: offset}
}

// edit replaces the first occurrence of old at or after from in text with new.
func edit(t testing.TB, text, old, new string, from int) finding.TextEdit {
	t.Helper()
	i := strings.Index(text[from:], old)
	if i < 0 {
		t.Fatalf("%q not in %q after %d", old, text, from)
	}
	i += from
	return finding.TextEdit{Start: pos(text, i), End: pos(text, i+len(old)), NewText: new}
}

// insert inserts new at byte offset at.
func insert(text string, at int, new string) finding.TextEdit {
	return finding.TextEdit{Start: pos(text, at), End: pos(text, at), NewText: new}
}

func fixOf(rule string, edits ...finding.TextEdit) Fix {
	return Fix{Rule: rule, Start: edits[0].Start, Message: "m", Edits: edits}
}

// summary lists applied fixes by rule and skipped ones with their reasons.
func summary(r Result) []string {
	var out []string
	for _, f := range r.Applied {
		out = append(out, "applied "+f.Rule)
	}
	for _, d := range r.Duplicates {
		out = append(out, "duplicate "+d.Rule+" of "+d.Of.Where())
	}
	for _, s := range r.Skipped {
		out = append(out, "skipped "+s.Rule+": "+s.Reason)
	}
	return out
}

func TestApply(t *testing.T) {
	t.Parallel()
	const text = "We act in order to win, utilize the \"tools\".\nLe café 👋 naïve.\n"
	const crlf = "one in order to\r\ntwo\r\n"
	const controls = "We act in order to win.\n<!-- vectorlint-disable -->\nWe utilize it.\n{/* vectorlint-enable */}\nThe end.\n"
	tests := []struct {
		name  string
		text  string
		fixes func(t testing.TB) []Fix
		want  string
		log   []string
	}{
		{"one fix", text, func(t testing.TB) []Fix {
			return []Fix{fixOf("A", edit(t, text, "in order to", "to", 0))}
		}, "We act to win, utilize the \"tools\".\nLe café 👋 naïve.\n", []string{"applied A"}},
		{"several, given in any order, applied by position", text, func(t testing.TB) []Fix {
			return []Fix{
				fixOf("C", edit(t, text, "naïve", "naive", 0)),
				fixOf("A", edit(t, text, "in order to", "to", 0)),
				fixOf("B", edit(t, text, "utilize", "use", 0)),
			}
		}, "We act to win, use the \"tools\".\nLe café 👋 naive.\n", []string{"applied A", "applied B", "applied C"}},
		{"overlap: the first by position wins", text, func(t testing.TB) []Fix {
			return []Fix{
				fixOf("Late", edit(t, text, "order to win", "to succeed", 0)),
				fixOf("Early", edit(t, text, "in order", "so as", 0)),
			}
		}, "We act so as to win, utilize the \"tools\".\nLe café 👋 naïve.\n",
			[]string{"applied Early", "skipped Late: overlaps the fix of Early at 1:8"}},
		{"overlap: one inside another", text, func(t testing.TB) []Fix {
			return []Fix{
				fixOf("Outer", edit(t, text, "in order to win", "to win", 0)),
				fixOf("Inner", edit(t, text, "order", "ordre", 0)),
			}
		}, "We act to win, utilize the \"tools\".\nLe café 👋 naïve.\n",
			[]string{"applied Outer", "skipped Inner: overlaps the fix of Outer at 1:8"}},
		{"the same change from two rules is made once", text, func(t testing.TB) []Fix {
			return []Fix{
				fixOf("A", edit(t, text, "utilize", "use", 0)),
				fixOf("B", edit(t, text, "utilize", "use", 0)),
			}
		}, "We act in order to win, use the \"tools\".\nLe café 👋 naïve.\n",
			[]string{"applied A", "duplicate B of A at 1:25"}},
		{"a fix whose edits are part of an applied fix is a duplicate", text, func(t testing.TB) []Fix {
			i := strings.Index(text, `"tools"`)
			return []Fix{
				fixOf("Both", edit(t, text, `"`, "“", i), edit(t, text, `"`, "”", i+1)),
				fixOf("Close", edit(t, text, `"`, "”", i+1)),
			}
		}, "We act in order to win, utilize the “tools”.\nLe café 👋 naïve.\n",
			[]string{"applied Both", "duplicate Close of Both at 1:37"}},
		{"one edit the same, another different: skipped", text, func(t testing.TB) []Fix {
			i := strings.Index(text, `"tools"`)
			return []Fix{
				fixOf("Open", edit(t, text, `"`, "“", i)),
				fixOf("Both", edit(t, text, `"`, "“", i), edit(t, text, `"`, "»", i+1)),
			}
		}, "We act in order to win, utilize the “tools\".\nLe café 👋 naïve.\n",
			[]string{"applied Open", "skipped Both: overlaps the fix of Open at 1:37"}},
		{"the same place, another text: skipped", text, func(t testing.TB) []Fix {
			return []Fix{
				fixOf("A", edit(t, text, "utilize", "use", 0)),
				fixOf("B", edit(t, text, "utilize", "employ", 0)),
			}
		}, "We act in order to win, use the \"tools\".\nLe café 👋 naïve.\n",
			[]string{"applied A", "skipped B: overlaps the fix of A at 1:25"}},
		{"adjacent edits both apply", text, func(t testing.TB) []Fix {
			return []Fix{
				fixOf("A", edit(t, text, "in order", "so as", 0)),
				fixOf("B", edit(t, text, " to win", " to succeed", 0)),
			}
		}, "We act so as to succeed, utilize the \"tools\".\nLe café 👋 naïve.\n", []string{"applied A", "applied B"}},
		{"a fix of two edits is applied whole", text, func(t testing.TB) []Fix {
			i := strings.Index(text, `"tools"`)
			return []Fix{fixOf("Quotes", edit(t, text, `"`, "“", i), edit(t, text, `"`, "”", i+1))}
		}, "We act in order to win, utilize the “tools”.\nLe café 👋 naïve.\n", []string{"applied Quotes"}},
		{"a fix of two edits is skipped whole when one collides", text, func(t testing.TB) []Fix {
			i := strings.Index(text, `"tools"`)
			return []Fix{
				fixOf("Quotes", edit(t, text, `"`, "“", i), edit(t, text, `"`, "”", i+1)),
				fixOf("Word", edit(t, text, `tools"`, `things"`, 0)),
			}
		}, "We act in order to win, utilize the “tools”.\nLe café 👋 naïve.\n",
			[]string{"applied Quotes", "skipped Word: overlaps the fix of Quotes at 1:37"}},
		{"insertions at a replacement's ends apply; two at one place do not", text, func(t testing.TB) []Fix {
			i := strings.Index(text, "win")
			return []Fix{
				fixOf("Repl", edit(t, text, "win", "succeed", 0)),
				fixOf("Before", insert(text, i, "surely ")),
				fixOf("After", insert(text, i+3, " big")),
				fixOf("Again", insert(text, i+3, " again")),
			}
		}, "We act in order to surely succeed big, utilize the \"tools\".\nLe café 👋 naïve.\n",
			[]string{"applied Before", "applied Repl", "applied After", "skipped Again: overlaps the fix of After at 1:23"}},
		{"multi-byte text", text, func(t testing.TB) []Fix {
			return []Fix{fixOf("A", edit(t, text, "café 👋 naïve", "coffee 🙂 naive", 0))}
		}, "We act in order to win, utilize the \"tools\".\nLe coffee 🙂 naive.\n", []string{"applied A"}},
		{"an edit cutting a character is outside the text", text, func(t testing.TB) []Fix {
			i := strings.Index(text, "é")
			return []Fix{{Rule: "Bad", Edits: []finding.TextEdit{{Start: pos(text, i+1), End: pos(text, i+2), NewText: "e"}}}}
		}, text, []string{"skipped Bad: is outside the text (bytes 52 to 53 of 67)"}},
		{"an edit past the end", text, func(t testing.TB) []Fix {
			return []Fix{{Rule: "Bad", Edits: []finding.TextEdit{{Start: finding.Position{Offset: 60}, End: finding.Position{Offset: 90}}}}}
		}, text, []string{"skipped Bad: is outside the text (bytes 60 to 90 of 67)"}},
		{"an edit ending before it starts", text, func(t testing.TB) []Fix {
			return []Fix{{Rule: "Bad", Edits: []finding.TextEdit{{Start: finding.Position{Offset: 5}, End: finding.Position{Offset: 4}}}}}
		}, text, []string{"skipped Bad: is outside the text (bytes 5 to 4 of 67)"}},
		{"control characters are not written", text, func(t testing.TB) []Fix {
			return []Fix{fixOf("Esc", edit(t, text, "utilize", "use\x1b[2J", 0))}
		}, text, []string{"skipped Esc: would write a control, bidi-override or invisible character, or bytes that are not UTF-8"}},
		{"a fix whose edits overlap each other", text, func(t testing.TB) []Fix {
			return []Fix{fixOf("Self", edit(t, text, "in order", "x", 0), edit(t, text, "order to", "y", 0))}
		}, text, []string{"skipped Self: its edits overlap each other"}},
		{"CRLF: a fix keeps the line breaks", crlf, func(t testing.TB) []Fix {
			return []Fix{fixOf("A", edit(t, crlf, "in order to", "to", 0))}
		}, "one to\r\ntwo\r\n", []string{"applied A"}},
		{"CRLF: an edit splitting a CRLF is outside the text", crlf, func(t testing.TB) []Fix {
			i := strings.Index(crlf, "\r\n")
			return []Fix{{Rule: "Split", Edits: []finding.TextEdit{{Start: finding.Position{Offset: i + 1}, End: finding.Position{Offset: i + 1}, NewText: "x"}}}}
		}, crlf, []string{"skipped Split: is outside the text (bytes 16 to 16 of 22)"}},
		{"no fixes", text, func(testing.TB) []Fix { return nil }, text, nil},
		{"a bidi override is not written", text, func(t testing.TB) []Fix {
			return []Fix{fixOf("Bidi", edit(t, text, "utilize", "use\u202e", 0))}
		}, text, []string{"skipped Bidi: would write a control, bidi-override or invisible character, or bytes that are not UTF-8"}},
		{"a lone CR is not written", text, func(t testing.TB) []Fix {
			return []Fix{fixOf("CR", edit(t, text, "utilize", "use\rx", 0))}
		}, text, []string{"skipped CR: would write a control, bidi-override or invisible character, or bytes that are not UTF-8"}},
		{"fixes around control comments apply", controls, func(t testing.TB) []Fix {
			return []Fix{fixOf("A", edit(t, controls, "in order to", "to", 0)), fixOf("B", edit(t, controls, "utilize", "use", 0))}
		}, "We act to win.\n<!-- vectorlint-disable -->\nWe use it.\n{/* vectorlint-enable */}\nThe end.\n", []string{"applied A", "applied B"}},
		{"a fix that writes a control comment", controls, func(t testing.TB) []Fix {
			return []Fix{fixOf("A", edit(t, controls, "in order to", "to", 0)), fixOf("Add", edit(t, controls, "The end.", "<!-- vectorlint-disable-next-line -->", 0))}
		}, "We act to win.\n<!-- vectorlint-disable -->\nWe utilize it.\n{/* vectorlint-enable */}\nThe end.\n",
			[]string{"applied A", "skipped Add: would add, remove or change a vectorlint control comment"}},
		{"a fix that removes a control comment (MDX form)", controls, func(t testing.TB) []Fix {
			return []Fix{fixOf("Remove", edit(t, controls, "{/* vectorlint-enable */}\n", "", 0)), fixOf("B", edit(t, controls, "utilize", "use", 0))}
		}, "We act in order to win.\n<!-- vectorlint-disable -->\nWe use it.\n{/* vectorlint-enable */}\nThe end.\n",
			[]string{"applied B", "skipped Remove: would add, remove or change a vectorlint control comment"}},
		{"a fix that rewrites a control comment as it was", controls, func(t testing.TB) []Fix {
			return []Fix{fixOf("Same", edit(t, controls, "win.\n<!-- vectorlint-disable -->", "win.\n<!-- vectorlint-disable -->", 0))}
		}, controls, []string{"skipped Same: would add, remove or change a vectorlint control comment"}},
		{"two fixes that build a control comment together, half each", text, func(t testing.TB) []Fix {
			return []Fix{
				fixOf("Open", edit(t, text, "in order to", "<!-- vectorlint-", 0)),
				fixOf("Close", edit(t, text, " win", "disable -->", 0)),
				fixOf("Other", edit(t, text, "naïve", "naive", 0)),
			}
		}, "We act <!-- vectorlint- win, utilize the \"tools\".\nLe café 👋 naive.\n",
			[]string{"applied Open", "applied Other", "skipped Close: would add, remove or change a vectorlint control comment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.text)
			r := Apply(src, tt.fixes(t))
			if string(r.Text) != tt.want {
				t.Errorf("text\n%q\nwant\n%q", r.Text, tt.want)
			}
			if got := summary(r); !slices.Equal(got, tt.log) {
				t.Errorf("log\n%q\nwant\n%q", got, tt.log)
			}
			if string(src) != tt.text {
				t.Errorf("the source was modified: %q", src)
			}
		})
	}
}

// reference applies fixes the slow, obvious way: in Apply's order, each checked against every
// edit taken so far, then the taken edits applied from the last to the first.
func reference(src string, fixes []Fix) string {
	order := make([]int, len(fixes))
	for i := range order {
		order[i] = i
	}
	first := func(f Fix) (int, int) {
		s, e := 1<<62, 1<<62
		for _, x := range f.Edits {
			if x.Start.Offset < s || (x.Start.Offset == s && x.End.Offset < e) {
				s, e = x.Start.Offset, x.End.Offset
			}
		}
		return s, e
	}
	slices.SortStableFunc(order, func(a, b int) int {
		as, ae := first(fixes[a])
		bs, be := first(fixes[b])
		if as != bs {
			return as - bs
		}
		return ae - be
	})
	conflict := func(a, b finding.TextEdit) bool {
		if a.Start.Offset < b.End.Offset && b.Start.Offset < a.End.Offset {
			return true
		}
		return a.Start.Offset == a.End.Offset && b.Start.Offset == b.End.Offset && a.Start.Offset == b.Start.Offset
	}
	var taken []finding.TextEdit
	for _, i := range order {
		f := fixes[i]
		ok := len(f.Edits) > 0
		for _, e := range f.Edits {
			s, t := e.Start.Offset, e.End.Offset
			if s < 0 || t < s || t > len(src) || !finding.FixableText(e.NewText) ||
				(s > 0 && s < len(src) && (!utf8.RuneStart(src[s]) || src[s] == '\n' && src[s-1] == '\r')) ||
				(t > 0 && t < len(src) && (!utf8.RuneStart(src[t]) || src[t] == '\n' && src[t-1] == '\r')) {
				ok = false
			}
		}
		for j := range f.Edits {
			for k := range f.Edits {
				if j != k && conflict(f.Edits[j], f.Edits[k]) {
					ok = false
				}
			}
			for _, t := range taken {
				if conflict(f.Edits[j], t) || t == f.Edits[j] {
					ok = false
				}
			}
		}
		if ok {
			taken = append(taken, f.Edits...)
		}
	}
	slices.SortStableFunc(taken, func(a, b finding.TextEdit) int {
		if a.Start.Offset != b.Start.Offset {
			return a.Start.Offset - b.Start.Offset
		}
		return a.End.Offset - b.End.Offset
	})
	out := src
	for i := len(taken) - 1; i >= 0; i-- {
		e := taken[i]
		out = out[:e.Start.Offset] + e.NewText + out[e.End.Offset:]
	}
	return out
}

// FuzzApply: whatever the edits, Apply never panics, considers every fix once (applied, a
// duplicate of an applied fix, or skipped with a reason), never applies two edits that overlap, leaves the control comments as
// they were, and gives the reference's text (where no control comment is at stake).
func FuzzApply(f *testing.F) {
	f.Add("We act in order to win.\n", []byte{7, 11, 0, 7, 5, 1, 10, 0, 2})
	f.Add("Le café 👋 naïve.\r\nx\r\n", []byte{4, 1, 0, 5, 2, 1, 17, 1, 2, 18, 0, 0})
	f.Add("", []byte{0, 0, 0, 0, 0, 1})
	f.Add("abc", []byte{1, 1, 3, 1, 1, 3, 0, 3, 4})
	f.Add("We act in order to win.\n", []byte{9, 6, 1, 9, 6, 1}) // two rules, one change
	f.Add("a <!-- vectorlint-disable --> b\n", []byte{2, 2, 6, 9, 1, 0, 30, 0, 6})
	texts := []string{"", "to", "x\ny", "é👋", "\x1b", "\r\n", "<!-- vectorlint-", "disable -->", "\u202e"}
	f.Fuzz(func(t *testing.T, src string, spec []byte) {
		var fixes []Fix
		for i := 0; i+2 < len(spec) && len(fixes) < 20; i += 3 {
			start := int(spec[i]) - 2 // reach below 0 too
			e := finding.TextEdit{Start: finding.Position{Offset: start}, End: finding.Position{Offset: start + int(spec[i+1]%16) - 1},
				NewText: texts[int(spec[i+2])%len(texts)]}
			if spec[i+2] >= 128 && len(fixes) > 0 { // a second edit of the previous fix
				fixes[len(fixes)-1].Edits = append(fixes[len(fixes)-1].Edits, e)
				continue
			}
			fixes = append(fixes, Fix{Rule: "R", Finding: len(fixes), Edits: []finding.TextEdit{e}})
		}
		r := Apply([]byte(src), fixes)
		if len(r.Applied)+len(r.Duplicates)+len(r.Skipped) != len(fixes) {
			t.Fatalf("%d applied, %d duplicates and %d skipped of %d fixes", len(r.Applied), len(r.Duplicates), len(r.Skipped), len(fixes))
		}
		// A duplicate's every edit is an applied edit: the text has its change.
		for _, d := range r.Duplicates {
			for _, e := range d.Edits {
				if !slices.Contains(r.edits, e) {
					t.Fatalf("duplicate %+v: its edit %+v was not applied", d.Fix, e)
				}
			}
		}
		for _, s := range r.Skipped {
			if s.Reason == "" {
				t.Fatalf("skipped without a reason: %+v", s)
			}
		}
		for i := 1; i < len(r.edits); i++ {
			if overlap(r.edits[i-1], r.edits[i]) || r.edits[i-1].End.Offset > r.edits[i].Start.Offset {
				t.Fatalf("applied edits overlap: %+v and %+v", r.edits[i-1], r.edits[i])
			}
		}
		// The control comments are those of src, whatever the fixes were.
		fixed := string(r.Text)
		if b, a := controls.Find(src), controls.Find(fixed); len(a) != len(b) ||
			!slices.EqualFunc(a, b, func(x, y controls.Comment) bool { return fixed[x.Start:x.End] == src[y.Start:y.End] }) {
			t.Fatalf("control comments %+v became %+v", b, a)
		}
		// The reference knows nothing of control comments: it is compared when the fixes
		// cannot touch one.
		if want := reference(src, fixes); string(r.Text) != want && !strings.Contains(src+want, "vectorlint-") {
			t.Fatalf("Apply gives %q, the reference %q", r.Text, want)
		}
		if !r.Changed() && string(r.Text) != src {
			t.Fatalf("nothing applied but the text changed: %q", r.Text)
		}
	})
}
