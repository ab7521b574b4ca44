package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fatih/color"

	"github.com/vectorlint/vectorlint/finding"
)

// maxMessageWidth is where the line output wraps messages and suggestions, so the rule column
// stays in sight on an 80–120 column terminal.
const maxMessageWidth = 60

// palette holds the colours of the line output. Each colour is switched on or off on its own
// object: the package-wide color.NoColor is never touched, so two writers with different
// settings can run in one process.
type palette struct {
	path, err, warn, sugg, rule, ok, heading *color.Color
}

func newPalette(enabled bool) palette {
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return palette{
		path:    mk(color.Underline),
		err:     mk(color.FgRed),
		warn:    mk(color.FgYellow),
		sugg:    mk(color.FgBlue),
		rule:    mk(color.Faint),
		ok:      mk(color.FgGreen),
		heading: mk(color.Bold),
	}
}

// lineWriter prints the human-readable default output, laid out like Vale's table.
type lineWriter struct {
	*stream
	opts Options
	pal  palette
}

func newLineWriter(s *stream, opts Options) *lineWriter {
	return &lineWriter{stream: s, opts: opts, pal: newPalette(opts.Color)}
}

// File prints the file's block: path, findings table, scores, unverified quotes and errors. A
// file with nothing to report (no finding, every score 10.0) prints nothing unless verbose.
func (l *lineWriter) File(fr finding.FileResult) error {
	if err := l.begin(fr); err != nil {
		return err
	}
	scores := l.shownScores(fr.Scores)
	if len(fr.Findings) == 0 && len(scores) == 0 && len(fr.Unverified) == 0 && len(fr.Errors) == 0 &&
		!l.opts.Verbose {
		return l.end()
	}
	w := l.out
	fmt.Fprintln(w, l.pal.path.Sprint(oneLine(fr.Path)))
	l.findings(fr.Findings)
	if len(scores) > 0 {
		l.scores(scores)
	}
	if len(fr.Unverified) > 0 {
		l.unverified(fr.Unverified)
	}
	if len(fr.Errors) > 0 {
		l.errors(fr.Errors)
	}
	fmt.Fprintln(w)
	return l.end()
}

// shownScores are the scores the line output prints: those below 10.0, or all when verbose.
func (l *lineWriter) shownScores(all []finding.Score) []finding.Score {
	if l.opts.Verbose {
		return all
	}
	var below []finding.Score
	for _, s := range all {
		if formatScore(s.Score) != "10.0" {
			below = append(below, s)
		}
	}
	return below
}

// findings prints the `  LINE:COL  SEVERITY  MESSAGE  RULE` table with each column padded to
// its widest cell in this file, long messages wrapped and the suggestion on its own line below.
func (l *lineWriter) findings(fs []finding.Finding) {
	if len(fs) == 0 {
		return
	}
	type row struct {
		loc, sev, rule string
		msg, sugg      []string
	}
	rows := make([]row, len(fs))
	locW, sevW, msgW := 0, 0, 0
	for i, f := range fs {
		r := row{
			loc:  strconv.Itoa(f.Start.Line) + ":" + strconv.Itoa(f.Start.Column),
			sev:  f.Severity.String(),
			rule: oneLine(f.Rule),
			msg:  wrap(terminalSafe(f.Message), maxMessageWidth),
		}
		if f.Suggestion != "" {
			r.sugg = wrap("suggestion: "+terminalSafe(f.Suggestion), maxMessageWidth)
		}
		locW = max(locW, len(r.loc))
		sevW = max(sevW, len(r.sev))
		for _, m := range r.msg {
			msgW = max(msgW, displayWidth(m))
		}
		rows[i] = r
	}
	indent := strings.Repeat(" ", 2+locW+2+sevW+2)
	w := l.out
	for _, r := range rows {
		sev := l.pal.warn.Sprint(r.sev)
		switch r.sev {
		case finding.SeverityError.String():
			sev = l.pal.err.Sprint(r.sev)
		case finding.SeveritySuggestion.String():
			sev = l.pal.sugg.Sprint(r.sev) // blue, as Vale shows suggestions
		}
		fmt.Fprintf(w, "  %s  %s  %s  %s\n", padRight(r.loc, r.loc, locW), padRight(sev, r.sev, sevW),
			padRight(r.msg[0], r.msg[0], msgW), l.pal.rule.Sprint(r.rule))
		for _, m := range r.msg[1:] {
			fmt.Fprintln(w, strings.TrimRight(indent+m, " "))
		}
		for _, s := range r.sugg {
			fmt.Fprintln(w, strings.TrimRight(indent+s, " "))
		}
	}
}

// scores prints one line per rule: the rule, its score and how it was reached.
func (l *lineWriter) scores(scores []finding.Score) {
	w := l.out
	if l.opts.Verbose {
		fmt.Fprintln(w, "  "+l.pal.heading.Sprint("Scores:"))
	} else {
		fmt.Fprintln(w, "  "+l.pal.heading.Sprint("Scores below 10.0:"))
	}
	ruleW := 0
	for _, s := range scores {
		ruleW = max(ruleW, displayWidth(oneLine(s.Rule)))
	}
	for _, s := range scores {
		rule := oneLine(s.Rule)
		line := fmt.Sprintf("    %s  %4s", padRight(rule, rule, ruleW), formatScore(s.Score))
		if d := scoreDetails(s); d != "" {
			line += "  " + d
		}
		fmt.Fprintln(w, line)
	}
}

// scoreDetails explains a score: violations and words for a semi-objective rule, each criterion
// for a subjective one, and coverage for a rule's `should` list.
func scoreDetails(s finding.Score) string {
	var parts []string
	if s.Violations != nil {
		d := plural(*s.Violations, "violation", "violations")
		if s.Words != nil {
			d += " in " + plural(*s.Words, "word", "words")
		}
		if s.Strictness != nil {
			d += ", strictness " + strconv.FormatFloat(*s.Strictness, 'f', -1, 64)
		}
		parts = append(parts, d)
	}
	if len(s.Criteria) > 0 {
		cs := make([]string, len(s.Criteria))
		for i, c := range s.Criteria {
			name := c.Name
			if name == "" {
				name = c.ID
			}
			cs[i] = fmt.Sprintf("%s %s (rating %d/4, weight %s)", oneLine(name), formatScore(c.Score), c.Rating,
				strconv.FormatFloat(c.Weight, 'f', -1, 64))
		}
		parts = append(parts, strings.Join(cs, ", "))
	}
	if s.Coverage != nil {
		parts = append(parts, fmt.Sprintf("coverage %s%%", strconv.FormatFloat(*s.Coverage*100, 'f', -1, 64)))
	}
	if s.Partial {
		parts = append(parts, "partial: the changed lines' chunks only")
	}
	return strings.Join(parts, "; ")
}

// formatScore writes a score the way the JSON output does: one decimal.
func formatScore(r finding.Rounded1) string {
	return strconv.FormatFloat(float64(r), 'f', 1, 64)
}

func (l *lineWriter) unverified(us []finding.Unverified) {
	w := l.out
	fmt.Fprintln(w, "  "+l.pal.warn.Sprint("Unverified (the quoted text is not in the document; not counted):"))
	for _, u := range us {
		where := ""
		if u.Line > 0 {
			where = "line " + strconv.Itoa(u.Line) + "  "
		}
		fmt.Fprintf(w, "    %s%s  %s  quote: %q\n", where, oneLine(u.Rule), oneLine(u.Message), oneLine(u.Quote))
	}
}

func (l *lineWriter) errors(es []finding.RuleError) {
	w := l.out
	fmt.Fprintln(w, "  "+l.pal.err.Sprint("Could not run:"))
	ruleW := 0
	for _, e := range es {
		ruleW = max(ruleW, displayWidth(oneLine(e.Rule)))
	}
	for _, e := range es {
		r := oneLine(e.Rule)
		fmt.Fprintf(w, "    %s  %s\n", padRight(r, r, ruleW), oneLine(e.Message))
	}
}

// Finish prints the skipped files (verbose; without it, only those too large to send), the LLM usage, what the totals do not count, and
// the closing totals line.
func (l *lineWriter) Finish(t finding.Totals) error {
	if err := l.finish(); err != nil {
		return err
	}
	w := l.out
	if l.opts.Verbose && len(t.Skipped) > 0 {
		fmt.Fprintln(w, l.pal.heading.Sprint("Skipped:"))
		pathW := 0
		for _, s := range t.Skipped {
			pathW = max(pathW, displayWidth(oneLine(s.Path)))
		}
		for _, s := range t.Skipped {
			p := oneLine(s.Path)
			fmt.Fprintf(w, "  %s  %s\n", padRight(p, p, pathW), oneLine(s.Reason))
		}
		fmt.Fprintln(w)
	} else {
		// A document too large to send is said even without --verbose: it was not linted.
		for _, s := range t.Skipped {
			if s.MaxDocumentWords > 0 {
				fmt.Fprintln(w, l.pal.err.Sprint("! "+oneLine(s.Path)+": skipped, "+oneLine(s.Reason)))
			}
		}
	}
	fmt.Fprintln(w, usageLine(t.Usage))
	if p := problemsLine(t.Summary); p != "" {
		fmt.Fprintln(w, l.pal.err.Sprint("! "+p))
	}
	line := totalsLine(t)
	mark, rest, _ := strings.Cut(line, " ")
	if mark == "✓" {
		mark = l.pal.ok.Sprint(mark)
	} else {
		mark = l.pal.err.Sprint(mark)
	}
	fmt.Fprintln(w, mark+" "+rest)
	if n := t.Summary.Baselined; n > 0 {
		// Last, as the spec words it: what the baseline kept out of the totals above.
		noun := "findings"
		if n == 1 {
			noun = "finding"
		}
		fmt.Fprintf(w, "%d known %s hidden by the baseline\n", n, noun)
	}
	return l.out.Flush()
}
