package rules

import (
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// Loader parses rule files and loads rule packs. The package-level Parse, LoadPacks,
// BuiltinPacks and StyleGuidePack are a zero Loader's.
//
// A rule's `should` list is parsed by the points engine's rubric parser (package
// points/rubric), which links no JavaScript engine and no HTTP client: alone, it checks each
// function's name, the shape of its argument and its regexes. Compiling a $js script (or a
// $tool_args_match where expression, or reading a $call's inline service) needs the engine
// itself, which this package does not import, so that loading a rule pack stays light. The
// linter passes it in: Prepare set to points.Prepare compiles every function point as it is
// parsed, so a script that does not compile is a problem of the rule like any other (an error:
// the rule is left out of its pack), reported at its line, and the compiled functions are kept
// in the rule's points for scoring. Without Prepare, such a point fails when it is scored.
type Loader struct {
	// Prepare compiles a function point of a `should` list (points.Prepare); nil leaves the
	// rubric parser's own checks.
	Prepare func(*rubric.Point) error
	// Root is the project root rule files are read through (internal/tree): a rule file or
	// pack folder that is a link leading out of it is never read. Nil opens a root at the rules
	// folder for the call.
	Root *tree.Root
}
