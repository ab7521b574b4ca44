package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/internal/corpusbench"
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
// prompt (spec/quality.md: ≤ 1 s in total), the work of blueprint's
// BenchmarkScoreCorpusFunctionPoints (package corpusbench builds it for both).
func scoreCorpus(files []corpusFile) childReport {
	in := make([]corpusbench.File, len(files))
	for i, f := range files {
		in[i] = corpusbench.File{Path: f.rel, Data: f.data}
	}
	work := corpusbench.FunctionPoints(in)
	rep := childReport{Files: len(files), Parsed: work.Parsed, Points: work.Points, Jobs: len(work.Jobs)}
	ctx := context.Background()
	rep.Wall = median(func() { work.Score(ctx) })
	return rep
}
