package report

import (
	"encoding/json"
	"fmt"

	"github.com/vectorlint/vectorlint/finding"
)

// jsonWriter prints the native JSON document of spec/linter.md §7 (the finding.Result types), byte
// for byte what json.MarshalIndent(result, "", "  ") gives, but one file at a time.
type jsonWriter struct {
	*stream
	opts    Options
	started bool
}

func (j *jsonWriter) header() error {
	if j.started {
		return nil
	}
	j.started = true
	v, err := json.Marshal(j.opts.Version)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(j.out, "{\n  \"version\": %s,\n  \"files\": [", v)
	return err
}

// File writes one element of "files". Missing findings and scores are written as [] rather than
// null: every linted file appears with both lists.
func (j *jsonWriter) File(fr finding.FileResult) error {
	if err := j.begin(fr); err != nil {
		return err
	}
	if err := j.header(); err != nil {
		return err
	}
	if fr.Findings == nil {
		fr.Findings = []finding.Finding{}
	}
	if fr.Scores == nil {
		fr.Scores = []finding.Score{}
	}
	b, err := json.MarshalIndent(fr, "    ", "  ")
	if err != nil {
		return fmt.Errorf("report: %s: %w", fr.Path, err)
	}
	sep := ",\n    "
	if j.files == 1 {
		sep = "\n    "
	}
	j.out.WriteString(sep)
	j.out.Write(b)
	return j.end()
}

// Finish closes "files" and writes "skipped" and "runErrors" (when any), "summary" and "usage".
func (j *jsonWriter) Finish(t finding.Totals) error {
	if err := j.finish(); err != nil {
		return err
	}
	if err := j.header(); err != nil {
		return err
	}
	if j.files > 0 {
		j.out.WriteString("\n  ")
	}
	j.out.WriteString("]")
	if len(t.Skipped) > 0 {
		if err := j.field("skipped", t.Skipped); err != nil {
			return err
		}
	}
	if len(t.RunErrors) > 0 {
		if err := j.field("runErrors", t.RunErrors); err != nil {
			return err
		}
	}
	if err := j.field("summary", t.Summary); err != nil {
		return err
	}
	if err := j.field("usage", t.Usage); err != nil {
		return err
	}
	j.out.WriteString("\n}\n")
	return j.out.Flush()
}

// field writes `,\n  "name": value` indented as a top-level member.
func (j *jsonWriter) field(name string, v any) error {
	b, err := json.MarshalIndent(v, "  ", "  ")
	if err != nil {
		return fmt.Errorf("report: %s: %w", name, err)
	}
	fmt.Fprintf(j.out, ",\n  %q: ", name)
	j.out.Write(b)
	return nil
}
