package points

import "github.com/dlclark/regexp2/v2"

// jsRegexpTimeout bounds each scan of a regular expression inside a $js script (or a
// $tool_args_match where expression): five times the script's own default limit. regexp2 keeps
// time with a coarse clock (a goroutine that ticks every 100 ms, late on a loaded machine), so a
// scan may be cut somewhat before its bound; with this margin, a scan that is cut has always run
// past the script's limit, and the script is stopped, never given a false "no match". A script
// stopped while in a scan ends within this bound (its slot is free at once).
//
// goja runs a script's regular expressions on Go's regexp (RE2: linear time, yet a pattern such
// as x{1000}z takes a minute over a few million characters) or, for what RE2 cannot do, on
// github.com/dlclark/regexp2 (backtracking: exponential time on a pattern such as (a+)+ followed
// by a lookahead). Neither looks at goja's interrupt, so a script stopped at its limit while in a
// match went on matching for minutes or for ever. jsGuards makes every pattern of a script run on
// regexp2 (an empty lookahead appended to each pattern, hidden from source and toString), and
// regexp2 stops a scan at its MatchTimeout, which goja never sets: regexp2 takes it from
// DefaultMatchTimeout when the pattern is compiled, so it is set once, here, before any script
// runs. goja reads a scan that timed out as "no match"; runJS therefore stops any script that
// ran past its limit, whatever it returned. The project's own regular expressions
// (internal/jsregex) set their MatchTimeout themselves and are not affected.
const jsRegexpTimeout = 5 * DefaultJSTimeout

// jsRegexpSuffix is what jsGuards and rewriteJS append to every pattern of a script: an empty
// lookahead, which matches everywhere and changes no match, but which Go's regexp does not
// support, so goja compiles the pattern with regexp2 (see jsRegexpTimeout).
const jsRegexpSuffix = "(?=)"

func init() {
	// Written once before main, read by regexp2.Compile: configuration of the dependency that
	// runs scripts' regular expressions, not state of this package.
	regexp2.DefaultMatchTimeout = jsRegexpTimeout
}
