package points

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// stoppedMessage is the error of a script stopped at the default time limit.
const stoppedMessage = "JavaScript ran longer than 100ms and was stopped"

// TestJSRegexpKeepsJavaScript checks that the regular expressions of a script behave as in
// JavaScript now that every pattern carries jsRegexpSuffix: matches, groups, flags, lastIndex,
// and what source and toString show.
func TestJSRegexpKeepsJavaScript(t *testing.T) {
	t.Parallel()
	for _, code := range []string{
		`/a(b)c/.exec('xabcx')[1] === 'b' && /a(b)c/.exec('xabcx').index === 1 && /^$/.test('')`,
		`/ab/gi.source === 'ab' && /ab/gi.flags === 'gi' && String(/a\/b/m) === '/a\\/b/m' && /x|y/.toString() === '/x|y/'`,
		`new RegExp('').source === '(?:)' && String(new RegExp('')) === '/(?:)/' && RegExp.prototype.source === '(?:)'`,
		`new RegExp('a/b').test('a/b') && RegExp('x', 'g').toString() === '/x/g' && new RegExp(/ab/i).source === 'ab'`,
		`new RegExp(/ab/i, 'g').flags === 'g' && new RegExp(/ab/i, 'g').test('AB') === false && new RegExp(/ab/i).test('AB')`,
		`new RegExp('(?=)').source === '(?=)' && new RegExp('a(?=)').test('a') && /(?=)/.source === '(?=)'`,
		`RegExp.prototype.toString.call({source: 'x', flags: 'g'}) === '/x/g'`,
		`'a-b-c'.split(/-/).join() === 'a,b,c' && 'a1b2c'.split(/(\d)/).length === 5 && 'abc'.split(/(?:)/).length === 3`,
		`'aXbxc'.replace(/x/gi, '_') === 'a_b_c' && 'aXbxc'.replace(/x/i, '_') === 'a_bxc' && 'a.b'.replaceAll(/\./g, '$&$&') === 'a..b'`,
		`'abc'.match('b')[0] === 'b' && 'abc'.search('c') === 2 && [...'a1b2'.matchAll('[0-9]')].length === 2 && 'x'.match() [0] === ''`,
		`'a1b22'.match(/\d+/g).join() === '1,22' && /(?<y>\d{4})/.exec('in 2024').groups.y === '2024' && /(?<=\$)\d+/.exec('$42')[0] === '42'`,
		`(function () { var r = /a/y; r.lastIndex = 1; return r.test('ba') && r.lastIndex === 2 })()`,
		`(function () { var r = /a/g; r.test('aa'); return r.lastIndex === 1 && r.exec('aa').index === 1 })()`,
		`(function () { var r = /a/; r.compile('z+', 'g'); return r.test('zz') && r.source === 'z+' && r.global })()`,
		`/\u{1F600}/u.test('😀') && /^.$/u.test('😀') && /é/i.test('É') && /^\w+$/.test('abc_1')`,
		`(function () { class R extends RegExp {}; var r = new R('b+'); return r instanceof R && r.source === 'b+' && 'abbc'.split(r).length === 2 })()`,
		`(function () { try { new RegExp('('); return false } catch (e) { return e instanceof SyntaxError } })()`,
		`(function () { try { 'x'.match(Symbol()); return false } catch (e) { return e instanceof TypeError } })()`,
	} {
		r, err := evalPoint(t, "js", code, "")
		if err != nil || r.score != 1 {
			t.Errorf("js %s = %v, %v; want 1", code, r.score, err)
		}
	}
}

// TestJSRegexpBounded gives scripts regular expressions that run for minutes or for ever: each
// script is reported as stopped at its time limit, whichever engine goja would have picked
// (backtracking on a lookahead; Go's regexp, linear yet slow, on x{1000}z) and whatever calls
// the matches (test, a global replace finding thousands of slow matches in one call, split,
// match, a pattern built at run time or from a string).
func TestJSRegexpBounded(t *testing.T) {
	// Not parallel: its catastrophic scripts keep every CPU busy for a moment, and the tests that
	// run scripts under a 100 ms limit must not share them (parallel tests run after this one).
	const text = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" // 40 a, no b
	pool := NewJSPool()
	for _, code := range []string{
		`/(?=(a+)+b)/.test(r)`,
		`/(a+)+b/.test(r)`,
		`new RegExp('(a|aa)+$').test(r + '!')`,
		`r.match('(a+)+b')`,
		`r.search('(a+)+b') >= 0`,
		`'x'.repeat(4e6).search(/x{1000}z/) >= 0`,
		`/x{1000}z/.test('x'.repeat(4e6))`,
		`('a'.repeat(18) + 'c').repeat(200000).replace(/(?=(a+)+b)|c/g, '').length > 0`,
		`('a'.repeat(18) + 'c').repeat(200000).split(/(?=(a+)+b)|c/).length > 0`,
		`('a'.repeat(18) + 'c').repeat(200000).match(/(?=(a+)+b)|c/g).length > 0`,
		`try { /(?=(a+)+b)/.test(r) } catch (e) {} true`,
	} {
		prog, err := compileJS("$js", endless(code))
		if err != nil {
			t.Fatal(err)
		}
		_, err = runJS(context.Background(), pool, prog, 0, func(vm *goja.Runtime) error { return vm.Set("r", text) })
		if err == nil || err.Error() != stoppedMessage {
			t.Errorf("js %s: error %v, want %q", code, err, stoppedMessage)
		}
	}
	waitStopped(t, pool)
}

// endless repeats a hostile script for ever. One scan ends at jsRegexpTimeout with "no match",
// and regexp2 takes that bound from a clock goroutine that ticks every 100 ms: on a starved
// machine its stale reading can end a scan before the script's own limit, and the script then
// returned instead of being stopped. Repeated, the script reaches its limit however the machine
// runs it, and at the limit it is inside a scan as before.
func endless(code string) string { return "for (;;) { " + code + " }" }

// waitStopped waits for the goroutines of a pool's stopped scripts to end: each match they are
// in is bounded, so they do. The deadline only keeps a regression from hanging the test.
func waitStopped(t *testing.T, pool *JSPool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for pool.running() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := pool.running(); n > 0 {
		t.Errorf("%d stopped scripts still running", n)
	}
}

// TestJSStoppedScriptFreesItsSlot stops a script that is inside a built-in call the interrupt
// cannot reach (a Go function standing in for any long native call): its slot is free at once,
// so another script runs on the pool while the first is still blocked.
func TestJSStoppedScriptFreesItsSlot(t *testing.T) {
	t.Parallel()
	pool := newJSPool(1)
	blocked, err := compileJS("$js", "block(); true")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	_, err = runJS(context.Background(), pool, blocked, 0, func(vm *goja.Runtime) error {
		return vm.Set("block", func() { <-release })
	})
	if err == nil || err.Error() != stoppedMessage {
		t.Fatalf("blocked script: %v", err)
	}
	// The first script is still blocked: a second one must not wait for its slot. The context
	// only keeps a regression from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	simple, err := compileJS("$js", "1 + 1 === 2")
	if err != nil {
		t.Fatal(err)
	}
	v, err := runJS(ctx, pool, simple, time.Minute, func(*goja.Runtime) error { return nil })
	if err != nil || !v.ToBoolean() {
		t.Errorf("second script: %v, %v", v, err)
	}
}

// TestJSManyHostileScripts runs ten catastrophic scripts at once on a pool two wide (this
// machine's cores, as in the acceptance of spec/trust.md §8): every one is reported as
// stopped, every one's goroutine ends (no match runs on unbounded), and a legitimate script
// that uses a regular expression then passes.
func TestJSManyHostileScripts(t *testing.T) {
	// Not parallel: its catastrophic scripts keep every CPU busy for a moment, and the tests that
	// run scripts under a 100 ms limit must not share them (parallel tests run after this one).
	pool := newJSPool(2)
	hostile := []string{`/(?=(a+)+b)/.test(r)`, `/x{1000}z/.test('x'.repeat(4e6))`,
		`('a'.repeat(18) + 'c').repeat(200000).replace(/(?=(a+)+b)|c/g, '').length > 0`}
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prog, err := compileJS("$js", endless(hostile[i%len(hostile)]))
			if err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = runJS(context.Background(), pool, prog, 0, func(vm *goja.Runtime) error {
				return vm.Set("r", strings.Repeat("a", 40))
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || err.Error() != stoppedMessage {
			t.Errorf("script %d (%s): %v", i, hostile[i%len(hostile)], err)
		}
	}
	waitStopped(t, pool)
	legit, err := compileJS("$js", `/^(\w+)@(\w+)\.com$/.exec(r)[2] === 'example' && r.replace(/\w+/g, 'x') === 'x@x.x'`)
	if err != nil {
		t.Fatal(err)
	}
	// Under calmJSLimit: the stopped scripts' goroutines have ended, but another test binary may
	// still keep this one's waiting past the production limit.
	v, err := runJS(context.Background(), pool, legit, calmJSLimit, func(vm *goja.Runtime) error { return vm.Set("r", "me@example.com") })
	if err != nil || !v.ToBoolean() {
		t.Errorf("legitimate script: %v, %v", v, err)
	}
}

// TestJSRegexpOnlyRE2Accepts: a pattern that goja's Go-regexp path reads leniently but regexp2
// refuses (a Unicode property written Script=…) is a syntax error, as a literal when the script
// is prepared and at run time in the RegExp constructor, and the message shows the pattern as
// written.
func TestJSRegexpOnlyRE2Accepts(t *testing.T) {
	t.Parallel()
	const reason = `Invalid regular expression (regexp2): \p{Script=Greek} (Invalid regular expression (regexp2): \p{Script=Greek} (error parsing regexp: unknown unicode category, script, or property 'Script=Greek' in ` + "`" + `\p{Script=Greek}` + "`))"
	_, err := evalPoint(t, "js", `/\p{Script=Greek}/u.test(r)`, "")
	if want := "$js: JavaScript does not compile: SyntaxError: " + reason + " at $js:1:1"; err == nil || err.Error() != want {
		t.Errorf("literal: %v\nwant %s", err, want)
	}
	_, err = evalPoint(t, "js", `new RegExp('\\p{Script=Greek}', 'u').test(r)`, "")
	if want := "JavaScript threw: SyntaxError: " + reason; err == nil || err.Error() != want {
		t.Errorf("constructor: %v\nwant %s", err, want)
	}
}
