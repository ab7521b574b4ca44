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
	"github.com/vectorlint/vectorlint/lint/config"
)

// lspOptions are the options of `vectorlint lsp`.
type lspOptions struct {
	config   string        // --config
	debounce time.Duration // --debounce
	help     string        // the help to print instead of serving, for --help
}

// lspCommand is `vectorlint lsp`.
func (a *app) lspCommand(ctx context.Context, args []string) error {
	o, err := parseLSP(args)
	if err != nil {
		return a.usageError("vectorlint lsp", err)
	}
	return a.runLSP(ctx, o)
}

// parseLSP fills the options of `vectorlint lsp` from args and checks them.
func parseLSP(args []string) (*lspOptions, error) {
	fs := pflag.NewFlagSet("vectorlint lsp", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &lspOptions{}
	var stdio bool
	fs.StringVar(&o.config, "config", "", "configuration file for every document (default: $VECTORLINT_CONFIG, else the nearest .vectorlint.ini or vectorlint.ini from the document's folder up)")
	fs.DurationVar(&o.debounce, "debounce", lsp.DefaultDebounce, "wait after a save before the model is called")
	fs.BoolVar(&stdio, "stdio", true, "speak LSP on standard input and output (the only transport; accepted for clients that pass it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = fmt.Sprintf("Usage: vectorlint lsp [--config FILE] [--debounce DURATION]\n\n"+
				"Runs the Language Server Protocol server on standard input and output (docs/editors.md).\n\nFlags:\n%s", fs.FlagUsages())
			return o, nil
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.debounce < 0 {
		return nil, fmt.Errorf("--debounce: expected a duration of 0 or more, found %s", o.debounce)
	}
	return o, nil
}

// runLSP is `vectorlint lsp`: the editor server on standard input and output (internal/lsp),
// finding each document's project from its folder and calling the model as a lint run does.
func (a *app) runLSP(ctx context.Context, o *lspOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	configFlag, debounce := o.config, o.debounce
	if configFlag != "" && !filepath.IsAbs(configFlag) {
		configFlag = filepath.Join(a.dir, configFlag)
	}
	stdout := a.rawStdout // the protocol's own bytes: JSON, escaped as JSON
	if stdout == nil {
		stdout = a.stdout
	}
	err := lsp.Serve(ctx, stdioStream{in: a.stdin, out: stdout}, lsp.Options{
		Version: versionString(),
		Project: func(dir string) (*config.Project, error) {
			opts, err := findProjectUp(dir, configFlag, a.getenv("VECTORLINT_CONFIG"))
			if err != nil {
				return nil, err
			}
			return config.LoadProject(opts)
		},
		Model:     lsp.SetupModel(a.host(), a.stderr),
		Debounce:  debounce,
		Log:       a.stderr,
		JSTimeout: a.jsTimeout,
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
func findProjectUp(dir, configFlag, configEnv string) (config.ProjectOptions, error) {
	opts, err := config.FindProject(dir, configFlag, configEnv)
	var notFound *config.NotFoundError
	if !errors.As(err, &notFound) {
		return opts, err
	}
	for d := filepath.Dir(dir); d != dir; dir, d = d, filepath.Dir(d) {
		if guide := config.FindStyleGuide(d, ""); guide != "" {
			return config.ProjectOptions{StyleGuidePath: guide}, nil
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
