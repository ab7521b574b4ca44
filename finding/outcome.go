package finding

// Outcome is how a run ended, what the command's exit code says (docs/configuration.md, "Exit
// codes"): it did all its work and found nothing to fail on, it found something, or it could
// not do all its work. Why a run failed is in its Totals: the failures of the whole run (RunErrors),
// the rules that failed on a file (Summary.OperationalErrors), the rule runs not done
// (Summary.NotRun), the files an interruption left (Interrupted).
type Outcome int

// Outcomes, in increasing gravity.
const (
	// OutcomeOK is a run that did all its work and found nothing at or above the threshold.
	OutcomeOK Outcome = iota
	// OutcomeFindings is a run that did all its work and found something at or above the
	// threshold.
	OutcomeFindings
	// OutcomeFailed is a run that could not do all its work, whatever it found.
	OutcomeFailed
)

// String returns "ok", "findings" or "failed".
func (o Outcome) String() string {
	switch o {
	case OutcomeFindings:
		return "findings"
	case OutcomeFailed:
		return "failed"
	}
	return "ok"
}

// Outcome is the outcome of the run these are the totals of, when findings at or above failOn
// fail it (--fail-on); with SeverityUnset (--fail-on none) no finding does. It is the one place
// the verdict is reached: the lint, dry-run and merge commands map it to their exit code.
func (t Totals) Outcome(failOn Severity) Outcome {
	switch {
	case !t.Complete():
		return OutcomeFailed
	case failOn.Valid() && t.Summary.atOrAbove(failOn) > 0:
		return OutcomeFindings
	}
	return OutcomeOK
}
