package points

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// TestJSSizeLimits checks that the built-ins that turn a short script into a huge value are
// refused before they start (they cannot be interrupted once running), while ordinary uses
// of the same built-ins work as in JavaScript.
func TestJSSizeLimits(t *testing.T) {
	// Not parallel: some of its scripts build values of megabytes before the guard refuses the
	// call, and the memory watchdog measures the whole process's heap, which other tests'
	// allocations would move. Its scripts run under a limit far off, so load cannot stop them.
	limit := fmt.Sprint(maxJSString)
	refused := []struct{ code, what, unit string }{
		{"'x'.repeat(2**27).length > 0", "String.prototype.repeat", "characters"},
		{"'ab'.repeat(2**21 + 1)", "String.prototype.repeat", "characters"},
		{"'x'.padStart(2**30)", "String.prototype.padStart", "characters"},
		{"'x'.padEnd(1e9, 'y')", "String.prototype.padEnd", "characters"},
		{"new Array(2**24).join('xxxxxxxx')", "Array.prototype.join", "characters"},
		{"const s = 'x'.repeat(100000); const a = []; for (let i = 0; i < 50; i++) a.push(s); a.join('')", "Array.prototype.join", "characters"},
		{"new Array(1e8).fill(0)", "Array.prototype.fill", "elements"},
		{"Array.from({length: 1e8})", "Array.from", "elements"},
		{"let x = [1]; for (let i = 0; i < 24; i++) x = [x, x]; JSON.stringify(x)", "JSON.stringify", "characters"},
		{"const s = 'x'.repeat(100000); const a = []; for (let i = 0; i < 50; i++) a.push({s}); JSON.stringify(a)", "JSON.stringify", "characters"},
	}
	for _, tt := range refused {
		_, err := evalPoint(t, "js", tt.code, "")
		want := "JavaScript threw: RangeError: " + tt.what + ": the result would have more than " + limit + " " + tt.unit + ", the $js limit"
		if err == nil || err.Error() != want {
			t.Errorf("js %q: error %v\nwant %s", tt.code, err, want)
		}
	}
	allowed := []struct {
		code string
		want float64
	}{
		{"'ab'.repeat(3) === 'ababab' && 'x'.repeat(0) === '' && 'x'.repeat(1000).length === 1000", 1},
		{"'7'.padStart(3, '0') === '007' && 'a'.padEnd(3) === 'a  '", 1},
		{"[1, null, 'x', [2, 3]].join('-') === '1--x-2,3' && [].join() === '' && [1,2].join() === '1,2'", 1},
		{"new Array(3).fill(0).join('') === '000' && Array.from('abc').length === 3 && Array.from([1,2], x => x * 2)[1] === 4", 1},
		{"JSON.stringify({a: [1, 'x', null], b: {c: true}}) === '{\"a\":[1,\"x\",null],\"b\":{\"c\":true}}'", 1},
		{"JSON.stringify({a: 1}, null, 2) === '{\\n  \"a\": 1\\n}'", 1},
		{"r.split(' ').join('_') === 'a_b_c'", 1},
	}
	for _, tt := range allowed {
		r, err := evalPoint(t, "js", tt.code, "a b c")
		if err != nil || r.score != tt.want {
			t.Errorf("js %q = %v, %v; want %v", tt.code, r.score, err, tt.want)
		}
	}
	// A cycle is still reported by JSON.stringify itself.
	_, err := evalPoint(t, "js", "const o = {}; o.self = o; JSON.stringify(o)", "")
	if err == nil || !strings.HasPrefix(err.Error(), "JavaScript threw: TypeError") {
		t.Errorf("cyclic JSON.stringify: %v", err)
	}
}

// TestJSSandbox checks that a script has no I/O, no modules and no timers, and that what it
// returns is bounded.
func TestJSSandbox(t *testing.T) {
	t.Parallel() // its scripts run under calmJSLimit, which no load makes them miss
	for _, name := range []string{"require", "process", "fetch", "XMLHttpRequest", "setTimeout", "setInterval", "console", "Deno", "Bun", "globalThis.require", "module", "exports"} {
		r, err := evalPoint(t, "js", "typeof "+name+" === 'undefined'", "")
		if err != nil || r.score != 1 {
			t.Errorf("%s is defined in $js (%v)", name, err)
		}
	}
	for _, tt := range []struct{ code, want string }{
		{"import('fs')", "$js: JavaScript does not compile: SyntaxError: $js: Line 1:1 Unexpected reserved word"},
		{"import fs from 'fs'", "$js: JavaScript does not compile: SyntaxError: $js: Line 1:1 Unexpected reserved word"},
	} {
		_, err := evalPoint(t, "js", tt.code, "")
		if err == nil || err.Error() != tt.want {
			t.Errorf("js %q: %v\nwant %s", tt.code, err, tt.want)
		}
	}
	// The explanation a script returns and the message it throws are clipped.
	r, err := evalPoint(t, "js", "({score: 1, explain: 'y'.repeat(1e4)})", "")
	if err != nil || len([]rune(r.explain)) != maxJSText+1 || !strings.HasSuffix(r.explain, "y…") {
		t.Errorf("explain of %d runes, %v; want %d runes and an ellipsis", len([]rune(r.explain)), err, maxJSText+1)
	}
	_, err = evalPoint(t, "js", "throw new Error('z'.repeat(1e4))", "")
	if err == nil || len(err.Error()) > 400 {
		t.Errorf("thrown message of %d bytes", len(err.Error()))
	}
}

// TestJSTimeLimitWhileABuiltinRuns checks that runJS returns at its time limit even while
// the script is inside a built-in call that goja cannot interrupt: here a Go function that
// blocks until the test lets it go, standing in for a long native call.
func TestJSTimeLimitWhileABuiltinRuns(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	returned := make(chan struct{})
	prog, err := compileJS("$js", "block(); while (true) {}")
	if err != nil {
		t.Fatal(err)
	}
	_, err = runJS(context.Background(), nil, prog, 0, func(vm *goja.Runtime) error {
		return vm.Set("block", func() {
			<-release
			close(returned)
		})
	})
	if err == nil || err.Error() != "JavaScript ran longer than 100ms and was stopped" {
		t.Errorf("error %v", err)
	}
	select {
	case <-returned:
		t.Fatal("runJS waited for the blocked built-in")
	default:
	}
	close(release) // the abandoned script now ends at its next instruction
	<-returned

	// A canceled run is reported as canceled, blocked built-in or not.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	release2 := make(chan struct{})
	defer close(release2)
	_, err = runJS(ctx, nil, prog, 0, func(vm *goja.Runtime) error {
		return vm.Set("block", func() { <-release2 })
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}
