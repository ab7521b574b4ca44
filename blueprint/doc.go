// Package blueprint runs Weval blueprints: the file format in its four structures, YAML or
// JSON (Parse, with every problem a finding.Problem naming its line), model collections and custom
// models, generating responses (Generate), LLM judges (LLMJudge), scoring each prompt × model
// with the points engine of package points (Score), and the results: Weval's comparison
// document, a table and an HTML report.
//
// Run is a whole run as the vectorlint command does it — checks before any call, generation,
// judging, scoring, the result document and the report — so Go programs and editors get the
// command's behaviour from one call.
//
// Comparing the results of two runs (`vectorlint blueprint compare`) is package
// blueprint/compare.
package blueprint
