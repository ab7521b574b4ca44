package rules

import (
	"reflect"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

// TestDescribe: a rule is described by its name, the first sentence and the first paragraph of
// its instructions (a heading skipped, lines joined) and its body; a criterion by its name and
// its rule's; a rule without instructions by its name.
func TestDescribe(t *testing.T) {
	t.Parallel()
	pack := &Pack{Name: "Acme"}
	for name, src := range map[string]string{
		"wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\n# Wordiness\n\nFlag wordy phrases. Say \"to\".\nKeep terms.\n\nMore.\n",
		"headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\ncriteria:\n  - {id: Value, name: Value, weight: 2}\n---\n" +
			"Rate the headline? Yes\n\n# Value <weight=2>\n",
		"flow.md": "---\nid: Flow\nname: Flow & Rhythm\n---\n",
	} {
		r, ps := Parse(name, []byte(src))
		if len(ps) != 0 {
			t.Fatalf("%s: %v", name, ps)
		}
		r.Pack = "Acme"
		pack.Rules = append(pack.Rules, r)
	}
	want := map[string]finding.RuleInfo{
		"Acme.Wordiness": {Name: "Wordiness", Summary: "Flag wordy phrases.", Description: `Flag wordy phrases. Say "to". Keep terms.`,
			Help: "# Wordiness\n\nFlag wordy phrases. Say \"to\".\nKeep terms.\n\nMore."},
		"Acme.Headline": {Name: "Headline", Summary: "Rate the headline?", Description: "Rate the headline? Yes",
			Help: "Rate the headline? Yes\n\n# Value <weight=2>"},
		"Acme.Headline.Value": {Name: "Value", Summary: "Value: a criterion of Headline", Description: "Rate the headline? Yes",
			Help: "Rate the headline? Yes\n\n# Value <weight=2>"},
		"Acme.Flow": {Name: "Flow & Rhythm", Summary: "Flow & Rhythm", Description: "Flow & Rhythm", Help: "Flow & Rhythm"},
	}
	if got := Describe([]*Pack{pack}); !reflect.DeepEqual(got, want) {
		t.Errorf("Describe:\n%+v\nwant\n%+v", got, want)
	}
}
