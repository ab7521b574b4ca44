package blueprint

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkParseCorpus parses every blueprint of the shared corpus once per iteration
// (spec/quality.md: ≤ 1 s in total).
func BenchmarkParseCorpus(b *testing.B) {
	_, files := corpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			_, _ = Parse(f.data, ParseOptions{File: f.rel})
		}
	}
}

// BenchmarkScoreCorpusFunctionPoints scores every function point of the corpus against a
// synthetic response per prompt (spec/quality.md: ≤ 1 s in total). The response is the
// prompt's ideal when it has one, else its text, followed by a tool call, so regexes, word
// lists, scripts and trace functions all run on realistic text.
func BenchmarkScoreCorpusFunctionPoints(b *testing.B) {
	_, files := corpus(b)
	type job struct {
		rubric  Rubric
		subject Subject
	}
	var jobs []job
	points := 0
	for _, f := range files {
		bp, err := Parse(f.data, ParseOptions{File: f.rel})
		if err != nil {
			continue
		}
		for _, p := range bp.Prompts {
			var r Rubric
			for _, block := range []struct {
				in  []Entry
				out *[]Entry
			}{{p.Rubric().Should, &r.Should}, {p.ShouldNot, &r.ShouldNot}} {
				for _, e := range block.in {
					if e.Point != nil && e.Point.IsFunction() {
						*block.out = append(*block.out, e)
						points++
					} else if e.IsPath() {
						var path []*Point
						for _, pt := range e.Path {
							if pt.IsFunction() {
								path = append(path, pt)
								points++
							}
						}
						if len(path) > 0 {
							*block.out = append(*block.out, Entry{Path: path})
						}
					}
				}
			}
			if len(r.Should)+len(r.ShouldNot) == 0 {
				continue
			}
			text := ""
			if p.Ideal != nil {
				text = *p.Ideal
			} else if len(p.Messages) > 0 {
				text = p.Messages[len(p.Messages)-1].Text()
			}
			text += "\n\nTOOL_CALL {\"name\":\"calculator\",\"arguments\":{\"expression\":\"(312*49)-777\"}}\nFINAL_ANSWER: B"
			jobs = append(jobs, job{rubric: r, subject: Subject{Text: strings.TrimSpace(text), PromptID: p.ID, ModelID: "bench:model"}})
		}
	}
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		for _, j := range jobs {
			_ = ScoreRubric(ctx, j.rubric, j.subject, Env{})
		}
	}
	b.ReportMetric(float64(points), "points/op")
}
