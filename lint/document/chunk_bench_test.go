package document

import (
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// BenchmarkSplitChunks splits a 20,000-word document into chunks (spec/quality.md: the long
// document scenario).
func BenchmarkSplitChunks(b *testing.B) {
	text := testutil.LongText(20000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		SplitChunks(text, 0, 1, 0)
	}
}
