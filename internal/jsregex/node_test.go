package jsregex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// nodeScript runs JavaScript's own RegExp on the cases it reads as JSON from standard input
// and prints, for each, whether the pattern compiled and the first match (its text and its
// start in code points). It also says whether this Node has ES2025's modifier groups.
const nodeScript = `
let input = "";
process.stdin.setEncoding("utf8"); // whole characters, even across chunks
process.stdin.on("data", d => input += d);
process.stdin.on("end", () => {
  let modifiers = true;
  try { new RegExp("(?i:a)"); } catch (e) { modifiers = false; }
  const out = JSON.parse(input).map(c => {
    let re;
    try { re = new RegExp(c.pattern, c.flags); } catch (e) { return { compiled: false, error: e.message }; }
    const m = re.exec(c.input);
    if (!m) return { compiled: true, found: false };
    return { compiled: true, found: true, text: m[0], start: Array.from(c.input.slice(0, m.index)).length };
  });
  process.stdout.write(JSON.stringify({ modifiers, results: out }));
});
`

type nodeCase struct {
	Name    string `json:"-"`
	Pattern string `json:"pattern"`
	Flags   string `json:"flags"`
	Input   string `json:"input"`
}

type nodeResult struct {
	Compiled bool   `json:"compiled"`
	Error    string `json:"error"`
	Found    bool   `json:"found"`
	Text     string `json:"text"`
	Start    int    `json:"start"`
}

// nodeBinary is the Node.js to compare with: $VECTORLINT_NODE, else node on the PATH. Without
// one the test is skipped, unless VECTORLINT_REQUIRE_NODE=1 (CI) makes that a failure.
func nodeBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VECTORLINT_NODE"); p != "" {
		return p
	}
	p, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("VECTORLINT_REQUIRE_NODE") == "1" {
			t.Fatal("VECTORLINT_REQUIRE_NODE=1 but there is no node on the PATH and VECTORLINT_NODE is unset")
		}
		t.Skip("no Node.js to compare with (set VECTORLINT_NODE or put node on the PATH)")
	}
	return p
}

// foldCases pairs every two runes that Unicode simple case folding puts in one orbit, with
// and without u: JavaScript decides which of them match each other under i.
func foldCases() []nodeCase {
	var out []nodeCase
	for orbit := range foldOrbits {
		for _, a := range orbit {
			for _, b := range orbit {
				if a == b {
					continue
				}
				for _, flags := range []string{"i", "iu"} {
					out = append(out, nodeCase{Name: "fold", Pattern: string(a), Flags: flags, Input: "x" + string(b)})
					if flags == "i" && (a > 0xFFFF || b > 0xFFFF) {
						// Without u JavaScript sees such a character as two UTF-16 code
						// units, and a class of them matches a lone surrogate; this
						// package matches whole characters (a documented difference).
						continue
					}
					out = append(out,
						nodeCase{Name: "fold in a class", Pattern: "[" + string(a) + "]", Flags: flags, Input: "x" + string(b)},
						nodeCase{Name: "fold in a negated class", Pattern: "[^" + string(a) + "]", Flags: flags, Input: string(b)},
						nodeCase{Name: "fold, escaped", Pattern: jsEscape(a), Flags: flags, Input: "x" + string(b)})
				}
			}
		}
	}
	return out
}

// TestAgainstNode runs the package's semantic test cases, every pair of case-fold partners, the
// syntax cases and QuoteMeta's patterns through both this package and Node.js, and requires the
// same outcome: the same patterns rejected, and the same first match at the same code point.
// Cases with ES2025 modifier groups are left out when the Node at hand does not have them
// (before Node 24).
func TestAgainstNode(t *testing.T) {
	t.Parallel()
	node := nodeBinary(t)
	var cases []nodeCase
	for _, c := range semanticsCases {
		cases = append(cases, nodeCase{c.name, c.pattern, c.flags, c.input})
	}
	for _, c := range jsOnlyCases {
		cases = append(cases, nodeCase{c.name, c.pattern, c.flags, c.input})
	}
	for _, c := range notJavaScriptCases {
		cases = append(cases, nodeCase{"syntax " + c.pattern, c.pattern, c.flags, "abc"})
	}
	for _, p := range javaScriptLookalikes {
		cases = append(cases, nodeCase{"lookalike " + p, p, "", "abc"})
	}
	for _, in := range quoteMetaInputs {
		for _, flags := range quoteMetaFlags {
			cases = append(cases, nodeCase{"QuoteMeta", QuoteMeta(in), flags, "x" + in + "y"})
		}
	}
	cases = append(cases, foldCases()...)
	cases = append(cases, randomCases(randomCount())...)

	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "-e", nodeScript)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", node, err, stderr.String())
	}
	var reply struct {
		Modifiers bool         `json:"modifiers"`
		Results   []nodeResult `json:"results"`
	}
	if err := json.Unmarshal(out, &reply); err != nil || len(reply.Results) != len(cases) {
		t.Fatalf("node replied %d results for %d cases (%v): %.200s", len(reply.Results), len(cases), err, out)
	}
	compared, failures := 0, 0
	for i, c := range cases {
		js := reply.Results[i]
		if !reply.Modifiers && hasModifierGroup(c.Pattern) {
			continue
		}
		compared++
		got := goResult(c)
		if got.Compiled != js.Compiled || got.Found != js.Found || got.Text != js.Text || got.Start != js.Start {
			failures++
			if failures <= 20 || os.Getenv("JSREGEX_ALL_DIFFS") != "" {
				t.Errorf("%s: /%s/%s on %q:\n   jsregex: %+v\nJavaScript: %+v", c.Name, c.Pattern, c.Flags, c.Input, got, js)
			}
		}
	}
	if failures > 20 {
		t.Errorf("... and %d more differences", failures-20)
	}
	t.Logf("%d cases compared with %s (modifier groups: %v)", compared, node, reply.Modifiers)
}

// randomCount is the number of random cases: 3,000, or $JSREGEX_RANDOM_CASES.
func randomCount() int {
	if n, err := strconv.Atoi(os.Getenv("JSREGEX_RANDOM_CASES")); err == nil && n >= 0 {
		return n
	}
	return 3000
}

// goResult is nodeResult for this package.
func goResult(c nodeCase) nodeResult {
	re, err := Compile(c.Pattern, c.Flags)
	if err != nil {
		return nodeResult{Compiled: false}
	}
	m, err := re.FindStringMatch(c.Input)
	if err != nil || m == nil {
		return nodeResult{Compiled: true}
	}
	return nodeResult{Compiled: true, Found: true, Text: m.Groups[0].Text, Start: m.Groups[0].RuneStart}
}

// jsEscape writes r as a JavaScript escape: \uXXXX, or \u{X} for a character beyond U+FFFF
// (which needs the u flag, the only one these cases use it with).
func jsEscape(r rune) string {
	if r > 0xFFFF {
		return fmt.Sprintf(`\u{%X}`, r)
	}
	return fmt.Sprintf(`\u%04X`, r)
}

// hasModifierGroup reports whether a pattern has "(?" followed by a flag letter or "-".
func hasModifierGroup(p string) bool {
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(p[i:], "(?") && strings.ContainsRune("imsx-", rune(p[i+2])) {
			return true
		}
	}
	return false
}
