// Package points is the points engine: one engine for lint rules' `should` lists and Weval
// blueprints' rubrics (spec/blueprints.md §3–§4, spec/linter.md §3).
//
// Package points/rubric holds the data and the parser: a Rubric of should and should_not
// entries, each a point or an alternative path of points, read from YAML or JSON with lines
// and diagnostics. This package adds what needs a JavaScript engine, an HTTP client or a judge:
//
//   - Prepare compiles a function point: its argument decoded and checked, its regexes and $js
//     script compiled, the result kept in the point. rubric.Options.Prepare takes it, so points
//     are compiled as they are parsed and their problems reported in order with the parser's.
//   - ScoreRubric scores a text (a Subject) against a rubric: every function point
//     deterministically ($contains, $matches, $js, tool traces, $call…), every text point by a
//     Judge, then the weighted coverage of package scoring. Env says what a scoring may use: the
//     judge, the network, variables, a JSPool that bounds $js memory.
//   - JudgePrompt and ParseJudgeReply are the judges' prompt and reply format, shared by the
//     linter's judge and a blueprint's LLM judges; Occurrences places what a "must not" point
//     found, for lint findings.
//
// Nothing here reads the process environment or keeps state between calls: Env carries it in.
package points
