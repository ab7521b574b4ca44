// Package lint is the linter: it finds the configuration and the documents, plans which rules
// evaluate which text, runs the model calls in one pool, and turns the replies into each file's
// findings and scores (spec/linter.md). Data flows one way, and the files follow it:
//
//	config.go, zeroconfig.go  vectorlint.ini (or a VECTORLINT.md alone): sections, overrides
//	project.go                a configuration with its rule packs (package rules) and style guide
//	discover.go, document.go  the documents: folder walks and globs; positions in a file's bytes
//	plan.go, planrule.go      the plan: per file, the rules that apply and the units each evaluates
//	chunk.go                  long texts split into chunks
//	kind.go                   rule kinds behind one interface: semiobjective.go, subjective.go,
//	                          checklist.go, techaccuracy.go
//	evaluate.go               Evaluate: one pool of workers for every chunk of every file; results
//	                          emitted per file, in path order, as they are done
//	pipeline.go               a file's result, stage by stage: call.go (prompt.go, reply.go),
//	                          locate.go, filter.go (suppress.go), score.go, result.go
//	run.go                    Run: a whole lint run as one library call (the command, editors)
//
// What it produces is package finding's vocabulary (finding.FileResult, finding.Result: the
// findings, scores and totals every output speaks); the formulas of scores are package
// scoring's; output formats are package report's.
package lint
