package gitdiff

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseNameStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []Change
		err  string
	}{
		{name: "empty", in: "", want: nil},
		{
			name: "every status",
			in:   "M\x00docs/a.md\x00A\x00new.md\x00D\x00gone.md\x00R087\x00old name.md\x00new name.md\x00C100\x00src.md\x00copy.md\x00T\x00link.md\x00",
			want: []Change{
				{Status: Modified, Path: "docs/a.md"},
				{Status: Added, Path: "new.md"},
				{Status: Deleted, Path: "gone.md"},
				{Status: Renamed, Score: 87, OldPath: "old name.md", Path: "new name.md"},
				{Status: Copied, Score: 100, OldPath: "src.md", Path: "copy.md"},
				{Status: TypeChanged, Path: "link.md"},
			},
		},
		{
			name: "any byte but NUL in a name",
			in:   "M\x00line\nbreak \x1b[31m::error::x.md\x00A\x00-rf\x00",
			want: []Change{{Status: Modified, Path: "line\nbreak \x1b[31m::error::x.md"}, {Status: Added, Path: "-rf"}},
		},
		{name: "no final NUL", in: "M\x00a.md", want: []Change{{Status: Modified, Path: "a.md"}}},
		{name: "unknown status", in: "Z\x00a.md\x00", err: `git diff --name-status: entry 1: expected a status letter (A, C, D, M, R, T, U, X or B), found "Z"`},
		{name: "rename without new path", in: "M\x00a.md\x00R100\x00a.md\x00", err: "entry 2: expected a path after R100, found the end of the output"},
		{name: "empty name", in: "M\x00\x00", err: "entry 1: expected a path after M, found an empty name"},
		{name: "bad score", in: "R1x\x00a\x00b\x00", err: `entry 1: expected a similarity score of 0 to 100 after the status letter, found "R1x"`},
		{name: "score over 100", in: "R101\x00a\x00b\x00", err: `found "R101"`},
		{name: "signed score", in: "R+10\x00a\x00b\x00", err: `found "R+10"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNameStatus([]byte(tt.in))
			if tt.err != "" {
				var pe *ParseError
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &pe) {
					t.Fatalf("err = %v, want a *ParseError containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseNames(t *testing.T) {
	t.Parallel()
	got := ParseNames([]byte("a.md\x00dir/b c.md\x00"))
	want := []Change{{Status: Untracked, Path: "a.md"}, {Status: Untracked, Path: "dir/b c.md"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseHunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Lines
		err  string
	}{
		{name: "no hunk", in: "diff --git a/x b/x\nindex 1..2 100644\n", want: nil},
		{
			name: "changes, an addition, a deletion and the default count",
			in: "diff --git a/a.md b/a.md\n--- a/a.md\n+++ b/a.md\n" +
				"@@ -3 +3 @@ # Title\n-old\n+new\n" +
				"@@ -10,0 +11,2 @@\n+added\n+added\n" +
				"@@ -20,3 +21,0 @@\n-x\n-y\n-z\n" +
				"@@ -30,2 +29,3 @@ section\n-a\n-b\n+c\n+d\n+e\n",
			want: Lines{{3, 3}, {11, 12}, {29, 31}},
		},
		{name: "touching ranges merge", in: "@@ -1 +1 @@\n@@ -2,0 +2,2 @@\n", want: Lines{{1, 3}}},
		{name: "a content line that looks like a header is prefixed", in: "+@@ -1 +1 @@\n", want: nil},
		{name: "new file", in: "@@ -0,0 +1,4 @@\n", want: Lines{{1, 4}}},
		{name: "deleted to empty", in: "@@ -1,4 +0,0 @@\n", want: nil},
		{name: "malformed", in: "@@ -1 +x @@\n", err: `git diff -U0: entry 1: expected a hunk header @@ -A,B +C,D @@, found "@@ -1 +x @@"`},
		{name: "zero start with a count", in: "@@ -1 +0,2 @@\n", err: "entry 1"},
		{name: "huge numbers", in: "@@ -1 +99999999999999999999,1 @@\n", err: "entry 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHunks([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLinesOverlaps(t *testing.T) {
	t.Parallel()
	l := Lines{{3, 5}, {10, 10}, {20, 30}}
	tests := []struct {
		first, last int
		want        bool
	}{
		{1, 2, false}, {1, 3, true}, {5, 9, true}, {6, 9, false}, {10, 10, true}, {11, 19, false},
		{19, 20, true}, {25, 25, true}, {31, 40, false}, {1, 100, true},
	}
	for _, tt := range tests {
		if got := l.Overlaps(tt.first, tt.last); got != tt.want {
			t.Errorf("Overlaps(%d, %d) = %v, want %v", tt.first, tt.last, got, tt.want)
		}
	}
	if l.Contains(6) || !l.Contains(4) || l.Count() != 3+1+11 {
		t.Errorf("Contains(6) = %v, Contains(4) = %v, Count = %d", l.Contains(6), l.Contains(4), l.Count())
	}
	if Lines(nil).Overlaps(1, 10) {
		t.Error("nil Lines overlap")
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	got := Normalize([]Range{{10, 12}, {1, 2}, {5, 4}, {3, 3}, {11, 20}, {22, 22}})
	want := Lines{{1, 3}, {10, 20}, {22, 22}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestCheckRef(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"main", "origin/main", "v1.2.3", "HEAD~2", "1a2b3c4d", "feature/ünïcode"} {
		if err := CheckRef(ok); err != nil {
			t.Errorf("CheckRef(%q) = %v", ok, err)
		}
	}
	for ref, want := range map[string]string{
		"":                 `REF "": expected a branch, tag or commit, found nothing`,
		"--output=/tmp/x":  `REF "--output=/tmp/x": a revision may not start with "-" (it would be read as an option)`,
		"-h":               `may not start with "-"`,
		"main\n--evil":     "white space or control characters",
		"main branch":      "white space or control characters",
		"main\x1b[31m":     "white space or control characters",
		"origin/main\x00x": "white space or control characters",
	} {
		err := CheckRef(ref)
		var be *BadRefError
		if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &be) {
			t.Errorf("CheckRef(%q) = %v, want a *BadRefError containing %q", ref, err, want)
		}
	}
}

func FuzzParseNameStatus(f *testing.F) {
	for _, s := range []string{"", "M\x00a.md\x00", "R100\x00a\x00b\x00", "C050\x00a\x00b\x00D\x00c\x00", "Z\x00", "R\x00a\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ParseNameStatus(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for _, c := range cs {
			if c.Path == "" || strings.ContainsRune(c.Path, 0) || ((c.Status == Renamed || c.Status == Copied) != (c.OldPath != "")) ||
				c.Score < 0 || c.Score > 100 {
				t.Fatalf("bad change %+v from %q", c, data)
			}
		}
	})
}

func FuzzParseHunks(f *testing.F) {
	for _, s := range []string{"", "@@ -1 +1 @@\n", "@@ -3,2 +4,0 @@\n@@ -1 +2,5 @@ x\n", "@@ -", "@@ -1 +1,"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseHunks(data)
		if err != nil {
			return
		}
		for i, r := range l {
			if r.First < 1 || r.Last < r.First || (i > 0 && r.First <= l[i-1].Last+1) {
				t.Fatalf("ranges %v are not normalised (from %q)", l, data)
			}
		}
	})
}
