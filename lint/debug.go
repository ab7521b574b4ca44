package lint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/document"
)

// What --debug-json writes (spec/linter.md §1): for each rule on each file, the model's raw
// replies and the filter stage's decision on each violation they proposed, as the original
// VectorLint's debug artifacts do (its src/debug/run-artifact.ts: run_id, timestamp, file,
// model, prompt, raw_model_output, filter_decisions, surfaced_violations).

// Decisions of the filter stage as DebugDecision.Decision writes them.
const (
	// DecisionKept: reported as a finding.
	DecisionKept = "kept"
	// DecisionLowConfidence: dropped, the model's confidence is under the threshold.
	DecisionLowConfidence = "low_confidence"
	// DecisionUnverified: the quote is not in the evaluated text; listed as unverified.
	DecisionUnverified = "unverified"
	// DecisionSuppressed: an inline control (<!-- vectorlint-disable -->) silences it.
	DecisionSuppressed = "suppressed"
	// DecisionDuplicate: the rule already reports this place (or lists this quote).
	DecisionDuplicate = "duplicate"
	// DecisionSuperseded: a low-rated criterion's summary, not reported because the criterion
	// has findings of its own.
	DecisionSuperseded = "superseded"
	// DecisionIgnoredScope: the quote lies in a skipped scope (code, URLs, markup; spec/linter.md
	// §9): not a finding, counted under "ignored".
	DecisionIgnoredScope = "ignored_scope"
)

// DebugRecord is one rule's evaluation of one file as --debug-json writes it.
type DebugRecord struct {
	// RunID and Timestamp identify the run (DebugWriter sets them).
	RunID     string `json:"run_id"`
	Timestamp string `json:"timestamp"`
	// File is the reported path of the document.
	File  string      `json:"file"`
	Model *DebugModel `json:"model,omitempty"`
	// Prompt names the rule.
	Prompt DebugPrompt `json:"prompt"`
	// RawModelOutput is each model call's reply as the model wrote it, one per chunk.
	RawModelOutput []DebugOutput `json:"raw_model_output"`
	// FilterDecisions are the filter stage's decisions on what the replies proposed, in order.
	FilterDecisions []DebugDecision `json:"filter_decisions"`
	// SurfacedViolations are the rule's findings on the file (the decisions "kept").
	SurfacedViolations []finding.Finding `json:"surfaced_violations"`
}

// DebugModel is the model that evaluated the rules.
type DebugModel struct {
	Provider string `json:"provider,omitempty"`
	Name     string `json:"name,omitempty"`
}

// DebugPrompt names the rule of a DebugRecord.
type DebugPrompt struct {
	Pack string `json:"pack"`
	ID   string `json:"id"`
	// Filename is the rule file.
	Filename string `json:"filename"`
	// EvaluationType is the rule's kind: "semi-objective", "subjective" or "checklist".
	EvaluationType string `json:"evaluation_type"`
}

// DebugOutput is one model call of a rule: the chunk's lines and the reply.
type DebugOutput struct {
	Lines string `json:"lines"`
	// Output is the reply as the model wrote it: its JSON when it is JSON, else its text.
	Output json.RawMessage `json:"output,omitempty"`
	// Error is why the call gave no usable reply.
	Error string `json:"error,omitempty"`
	// Sample is the sample the reply is of, from 1, when the rule takes several
	// (docs/configuration.md, "Samples and majority"); absent with one.
	Sample int `json:"sample,omitempty"`
}

// DebugDecision is the filter stage's decision on one proposed finding.
type DebugDecision struct {
	// Index is the proposal's place among the rule's proposals on the file.
	Index int `json:"index"`
	// Rule is the id the finding carries ("Pack.Rule" or "Pack.Rule.Criterion").
	Rule string `json:"rule"`
	// Source is "violation" for a violation the model quoted, "finding" for a finding placed
	// without a quote (a missing target, a low-rated criterion's summary).
	Source     string   `json:"source"`
	QuotedText string   `json:"quoted_text"`
	Line       int      `json:"line,omitempty"`
	Message    string   `json:"message"`
	Confidence *float64 `json:"confidence,omitempty"`
	// Decision is one of the Decision constants; Surface tells whether it is reported.
	Decision string `json:"decision"`
	Surface  bool   `json:"surface"`
	// Reasons say why, in words.
	Reasons []string `json:"reasons"`
	// Located is where the quote was found (nil when it was not).
	Located *DebugSpan `json:"located,omitempty"`
}

// DebugSpan is where a quote was found in the file.
type DebugSpan struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Match     string `json:"match"`
}

// debugRecord builds the record of a rule on a file from its runs and the filter's decisions.
func (e *evaluator) debugRecord(doc *document.Document, r *ruleRun, props []proposal) DebugRecord {
	pr := r.pr
	rec := DebugRecord{File: doc.Path, Prompt: DebugPrompt{Pack: pr.Rule.Pack, ID: pr.Rule.ID, Filename: pr.Rule.Path,
		EvaluationType: pr.Kind.Name()}, RawModelOutput: []DebugOutput{}, FilterDecisions: []DebugDecision{},
		SurfacedViolations: []finding.Finding{}}
	for _, u := range r.units {
		for i, c := range u.chunks {
			if i >= len(u.results) {
				break
			}
			res := u.results[i]
			out := DebugOutput{Lines: strings.TrimPrefix(strings.TrimPrefix(lineRange(c), "lines "), "line ")}
			switch {
			case res.err != nil:
				out.Error = res.err.Error()
			case res.interrupted:
				out.Error = "interrupted"
			}
			for s, sr := range res.sampleReplies() { // one output per sample
				if sr.raw != "" {
					out.Output = rawOutput(sr.raw)
				}
				if res.samples != nil {
					out.Sample = s + 1
				}
				if out.Output != nil || out.Error != "" {
					rec.RawModelOutput = append(rec.RawModelOutput, out)
				}
				out.Output = nil
			}
		}
	}
	for i, p := range props {
		d := DebugDecision{Index: i, Rule: p.rule, Source: "finding", Message: p.finding.Message}
		if v := p.violation; v != nil {
			conf := v.Confidence
			d.Source, d.QuotedText, d.Line, d.Message, d.Confidence = "violation", v.QuotedText, v.Line, v.Message, &conf
		}
		if p.located {
			f := p.finding
			d.Located = &DebugSpan{Line: f.Start.Line, Column: f.Start.Column, EndLine: f.End.Line, EndColumn: f.End.Column, Match: f.Match}
		}
		d.Decision, d.Reasons = e.explain(p)
		d.Surface = p.decision == reported
		if d.Surface {
			rec.SurfacedViolations = append(rec.SurfacedViolations, p.finding)
		}
		rec.FilterDecisions = append(rec.FilterDecisions, d)
	}
	return rec
}

// explain names a proposal's decision and says why.
func (e *evaluator) explain(p proposal) (string, []string) {
	switch p.decision {
	case reported:
		if p.violation == nil {
			return DecisionKept, []string{"placed by the rule itself"}
		}
		reasons := []string{"the quote is in the evaluated text"}
		if p.fixRefused != "" {
			reasons = append(reasons, "the model's fix is not offered: "+p.fixRefused)
		}
		return DecisionKept, reasons
	case lowConfidence:
		return DecisionLowConfidence, []string{fmt.Sprintf("confidence %s < %s (ConfidenceThreshold)",
			strconv.FormatFloat(p.violation.Confidence, 'f', -1, 64), strconv.FormatFloat(e.opts.ConfidenceThreshold, 'f', -1, 64))}
	case unverified:
		if strings.TrimSpace(p.violation.QuotedText) == "" {
			return DecisionUnverified, []string{"quoted_text is empty"}
		}
		return DecisionUnverified, []string{"quoted_text is not in the evaluated text"}
	case suppressed:
		return DecisionSuppressed, []string{"an inline control (vectorlint-disable) silences it"}
	case duplicate:
		return DecisionDuplicate, []string{"the rule already reports this place, or lists this quote and message"}
	case superseded:
		return DecisionSuperseded, []string{"the criterion reports violations of its own"}
	case ignored:
		return DecisionIgnoredScope, []string{"the quote lies in a skipped scope (code, a URL or markup), not in prose"}
	}
	return "unknown", nil
}

// rawOutput is a reply as JSON: the reply itself when it is a JSON value, else a JSON string
// of its text (a fenced or prose-wrapped reply).
func rawOutput(raw string) json.RawMessage {
	if b := []byte(strings.TrimSpace(raw)); json.Valid(b) {
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			return buf.Bytes()
		}
	}
	b, _ := json.Marshal(raw)
	return b
}

// DefaultDebugDir is the folder --debug-json writes to when it names none, relative to the
// working directory: the original VectorLint's.
const DefaultDebugDir = ".vectorlint/runs"

// DebugWriter writes DebugRecords as JSON files, one per rule and file, into a folder of its
// own for the run: <dir>/<run id>/<file>.<Pack.Rule>.json. Every name is made from the file's
// path and the rule's id, which come from the repository, so each is sanitised to one plain file
// name (letters, digits, ".", "_", "-"; no leading dot; at most 180 bytes), and the run's folder
// is created fresh (never an existing folder or link): nothing is written outside it. Every
// folder and file is created through the project root (internal/tree), written whole. Safe for
// concurrent use.
type DebugWriter struct {
	// Dir is the run's folder.
	Dir       string
	root      *tree.Root
	runID     string
	timestamp string
	model     *DebugModel

	mu   sync.Mutex
	used map[string]bool
}

// NewDebugWriter creates the run's folder under dir (created when missing) through root,
// named after the run's start in UTC (20060102T150405.000Z, with -2, -3… when taken), and
// proves it writable, so an unusable folder stops a run before its first model call. dir must
// resolve inside root: a folder on the way that is a symbolic link leading out of it (the
// repository could have made .vectorlint or .vectorlint/runs one) is refused before anything
// is created. The writer writes through root, which must stay open while it is used.
func NewDebugWriter(root *tree.Root, dir string, start time.Time, model DebugModel) (*DebugWriter, error) {
	if err := root.MkdirAll(dir); err != nil {
		return nil, err
	}
	id := start.UTC().Format("20060102T150405.000Z")
	run := ""
	for n := 1; ; n++ {
		name := id
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		err := root.Mkdir(filepath.Join(dir, name))
		if err == nil {
			run, id = filepath.Join(dir, name), name
			break
		}
		if !errors.Is(err, fs.ErrExist) || n >= 1000 {
			return nil, err
		}
	}
	if err := root.Probe(run); err != nil {
		return nil, err
	}
	w := &DebugWriter{Dir: run, root: root, runID: id, timestamp: start.UTC().Format(time.RFC3339Nano), used: map[string]bool{}}
	if model != (DebugModel{}) {
		w.model = &model
	}
	return w, nil
}

// Write writes one record and returns the file's path.
func (w *DebugWriter) Write(rec DebugRecord) (string, error) {
	rec.RunID, rec.Timestamp, rec.Model = w.runID, w.timestamp, w.model
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	base := debugFileName(rec.File) + "." + debugFileName(rec.Prompt.Pack+"."+rec.Prompt.ID)
	name := base + ".json"
	for n := 2; w.used[name]; n++ {
		name = base + "-" + strconv.Itoa(n) + ".json"
	}
	w.used[name] = true
	w.mu.Unlock()
	path := filepath.Join(w.Dir, name)
	if err := w.root.WriteFile(path, append(data, '\n')); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", path, unwrapPathError(err))
	}
	return path, nil
}

// debugFileName makes s a plain file name part: letters, digits, ".", "_" and "-" kept, any
// other byte "_", a leading dot "_" (no hidden file, no "." or ".."), at most 180 bytes (a
// longer name is cut and ends with a hash of the whole, so two long names stay apart).
func debugFileName(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		case c == '.' && i > 0:
		default:
			b[i] = '_'
		}
	}
	const maxLen = 180
	if len(b) > maxLen {
		sum := sha256.Sum256([]byte(s))
		b = append(b[:maxLen-9], '-')
		b = append(b, hex.EncodeToString(sum[:4])...)
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}
