package rules_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/rules"
)

// TestExamplesNotInPrompt: a rule's examples are tests of the rule, never part of what a lint
// run sends. For every built-in rule, the messages of a call are byte for byte those of the
// same rule file with its examples cut out of the frontmatter (so no prompt, cache key or token
// estimate changes), and the system message holds no example's text, no marker.
func TestExamplesNotInPrompt(t *testing.T) {
	t.Parallel()
	packs, _ := rules.BuiltinPacks()
	guide, _ := rules.StyleGuidePack()
	for _, p := range append(packs, guide) {
		for _, r := range p.Rules {
			t.Run(r.FullID(), func(t *testing.T) {
				src, err := os.ReadFile(filepath.Join("builtin", p.Name, filepath.Base(r.Path)))
				if err != nil {
					t.Fatal(err)
				}
				// The examples are the frontmatter's last field: cut from it to the closing line.
				start := strings.Index(string(src), "\nexamples:\n")
				end := strings.Index(string(src), "\n---\n")
				if start < 0 || end < start {
					t.Fatalf("no examples field at the end of the frontmatter")
				}
				bare, ps := rules.Parse(r.Path, append(src[:start+1:start+1], src[end+1:]...))
				if len(ps) != 0 || len(bare.Examples) != 0 || len(r.Examples) == 0 {
					t.Fatalf("without examples: %v, %d examples (with: %d)", ps, len(bare.Examples), len(r.Examples))
				}
				bare.Pack, bare.Aliases = r.Pack, r.Aliases
				for _, ex := range r.Examples {
					in := lint.PromptInput{Rule: r, Criteria: r.Criteria, Text: ex.Text, Line: 1, StyleGuide: "Use sentence case."}
					got := lint.BuildMessages(in)
					in.Rule = bare
					if want := lint.BuildMessages(in); !reflect.DeepEqual(got, want) {
						t.Fatalf("the examples change the prompt:\n%v\nwithout them:\n%v", got, want)
					}
					system := got[0].Content
					if strings.Contains(system, strings.TrimSpace(ex.Text)) || strings.Contains(system, rules.MarkOpen) ||
						strings.Contains(system, rules.MarkClose) {
						t.Errorf("the system message holds example %d (%q) or a marker", ex.Index, ex.Text)
					}
					if user := got[1].Content; strings.Contains(user, rules.MarkOpen) || !strings.Contains(user, strings.TrimSpace(strings.SplitN(ex.Text, "\n", 2)[0])) {
						t.Errorf("the user message of example %d is not its stripped text: %q", ex.Index, user)
					}
				}
			})
		}
	}
}
