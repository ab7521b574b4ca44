package selection

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
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
		if sh.K < 1 || sh.K > sh.N || sh.N > maxShards {
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
