package ruletest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The output formats of `vectorlint test` (docs/output-formats.md, "vectorlint test").
const (
	FormatLine  = "line"
	FormatJSON  = "json"
	FormatJUnit = "junit"
)

// Formats lists the output formats.
func Formats() []string { return []string{FormatLine, FormatJSON, FormatJUnit} }

// Summary totals every rule × model of a run.
type Summary struct {
	Rules int `json:"rules"`
	Counts
	// BelowGates lists the rules below a gate, one line each (absent when none).
	BelowGates []string `json:"belowGates,omitempty"`
}

// Summarize totals rs; below are the gate failures (Gates.Check).
func Summarize(rs []RuleResult, repeats int, below []string) Summary {
	s := Summary{Rules: len(rs), Counts: Counts{Repeats: repeats}, BelowGates: below}
	for _, r := range rs {
		s.add(r.Counts)
	}
	s.setRatios()
	return s
}

// Gates are the thresholds of --min-precision, --min-recall and --min-pass-rate; a nil field
// is no gate.
type Gates struct {
	MinPrecision, MinRecall, MinPassRate *float64
}

// Check lists, one line each, the rules × models below a gate.
func (g Gates) Check(rs []RuleResult) []string {
	var out []string
	for _, r := range rs {
		name := r.Rule
		if r.Model != "" {
			name += " (" + r.Model + ")"
		}
		if g.MinPrecision != nil && r.Precision < *g.MinPrecision {
			out = append(out, fmt.Sprintf("%s: precision %s below --min-precision %s", name, fmtRatio(r.Precision), num(*g.MinPrecision)))
		}
		if g.MinRecall != nil && r.Recall < *g.MinRecall {
			out = append(out, fmt.Sprintf("%s: recall %s below --min-recall %s", name, fmtRatio(r.Recall), num(*g.MinRecall)))
		}
		if g.MinPassRate != nil && r.PassRate() < *g.MinPassRate {
			out = append(out, fmt.Sprintf("%s: pass rate %s (%d of %d examples passed every repeat) below --min-pass-rate %s",
				name, fmtRatio(r.PassRate()), r.PassedAll, r.Examples, num(*g.MinPassRate)))
		}
	}
	return out
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// fmtRatio shows a ratio with two decimals.
func fmtRatio(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// Write writes the results in format: line (a table), json or junit.
func Write(w io.Writer, format string, rs []RuleResult, sum Summary) error {
	switch format {
	case FormatJSON:
		return writeJSON(w, rs, sum)
	case FormatJUnit:
		return writeJUnit(w, rs)
	}
	return writeLine(w, rs, sum)
}

func writeLine(w io.Writer, rs []RuleResult, sum Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tMODEL\tEXAMPLES\tTP\tFP\tFN\tPRECISION\tRECALL\tFLAKY\tPASSED ALL")
	for _, r := range rs {
		model := r.Model
		if model == "" {
			model = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t%d/%d\n", r.Rule, model, r.Examples,
			r.TruePositives, r.FalsePositives, r.FalseNegatives, fmtRatio(r.Precision), fmtRatio(r.Recall),
			r.Flaky, r.PassedAll, r.Examples)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s × %s: precision %s, recall %s, %d flaky, %d of %d passed every repeat\n",
		plural(sum.Examples, "example"), plural(sum.Repeats, "repeat"), fmtRatio(sum.Precision), fmtRatio(sum.Recall),
		sum.Flaky, sum.PassedAll, sum.Examples)
	return err
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func writeJSON(w io.Writer, rs []RuleResult, sum Summary) error {
	if rs == nil {
		rs = []RuleResult{}
	}
	for i := range rs {
		for j := range rs[i].Cases {
			if rs[i].Cases[j].Runs == nil {
				rs[i].Cases[j].Runs = []Repeat{}
			}
		}
	}
	b, err := json.MarshalIndent(struct {
		Rules   []RuleResult `json:"rules"`
		Summary Summary      `json:"summary"`
	}{rs, sum}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes a test suite per rule × model and a test case per example, failing when any
// repeat of the example failed.
func writeJUnit(w io.Writer, rs []RuleResult) error {
	out := junitSuites{Name: "vectorlint test"}
	for _, r := range rs {
		name := r.Rule
		if r.Model != "" {
			name += " (" + r.Model + ")"
		}
		s := junitSuite{Name: name}
		for _, c := range r.Cases {
			tc := junitCase{Name: c.Example + " (line " + strconv.Itoa(c.Line) + ")", Classname: name}
			var lines []string
			failedRuns := 0
			for i, run := range c.Runs {
				if run.Pass {
					continue
				}
				failedRuns++
				for _, p := range run.Problems {
					lines = append(lines, fmt.Sprintf("repeat %d: %s", i+1, p))
				}
			}
			if failedRuns > 0 || !c.PassedAll {
				tc.Failure = &junitFailure{Type: "example",
					Message: fmt.Sprintf("failed %d of %d repeats", failedRuns, r.Repeats),
					Text:    strings.Join(lines, "\n")}
				s.Failures++
			}
			s.Tests++
			s.Cases = append(s.Cases, tc)
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Suites = append(out.Suites, s)
	}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}
