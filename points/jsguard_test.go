package points

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/vectorlint/vectorlint/points/rubric"
)

// TestJSGuardsKeepJavaScript runs ordinary uses of every built-in and syntax the sandbox checks
// (jsGuards, rewriteJS): each must give what JavaScript gives.
func TestJSGuardsKeepJavaScript(t *testing.T) {
	t.Parallel() // its scripts run under calmJSLimit, which no load makes them miss
	for _, code := range []string{
		// template literals (rewritten): conversions, escapes, nesting, tagged templates untouched
		"`a${1}b${'x'}c${null}${undefined}${[1,2]}${{toString(){return 'T'}}}` === 'a1bxcnullundefined1,2T'",
		"`line\\n${`in${2}ner`}\\u0041` === 'line\\nin2nerA' && `` === '' && `plain` === 'plain'",
		"String.raw`a\\n${1}b` === 'a\\\\n1b' && ((s, ...v) => s.raw.join('|') + v.join())`x${1}y${2}` === 'x|y|1,2'",
		"(() => { try { `${Symbol('s')}`; return false } catch (e) { return e instanceof TypeError } })()",
		"(() => { let n = 0; const o = {toString() { n++; return 'o' }}; `${o}${o}`; return n === 2 })()",
		// object spread and rest (rewritten)
		"JSON.stringify({...{a: 1}, ...'hi', ...null, ...[7]}) === '{\"0\":7,\"1\":\"i\",\"a\":1}'",
		"(() => { const {a, ...rest} = {a: 1, b: 2, c: 3}; return a === 1 && JSON.stringify(rest) === '{\"b\":2,\"c\":3}' })()",
		"(() => { const {0: first, ...more} = 'abc'; return first === 'a' && more[1] === 'b' && Object.keys(more).length === 2 })()",
		"(({x, ...r}) => x + Object.keys(r).length)({x: 1, y: 2}) === 2",
		"(() => { let r; ({...r} = {q: 1}); return r.q === 1 && !Object.getOwnPropertySymbols(r).length })()",
		"(() => { try { const {...r} = null; return false } catch (e) { return e instanceof TypeError } })()",
		// strings
		"'a-b-c'.split('-').length === 3 && 'abc'.split('').join() === 'a,b,c' && 'a1b2'.split(/(\\d)/).join() === 'a,1,b,2,' && 'a,b'.split(',', 1).length === 1",
		"'aXbX'.replace('X', '$&$&') === 'aXXbX' && 'aXbX'.replaceAll('X', '[$`]') === 'a[a]b[aXb]' && 'john smith'.replace(/(\\w+)\\s(\\w+)/, '$2, $1') === 'smith, john'",
		"'2020-01'.replace(/(?<y>\\d+)-(?<m>\\d+)/, '$<m>/$<y>') === '01/2020' && 'aaa'.replace(/a/g, (m, i) => i) === '012' && 'x'.replace('x', '$$') === '$'",
		"/a/[Symbol.replace]('banana', 'o') === 'bonana' && 'banana'.replaceAll(/an/g, '_') === 'b__a'",
		"'a1b22'.match(/\\d+/g).join() === '1,22' && 'abc'.match(/b/).index === 1 && [...'a1b2'.matchAll(/\\d/g)].length === 2 && 'abc'.search('c') === 2",
		"'ab'.concat(1, null, [2, 3]) === 'ab1null2,3' && ''.concat() === ''",
		"encodeURIComponent('é &') === '%C3%A9%20%26' && escape('é') === '%E9' && JSON.parse('[1,{\"a\":2}]')[1].a === 2",
		// arrays
		"[3,1,2].sort().join() === '1,2,3' && [1,2,3].map(x => x * 2).filter(x => x > 2).reduce((a, b) => a + b) === 10",
		"[1,[2,[3,[4]]]].flat(Infinity).join() === '1,2,3,4' && [1,2].flatMap(x => [x, x * 10]).join() === '1,10,2,20' && [[1],[2]].flat().length === 2",
		"[1].concat([2], 3, [[4]]).length === 4 && Array.prototype.concat.call(1, 2).length === 2",
		"[1,2,3].toReversed().join() === '3,2,1' && [1,2,3].with(0, 9)[0] === 9 && [1,2,3].at(-1) === 3 && [1,2,3].includes(2) && [1,2,3].indexOf(3) === 2",
		"[...[1,2,3]].length === 3 && [...'héllo'].length === 5 && Math.max(...[1, 5, 3]) === 5 && Array.from(new Set([1,1,2])).length === 2",
		"(() => { let s = 0; for (const [i, v] of ['a','b'].entries()) s += i; for (const c of 'ab') s += c.length; return s === 3 })()",
		"Math.max.apply(null, [1, 2, 3]) === 3 && Reflect.apply(Math.min, null, [4, 2]) === 2 && Reflect.construct(Date, [0]).getTime() === 0 && String.fromCharCode.apply(null, [104, 105]) === 'hi'",
		"Object.keys('ab').join() === '0,1' && Object.entries({a: 1})[0][1] === 1 && Object.assign({}, {a: 1}, 'x')[0] === 'x' && Reflect.ownKeys([1]).length === 2",
		"Object.create(null, {a: {value: 1}}).a === 1 && Object.defineProperties({}, {b: {value: 2}}).b === 2",
		// constructors: instanceof, constructor, subclasses, species, statics, calls without new
		"new Uint8Array([1, 2, 300])[2] === 44 && new Uint8Array(4) instanceof Uint8Array && new Float64Array(2).constructor === Float64Array",
		"Uint8Array.from([1, 2]).length === 2 && Uint8Array.of(7)[0] === 7 && Uint8Array.BYTES_PER_ELEMENT === 1 && new Int32Array(new ArrayBuffer(8)).length === 2",
		"new Uint8Array([1, 2, 3]).map(x => x * 2) instanceof Uint8Array && new Uint8Array([1, 2]).join('-') === '1-2' && new Uint8Array(3).subarray(1).length === 2",
		"(() => { class B extends Uint8Array {}; const b = new B(2); return b instanceof B && b instanceof Uint8Array && b.length === 2 })()",
		"new ArrayBuffer(16).byteLength === 16 && ArrayBuffer.isView(new Uint8Array(1)) && new DataView(new ArrayBuffer(4)).byteLength === 4",
		"/x/ instanceof RegExp && /x/.constructor === RegExp && RegExp('a+', 'g').global && new RegExp(/b/i).ignoreCase && new RegExp('c').test('abc')",
		"(() => { class R extends RegExp {}; return new R('a').test('a') && 'a,b'.split(new R(',')).length === 2 })()",
		"(function () {}) instanceof Function && (() => 1).constructor === Function && typeof Function.prototype.call === 'function'",
		// JSON.stringify, join (the checks that were there before)
		"JSON.stringify({a: [1, 'x', null]}) === '{\"a\":[1,\"x\",null]}' && [1, null, 'x'].join('-') === '1--x' && new Array(3).fill(0).join('') === '000'",
	} {
		r, err := evalPoint(t, "js", code, "hello")
		if err != nil || r.score != 1 {
			t.Errorf("js %s = %v, %v; want true", code, r.score, err)
		}
	}
}

// TestJSGuardsRefuse checks the error of each refused call: the built-in, the limit and the unit.
func TestJSGuardsRefuse(t *testing.T) {
	// Not parallel: some of its scripts build values of megabytes before the guard refuses the
	// call, and the memory watchdog measures the whole process's heap, which other tests'
	// allocations would move. Its scripts run under a limit far off, so load cannot stop them.
	for _, tt := range []struct{ code, want string }{
		{"new ArrayBuffer(2**40)", fmt.Sprintf("ArrayBuffer: more than %d bytes, the $js limit", JSMemoryBudget)},
		{"new Uint8Array(2**30)", fmt.Sprintf("Uint8Array: more than %d bytes, the $js limit", JSMemoryBudget)},
		{"new Float64Array({length: 2**27})", fmt.Sprintf("Float64Array: more than %d bytes, the $js limit", JSMemoryBudget)},
		{"Uint16Array.from({length: 2**30})", fmt.Sprintf("Uint16Array: more than %d bytes, the $js limit", JSMemoryBudget)},
		{"String.fromCharCode.apply(null, {length: 2**30})", fmt.Sprintf("Function.prototype.apply: more than %d arguments, the $js limit", maxJSArgs)},
		{"Reflect.apply(Math.max, null, {length: 2**30})", fmt.Sprintf("Reflect.apply: more than %d arguments, the $js limit", maxJSArgs)},
		{"Reflect.construct(Array, {length: 2**30})", fmt.Sprintf("Reflect.construct: more than %d arguments, the $js limit", maxJSArgs)},
		{"const a = []; a[2**32 - 2] = 1; a.sort()", fmt.Sprintf("Array.prototype.sort: more than %d elements, the $js limit", maxJSString)},
		{"new Array(2**32 - 1).map(x => 1)", fmt.Sprintf("Array.prototype.map: more than %d elements, the $js limit", maxJSString)},
		{"const a = []; a.length = 2**32 - 1; [...a]", fmt.Sprintf("Array.prototype.values: more than %d elements, the $js limit", maxJSString)},
		{"const a = new Array(3e6); [a, a].flat()", fmt.Sprintf("Array.prototype.flat: the result would have more than %d elements, the $js limit", maxJSString)},
		{"const a = new Array(3e6); a.concat(a)", fmt.Sprintf("Array.prototype.concat: the result would have more than %d elements, the $js limit", maxJSString)},
		// 1 MiB, far under the budget, joined to 9 Mi characters: the join's guard, not the
		// memory watchdog, must stop it (a 32 MiB array was half the budget before the join ran).
		{"new Uint8Array(1 << 20).join('xxxxxxxx')", fmt.Sprintf("%%TypedArray%%.prototype.join: the result would have more than %d characters, the $js limit", maxJSString)},
		{"Array.from({length: 3}, () => 'x'.repeat(2e6)).toLocaleString()", fmt.Sprintf("Array.prototype.toLocaleString: the result would have more than %d characters, the $js limit", maxJSString)},
		{"const s = 'x'.repeat(4e6); ''.concat(s, s)", fmt.Sprintf("String.prototype.concat: the result would have more than %d characters, the $js limit", maxJSString)},
		{"const s = 'x'.repeat(4e6); `${s}${s}`", fmt.Sprintf("a template literal: the result would have more than %d characters, the $js limit", maxJSString)},
		{"const s = 'x'.repeat(3e6); String.raw({raw: [s, s]}, 1)", fmt.Sprintf("String.raw: the result would have more than %d characters, the $js limit", maxJSString)},
		{"'ab'.repeat(1e3).replaceAll('a', 'x'.repeat(5000))", fmt.Sprintf("String.prototype.replaceAll: the result would have more than %d characters, the $js limit", maxJSString)},
		{"'ab'.repeat(1e3).replace(/a/g, '$&'.repeat(5000))", fmt.Sprintf("String.prototype.replace: the result would have more than %d characters, the $js limit", maxJSString)},
		{"/a/g[Symbol.replace]('ab'.repeat(1e3), '$&'.repeat(5000))", fmt.Sprintf("RegExp.prototype[Symbol.replace]: the result would have more than %d characters, the $js limit", maxJSString)},
		{"'x'.repeat(2e6).split('')", fmt.Sprintf("String.prototype.split: more than %d items, the $js limit", maxJSItems)},
		{"'x'.repeat(2e6).replaceAll('x', 'y')", fmt.Sprintf("String.prototype.replaceAll: more than %d matches, the $js limit", maxJSItems)},
		{"const s = 'x'.repeat(2e6); ({...s})", fmt.Sprintf("object spread: more than %d keys, the $js limit", maxJSItems)},
		{"const s = 'x'.repeat(2e6); const {...r} = s", fmt.Sprintf("object rest: more than %d keys, the $js limit", maxJSItems)},
		{"Object.keys(new Uint8Array(2e6))", fmt.Sprintf("Object.keys: more than %d keys, the $js limit", maxJSItems)},
		{"Object.assign({}, 'x'.repeat(2e6))", fmt.Sprintf("Object.assign: more than %d keys, the $js limit", maxJSItems)},
		{"new RegExp('x'.repeat(1e5))", fmt.Sprintf("RegExp: more than %d characters of pattern, the $js limit", maxJSPattern)},
		{"'abc'.match('x'.repeat(1e5))", fmt.Sprintf("String.prototype.match: more than %d characters of pattern, the $js limit", maxJSPattern)},
		{"JSON.parse('[' + '0,'.repeat(2e6) + '0,'.repeat(1e5) + '0]')", fmt.Sprintf("JSON.parse: more than %d characters of input, the $js limit", maxJSString)},
		{"encodeURIComponent('x'.repeat(4e6) + 'x'.repeat(2e5))", fmt.Sprintf("encodeURIComponent: more than %d characters of input, the $js limit", maxJSString)},
	} {
		_, err := evalPointSlow(t, tt.code)
		if want := "JavaScript threw: RangeError: " + tt.want; err == nil || err.Error() != want {
			t.Errorf("js %s:\n  %v\nwant %s", tt.code, err, want)
		}
	}
	for _, tt := range []struct{ code, what string }{
		{"eval('1 + 1')", "eval"}, {"new Function('return 1')", "Function"}, {"Function('return 1')()", "Function"},
		{"(function* () {}).constructor('yield 1')", "GeneratorFunction"}, {"(async function () {}).constructor('')", "AsyncFunction"},
	} {
		_, err := evalPoint(t, "js", tt.code, "")
		if want := "JavaScript threw: EvalError: " + tt.what + " is not available in $js: code built from strings at run time is not allowed"; err == nil || err.Error() != want {
			t.Errorf("js %s:\n  %v\nwant %s", tt.code, err, want)
		}
	}
}

// evalPointSlow evaluates a $js point with a time limit far off: building the big strings the
// refusals need takes longer than 100 ms under the race detector, and the check, not the clock,
// must be what stops them.
func evalPointSlow(t *testing.T, code string) (fnResult, error) {
	t.Helper()
	pt := &rubric.Point{Written: "js", Fn: "js", Args: code, HasArgs: true, Multiplier: 1}
	if err := Prepare(pt); err != nil {
		return fnResult{}, err
	}
	in := &evalInput{ctx: context.Background(), subject: &Subject{Text: "", PromptID: "p1", ModelID: "m1"}, env: &Env{JSTimeout: 30 * time.Second}}
	r := pt.Compiled.(evaluator)(in)
	return r, r.err
}

// FuzzRewriteJS checks rewriteJS on any script: no panic, and it compiles exactly when the
// script as written compiles (a template literal, an object spread or rest becomes a call, never
// a syntax error; a regular expression literal gets jsRegexpSuffix), except for a pattern that
// only Go's regexp accepts, which is a regexp2 syntax error.
func FuzzRewriteJS(f *testing.F) {
	for _, s := range []string{"`a${1}b`", "x`t${1}`", "({...a, b})", "const {a, ...r} = o", "function f({...r}) { return `${r}` }",
		"[...a, `${b}`]", "({...{...{}}})", "`${`${`x`}`}`", "for (const {...r} of []) {}", "({a: {...b}} = c)", "class A { m() { return `${this}` } }",
		"(a = `${1}`) => ({...a})", "label: { `x` }", "try {} catch ({...e}) {}", "`unterminated",
		// Regular expression literals get jsRegexpSuffix: one that compiles must still compile.
		"/a(b)c/g", `/(?<n>x)\k<n>/`, `/\p{Lu}+/u`, `/[\p{L}\d]/u`, "/x{1000}z/", "/(?=a)b|c/", "/[^]/s", "/a{2,}?$/m",
		`/\cJ[\b]\0/`, `/[\d-x]/`, "/(?i)a/", "/a{,5}/", `/\1(a)/`, "/]/", "/{/", `/\u{1F600}/u`, "/(?:)/", "/a|/", "/(/",
		// goja refuses a \c before a character that is not a letter; regexp2 alone would accept it.
		`/\c\[(0]00/`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		_, plain := goja.Compile("$js", code, false)
		_, guarded := compileGuarded("$js", code)
		// A regular expression that only Go's regexp accepts (goja reads \p{Script=Greek} or a
		// malformed \p leniently there) is refused by regexp2, which every pattern of a script
		// runs on (jsRegexpSuffix): the one difference allowed.
		if plain == nil && guarded != nil && strings.Contains(guarded.Error(), "Invalid regular expression (regexp2)") {
			return
		}
		if (plain == nil) != (guarded == nil) {
			t.Fatalf("%q: compiles as written: %v; rewritten: %v", code, plain, guarded)
		}
	})
}
