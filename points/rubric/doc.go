// Package rubric is the data and the parser of the points engine (package points): the Weval
// point syntax that a lint rule's `should` list and a blueprint prompt's should and should_not
// blocks are written in — plain criteria, {$function: argument} calls, {text|fn, weight,
// citation} objects, $ref definitions and nested alternative paths — parsed into a Rubric with
// every problem a finding.Problem naming its file and line.
//
// It links no JavaScript engine, no HTTP client and no model client, so that loading a rule
// pack stays light: it checks a function's name, the shape of its argument and its regexes
// (Check); compiling scripts is the engine's (points.Prepare, passed in as Options.Prepare).
package rubric
