package report

import (
	"fmt"

	"github.com/vectorlint/vectorlint/finding"
)

// jsonWriter prints the native JSON document (docs/output-formats.md): finding.JSONWriter's
// bytes, through the stream's order checks and the JSON escaping layer, flushed file by file.
type jsonWriter struct {
	*stream
	enc *finding.JSONWriter
}

func newJSONWriter(s *stream, opts Options) *jsonWriter {
	return &jsonWriter{stream: s, enc: finding.NewJSONWriter(s.out, opts.Version)}
}

// File writes one element of "files".
func (j *jsonWriter) File(fr finding.FileResult) error {
	if err := j.begin(fr); err != nil {
		return err
	}
	if err := j.enc.File(fr); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return j.end()
}

// Finish closes "files" and writes the totals.
func (j *jsonWriter) Finish(t finding.Totals) error {
	if err := j.finish(); err != nil {
		return err
	}
	if err := j.enc.Finish(t); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return j.out.Flush()
}
