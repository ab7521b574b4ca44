package main

import (
	"io"

	"github.com/vectorlint/vectorlint/internal/safetext"
)

// Output a runner or terminal could act on (spec/trust.md §3, docs/security.md).
//
// Every command runs on a copy of the app whose streams are guarded:
//
//   - stderr carries only human text (errors that quote file names, found text and HTTP bodies,
//     warnings, --verbose and --show-prompt), so it is escaped as a whole, here, once: control,
//     bidi and invisible characters are shown as escapes (\x1b, \u202e) and, when
//     GITHUB_ACTIONS=true, a line the runner would read as a workflow command gets a backslash
//     ("\::error::", "##\["). No package has to remember to escape an error message.
//   - stdout carries each command's own format, escaped where it is composed: the report
//     formats (report.Options.GitHubActions), the dry run, the blueprint table, the JSON
//     documents (safetext.JSON), the human text of validate, blueprint check and evaluate
//     (humanStdout). When GITHUB_ACTIONS=true it also passes through a workflow-command safety
//     net (safetext.NewWorkflowWriter) that never fires on correct output; the github format,
//     whose annotations are commands by design, writes to the unguarded stream.
//
// The tool's own terminal control (the progress bars' "\r" and erase codes) goes to term, the
// unguarded standard error, and is written only when standard error is a terminal.

// guardOutput returns the app a command runs on: a copy of a with guarded streams, and a
// function that flushes what the guards hold back (call it when the command returns).
func (a *app) guardOutput() (*app, func()) {
	g := *a
	g.guarded = true
	g.githubActions = a.getenv("GITHUB_ACTIONS") == "true"
	g.term, g.rawStdout = a.stderr, a.stdout
	errw := safetext.NewHumanWriter(a.stderr, g.githubActions)
	g.stderr = errw
	flush := []func() error{errw.Flush}
	if g.githubActions && !a.noStdoutNet {
		out := safetext.NewWorkflowWriter(a.stdout)
		g.stdout = out
		flush = append(flush, out.Flush)
	}
	return &g, func() {
		for _, f := range flush {
			f()
		}
	}
}

// humanStdout returns a writer for human-readable text on standard output (tables and
// messages that quote files): escaped for the terminal and, under GitHub Actions, the runner.
// Flush it when done.
func (a *app) humanStdout() *safetext.Writer {
	return safetext.NewHumanWriter(a.stdout, a.githubActions)
}

// humanLog wraps w, a log stream that writes to the terminal without the stderr guard (the
// progress bar), so the lines written to it are escaped like standard error's.
func (a *app) humanLog(w io.Writer) *safetext.Writer {
	return safetext.NewHumanWriter(w, a.githubActions)
}
