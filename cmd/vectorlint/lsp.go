package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/lsp"
	"github.com/vectorlint/vectorlint/lint"
)

// runLSP is `vectorlint lsp`: the editor server on standard input and output (internal/lsp),
// finding each document's project from its folder and calling the model as a lint run does.
func (a *app) runLSP(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("vectorlint lsp", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		config   string
		debounce time.Duration
		stdio    bool
	)
	fs.StringVar(&config, "config", "", "configuration file for every document (default: $VECTORLINT_CONFIG, else the nearest .vectorlint.ini or vectorlint.ini from the document's folder up)")
	fs.DurationVar(&debounce, "debounce", lsp.DefaultDebounce, "wait after a save before the model is called")
	fs.BoolVar(&stdio, "stdio", true, "speak LSP on standard input and output (the only transport; accepted for clients that pass it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(a.stdout, "Usage: vectorlint lsp [--config FILE] [--debounce DURATION]\n\n"+
				"Runs the Language Server Protocol server on standard input and output (docs/editors.md).\n\nFlags:\n%s", fs.FlagUsages())
			return nil
		}
		return a.usageError("vectorlint lsp", err)
	}
	if fs.NArg() > 0 {
		return a.usageError("vectorlint lsp", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if debounce < 0 {
		return a.usageError("vectorlint lsp", fmt.Errorf("--debounce: expected a duration of 0 or more, found %s", debounce))
	}
	if config != "" && !filepath.IsAbs(config) {
		config = filepath.Join(a.dir, config)
	}
	stdout := a.rawStdout // the protocol's own bytes: JSON, escaped as JSON
	if stdout == nil {
		stdout = a.stdout
	}
	err := lsp.Serve(ctx, stdioStream{in: a.stdin, out: stdout}, lsp.Options{
		Version: versionString(),
		Project: func(dir string) (*lint.Project, error) {
			opts, err := findProjectUp(dir, config, a.getenv("VECTORLINT_CONFIG"))
			if err != nil {
				return nil, err
			}
			return lint.LoadProject(opts)
		},
		Model:    lsp.SetupModel(a.host(), a.stderr),
		Debounce: debounce,
		Log:      a.stderr,
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, lsp.ErrExitWithoutShutdown), errors.Is(err, lsp.ErrClientGone):
		// LSP: exit code 1 when exit did not follow shutdown
		return &commandError{prefix: "vectorlint lsp", err: err, code: exitFindings}
	}
	return &commandError{prefix: "vectorlint lsp", err: err}
}

// findProjectUp is lint.FindProject from a document's folder, where the command starts from its
// working directory: the configuration is searched upwards either way, and so, for a
// zero-config project, is the style guide (VECTORLINT.md in the folder or a parent), since a
// document may be in a subfolder of the project the guide is for.
func findProjectUp(dir, config, configEnv string) (lint.ProjectOptions, error) {
	opts, err := lint.FindProject(dir, config, configEnv)
	var notFound *lint.ConfigNotFoundError
	if !errors.As(err, &notFound) {
		return opts, err
	}
	for d := filepath.Dir(dir); d != dir; dir, d = d, filepath.Dir(d) {
		if guide := lint.FindStyleGuide(d, ""); guide != "" {
			return lint.ProjectOptions{StyleGuidePath: guide}, nil
		}
	}
	return opts, err
}

// stdioStream is standard input and output as one stream. Closing it closes standard input
// when it can be closed, so the server's reader stops.
type stdioStream struct {
	in  io.Reader
	out io.Writer
}

func (s stdioStream) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdioStream) Write(p []byte) (int, error) { return s.out.Write(p) }

func (s stdioStream) Close() error {
	if c, ok := s.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
