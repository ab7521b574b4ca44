package finding

// RuleInfo describes a rule for the output formats that carry rule metadata (SARIF's rule
// descriptors): what the printers need of a rule file, as data (package rules makes it from the
// rule packs).
type RuleInfo struct {
	// Name is the rule's frontmatter name (a criterion's name for a criterion).
	Name string
	// Summary is the first sentence of the rule's instructions; Description their first
	// paragraph, as plain text on one line.
	Summary, Description string
	// Help is the rule's instructions, its Markdown body as written.
	Help string
}
