// Command vectorlint lints prose with LLM-evaluated rules and runs Weval blueprints.
//
// This package only wires flags to library calls: parsing (github.com/spf13/pflag), choosing the
// subcommand, and mapping results to exit codes. Everything else lives in the library packages.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/vectorlint/vectorlint/internal/setup"
)

// app holds what a command may touch of the outside world, so tests can run commands in-process
// with their own working directory, environment and streams. No package below cmd/ reads the
// process environment or working directory on its own.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// dir is the working directory: config discovery, .env and relative paths start here.
	dir string
	// lookupEnv reads an environment variable (os.LookupEnv in production).
	lookupEnv func(key string) (string, bool)
	// stdoutIsTerminal and stderrIsTerminal decide colour and the progress bar.
	stdoutIsTerminal bool
	stderrIsTerminal bool
	// now is the clock (time.Now in production; nil means time.Now), so tests can assert
	// timestamps and the file names derived from them exactly.
	now func() time.Time
	// tuneLLM, when set, adjusts the model client's configuration before it is built. Tests use
	// it to shorten the backoff and the stall-report interval (llm.Config.StallInterval), so
	// faults such as a hanging server can be exercised through the command without waiting the
	// production delays; production leaves it nil.
	tuneLLM setup.TuneFunc
	// jsTimeout, when set, bounds each $js evaluation (blueprint run, the checklist rules of
	// lint, test and the editor server) in place of points.DefaultJSTimeout. Tests give a
	// limit that only their attacks can reach, so that a legitimate script is never stopped
	// because a loaded machine ran it slowly; production leaves it 0.
	jsTimeout time.Duration
	// batchPoll, when set, is how often batch collect --wait asks for a batch's state (tests
	// shorten it; 0 is the default, 30 seconds).
	batchPoll time.Duration
	// dialContext, when set, makes every network connection of the model client and of
	// blueprint point functions ($call). Tests use it to route a host name such as
	// attacker.test to a local server, so the trust rule is tested against a host that is not
	// loopback; production leaves it nil (the standard dialer).
	dialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// proxy, when set, chooses the proxy of every HTTP client (the model client's, $call's)
	// instead of http.ProxyFromEnvironment, which reads the process's variables once per
	// process. Tests set a local logging proxy; production leaves it nil. Either way a
	// loopback host never goes through it (docs/security.md).
	proxy func(*http.Request) (*url.URL, error)
	// handleSignals makes Ctrl-C and SIGTERM cancel a command's context (so the run stops
	// promptly and prints what it has). Only main sets it: tests run commands in-process.
	handleSignals bool
	// noStdoutNet turns off the workflow-command safety net on standard output, so tests can
	// show that each format's own escaping is enough (output.go).
	noStdoutNet bool

	// Set by guardOutput for the command's run (output.go): guarded marks the copy whose
	// stderr (and, under GitHub Actions, stdout) escape what is written to them;
	// githubActions is GITHUB_ACTIONS=true; term and rawStdout are the unguarded streams.
	guarded       bool
	githubActions bool
	term          io.Writer
	rawStdout     io.Writer
}

// clock returns the app's clock.
func (a *app) clock() func() time.Time {
	if a.now == nil {
		return time.Now
	}
	return a.now
}

func main() {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "vectorlint: cannot determine the working directory:", err)
		os.Exit(exitFailure)
	}
	a := &app{
		stdin:            os.Stdin,
		stdout:           os.Stdout,
		stderr:           os.Stderr,
		dir:              dir,
		lookupEnv:        os.LookupEnv,
		stdoutIsTerminal: isTerminal(os.Stdout),
		stderrIsTerminal: isTerminal(os.Stderr),
		now:              time.Now,
		handleSignals:    true,
	}
	os.Exit(a.run(context.Background(), os.Args[1:]))
}

// isTerminal reports whether f is a terminal. Asking the terminal driver (x/term, no cgo) is
// the only reliable test: a character device is not necessarily a terminal (/dev/null is one),
// and treating /dev/null as a terminal drew progress bars and colour into nowhere and hid the
// stall reports meant for CI logs.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// host is what the setup layer (internal/setup) may read of the outside world: the app's
// working directory, environment and test hooks.
func (a *app) host() *setup.Host {
	return &setup.Host{
		Dir:               a.dir,
		LookupEnv:         a.lookupEnv,
		StderrIsTerminal:  a.stderrIsTerminal,
		UserAgent:         "vectorlint/" + versionString(),
		Tune:              a.tuneLLM,
		DialContext:       a.dialContext,
		Proxy:             a.proxy,
		BatchPollInterval: a.batchPoll,
		JSTimeout:         a.jsTimeout,
	}
}

// getenv returns the variable's value, or "" when it is unset.
func (a *app) getenv(key string) string {
	v, _ := a.lookupEnv(key)
	return v
}

// run dispatches to a subcommand; anything that is not a subcommand name is the lint command,
// "--" first included: "vectorlint -- validate" lints a file named validate. The command runs
// with guarded output streams (output.go); its error becomes the exit code in one place
// (exitCode, exit.go).
func (a *app) run(ctx context.Context, args []string) int {
	if a.guarded {
		return a.exitCode(a.dispatch(ctx, args))
	}
	g, flush := a.guardOutput()
	defer flush()
	return g.exitCode(g.dispatch(ctx, args))
}

// dispatch runs the command args names on the guarded app.
func (a *app) dispatch(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "version":
			return a.runVersion(args[1:])
		case "help":
			a.printUsage(a.stdout)
			return nil
		}
	}
	// Signal handling is set up only for commands that do work: it costs about a millisecond
	// of start-up (docs/benchmarks.md), which version and help need not pay.
	if a.handleSignals {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if len(args) > 0 {
		switch args[0] {
		case "validate":
			return a.validateCommand(ctx, args[1:])
		case "init":
			return a.initCommand(ctx, args[1:])
		case "blueprint":
			return a.runBlueprint(ctx, args[1:])
		case "evaluate":
			return a.evaluateCommand(ctx, args[1:])
		case "cache":
			return a.cacheCommand(args[1:])
		case "batch":
			return a.batchCommand(ctx, args[1:])
		case "test":
			return a.testCommand(ctx, args[1:])
		case "merge":
			return a.mergeCommand(args[1:])
		case "ls-config":
			return a.lsConfigCommand(args[1:])
		case "lsp":
			return a.lspCommand(ctx, args[1:])
		}
	}
	return a.lintCommand(ctx, args)
}

// printUsage writes the top-level usage text.
func (a *app) printUsage(w io.Writer) {
	fmt.Fprint(w, `vectorlint lints prose with LLM-evaluated rules and runs Weval blueprints.

Usage:
  vectorlint [flags] [--] PATH...       lint files, directories (recursive) and globs; after -- every
                                        argument is a path, even one named like a flag or a command
  vectorlint validate [--rules DIR]     check the config and every rule; no LLM calls
  vectorlint init [--quick|--full]      write a starter vectorlint.ini and rule pack (--quick: only VECTORLINT.md)
  vectorlint blueprint check FILE...    parse and check Weval blueprints
  vectorlint blueprint run FILE         generate, judge and score a blueprint
  vectorlint evaluate METRIC ...        evaluators: f1, bleu, rouge_l, semantic_similarity, bias, coverage, ...
  vectorlint test [PATH...]             run the rules' examples as tests: precision and recall per rule and model
  vectorlint cache info|prune|clear     show, prune or empty the reply cache
  vectorlint batch submit|status|collect  lint through a provider batch at half price (docs/batch.md)
  vectorlint merge FILE.json...         join the json results of --shard jobs into one report
  vectorlint ls-config [FILE...]        print the resolved configuration (for each FILE: its sections and rules) as JSON
  vectorlint lsp                        the editor server (Language Server Protocol on stdio)
  vectorlint version                    print the version (also --version, -V)

Run "vectorlint --help" for the lint flags, "vectorlint COMMAND --help" for a command's flags.
`)
}
