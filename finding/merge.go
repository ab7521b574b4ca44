package finding

import (
	"fmt"
	"slices"
	"strings"
)

// MergeError is two results that cannot be joined.
type MergeError struct {
	Path   string
	First  string
	Second string
}

// Error names the file and both documents.
func (e *MergeError) Error() string {
	return fmt.Sprintf("%s is in both %s and %s: the results to merge must be of different files (the shares of one --shard run)", e.Path, e.First, e.Second)
}

// Merge joins the results of several runs over different files (the jobs of a --shard run)
// into one: the files in path order, the skipped files once each, the run errors with the same
// cause added up, the totals recounted from the files, the usage added up (its cost when any
// run has one). names name the results in errors. A file in two results is a *MergeError.
func Merge(results []*Result, names []string) (*Result, error) {
	out := &Result{}
	from := map[string]string{}
	skipped := map[string]bool{}
	causes := map[string]int{}
	for i, r := range results {
		if out.Version == "" {
			out.Version = r.Version
		}
		for _, fr := range r.Files {
			if first, ok := from[fr.Path]; ok {
				return nil, &MergeError{Path: fr.Path, First: first, Second: names[i]}
			}
			from[fr.Path] = names[i]
			out.Files = append(out.Files, fr)
		}
		for _, s := range r.Skipped {
			if !skipped[s.Path] {
				skipped[s.Path] = true
				out.Skipped = append(out.Skipped, s)
			}
		}
		for _, e := range r.RunErrors {
			if j, ok := causes[e.Message]; ok {
				out.RunErrors[j].NotRun += e.NotRun
				continue
			}
			causes[e.Message] = len(out.RunErrors)
			out.RunErrors = append(out.RunErrors, e)
		}
		u := r.Usage
		out.Usage.Calls += u.Calls
		out.Usage.CachedCalls += u.CachedCalls
		out.Usage.InputTokens += u.InputTokens
		out.Usage.OutputTokens += u.OutputTokens
		out.Usage.CachedInputTokens += u.CachedInputTokens
		out.Usage.CacheWriteTokens += u.CacheWriteTokens
		if u.Cost != nil {
			c := *u.Cost
			if out.Usage.Cost != nil {
				c += *out.Usage.Cost
			}
			out.Usage.Cost = &c
		}
	}
	slices.SortFunc(out.Files, func(a, b FileResult) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(out.Skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	for _, fr := range out.Files {
		out.Summary.Add(fr)
	}
	return out, nil
}
