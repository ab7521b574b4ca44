package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safetext"
)

// junitWriter prints JUnit XML: a <testsuite> per file, a <testcase> per rule that ran on it
// (rules from the file's scores, findings, errors and unverified quotes; a criterion's findings,
// "Pack.Rule.Criterion", belong to the test case of their rule "Pack.Rule" when that rule has a
// score). A test case fails with its findings, errors with its rule's operational errors, and
// tells its score in <system-out>. Skipped files form a last suite of skipped test cases.
// The root element carries no totals, so the document can be written file by file.
type junitWriter struct {
	*stream
	started bool
}

// junitCase gathers what one rule produced on one file.
type junitCase struct {
	rule       string
	score      *finding.Score
	findings   []finding.Finding
	errors     []finding.RuleError
	unverified []finding.Unverified
}

func (j *junitWriter) header() {
	if j.started {
		return
	}
	j.started = true
	j.out.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"vectorlint\">\n")
}

// junitCases groups the file's results by rule, in order of first appearance.
func junitCases(fr finding.FileResult) []*junitCase {
	var cases []*junitCase
	byRule := map[string]*junitCase{}
	scored := map[string]bool{}
	get := func(rule string) *junitCase {
		if c, ok := byRule[rule]; ok {
			return c
		}
		c := &junitCase{rule: rule}
		byRule[rule] = c
		cases = append(cases, c)
		return c
	}
	owner := func(rule string) string {
		if scored[rule] {
			return rule
		}
		for r := rule; ; {
			i := strings.LastIndexByte(r, '.')
			if i < 0 {
				return rule
			}
			r = r[:i]
			if scored[r] {
				return r
			}
		}
	}
	for i := range fr.Scores {
		c := get(fr.Scores[i].Rule)
		c.score = &fr.Scores[i]
		scored[fr.Scores[i].Rule] = true
	}
	for _, f := range fr.Findings {
		c := get(owner(f.Rule))
		c.findings = append(c.findings, f)
	}
	for _, e := range fr.Errors {
		c := get(owner(e.Rule))
		c.errors = append(c.errors, e)
	}
	for _, u := range fr.Unverified {
		c := get(owner(u.Rule))
		c.unverified = append(c.unverified, u)
	}
	return cases
}

// File writes the file's test suite.
func (j *junitWriter) File(fr finding.FileResult) error {
	if err := j.begin(fr); err != nil {
		return err
	}
	j.header()
	cases := junitCases(fr)
	failures, errs := 0, 0
	for _, c := range cases {
		if len(c.findings) > 0 {
			failures++
		}
		if len(c.errors) > 0 {
			errs++
		}
	}
	w := j.out
	path := xmlAttr(fr.Path)
	fmt.Fprintf(w, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\">\n", path,
		len(cases), failures, errs)
	for _, c := range cases {
		fmt.Fprintf(w, "    <testcase name=\"%s\" classname=\"%s\" file=\"%s\">", xmlAttr(c.rule), path, path)
		if len(c.findings)+len(c.errors) == 0 && c.score == nil && len(c.unverified) == 0 {
			w.WriteString("</testcase>\n")
			continue
		}
		w.WriteString("\n")
		for _, e := range c.errors {
			fmt.Fprintf(w, "      <error message=\"%s\" type=\"OperationalError\">%s</error>\n",
				xmlAttr(e.Rule+" could not run: "+e.Message), xmlText(e.Message))
		}
		if len(c.findings) > 0 {
			j.failure(c.findings)
		}
		if out := junitSystemOut(c); out != "" {
			fmt.Fprintf(w, "      <system-out>%s</system-out>\n", xmlText(out))
		}
		w.WriteString("    </testcase>\n")
	}
	w.WriteString("  </testsuite>\n")
	return j.end()
}

// failure writes one <failure> listing every finding of the test case, one per paragraph:
// "LINE:COL SEVERITY: MESSAGE [RULE]" then the suggestion and the fix. Its type is the most
// severe finding's severity (a test case with suggestions only fails with type "suggestion").
func (j *junitWriter) failure(fs []finding.Finding) {
	nerr, nwarn, nsugg := 0, 0, 0
	var body strings.Builder
	for i, f := range fs {
		switch f.Severity {
		case finding.SeverityError:
			nerr++
		case finding.SeveritySuggestion:
			nsugg++
		default:
			nwarn++
		}
		if i > 0 {
			body.WriteString("\n")
		}
		fmt.Fprintf(&body, "%d:%d %s: %s [%s]\n", f.Start.Line, f.Start.Column, f.Severity, f.Message, f.Rule)
		if f.Suggestion != "" {
			fmt.Fprintf(&body, "  suggestion: %s\n", f.Suggestion)
		}
		if text, ok := f.Replacement(); ok {
			fmt.Fprintf(&body, "  fix: replace %q with %q\n", f.Match, text)
		} else if len(f.Edits) > 0 {
			fmt.Fprintf(&body, "  fix: %s\n", f.FixMessage())
		}
	}
	typ := "suggestion" // the most severe finding's
	switch {
	case nerr > 0:
		typ = "error"
	case nwarn > 0:
		typ = "warning"
	}
	var counts []string
	if nerr > 0 {
		counts = append(counts, plural(nerr, "error", "errors"))
	}
	if nwarn > 0 {
		counts = append(counts, plural(nwarn, "warning", "warnings"))
	}
	if nsugg > 0 {
		counts = append(counts, plural(nsugg, "suggestion", "suggestions"))
	}
	msg := strings.Join(counts, " and ")
	if len(counts) == 3 {
		msg = counts[0] + ", " + counts[1] + " and " + counts[2]
	}
	fmt.Fprintf(j.out, "      <failure message=\"%s\" type=\"%s\">%s</failure>\n", msg, typ, xmlText(body.String()))
}

// junitSystemOut tells the test case's score and its unverified quotes.
func junitSystemOut(c *junitCase) string {
	var b strings.Builder
	if c.score != nil {
		fmt.Fprintf(&b, "score %s/10", formatScore(c.score.Score))
		if d := scoreDetails(*c.score); d != "" {
			b.WriteString(": " + d)
		}
		b.WriteString("\n")
	}
	for _, u := range c.unverified {
		where := ""
		if u.Line > 0 {
			where = "line " + strconv.Itoa(u.Line) + ": "
		}
		fmt.Fprintf(&b, "%sunverified quote %q (not counted): %s [%s]\n", where, u.Quote, u.Message, u.Rule)
	}
	return b.String()
}

// Finish writes the skipped files as a suite of skipped test cases and closes the document.
func (j *junitWriter) Finish(t finding.Totals) error {
	if err := j.finish(); err != nil {
		return err
	}
	j.header()
	w := j.out
	if len(t.RunErrors) > 0 {
		// The run's own failures form a suite of their own, one errored case each.
		fmt.Fprintf(w, "  <testsuite name=\"vectorlint\" tests=\"%d\" failures=\"0\" errors=\"%d\" skipped=\"0\">\n",
			len(t.RunErrors), len(t.RunErrors))
		for _, e := range t.RunErrors {
			fmt.Fprintf(w, "    <testcase name=\"%s\" classname=\"vectorlint\">\n      <error message=\"%s\" type=\"RunError\">%s</error>\n    </testcase>\n",
				xmlAttr(e.Cause), xmlAttr(e.Message), xmlText(runErrorText(e)))
		}
		w.WriteString("  </testsuite>\n")
	}
	if len(t.Skipped) > 0 {
		fmt.Fprintf(w, "  <testsuite name=\"skipped files\" tests=\"%d\" failures=\"0\" errors=\"0\" skipped=\"%d\">\n",
			len(t.Skipped), len(t.Skipped))
		for _, s := range t.Skipped {
			p := xmlAttr(s.Path)
			fmt.Fprintf(w, "    <testcase name=\"%s\" classname=\"%s\" file=\"%s\">\n      <skipped message=\"%s\"/>\n    </testcase>\n",
				p, p, p, xmlAttr(s.Reason))
		}
		w.WriteString("  </testsuite>\n")
	}
	w.WriteString("</testsuites>\n")
	return w.Flush()
}

// xmlText escapes character data (safetext.XMLText): &, < and > as entities, CR as a character
// reference (a parser would turn a raw CR into LF), characters XML 1.0 cannot carry as U+FFFD,
// and what a terminal or a GitHub runner could act on (DEL, C1 and bidi characters, the "[" of
// "##[", a line-leading ":") as character references, so the decoded text is exact. The
// document has no CDATA section, where references would not be decoded.
func xmlText(s string) string { return safetext.XMLText(s) }

// xmlAttr escapes a double-quoted attribute value: as xmlText, plus the quote and the
// whitespace characters a parser would normalise to spaces (tab, LF, CR).
func xmlAttr(s string) string { return safetext.XMLAttr(s) }
