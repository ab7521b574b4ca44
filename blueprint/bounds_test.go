package blueprint

import (
	"errors"
	"strings"
	"testing"
)

// TestBlueprintBounds checks the range of every number a blueprint sets (spec/trust.md §8):
// the values at each end of a range parse, the values past it are errors naming the line, the
// field, the range and the value found (blueprint check and run report them the same way); a
// function's argument out of range is a warning, as any bad argument (its point scores 0).
func TestBlueprintBounds(t *testing.T) {
	t.Parallel()
	const prompt = "---\n- id: a\n  prompt: x\n"
	tests := []struct {
		src, want string // want "" for values in range
	}{
		{"concurrency: 1\n" + prompt, ""},
		{"concurrency: 256\n" + prompt, ""},
		{"concurrency: 257\n" + prompt, `b.yml:1: error: expected concurrency to be a whole number from 1 to 256, found the number 257`},
		{"concurrency: 0\n" + prompt, `b.yml:1: error: expected concurrency to be a whole number from 1 to 256, found the number 0`},
		{"concurrency: 9223372036854775807\n" + prompt, `b.yml:1: error: expected concurrency to be a whole number from 1 to 256, found the number 9223372036854776000`},
		{"concurrency: 1e308\n" + prompt, `b.yml:1: error: expected concurrency to be a whole number from 1 to 256, found the number 1e+308`},
		{"concurrency: 2.5\n" + prompt, `b.yml:1: error: expected concurrency to be a whole number from 1 to 256, found the number 2.5`},
		{"temperature: 0\n" + prompt, ""},
		{"temperature: 2\n" + prompt, ""},
		{"temperature: 2.01\n" + prompt, `b.yml:1: error: expected temperature to be a number from 0 to 2, found the number 2.01`},
		{"temperature: -0.5\n" + prompt, `b.yml:1: error: expected temperature to be a number from 0 to 2, found the number -0.5`},
		{"temperature: .inf\n" + prompt, `b.yml:1: error: expected temperature to be a number from 0 to 2, found the number Infinity`},
		{"temperatures: [0, 0.7, 1e308]\n" + prompt, `b.yml:1: error: expected each temperature to be a number from 0 to 2, found the number 1e+308`},
		{"toolUse: {maxSteps: 1000}\n" + prompt, ""},
		{"toolUse: {maxSteps: 1001}\n" + prompt, `b.yml:1: error: expected toolUse.maxSteps to be a whole number from 1 to 1000, found the number 1001`},
		{"models:\n  - {id: 'c:m', url: 'http://127.0.0.1:1/v1', modelName: m, inherit: anthropic, thinkingBudget: 1000000}\n" + prompt, ""},
		{"models:\n  - {id: 'c:m', url: 'http://127.0.0.1:1/v1', modelName: m, inherit: anthropic, thinkingBudget: 1e300}\n" + prompt,
			`b.yml:2: error: expected thinkingBudget to be a whole number from 0 to 1000000, found the number 1e+300`},
		{"- id: a\n  prompt: x\n  temperature: 2\n", ""},
		{"- id: a\n  prompt: x\n  temperature: 3\n", `b.yml:3: error: prompt "a": expected temperature to be a number from 0 to 2, found the number 3`},
		{"- id: a\n  prompt: x\n  maxCalls: 1000000\n", ""},
		{"- id: a\n  prompt: x\n  maxCalls: 1e18\n", `b.yml:3: error: prompt "a": expected maxCalls to be a whole number from 0 to 1000000, found the number 1000000000000000000`},
		{"externalServices:\n  s: {url: 'http://127.0.0.1:1/c', timeout_ms: 600000, max_retries: 10, retry_backoff_ms: 60000}\n" + prompt, ""},
		{"externalServices:\n  s: {url: 'http://127.0.0.1:1/c', timeout_ms: 1e9}\n" + prompt,
			`b.yml:2: error: externalServices.s: expected timeout_ms to be a whole number from 0 to 600000, found the number 1000000000`},
		{"externalServices:\n  s: {url: 'http://127.0.0.1:1/c', max_retries: 11}\n" + prompt,
			`b.yml:2: error: externalServices.s: expected max_retries to be a whole number from 0 to 10, found the number 11`},
		{"externalServices:\n  s: {url: 'http://127.0.0.1:1/c', retry_backoff_ms: 60001}\n" + prompt,
			`b.yml:2: error: externalServices.s: expected retry_backoff_ms to be a whole number from 0 to 60000, found the number 60001`},
		// A function's bad argument is a warning in a blueprint: the point scores 0 with the error.
		{"- id: a\n  prompt: x\n  should:\n    - $call: {url: 'http://127.0.0.1:1/c', max_retries: 1e6}\n",
			`b.yml:4: warning: prompt "a": $call: expected max_retries to be a whole number from 0 to 10, found the number 1000000`},
		{"- id: a\n  prompt: x\n  weight: 1e308\n", `b.yml:3: error: prompt "a": expected weight to be a number between 0.1 and 10, found the number 1e+308`},
		{"- id: a\n  prompt: x\n  should:\n    - {text: t, weight: .inf}\n", `b.yml:4: error: prompt "a": expected point weight to be a number between 0.1 and 10, found the number Infinity`},
	}
	for _, tt := range tests {
		bp, err := Parse([]byte(tt.src), ParseOptions{File: "b.yml"})
		var got string
		var pe *ParseError
		if errors.As(err, &pe) {
			got = strings.Join(diagStrings(pe.Errors()), "\n")
		} else if err != nil {
			got = err.Error()
		} else {
			got = strings.Join(diagStrings(bp.Warnings), "\n") // in range: no error, no warning
		}
		if got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}
