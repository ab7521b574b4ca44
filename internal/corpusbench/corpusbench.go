// Package corpusbench builds the work of the spec's "score every function point of the corpus"
// performance scenario, shared by blueprint's go test benchmark and the benchmark program so
// both measure the same thing.
package corpusbench

import (
	"context"
	"strings"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// File is one blueprint file of the corpus.
type File struct {
	// Path names the file in parse errors.
	Path string
	Data []byte
}

// Job is one prompt's function points and the synthetic response they are scored against.
type Job struct {
	Rubric  rubric.Rubric
	Subject points.Subject
}

// Work is every job of a corpus.
type Work struct {
	Jobs []Job
	// Parsed counts the files that parse; Points the function points in Jobs.
	Parsed, Points int
}

// toolTail ends every synthetic response, so trace functions have a tool call to look at.
const toolTail = "\n\nTOOL_CALL {\"name\":\"calculator\",\"arguments\":{\"expression\":\"(312*49)-777\"}}\nFINAL_ANSWER: B"

// FunctionPoints parses files and keeps, per prompt, only its function points (alternative
// paths reduced to their function points). Each prompt's response is its ideal when it has one,
// else its last message, followed by a tool call, so regexes, word lists, scripts and trace
// functions all run on realistic text. Files that do not parse are left out.
func FunctionPoints(files []File) Work {
	var w Work
	for _, f := range files {
		bp, err := blueprint.Parse(f.Data, blueprint.ParseOptions{File: f.Path})
		if err != nil {
			continue
		}
		w.Parsed++
		for _, p := range bp.Prompts {
			var r rubric.Rubric
			r.Should = w.keep(p.Rubric().Should)
			r.ShouldNot = w.keep(p.ShouldNot)
			if len(r.Should)+len(r.ShouldNot) == 0 {
				continue
			}
			text := ""
			if p.Ideal != nil {
				text = *p.Ideal
			} else if len(p.Messages) > 0 {
				text = p.Messages[len(p.Messages)-1].Text()
			}
			w.Jobs = append(w.Jobs, Job{Rubric: r, Subject: points.Subject{
				Text: strings.TrimSpace(text + toolTail), PromptID: p.ID, ModelID: "bench:model"}})
		}
	}
	return w
}

// keep returns the function points of entries, counting them.
func (w *Work) keep(entries []rubric.Entry) []rubric.Entry {
	var out []rubric.Entry
	for _, e := range entries {
		switch {
		case e.Point != nil && e.Point.IsFunction():
			out = append(out, e)
			w.Points++
		case e.IsPath():
			var path []*rubric.Point
			for _, pt := range e.Path {
				if pt.IsFunction() {
					path = append(path, pt)
					w.Points++
				}
			}
			if len(path) > 0 {
				out = append(out, rubric.Entry{Path: path})
			}
		}
	}
	return out
}

// Score scores every job once.
func (w Work) Score(ctx context.Context) {
	for _, j := range w.Jobs {
		_ = points.ScoreRubric(ctx, j.Rubric, j.Subject, points.Env{})
	}
}
