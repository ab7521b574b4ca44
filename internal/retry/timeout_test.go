package retry_test

import (
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/retry"
)

func TestParseTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"2s", 2 * time.Second}, {"90s", 90 * time.Second}, {"2m", 2 * time.Minute}, {"1m30s", 90 * time.Second},
		{"500ms", 500 * time.Millisecond}, {"90", 90 * time.Second}, {" 2.5 ", 2500 * time.Millisecond}, {"24h", 24 * time.Hour},
		{"86400", 24 * time.Hour},
	}
	for _, tt := range tests {
		if got, err := retry.ParseTimeout(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseTimeout(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "0", "0s", "-5", "-1s", "abc", "2 minutes", "NaN", "Inf", "1e300", "25h", "86401", "1x"} {
		_, err := retry.ParseTimeout(in)
		want := `expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h, found "` + in + `"`
		if err == nil || err.Error() != want {
			t.Errorf("ParseTimeout(%q): %v", in, err)
		}
	}
}

// FuzzParseTimeout: any input is either an error or a duration in (0, MaxTimeout], and the
// duration's own text parses back to itself.
func FuzzParseTimeout(f *testing.F) {
	for _, s := range []string{"2s", "90", "2.5", "1m30s", "-1", "NaN", "1e9", "0x10", "25h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := retry.ParseTimeout(s)
		if err != nil {
			return
		}
		if d <= 0 || d > retry.MaxTimeout {
			t.Fatalf("ParseTimeout(%q) = %v, outside (0, %v]", s, d, retry.MaxTimeout)
		}
		if back, err := retry.ParseTimeout(d.String()); err != nil || back != d {
			t.Fatalf("ParseTimeout(%q) = %v, which reads back as %v, %v", s, d, back, err)
		}
	})
}
