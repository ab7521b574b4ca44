package main

import (
	"errors"
	"fmt"

	"github.com/vectorlint/vectorlint/finding"
)

// Exit codes shared by every subcommand (spec/linter.md §1).
const (
	exitOK       = 0 // all work done, nothing at or above the failure threshold
	exitFindings = 1 // all work done, findings at or above the failure threshold (or an evaluator failed)
	exitFailure  = 2 // the run could not do all its work: bad flags, config, rules, input or LLM calls
)

// Every command returns an error; exitCode, called once by run, turns it into the exit code and
// writes the message the error still carries. An error's type says its class:
//
//   - nil: exit 0;
//   - *exitError: the class alone (exit 1 for findings at the failure threshold, 2 for a
//     failure), its message already written where the command's output needed it;
//   - *usageError: a command-line mistake, with a pointer to the help, exit 2;
//   - *commandError: a message prefixed with the command's name, exit 2 (or its class);
//   - any other error: "vectorlint: " and its message, exit 2.

// exitError is an outcome whose messages are already written: only its exit code is left.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// errFindings and errFailed are the outcomes whose messages are written: findings at or above
// the threshold (exit 1), and a run that could not do all its work (exit 2).
var (
	errFindings error = &exitError{code: exitFindings}
	errFailed   error = &exitError{code: exitFailure}
)

// usageError is a command-line mistake of command cmd.
type usageError struct {
	cmd string
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// commandError is a message of command prefix ("vectorlint evaluate"), exit code class code
// (exitFailure when 0).
type commandError struct {
	prefix string
	err    error
	code   int
}

func (e *commandError) Error() string { return e.err.Error() }
func (e *commandError) Unwrap() error { return e.err }

// failf is a commandError of prefix with a formatted message.
func failf(prefix, format string, args ...any) error {
	return &commandError{prefix: prefix, err: fmt.Errorf(format, args...)}
}

// exitCode writes what err still has to say on standard error and returns the exit code: the one
// mapping from errors to exit codes.
func (a *app) exitCode(err error) int {
	var (
		ee *exitError
		ue *usageError
		ce *commandError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(a.stderr, "%s: %v\nRun \"%s --help\" for usage.\n", ue.cmd, ue.err, ue.cmd)
		return exitFailure
	case errors.As(err, &ce):
		fmt.Fprintf(a.stderr, "%s: %v\n", ce.prefix, ce.err)
		if ce.code != 0 {
			return ce.code
		}
		return exitFailure
	}
	fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
	return exitFailure
}

// outcomeErr is the error of a run's outcome (spec/linter.md §1): nil, errFindings for findings
// at or above --fail-on, errFailed for a run that could not do all its work.
func outcomeErr(o finding.Outcome) error {
	switch o {
	case finding.OutcomeFindings:
		return errFindings
	case finding.OutcomeFailed:
		return errFailed
	}
	return nil
}
