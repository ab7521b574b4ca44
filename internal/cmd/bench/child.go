package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// childFlag starts a child run: bench -child NAME SHARED.
const childFlag = "-child"

// childReport is what a child run prints: its timed work and what it covered.
type childReport struct {
	// Wall is the median of the timed runs, in nanoseconds.
	Wall   time.Duration `json:"wall"`
	Files  int           `json:"files"`
	Parsed int           `json:"parsed"`
	Points int           `json:"points"`
	Jobs   int           `json:"jobs"`
}

// childRuns is how many times a child repeats its work; it reports the median.
const childRuns = 3

func runChild(name string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "bench %s %s: expected the shared folder, found %q\n", childFlag, name, args)
		return 2
	}
	files, err := corpusBlueprints(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	var rep childReport
	switch name {
	case "parse":
		rep = parseCorpus(files)
	case "score":
		rep = scoreCorpus(files)
	default:
		fmt.Fprintf(stderr, "bench %s: expected parse or score, found %q\n", childFlag, name)
		return 2
	}
	if err := json.NewEncoder(stdout).Encode(rep); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	return 0
}

type corpusFile struct {
	rel  string
	data []byte
}

// corpusBlueprints reads every blueprint (.yml, .yaml, .json) of the shared corpus.
func corpusBlueprints(shared string) ([]corpusFile, error) {
	root := filepath.Join(shared, "corpus", "weval-configs", "blueprints")
	found, err := testutil.ReadFiles(root, root, 0, ".yml", ".yaml", ".json")
	files := make([]corpusFile, len(found))
	for i, f := range found {
		files[i] = corpusFile{rel: f.Path, data: f.Data}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the blueprint corpus: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: expected blueprints, found none", root)
	}
	return files, nil
}

// median runs f childRuns times and returns the median wall time.
func median(f func()) time.Duration {
	walls := make([]time.Duration, childRuns)
	for i := range walls {
		start := time.Now()
		f()
		walls[i] = time.Since(start)
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	return walls[len(walls)/2]
}

// parseCorpus parses every blueprint of the corpus (spec/quality.md: ≤ 1 s in total).
func parseCorpus(files []corpusFile) childReport {
	rep := childReport{Files: len(files)}
	rep.Wall = median(func() {
		rep.Parsed = 0
		for _, f := range files {
			if _, err := blueprint.Parse(f.data, blueprint.ParseOptions{File: f.rel}); err == nil {
				rep.Parsed++
			}
		}
	})
	return rep
}

// scoreCorpus scores every function point of the corpus against a synthetic response per
// prompt (spec/quality.md: ≤ 1 s in total): the prompt's ideal when it has one, else its last
// message, followed by a tool call, so regexes, word lists, scripts and trace functions all run
// on realistic text. It is the work of blueprint's BenchmarkScoreCorpusFunctionPoints.
func scoreCorpus(files []corpusFile) childReport {
	type job struct {
		rubric  blueprint.Rubric
		subject blueprint.Subject
	}
	var jobs []job
	rep := childReport{Files: len(files)}
	for _, f := range files {
		bp, err := blueprint.Parse(f.data, blueprint.ParseOptions{File: f.rel})
		if err != nil {
			continue
		}
		rep.Parsed++
		for _, p := range bp.Prompts {
			var r blueprint.Rubric
			for _, block := range []struct {
				in  []blueprint.Entry
				out *[]blueprint.Entry
			}{{p.Rubric().Should, &r.Should}, {p.ShouldNot, &r.ShouldNot}} {
				for _, e := range block.in {
					if e.Point != nil && e.Point.IsFunction() {
						*block.out = append(*block.out, e)
						rep.Points++
					} else if e.IsPath() {
						var path []*blueprint.Point
						for _, pt := range e.Path {
							if pt.IsFunction() {
								path = append(path, pt)
								rep.Points++
							}
						}
						if len(path) > 0 {
							*block.out = append(*block.out, blueprint.Entry{Path: path})
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
			jobs = append(jobs, job{rubric: r, subject: blueprint.Subject{Text: strings.TrimSpace(text), PromptID: p.ID, ModelID: "bench:model"}})
		}
	}
	rep.Jobs = len(jobs)
	ctx := context.Background()
	rep.Wall = median(func() {
		for _, j := range jobs {
			_ = blueprint.ScoreRubric(ctx, j.rubric, j.subject, blueprint.Env{})
		}
	})
	return rep
}
