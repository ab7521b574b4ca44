package lint

// The score stage (pipeline.go): a rule's score on a file, which its kind gives from the
// rule's replies and the filter's decisions (Kind.score, in each kind's file). The formulas
// themselves are package scoring's: pure functions, table-tested against spec/linter.md §5.

// reportedViolations counts the proposed violations the filter reported: the violations a
// semi-objective score counts (a silenced one does not lower the score).
func reportedViolations(props []proposal) int {
	n := 0
	for _, p := range props {
		if p.violation != nil && p.decision == reported {
			n++
		}
	}
	return n
}
