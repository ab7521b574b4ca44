// Package blueprint runs Weval blueprints: the file format in its four structures, YAML or
// JSON (Parse, with every problem a diagnostic naming its line), model collections and custom
// models, generating responses (Generate), LLM judges (LLMJudge), runs (Run) that score each
// prompt × model with the points engine (package points), and the results: Weval's comparison
// document, a table and an HTML report.
package blueprint
