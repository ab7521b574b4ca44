package points

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dop251/goja"
	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/points/rubric"
)

// memoryPrompts are the rubrics of eight prompts, each with two ordinary $js points and a
// $contains point; the prompt "attack" also has a point with the given code.
func memoryPrompts(t *testing.T, attack string) (ids []string, rubrics []rubric.Rubric) {
	t.Helper()
	for i := range 8 {
		id := fmt.Sprintf("p%d", i)
		if i == 3 {
			id = "attack"
		}
		var b strings.Builder
		b.WriteString("- $js: \"r.split(' ').map(w => w.toUpperCase()).join('-') === 'HELLO-WORLD'\"\n" +
			"- $contains: hello\n- $js: |\n    const seen = {...[1, 2]}; `${r}`.length === 11 && Object.keys(seen).length === 2\n")
		if id == "attack" {
			fmt.Fprintf(&b, "- $js: |\n    %s\n", strings.ReplaceAll(attack, "\n", "\n    "))
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(b.String()), &n); err != nil {
			t.Fatal(err)
		}
		r, errs := rubric.Parse(&n, rubric.Options{File: "memory.yml", Owner: id, Prepare: Prepare})
		if errs != nil {
			t.Fatal(errs)
		}
		ids, rubrics = append(ids, id), append(rubrics, r)
	}
	return ids, rubrics
}

// attackOutcome is what scoring memoryPrompts gave: the attack point's error, and the
// problems of every other point (none when each scored 1).
type attackOutcome struct {
	Error  string   `json:"error"`
	Others []string `json:"others"`
}

// runAttack scores the eight prompts' rubrics against "hello world" at the same time, with one
// pool for all (as a blueprint run scores its prompt × model pairs).
func runAttack(t *testing.T, attack string, timeout time.Duration) attackOutcome {
	t.Helper()
	ids, rubrics := memoryPrompts(t, attack)
	env := Env{JSTimeout: timeout, JSPool: NewJSPool()}
	covs := make([]CoverageResult, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			covs[i] = ScoreRubric(context.Background(), rubrics[i], Subject{Text: "hello world", PromptID: id, ModelID: "m:a"}, env)
		}()
	}
	wg.Wait()
	var out attackOutcome
	for p, id := range ids {
		for i, a := range covs[p].PointAssessments {
			switch {
			case id == "attack" && i == 3:
				out.Error = a.Error
			case a.Error != "" || a.CoverageExtent == nil || *a.CoverageExtent != 1:
				out.Others = append(out.Others, fmt.Sprintf("%s point %d: %v %s", id, i, a.CoverageExtent, a.Error))
			}
		}
	}
	return out
}

// TestJSMemoryGrowth runs scripts that build up memory step by step, each in a run where seven
// other prompts' points are scored at the same time. The time limit is set far off, so it is
// the memory budget that stops them: the attack point fails with the budget's message, every
// other point keeps its score, and the memory comes back.
func TestJSMemoryGrowth(t *testing.T) {
	// Not parallel: the memory watchdog measures the whole process's heap, which other tests' allocations would move.
	for _, attack := range []string{
		"const a = []; for (;;) a.push('x'.repeat(1e6) + a.length)",
		"const a = []; for (;;) a.push(new Uint8Array(8e6))",
		"const a = []; for (;;) a.push(new ArrayBuffer(60e6))",
		"let s = 'x'; for (;;) s += s",
		"const kept = []; let s = 'ab'.repeat(500); for (;;) { s = s.replaceAll('a', 'a' + kept.length % 7); kept.push(s) }",
		"const o = {}; for (let i = 0; ; i++) o['key' + i] = 'value'.repeat(20) + i",
	} {
		runtime.GC()
		before := heapLive()
		got := runAttack(t, attack, 30*time.Second)
		if got.Error != errJSMemory.Error() || len(got.Others) > 0 {
			t.Errorf("%s:\nerror %q\nwant  %q\nother points: %q", attack, got.Error, errJSMemory, got.Others)
		}
		runtime.GC()
		if after := heapLive(); after > before+32<<20 {
			t.Errorf("%s: %d MB still live after the run", attack, (after-before)>>20)
		}
	}
}

// TestJSMemoryConcurrentScripts runs a script that builds up memory and one that does not, at
// the same time in one pool: the growth cannot be pinned on one of them, so both are run again
// on their own, where only the first fails.
func TestJSMemoryConcurrentScripts(t *testing.T) {
	// Not parallel: the memory watchdog measures the whole process's heap, which other tests' allocations would move.
	pool := newJSPool(4)
	hostile, err := compileJS("$js", "const a = []; for (;;) a.push('x'.repeat(1e6) + a.length)")
	if err != nil {
		t.Fatal(err)
	}
	// The ordinary script runs until the pool has re-run a script, so it is still running when
	// the other's growth is found, however slow the machine (or the race detector).
	benign, err := compileJS("$js", "while (!rerun()) {} true")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg            sync.WaitGroup
		hostileErr    error
		benignV       goja.Value
		benignErr     error
		benignStarted = make(chan struct{})
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		deadline := time.Now().Add(2 * time.Minute) // a bound for a broken pool, never reached when it works
		benignV, benignErr = runJS(context.Background(), pool, benign, 3*time.Minute, func(vm *goja.Runtime) error {
			select {
			case <-benignStarted:
			default:
				close(benignStarted)
			}
			return vm.Set("rerun", func() bool { return pool.reruns.Load() > 0 || time.Now().After(deadline) })
		})
	}()
	go func() {
		defer wg.Done()
		<-benignStarted
		_, hostileErr = runJS(context.Background(), pool, hostile, 3*time.Minute, func(*goja.Runtime) error { return nil })
	}()
	wg.Wait()
	if hostileErr == nil || hostileErr.Error() != errJSMemory.Error() {
		t.Errorf("hostile script: %v", hostileErr)
	}
	if benignErr != nil || benignV == nil || !benignV.ToBoolean() {
		t.Errorf("benign script: %v, %v", benignV, benignErr)
	}
	if n := pool.reruns.Load(); n != 2 {
		t.Errorf("%d scripts run again on their own, want both", n)
	}
}

// TestJSMemoryGrowthNotTheScript has the heap grow by more than the budget during a script,
// but not by the script: the memory is held outside it (a Go function it calls allocates it,
// standing in for another part of the program). The script is not blamed: collecting its
// garbage gives nothing back, so it is run again and scores.
func TestJSMemoryGrowthNotTheScript(t *testing.T) {
	// Not parallel: the memory watchdog measures the whole process's heap, which other tests' allocations would move.
	// The script waits until it is run a second time (the first run is stopped by the watchdog
	// while it waits), however slow the machine.
	prog, err := compileJS("$js", "grow(); while (!again()) {} true")
	if err != nil {
		t.Fatal(err)
	}
	var (
		held     [][]byte
		calls    atomic.Int64
		deadline = time.Now().Add(20 * time.Second)
	)
	v, err := runJS(context.Background(), nil, prog, 30*time.Second, func(vm *goja.Runtime) error {
		if err := vm.Set("again", func() bool { return calls.Load() >= 2 || time.Now().After(deadline) }); err != nil {
			return err
		}
		return vm.Set("grow", func() {
			if calls.Add(1) == 1 {
				b := make([]byte, 200<<20)
				for i := range b {
					b[i] = 1
				}
				held = append(held, b)
			}
		})
	})
	if err != nil || v == nil || !v.ToBoolean() || calls.Load() != 2 {
		t.Errorf("got %v, %v after %d runs; want true after a second run", v, err, calls.Load())
	}
	runtime.KeepAlive(held)
}

// singleAllocations are scripts that ask for a huge block in one native call: each must be
// refused before it allocates, with a message naming the built-in and the limit.
func singleAllocations() []struct{ code, want string } {
	rangeErr := func(format string, args ...any) string {
		return "JavaScript threw: RangeError: " + fmt.Sprintf(format, args...)
	}
	return []struct{ code, want string }{
		{"new ArrayBuffer(2**40)", rangeErr("ArrayBuffer: more than %d bytes, the $js limit", JSMemoryBudget)},
		{"new Uint8Array(2**30)", rangeErr("Uint8Array: more than %d bytes, the $js limit", JSMemoryBudget)},
		{"'x'.repeat(1e9)", rangeErr("String.prototype.repeat: the result would have more than %d characters, the $js limit", maxJSString)},
		{"'x'.padEnd(1e9)", rangeErr("String.prototype.padEnd: the result would have more than %d characters, the $js limit", maxJSString)},
		{"new Array(2**31).fill(0)", rangeErr("Array.prototype.fill: the result would have more than %d elements, the $js limit", maxJSString)},
		{"Array.from({length: 1e9})", rangeErr("Array.from: the result would have more than %d elements, the $js limit", maxJSString)},
		{"Array(1e8).join('x')", rangeErr("Array.prototype.join: the result would have more than %d characters, the $js limit", maxJSString)},
		// 2**20 elements (1 MiB, far under the budget) joined to 9 Mi characters: the join's
		// guard, not the memory watchdog, must stop it. With 2**26 elements the array alone was
		// the whole budget, and the watchdog sometimes stopped the script before the join ran.
		{"new Uint8Array(2**20).join('xxxxxxxx')", rangeErr("%%TypedArray%%.prototype.join: the result would have more than %d characters, the $js limit", maxJSString)},
		{"let x = [1]; for (let i = 0; i < 30; i++) x = [x, x]; JSON.stringify(x)", rangeErr("JSON.stringify: the result would have more than %d characters, the $js limit", maxJSString)},
		{"String.fromCharCode.apply(null, {length: 2**30})", rangeErr("Function.prototype.apply: more than %d arguments, the $js limit", maxJSArgs)},
		{"String.fromCharCode.apply(null, new Array(2**25))", rangeErr("Function.prototype.apply: more than %d arguments, the $js limit", maxJSArgs)},
		{"const s = 'x'.repeat(4e6); s.replaceAll('x', s)", rangeErr("String.prototype.replaceAll: more than %d matches, the $js limit", maxJSItems)},
		{"const s = 'x'.repeat(4e6); for (let i = 0; i < 4; i++) ''.concat(s, s)", rangeErr("String.prototype.concat: the result would have more than %d characters, the $js limit", maxJSString)},
		{"const s = 'x'.repeat(4e6); `${s}${s}${s}${s}${s}${s}${s}${s}${s}${s}${s}${s}${s}${s}${s}${s}`", rangeErr("a template literal: the result would have more than %d characters, the $js limit", maxJSString)},
		{"const s = 'x'.repeat(4e6); ({...(s + s + s + s)})", rangeErr("object spread: more than %d keys, the $js limit", maxJSItems)},
		{"const a = []; a.length = 2**32 - 1; a.sort()", rangeErr("Array.prototype.sort: more than %d elements, the $js limit", maxJSString)},
		{"new Array(2**32 - 1).map(x => 1)", rangeErr("Array.prototype.map: more than %d elements, the $js limit", maxJSString)},
		{"const s = 'x'.repeat(4e6); [s, s, s].join('')", rangeErr("Array.prototype.join: the result would have more than %d characters, the $js limit", maxJSString)},
	}
}

// TestJSSingleAllocationsUnderAMemoryLimit runs every single-allocation attack for real, in a
// child process (this test binary) limited to 4 GB of address space: a guard that no longer
// holds kills the child, not the machine, and the test names the attack it was running. In the
// child each attack is the fourth point of a run of eight prompts; the other points keep their
// scores. Under the race detector, which reserves terabytes of address space, the child runs
// without the limit.
func TestJSSingleAllocationsUnderAMemoryLimit(t *testing.T) {
	// Not parallel: its child process runs every memory attack under a 4 GB limit; it is run alone.
	if os.Getenv("VECTORLINT_JS_ATTACK_CHILD") != "" {
		t.Skip("in the child")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the child's limit with")
	}
	script := `exec "$0" "$@"`
	if !raceEnabled {
		script = `ulimit -v 4194304 && ` + script
	}
	cmd := exec.Command("sh", "-c", script, os.Args[0], "-test.run=^TestJSAttackChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "VECTORLINT_JS_ATTACK_CHILD=1")
	out, err := cmd.CombinedOutput()
	lines := map[string]attackOutcome{}
	last := ""
	for _, line := range strings.Split(string(out), "\n") {
		if code, ok := strings.CutPrefix(line, "ATTACK-START "); ok {
			last = code
		}
		if rest, ok := strings.CutPrefix(line, "ATTACK-DONE "); ok {
			var o attackOutcome
			if json.Unmarshal([]byte(rest), &o) == nil {
				lines[last] = o
			}
		}
	}
	if err != nil {
		t.Fatalf("the child process died (%v) while running %s\n%s", err, last, out)
	}
	for _, a := range singleAllocations() {
		got, ok := lines[a.code]
		switch {
		case !ok:
			t.Errorf("%s: no outcome from the child\n%s", a.code, out)
		case got.Error != a.want || len(got.Others) > 0:
			t.Errorf("%s:\nerror %q\nwant  %q\nother points: %q", a.code, got.Error, a.want, got.Others)
		}
	}
}

// TestJSAttackChild is the child of TestJSSingleAllocationsUnderAMemoryLimit.
func TestJSAttackChild(t *testing.T) {
	// Not parallel: it is the child process of TestJSSingleAllocationsUnderAMemoryLimit.
	if os.Getenv("VECTORLINT_JS_ATTACK_CHILD") == "" {
		t.Skip("run by TestJSSingleAllocationsUnderAMemoryLimit")
	}
	for _, a := range singleAllocations() {
		fmt.Printf("ATTACK-START %s\n", a.code)
		o := runAttack(t, a.code, 30*time.Second) // the check, not the clock, must stop each
		b, _ := json.Marshal(o)
		fmt.Printf("ATTACK-DONE %s\n", b)
	}
}
