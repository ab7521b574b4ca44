package runwide

import (
	"errors"
	"fmt"
	"testing"
)

// stopped and unconfigured stand for llm.StopError and llm.NotConfiguredError: errors whose Is
// method matches a sentinel.
type stopped struct{ host string }

func (e *stopped) Error() string        { return "stopped " + e.host }
func (e *stopped) Is(target error) bool { return target == ErrStopped }

type unconfigured struct{}

func (e *unconfigured) Error() string        { return "not configured" }
func (e *unconfigured) Is(target error) bool { return target == ErrNotConfigured }

// pass is a wrapper whose Is delegates: it must not be taken for what it wraps.
type pass struct{ err error }

func (e *pass) Error() string        { return "pass: " + e.err.Error() }
func (e *pass) Unwrap() error        { return e.err }
func (e *pass) Is(target error) bool { return false }

func TestFind(t *testing.T) {
	t.Parallel()
	a, b, nc := &stopped{"a"}, &stopped{"b"}, &unconfigured{}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"nil", nil, nil},
		{"plain", errors.New("x"), nil},
		{"a stop", a, a},
		{"wrapped", fmt.Errorf("judge: %w", a), a},
		{"through a wrapper with Is", &pass{a}, a},
		{"not configured", fmt.Errorf("m: %w", nc), nc},
		{"a stop wins over not configured, wherever it is", errors.Join(nc, errors.New("x"), fmt.Errorf("w: %w", b)), b},
		{"the first stop, depth first", errors.Join(errors.Join(errors.New("x"), a), b), a},
	}
	for _, tt := range tests {
		if got := Find(tt.err); got != tt.want {
			t.Errorf("%s: Find = %v, want %v", tt.name, got, tt.want)
		}
		if tt.want != nil && !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: the result is not in the tree", tt.name)
		}
	}
}
