package rubric

import (
	"fmt"

	"github.com/vectorlint/vectorlint/internal/suggest"
	"github.com/vectorlint/vectorlint/points/internal/funcarg"
)

// FunctionNames returns every point function name, sorted.
func FunctionNames() []string { return funcarg.Names() }

// UnknownFunctionError reports a $name that is not a point function.
type UnknownFunctionError struct {
	// Name is the function name as written (without "$").
	Name string
	// Quoted is set when the point was a string such as "$icontains: 'x'".
	Quoted bool
}

// Error names the function, with a suggestion or the quoting hint.
func (e *UnknownFunctionError) Error() string {
	if e.Quoted {
		return fmt.Sprintf("unknown point function %q: \"$%s\" is a quoted function call; write it as a mapping without the outer quotes", "$"+e.Name, e.Name)
	}
	msg := fmt.Sprintf("unknown point function %q", "$"+e.Name)
	if s := suggestFunction(normaliseFn(e.Name)); s != "" {
		msg += fmt.Sprintf(" (did you mean $%s?)", s)
	}
	return msg
}

// FunctionError reports a function point whose arguments are invalid or whose regex or script
// does not compile.
type FunctionError struct {
	Fn  string
	Err error
}

// Error is "$fn: reason".
func (e *FunctionError) Error() string { return "$" + e.Fn + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FunctionError) Unwrap() error { return e.Err }

// suggestFunction returns the known function name closest to name, or "".
func suggestFunction(name string) string {
	return suggest.Closest(name, funcarg.Names(), 3)
}

// Check reports what can be told about a function point without compiling it: an unknown
// function (an *UnknownFunctionError), an argument of the wrong shape or a regex that does not
// compile (a *FunctionError). A script's syntax and a $call's inline service are the engine's
// to check (points.Prepare). It is what Parse does with each function point when Options has
// no Prepare.
func Check(p *Point) error {
	if !p.IsFunction() {
		return nil
	}
	if !funcarg.Known(p.Fn) {
		return &UnknownFunctionError{Name: p.Name()}
	}
	if _, err := funcarg.Parse(p.Fn, p.Args, p.HasArgs); err != nil {
		return &FunctionError{Fn: p.Fn, Err: err}
	}
	return nil
}
