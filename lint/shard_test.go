package lint

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vectorlint/vectorlint/lint/selection"
)

// TestShardPlan splits a plan of 60 files in 4 shares: every file is in exactly one share, the
// shares are not far from even, and a file's share depends on its path only.
func TestShardPlan(t *testing.T) {
	t.Parallel()
	files := map[string]string{"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\n---\nFind wordy phrases.\n"}
	for i := range 60 {
		files[fmt.Sprintf("docs/d%02d.md", i)] = "# Doc\n"
	}
	for i := range 8 {
		files[fmt.Sprintf("docs/n%d.txt", i)] = "skipped\n"
	}
	dir, proj := loadTestProject(t, files)
	var all, skipped []string
	for k := 1; k <= 4; k++ {
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs/**"}, Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		total, totalSkipped := len(plan.Files), len(plan.Skipped)
		s := selection.Shard{K: k, N: 4}
		plan.Shard(s)
		if n := len(plan.Files); n < 8 || n > 22 {
			t.Errorf("share %v has %d of %d files", s, n, total)
		}
		for _, f := range plan.Files {
			if !s.Has(f.RelPath) {
				t.Errorf("%s is in share %v but Has says no", f.Path, s)
			}
			all = append(all, f.Path)
		}
		for _, sk := range plan.Skipped {
			skipped = append(skipped, sk.Path)
		}
		if k == 4 && (len(all) != total || len(skipped) != totalSkipped) {
			t.Errorf("the shares hold %d files and %d skipped, want %d and %d", len(all), len(skipped), total, totalSkipped)
		}
	}
	slices.Sort(all)
	if len(slices.Compact(all)) != 60 {
		t.Errorf("files in more than one share")
	}
	// The share of a path is fixed: FNV-1a 64 of "docs/d00.md" mod 4.
	if got := []bool{selection.Shard{K: 1, N: 4}.Has("docs/d00.md"), selection.Shard{K: 2, N: 4}.Has("docs/d00.md"), selection.Shard{K: 3, N: 4}.Has("docs/d00.md"), selection.Shard{K: 4, N: 4}.Has("docs/d00.md")}; !slices.Equal(got, []bool{true, false, false, false}) {
		t.Errorf("docs/d00.md shares: %v", got)
	}
	if !(selection.Shard{K: 1, N: 1}).Has("anything") {
		t.Error("1/1 does not hold every file")
	}
}
