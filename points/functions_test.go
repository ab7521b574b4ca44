package points

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/vectorlint/vectorlint/internal/jsregex"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/points/internal/funcarg"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// parsePoint reads fn(args) as the rubric parser reads {$fn: args} ("$fn" when args is nil),
// its function prepared by the engine as a blueprint's are.
func parsePoint(t testing.TB, fn string, args any) *rubric.Point {
	t.Helper()
	var raw any = "$" + fn
	if args != nil {
		raw = map[string]any{"$" + fn: args}
	}
	r, errs := rubric.Parse([]any{raw}, rubric.Options{Prepare: Prepare})
	if len(errs) > 0 {
		t.Fatalf("%s(%#v): %v", fn, args, errs)
	}
	return r.Points()[0]
}

// compiled returns the function Prepare compiled for a point.
func compiled(t testing.TB, pt *rubric.Point) evaluator {
	t.Helper()
	if err := Prepare(pt); err != nil {
		t.Fatalf("$%s: %v", pt.Fn, err)
	}
	return pt.Compiled.(evaluator)
}

// calmJSLimit is the $js time limit of the tests' ordinary scripts: no legitimate test script
// reaches it. At the production limit (100 ms, DefaultJSTimeout) a loaded CI machine (two
// cores, several test binaries under -race) could keep a script's goroutine waiting past it,
// and a test failed though the code was right. Tests of the limit itself run attacks that
// never end at DefaultJSTimeout.
const calmJSLimit = time.Minute

// evalPoint prepares fn(args) and scores it against text, with $js under calmJSLimit.
func evalPoint(t *testing.T, fn string, args any, text string) (fnResult, error) {
	t.Helper()
	return evalPointIn(t, Env{JSTimeout: calmJSLimit}, fn, args, text)
}

// evalPointIn is evalPoint in env.
func evalPointIn(t *testing.T, env Env, fn string, args any, text string) (fnResult, error) {
	t.Helper()
	pt := parsePoint(t, fn, args)
	if err := pt.Err(); err != nil {
		return fnResult{}, err
	}
	in := &evalInput{ctx: context.Background(), subject: &Subject{Text: text, PromptID: "p1", ModelID: "m1"}, env: &env}
	r := pt.Compiled.(evaluator)(in)
	return r, r.err
}

type fnCase struct {
	fn   string
	args any
	text string
	want float64
}

func runFnCases(t *testing.T, cases []fnCase) {
	t.Helper()
	for _, c := range cases {
		r, err := evalPoint(t, c.fn, c.args, c.text)
		if err != nil {
			t.Errorf("%s(%#v) on %q: unexpected error %v", c.fn, c.args, c.text, err)
			continue
		}
		if r.score != c.want {
			t.Errorf("%s(%#v) on %q = %v, want %v", c.fn, c.args, c.text, r.score, c.want)
		}
	}
}

func list(items ...any) []any { return items }

func TestStringFunctions(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"contains", "brown FOX", "The quick brown FOX", 1},
		{"contains", "brown fox", "The quick brown FOX", 0},
		{"contains", "", "anything", 1},
		{"icontains", "BROWN fox", "The quick brown FOX", 1},
		// JavaScript's toLowerCase: İ becomes "i̇" (i + combining dot), so "i" alone is found in it.
		{"icontains", "i\u0307stanbul", "İSTANBUL", 1},
		{"icontains", "istanbul", "İSTANBUL", 0},
		// Final sigma: "ΟΔΟΣ" lower-cases to "οδος" with a final ς.
		{"icontains", "οδος", "ΟΔΟΣ", 1},
		{"icontains", "οδοσ", "ΟΔΟΣ", 0},
		{"icontains", "straße", "STRASSE", 0},
		{"starts_with", "The ruling", "The ruling states", 1},
		{"starts_with", "The ruling", " The ruling states", 0}, // no trimming
		{"istarts_with", "the RULING", "The ruling states", 1},
		{"ends_with", "conclusion.", "In conclusion.", 1},
		{"ends_with", "conclusion.", "In conclusion.\n", 0},
		{"iends_with", "CONCLUSION.", "In conclusion.", 1},
		{"not_contains", "I apologize", "Sure, here it is.", 1},
		{"not_contains", "I apologize", "I apologize.", 0},
		{"not_icontains", "error", "An ERROR occurred", 0},
		{"not_starts_with", "Unfortunately", "Unfortunately no", 0},
		{"not_istarts_with", "sorry", "SORRY!", 0},
		{"not_ends_with", "...", "and so on...", 0},
		{"not_iends_with", "TBC", "more tbc", 0},
	})
}

func TestListFunctions(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"contains_any_of", list("fiduciary", "duty"), "a duty of care", 1},
		{"contains_any_of", list("fiduciary", "duty"), "nothing", 0},
		{"contains_any_of", list(), "nothing", 0},
		{"icontains_any_of", list("Fiduciary", "DUTY"), "a duty of care", 1},
		{"contains_all_of", list("fiduciary", "duty"), "a duty of care", 0.5},
		{"contains_all_of", list(), "anything", 1},
		{"icontains_all_of", list("A", "b", "C"), "abc", 1},
		{"contains_at_least_n_of", list(2.0, list("apples", "oranges", "pears")), "apples and pears", 1},
		{"contains_at_least_n_of", list(2.0, list("apples", "oranges", "pears")), "apples only", 0.5},
		{"contains_at_least_n_of", list(0.0, list("x")), "none", 1},
		{"contains_at_least_n_of", list(-1.0, list("x")), "none", 1},
		{"contains_at_least_n_of", list(3.0, list()), "none", 0},
		{"icontains_at_least_n_of", list(2.0, list("Apples", "ORANGES")), "apples, oranges", 1},
		{"matches_all_of", list("^The ruling", "states that$"), "The ruling states that", 1},
		{"matches_all_of", list("^The ruling", "states that$"), "The ruling says", 0.5},
		{"imatches_all_of", list("^the ruling", "STATES"), "The ruling states", 1},
		{"matches_at_least_n_of", list(2.0, list("a+", "b+", "c+")), "aaa", 0.5},
		{"imatches_at_least_n_of", list(1.0, list("A+")), "aaa", 1},
		{"not_contains_any_of", list("spam", "scam"), "clean", 1},
		{"not_contains_any_of", list("spam", "scam"), "a scam", 0},
		{"not_contains_all_of", list("bad", "worse", "worst"), "bad", 0.6666666666666667}, // 1 − 1/3 in float64, as JavaScript computes it
		{"not_icontains_all_of", list("ERROR", "FAIL"), "no problems", 1},
		{"not_icontains_any_of", list("GUARANTEED", "Risk-Free"), "risk-free returns", 0},
	})
}

func TestRegexFunctions(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"matches", "^The ruling states", "The ruling states X", 1},
		{"matches", "^the ruling", "The ruling", 0},
		{"imatches", "^the ruling", "The ruling", 1},
		{"matches", "(?i)not a (financial|tax) advisor", "I am NOT A TAX ADVISOR", 1}, // leading (?i) accepted
		{"matches", "(?<=\\$)\\d+", "costs $42", 1},                                   // lookbehind
		{"matches", "a.b", "a\nb", 0},                                                 // . excludes line terminators
		{"matches", "a.b", "a\u2028b", 0},
		{"matches", "a[\\s\\S]b", "a\nb", 1},
		{"matches", "a\\sb", "a\u00a0b", 1}, // Unicode \s
		{"matches", "a\\sb", "a\ufeffb", 1},
		{"matches", "^b$", "a\nb", 0}, // no m flag: ^ and $ are the ends of the text
		{"matches", "(?m)^b$", "a\nb", 1},
		{"matches", "\\d{3}-\\d{2}-\\d{4}", "SSN 123-45-6789", 1},
		{"match", "colou?r", "color", 1},
		{"not_matches", "\\d{3}-\\d{2}-\\d{4}", "no numbers", 1},
		{"not_imatches", "ssn.*\\d{4}", "SSN: 1234", 0},
		{"imatch", "LAGOS.{0,50}NIGERIA", "Lagos is in Nigeria", 1},
	})
}

func TestWordFunctions(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"contains_word", "3", "13 apples", 0},
		{"contains_word", "3", "3 apples", 1},
		{"contains_word", "Paraná", "Paranáense", 0},
		{"contains_word", "Paraná", "the Paraná River", 1},
		{"contains_word", "Paraná", "(Paraná)", 1},
		{"contains_word", "Hello", "Hello world", 1},
		{"contains_word", "ell", "Hello world", 0},
		{"contains_word", "cat", "cat_food", 0},
		{"contains_word", "cafe", "cafe\u0301", 0}, // followed by a combining mark
		{"contains_word", "长江", "长江很长", 0},         // CJK letters are letters
		{"contains_word", "长江", "长江 很长", 1},
		{"contains_word", "Москва", "в Москва.", 1},
		{"contains_word", "ab", "xab ab", 1}, // second occurrence counts
		{"contains_word", "", "anything", 1},
		{"icontains_word", "são paulo", "Visit SÃO PAULO now", 1},
		{"icontains_word", "SÃO", "sãopaulo", 0},
		{"not_contains_word", "outdated", "up to date", 1},
		{"not_contains_word", "outdated", "this is outdated.", 0},
		{"not_icontains_word", "ERROR", "an error", 0},
	})
}

func TestWordCountAndJSON(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"word_count_between", list(2.0, 4.0), "one two three", 1},
		{"word_count_between", list(4.0, 8.0), "one two", 0.5},
		{"word_count_between", list(1.0, 2.0), "a b c d", 0.5},
		{"word_count_between", list(0.0, 0.0), "", 1},
		{"word_count_between", list(0.0, 0.0), "word", 0},
		// JavaScript whitespace: U+FEFF and U+00A0 separate words, U+0085 does not.
		{"word_count_between", list(3.0, 3.0), "a\ufeffb\u00a0c", 1},
		{"word_count_between", list(2.0, 2.0), "a\u0085b c", 1},
		{"is_json", nil, `{"a": 1}`, 1},
		{"is_json", nil, "  [1, 2]\n", 1},
		{"is_json", true, `{"a": 1}`, 1},
		{"is_json", nil, `"just a string"`, 0},
		{"is_json", nil, `42`, 0},
		{"is_json", nil, "```json\n{\"a\": 1}\n```", 0},
		{"is_json", nil, `{"a": }`, 0},
		{"is_json", nil, "", 0},
	})
}

func TestFunctionArgumentErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fn   string
		args any
		want string
	}{
		{"contains", 5.0, "$contains: expected a string argument, found the number 5"},
		{"contains", nil, "$contains: expected a string argument, found no argument"},
		{"contains_any_of", "x", `$contains_any_of: expected the argument to be a list of strings, found the string "x"`},
		{"contains_all_of", list("a", 1.0), "$contains_all_of: expected item 2 of the argument to be a string, found the number 1"},
		{"contains_at_least_n_of", list("2", list("a")), `$contains_at_least_n_of: expected [n, [item, ...]] with a number n, found the string "2" first`},
		{"matches", "(", "$matches: invalid regular expression /(/: missing closing )"},
		{"matches_all_of", list("ok", "[z-a]"), "$matches_all_of: item 2: invalid regular expression /[z-a]/: [z-a] range in reverse order"},
		{"word_count_between", list(5.0, 1.0), "$word_count_between: expected [min, max] with 0 ≤ min ≤ max, found a list of 2 items"},
		{"js", 3.0, "$js: expected JavaScript code as a string, found the number 3"},
		{"js", "return (", "$js: JavaScript does not compile: SyntaxError: $js: Line 1:1 Illegal return statement"},
		{"tool_called", "", `$tool_called: expected a tool name string, found the string ""`},
		{"tool_call_count_between", list(3.0, 1.0), "$tool_call_count_between: expected [min, max] or [min, max, toolName] with 0 ≤ min ≤ max, found a list of 2 items"},
		{"tool_call_order", list(), "$tool_call_order: expected a non-empty list of tool names, found a list of 0 items"},
		{"tool_args_match", map[string]any{"where": map[string]any{}}, `$tool_args_match: expected {name, where} with a tool name string, found a mapping with keys "where"`},
		{"tool_args_match", map[string]any{"name": "x", "where": 3.0}, "$tool_args_match: expected where to be an object (partial match) or a JavaScript expression over args, found the number 3"},
		{"call", "x", `$call: expected {service: name} or {url: ...} with parameters, found the string "x"`},
		{"call", map[string]any{"claim": "x"}, `$call: expected a service name (service: ...) or a URL (url: ...), found a mapping with keys "claim"`},
		{"factcheck", 1.0, `$factcheck: expected an instruction string (such as "focus on dates only"), found the number 1`},
		{"no_such_fn", "x", `unknown point function "$no_such_fn"`},
		{"icontain_wrd", "x", `unknown point function "$icontain_wrd" (did you mean $icontains_word?)`},
	}
	for _, tt := range tests {
		_, err := evalPoint(t, tt.fn, tt.args, "text")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s(%#v): error %v\nwant %s", tt.fn, tt.args, err, tt.want)
		}
	}
}

func TestJS(t *testing.T) {
	t.Parallel() // its scripts run under calmJSLimit, which no load makes them miss
	tests := []struct {
		code    string
		text    string
		want    float64
		explain string
	}{
		{"r.length > 3", "long text", 1, ""},
		{"response.length > 100", "short", 0, ""},
		{"const a = r.split(' ').length; return a / 4;", "one two", 0.5, ""},
		{"return 7;", "", 1, ""},
		{"-2", "", 0, ""},
		{"({score: 0.25, explain: 'partial'})", "", 0.25, "partial"},
		{"return {score: true, explain: 'yes'}", "", 1, "yes"},
		{"context.promptId + context.modelId === 'p1m1'", "", 1, ""},
		{"typeof require === 'undefined' && typeof process === 'undefined' && typeof setTimeout === 'undefined'", "", 1, ""},
		{"if (r === 'x') return true;", "y", 0, "The script returned undefined (treated as false)."},
		{"/SCORE\\s*[:=]\\s*(\\d+)/i.exec(r)[1] / 100", "score: 80", 0.8, ""},
		{"'İ'.toLowerCase().length", "", 1, ""},
	}
	for _, tt := range tests {
		r, err := evalPoint(t, "js", tt.code, tt.text)
		if err != nil {
			t.Errorf("js %q: %v", tt.code, err)
			continue
		}
		if r.score != tt.want || r.explain != tt.explain {
			t.Errorf("js %q on %q = %v %q, want %v %q", tt.code, tt.text, r.score, r.explain, tt.want, tt.explain)
		}
	}
	errs := []struct{ code, want string }{
		{"NaN", "the script returned NaN; expected a boolean or a number"},
		{"null", "the script returned null; expected a boolean, a number or {score, explain}"},
		{"'yes'", "the script returned a string; expected a boolean, a number or {score, explain}"},
		{"({explain: 'x'})", "the script returned an object without score; expected {score, explain}"},
		{"({score: 'high'})", "the script returned a score of type string; expected a boolean or a number"},
		{"throw new Error('boom')", "JavaScript threw: Error: boom"},
		{"undefinedVariable + 1", "JavaScript threw: ReferenceError: undefinedVariable is not defined"},
		{"require('fs')", "JavaScript threw: ReferenceError: require is not defined"},
		{"function f() { return f(); } f()", "JavaScript exceeded the call stack limit"},
		{"while (true) {}", "JavaScript ran longer than 100ms and was stopped"},
	}
	for _, tt := range errs {
		start := time.Now()
		env := Env{JSTimeout: calmJSLimit}
		if strings.HasPrefix(tt.want, "JavaScript ran longer") {
			env = Env{} // the production limit: only an endless script reaches it
		}
		_, err := evalPointIn(t, env, "js", tt.code, "")
		if err == nil || err.Error() != tt.want {
			t.Errorf("js %q: error %v\nwant %s", tt.code, err, tt.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("js %q took %v", tt.code, d)
		}
	}
}

func TestJSContextMessagesAndCancel(t *testing.T) {
	t.Parallel()
	pt := &rubric.Point{Fn: "js", Args: "context.messages.length === 2 && context.messages[1].content === 'Hi'", HasArgs: true, Multiplier: 1}
	hi, q := "Hi", "Q"
	in := &evalInput{ctx: context.Background(), subject: &Subject{Text: "Hi", Messages: []Message{{Role: "user", Content: &q}, {Role: "assistant", Content: &hi}}}, env: &Env{}}
	if r := compiled(t, pt)(in); r.err != nil || r.score != 1 {
		t.Errorf("context.messages: %+v", r)
	}
	loop := &rubric.Point{Fn: "js", Args: "while (true) {}", HasArgs: true, Multiplier: 1}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in = &evalInput{ctx: ctx, subject: &Subject{}, env: &Env{JSTimeout: time.Hour}}
	if r := compiled(t, loop)(in); !errors.Is(r.err, context.Canceled) {
		t.Errorf("cancelled run: error %v, want context.Canceled", r.err)
	}
}

func TestToolFunctions(t *testing.T) {
	t.Parallel()
	trace := strings.Join([]string{
		`I'll look that up.`,
		`TOOL_CALL {"name":"search","arguments":{"query":"2023 climate  report"}}`,
		`  TOOL_CALL {"name":"retrieve","arguments":{"docId":"41","options":{"snippet":true,"max":3}}}`,
		`TOOL_CALL not json`,
		`TOOL_CALL {"name":"answer","arguments":{"text":"Done"}}`,
		`TOOL_CALL {"arguments":{}}`,
		`TOOL_CALL {"name":"search","arguments":{"query":"followup"}}`,
	}, "\n")
	runFnCases(t, []fnCase{
		{"tool_called", "search", trace, 1},
		{"tool_called", "calculator", trace, 0},
		{"not_tool_called", "calculator", trace, 1},
		{"tool_call_count_between", list(4.0, 4.0), trace, 1},
		{"tool_call_count_between", list(1.0, 3.0), trace, 0},
		{"tool_call_count_between", list(2.0, 2.0, "search"), trace, 1},
		{"tool_call_count_between", list(0.0, 0.0, "calculator"), trace, 1},
		{"tool_call_order", list("search", "retrieve", "answer"), trace, 1},
		{"tool_call_order", list("search", "answer"), trace, 1},
		{"tool_call_order", list("answer", "retrieve"), trace, 0},
		{"tool_args_match", map[string]any{"name": "retrieve", "where": map[string]any{"docId": "41", "options": map[string]any{"snippet": true}}}, trace, 1},
		{"tool_args_match", map[string]any{"name": "retrieve", "where": map[string]any{"docId": 41.0}}, trace, 0},
		{"tool_args_match", map[string]any{"name": "search", "where": map[string]any{"query": "2023 climate report"}}, trace, 0},
		{"tool_args_match", map[string]any{"name": "search", "where": map[string]any{"query": "2023 climate report"}, "normalizeWhitespace": true}, trace, 1},
		{"tool_args_match", map[string]any{"name": "search", "where": "args.query.includes('followup')"}, trace, 1},
		{"tool_args_match", map[string]any{"name": "search", "where": "args.missing.field"}, trace, 0},
		{"tool_args_match", map[string]any{"name": "nothing", "where": map[string]any{}}, trace, 0},
		{"tool_called", "search", "no calls here", 0},
	})
	r, _ := evalPoint(t, "tool_called", "answer", trace)
	want := `Tool "answer" was called 1 time. Ignored 2 malformed TOOL_CALL lines (line 4: expected a JSON object after TOOL_CALL, found "not json"; line 6: expected the object to have a string "name").`
	if r.explain != want {
		t.Errorf("explain\n got %s\nwant %s", r.explain, want)
	}
}

func TestParseToolCalls(t *testing.T) {
	t.Parallel()
	calls, issues := ParseToolCalls("x\nTOOL_CALL {\"name\":\"a\",\"arguments\":{\"n\":1}}\r\nTOOL_CALL{\"name\":\"b\"}\nTOOL_CALL {\"name\":\"c\"} trailing\nTOOL_CALL {\"name\": 5}\n\tTOOL_CALL {\"name\":\"d\"}  ")
	if len(calls) != 2 || calls[0].Name != "a" || calls[0].Line != 2 || calls[1].Name != "d" || calls[1].Line != 6 {
		t.Errorf("calls = %+v", calls)
	}
	want := []string{
		"line 3: expected a space and a JSON object after TOOL_CALL",
		`line 4: expected a JSON object after TOOL_CALL, found "{\"name\":\"c\"} trailing"`,
		`line 5: expected the object to have a string "name"`,
	}
	if len(issues) != len(want) {
		t.Fatalf("issues = %v", issues)
	}
	for i, is := range issues {
		if is.String() != want[i] {
			t.Errorf("issue %d = %s, want %s", i, is, want[i])
		}
	}
}

func TestJSToLowerMatchesGoja(t *testing.T) {
	t.Parallel()
	vm := goja.New()
	for _, s := range []string{"ABC", "İstanbul", "ΟΔΟΣ ΟΔΟΣ.", "Σ", "AΣ", "AΣb", "AΣ'", "ǅ", "ẞ", "Ⅻ", "ΑΣ\u0301", "ÀÉÎ", "ΣΑΣ", "A.Σ"} {
		want := vm.ToValue(s).ToObject(vm).Get("toLowerCase")
		fn, _ := goja.AssertFunction(want)
		v, err := fn(vm.ToValue(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := jsToLower(s); got != v.String() {
			t.Errorf("jsToLower(%q) = %q, JavaScript gives %q", s, got, v.String())
		}
	}
}

// TestEveryDocumentedFunctionExists reads the format documentation (the seeds) and checks that
// every $function it names is a point function after normalisation.
func TestEveryDocumentedFunctionExists(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testutil.SharedDir(t), "seeds")
	names := map[string]bool{}
	for _, f := range []string{"002_77f4732a529ba00e.txt", "000_4a639b7e1d9118b5.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\$([a-z_]+)`).FindAllStringSubmatch(string(data), -1) {
			names[m[1]] = true
		}
	}
	delete(names, "ref")  // $ref is expanded by the parser
	delete(names, "not_") // "$not_*" in prose
	if len(names) < 40 {
		t.Fatalf("found only %d function names in the seeds", len(names))
	}
	for name := range names {
		pt := parsePoint(t, name, nil)
		if !funcarg.Known(pt.Fn) {
			t.Errorf("$%s (normalised %s) is documented but not a point function", name, pt.Fn)
		}
	}
}

// TestNegatedFunctionErrorsPassThrough: a not_* function whose base fails (here a regex that
// exceeds the backtracking limit) fails with the same error, never scores 1 − 0; in a rubric
// the point then scores 0 and carries the error (spec §3).
func TestNegatedFunctionErrorsPassThrough(t *testing.T) {
	// Not parallel: its catastrophic patterns keep a CPU busy up to their time limit, and the tests that run scripts under the 100 ms $js limit must not share it (parallel tests run after this one).
	text := strings.Repeat("a", 100000) + "!"
	const pattern = `(a|a)*b`
	for _, tc := range []struct {
		fn   string
		args any
	}{
		{"matches", pattern},
		{"imatches", pattern},
		{"matches_all_of", list("a", pattern)},
		{"imatches_at_least_n_of", list(1.0, list(pattern))},
	} {
		_, baseErr := evalPoint(t, tc.fn, tc.args, text)
		r, err := evalPoint(t, "not_"+tc.fn, tc.args, text)
		if baseErr == nil || err == nil || err.Error() != baseErr.Error() || !errors.Is(err, jsregex.ErrTimeout) {
			t.Errorf("not_%s: error %v (score %v), want the base's error %v", tc.fn, err, r.score, baseErr)
		}
	}
	// The complement still holds when the base succeeds.
	runFnCases(t, []fnCase{{"not_matches", `^a+!$`, text, 0}, {"not_matches", `b`, text, 1}})

	r := rubricFromYAML(t, `[{$not_matches: "(a|a)*b"}, {$not_contains: "zzz"}]`, "")
	cov := ScoreRubric(context.Background(), r, Subject{Text: text}, Env{})
	pa := cov.PointAssessments[0]
	if pa.CoverageExtent == nil || *pa.CoverageExtent != 0 || !strings.Contains(pa.Error, "too long to match") {
		t.Errorf("failing not_ point: extent %v, error %q; want 0 with the error", deref(pa.CoverageExtent), pa.Error)
	}
	if cov.Score == nil || *cov.Score != 0.5 {
		t.Errorf("rubric score %v, want 0.5 (the failing point counts 0)", deref(cov.Score))
	}
}

// TestToolArgsMatchArrays: arrays in a where object match element by element from the start:
// the call's array may be longer, not shorter, order matters, and elements may themselves be
// partial objects (as Weval's matchesPartial, which walks an array's indices as keys).
func TestToolArgsMatchArrays(t *testing.T) {
	t.Parallel()
	trace := `TOOL_CALL {"name":"send","arguments":{"to":["ann@x.org","bob@x.org"],"parts":[{"type":"text","body":"Hi  there"},{"type":"file","name":"a.pdf"}],"tags":[]}}`
	where := func(w map[string]any, normalize bool) map[string]any {
		return map[string]any{"name": "send", "where": w, "normalizeWhitespace": normalize}
	}
	runFnCases(t, []fnCase{
		{"tool_args_match", where(map[string]any{"to": list("ann@x.org", "bob@x.org")}, false), trace, 1},
		{"tool_args_match", where(map[string]any{"to": list("ann@x.org")}, false), trace, 1},                     // a prefix
		{"tool_args_match", where(map[string]any{"to": list("bob@x.org")}, false), trace, 0},                     // position 0 differs
		{"tool_args_match", where(map[string]any{"to": list("bob@x.org", "ann@x.org")}, false), trace, 0},        // order matters
		{"tool_args_match", where(map[string]any{"to": list("ann@x.org", "bob@x.org", "c@x")}, false), trace, 0}, // longer than the call's
		{"tool_args_match", where(map[string]any{"to": list()}, false), trace, 1},
		{"tool_args_match", where(map[string]any{"tags": list("x")}, false), trace, 0},
		{"tool_args_match", where(map[string]any{"to": "ann@x.org"}, false), trace, 0}, // a string is not an array
		{"tool_args_match", where(map[string]any{"parts": "x"}, false), trace, 0},
		{"tool_args_match", where(map[string]any{"tags": map[string]any{}}, false), trace, 0}, // an object is not an array
		{"tool_args_match", where(map[string]any{"parts": list(map[string]any{"type": "text"})}, false), trace, 1},
		{"tool_args_match", where(map[string]any{"parts": list(map[string]any{}, map[string]any{"name": "a.pdf"})}, false), trace, 1},
		{"tool_args_match", where(map[string]any{"parts": list(map[string]any{"type": "file"})}, false), trace, 0},
		{"tool_args_match", where(map[string]any{"parts": list(map[string]any{"body": "Hi there"})}, false), trace, 0},
		{"tool_args_match", where(map[string]any{"parts": list(map[string]any{"body": "Hi there"})}, true), trace, 1}, // normalised inside arrays too
		{"tool_args_match", where(map[string]any{"parts": list(list("text"))}, false), trace, 0},
	})
}

// TestEveryFunctionCompiles: every function the catalogue (funcarg) names, not_ forms
// included, is built by the engine from a valid argument.
func TestEveryFunctionCompiles(t *testing.T) {
	t.Parallel()
	samples := map[string]any{
		"contains": "a", "icontains": "a", "starts_with": "a", "istarts_with": "a", "ends_with": "a", "iends_with": "a",
		"contains_any_of": list("a"), "icontains_any_of": list("a"), "contains_all_of": list("a"), "icontains_all_of": list("a"),
		"contains_at_least_n_of": list(1.0, list("a")), "icontains_at_least_n_of": list(1.0, list("a")),
		"matches": "a+", "imatches": "a+", "matches_all_of": list("a+"), "imatches_all_of": list("a+"),
		"matches_at_least_n_of": list(1.0, list("a+")), "imatches_at_least_n_of": list(1.0, list("a+")),
		"contains_word": "a", "icontains_word": "a", "word_count_between": list(1.0, 2.0), "is_json": nil, "js": "true",
		"tool_called": "t", "tool_args_match": map[string]any{"name": "t", "where": "args.x"}, "tool_call_count_between": list(0.0, 1.0),
		"tool_call_order": list("t"), "call": map[string]any{"service": "s"}, "factcheck": nil,
	}
	names := rubric.FunctionNames()
	if len(names) != len(samples)+21 { // 21 not_ forms
		t.Errorf("%d functions, %d samples: %q", len(names), len(samples), names)
	}
	for _, name := range names {
		arg, ok := samples[strings.TrimPrefix(name, "not_")]
		if !ok {
			t.Errorf("no sample argument for $%s", name)
			continue
		}
		pt := &rubric.Point{Fn: name, Args: arg, HasArgs: arg != nil, Multiplier: 1}
		if err := Prepare(pt); err != nil || pt.Compiled == nil {
			t.Errorf("$%s: %v", name, err)
		}
	}
}
