package selection

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is one of N shares of a run's files (--shard K/N), so that N CI jobs split a large
// repository: every file is in exactly one share, the same one in every run, whatever the
// machine, the order of PATHs or the other files.
type Shard struct {
	// K is the share (1 to N), N the number of shares.
	K, N int
}

// maxShards bounds N.
const maxShards = 10000

// ShardError is a --shard value that is not K/N with 1 ≤ K ≤ N.
type ShardError struct {
	Value  string
	Reason string
}

// Error quotes the value and says what was expected.
func (e *ShardError) Error() string {
	return fmt.Sprintf("expected K/N, the share K of N (whole numbers, 1 ≤ K ≤ N ≤ %d), found %q: %s", maxShards, e.Value, e.Reason)
}

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, &ShardError{Value: s, Reason: "no \"/\""}
	}
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	switch {
	case kerr != nil || strings.HasPrefix(ks, "+"):
		return Shard{}, &ShardError{Value: s, Reason: "K is not a whole number"}
	case nerr != nil || strings.HasPrefix(ns, "+"):
		return Shard{}, &ShardError{Value: s, Reason: "N is not a whole number"}
	case n < 1 || n > maxShards:
		return Shard{}, &ShardError{Value: s, Reason: fmt.Sprintf("N must be 1 to %d", maxShards)}
	case k < 1 || k > n:
		return Shard{}, &ShardError{Value: s, Reason: "K must be 1 to N"}
	}
	return Shard{K: k, N: n}, nil
}

// String is "K/N".
func (s Shard) String() string { return strconv.Itoa(s.K) + "/" + strconv.Itoa(s.N) }

// Has reports whether the file with this path (slash-separated, relative to the configuration
// file's folder) is in the share: the FNV-1a 64-bit hash of the path, modulo N, is K − 1.
func (s Shard) Has(path string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(path))
	return h.Sum64()%uint64(s.N) == uint64(s.K-1)
}
