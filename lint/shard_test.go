package lint

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "1/4": {1, 4}, "4/4": {4, 4}, "3/10": {3, 10}, "10000/10000": {10000, 10000}} {
		got, err := ParseShard(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, reason := range map[string]string{
		"":        `no "/"`,
		"3":       `no "/"`,
		"0/4":     "K must be 1 to N",
		"5/4":     "K must be 1 to N",
		"-1/4":    "K must be 1 to N",
		"1/0":     "N must be 1 to 10000",
		"1/10001": "N must be 1 to 10000",
		"a/4":     "K is not a whole number",
		"1/b":     "N is not a whole number",
		"+1/4":    "K is not a whole number",
		"1/+4":    "N is not a whole number",
		"1/4/5":   "N is not a whole number",
		" 1/4":    "K is not a whole number",
	} {
		_, err := ParseShard(in)
		var se *ShardError
		want := fmt.Sprintf("expected K/N, the share K of N (whole numbers, 1 ≤ K ≤ N ≤ 10000), found %q: %s", in, reason)
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("ParseShard(%q) = %v, want %q", in, err, want)
		}
	}
}

// TestShardPlan splits a plan of 60 files in 4 shares: every file is in exactly one share, the
// shares are not far from even, and a file's share depends on its path only.
func TestShardPlan(t *testing.T) {
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
		s := Shard{K: k, N: 4}
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
	if got := []bool{Shard{1, 4}.Has("docs/d00.md"), Shard{2, 4}.Has("docs/d00.md"), Shard{3, 4}.Has("docs/d00.md"), Shard{4, 4}.Has("docs/d00.md")}; !slices.Equal(got, []bool{true, false, false, false}) {
		t.Errorf("docs/d00.md shares: %v", got)
	}
	if !(Shard{1, 1}).Has("anything") {
		t.Error("1/1 does not hold every file")
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/3", "0/1", "1/0", "a/b", "/", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			var se *ShardError
			if !errors.As(err, &se) {
				t.Fatalf("%q: error %T", s, err)
			}
			return
		}
		if sh.K < 1 || sh.K > sh.N || sh.N > MaxShards {
			t.Fatalf("%q → %v", s, sh)
		}
		// Every path is in exactly one share.
		n := 0
		for k := 1; k <= min(sh.N, 50); k++ {
			if (Shard{K: k, N: sh.N}).Has(s) {
				n++
			}
		}
		if sh.N <= 50 && n != 1 {
			t.Fatalf("%q is in %d shares of %d", s, n, sh.N)
		}
	})
}
