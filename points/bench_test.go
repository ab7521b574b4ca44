package points

import (
	"context"
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkJSPoint measures one $js evaluation: a fresh sandbox with its size checks (jsGuards),
// the script, and the memory watchdog of its pool.
func BenchmarkJSPoint(b *testing.B) {
	pool := NewJSPool()
	prog, err := compileJS("$js", "r.split(' ').length === 2")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := runJS(context.Background(), pool, prog, 0, func(vm *goja.Runtime) error { return vm.Set("r", "hello world") }); err != nil {
			b.Fatal(err)
		}
	}
}
