package rubric

import "fmt"

// Problem codes (finding.Problem's Code), so callers and tests can tell mistakes apart without
// reading messages. Package blueprint adds the codes of its own file format.
const (
	CodeSyntax          = "syntax"            // the file is not valid YAML or JSON
	CodeInvalid         = "invalid"           // a field has the wrong type or value
	CodeUnknownField    = "unknown-field"     // a field this format does not define
	CodeAliasConflict   = "alias-conflict"    // two aliases of one field (only the first is used)
	CodeSinglePointPath = "single-point-path" // an alternative path with one point
	CodeEmptyPath       = "empty-path"        // an alternative path with no points
	CodeQuotedFunction  = "quoted-function"   // "$fn: arg" written as one string
	CodeUnknownFunction = "unknown-function"  // a $name that is not a point function
	CodeBadFunction     = "bad-function"      // bad arguments, a regex or script that does not compile
)

// Subject is the Field of a problem about what owns points: `prompt "id"` (kind "" means
// "prompt"), `rule "Pack.Rule"`; "" when id is "" (a problem about the whole file).
func Subject(kind, id string) string {
	if id == "" {
		return ""
	}
	if kind == "" {
		kind = "prompt"
	}
	return fmt.Sprintf("%s %q", kind, id)
}
