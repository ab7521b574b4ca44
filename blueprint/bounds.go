package blueprint

// Bounds of the numbers a blueprint sets (spec/trust.md §8; the table is in docs/blueprints.md).
// A blueprint may come from someone else: each number it gives has a range, checked when it is
// parsed (blueprint check, blueprint run), and an error names the field, the line, the range
// and the value. The header's concurrency is bounded by llm.MaxConcurrency, a custom model's
// thinkingBudget by llm.MaxReplyTokens; weights of prompts and points lie in [0.1, 10]
// (spec/blueprints.md §2).
const (
	// maxTemperature is the highest temperature (header temperature and temperatures, a
	// prompt's temperature): the top of the providers' ranges.
	maxTemperature = 2
	// maxToolSteps is the highest toolUse.maxSteps.
	maxToolSteps = 1000
	// maxToolCalls is the highest maxCalls of a prompt.
	maxToolCalls = 1_000_000
)
