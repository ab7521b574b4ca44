package blueprint

// Bounds of the numbers a blueprint sets (spec/trust.md §8; the table is in docs/blueprints.md).
// A blueprint may come from someone else: each number it gives has a range, checked when it is
// parsed (blueprint check, blueprint run), and an error names the field, the line, the range
// and the value. The header's concurrency is bounded by llm.MaxConcurrency, a custom model's
// thinkingBudget by llm.MaxReplyTokens; weights of prompts and points lie in [0.1, 10]
// (spec/blueprints.md §2).
const (
	// MaxTemperature is the highest temperature (header temperature and temperatures, a
	// prompt's temperature): the top of the providers' ranges.
	MaxTemperature = 2
	// MaxToolSteps is the highest toolUse.maxSteps.
	MaxToolSteps = 1000
	// MaxToolCalls is the highest maxCalls of a prompt.
	MaxToolCalls = 1_000_000
)
