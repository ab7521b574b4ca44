// Package lint is the linter's engine: it plans which rules evaluate which text, runs the model
// calls in one pool, and turns the replies into each file's findings and scores
// (spec/linter.md). The configuration and project are package config's (lint/config), the
// documents package document's (lint/document), what a run selects and may spend package
// selection's (lint/selection); the engine imports them, never the reverse. Data flows one way,
// and the files follow it:
//
//	plan.go, planrule.go      the plan: per file, the rules that apply and the units each evaluates
//	select.go, estimate.go    a selection applied to the plan (--changed, --shard); its cost
//	kind.go                   rule kinds behind one interface, one file each: semiobjective.go,
//	                          subjective.go, checklist.go, techaccuracy.go
//	prompt.go, reply.go       what a call sends, and the reply contract
//	evaluate.go               Evaluate: one pool of workers for every chunk of every file; results
//	                          emitted per file, in path order, as they are done
//	pipeline.go               a file's result, stage by stage: call.go, place.go (locating quotes),
//	                          filter.go, score.go, result.go
//	debug.go                  --debug-json records
//	run.go                    Run: a whole lint run as one library call (the command, editors)
//
// What it produces is package finding's vocabulary (finding.FileResult, finding.Result: the
// findings, scores and totals every output speaks); the formulas of scores are package
// scoring's; output formats are package report's.
package lint
