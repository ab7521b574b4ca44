// Package setup is the one setup layer of a run that may call a model (docs/how-it-works.md):
// the environment settings are read from (internal/envsource's layers: the process, .env.local
// and .env, the user config), the endpoints resolved from them and checked against the trust
// rule (internal/trust), the prices, and the model client (llm) with its cache, limits, event
// log and stall reports. Lint, the dry run, the editor server, blueprint run and evaluate all
// get their model through it, so they share one behaviour and one set of messages; the
// commands themselves never import llm or points.
package setup

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/llm"
)

// Host is what the setup layer may read of the outside world, given by the command (so tests
// run commands in-process with their own working directory and environment). No field is
// read from the process itself.
type Host struct {
	// Dir is the working directory: relative paths and the .env files of a run without a
	// config file start there.
	Dir string
	// LookupEnv reads a variable of the process environment (os.LookupEnv in production).
	LookupEnv func(key string) (string, bool)
	// StderrIsTerminal turns the stall reports off: on a terminal the progress bar shows that
	// a run is alive.
	StderrIsTerminal bool
	// UserAgent is the model client's User-Agent header.
	UserAgent string
	// Tune, when set, adjusts the model client's configuration before it is built (tests
	// shorten the backoff and the stall interval); production leaves it nil.
	Tune TuneFunc
	// DialContext, when set, makes every network connection of the model client and of the
	// point functions' HTTP client (tests route a host name to a local server).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Proxy, when set, chooses the proxy of every HTTP client instead of
	// http.ProxyFromEnvironment; a loopback host never goes through it (docs/security.md).
	Proxy func(*http.Request) (*url.URL, error)
	// BatchPollInterval is how often a batch collect with --wait asks for the batch's state
	// (0: batch.DefaultPollInterval; tests shorten it).
	BatchPollInterval time.Duration
	// JSTimeout, when set, bounds each $js point of the lint runs' checklist rules in place of
	// points.DefaultJSTimeout (tests give a limit only their attacks reach); production leaves
	// it 0.
	JSTimeout time.Duration
}

// TuneFunc adjusts a model client's configuration before it is built (Host.Tune).
type TuneFunc func(*llm.Config)

// Getenv returns the process variable's value, or "" when it is unset.
func (h *Host) Getenv(key string) string {
	if h.LookupEnv == nil {
		return ""
	}
	v, _ := h.LookupEnv(key)
	return v
}

// HomeDir is the user's home folder from the process environment ("" when unset): the user
// config lives there.
func (h *Host) HomeDir() string {
	if runtime.GOOS == "windows" {
		if v := h.Getenv("USERPROFILE"); v != "" {
			return v
		}
	}
	return h.Getenv("HOME")
}

// Trust is the trust rule of the run: which hosts, besides the providers' own endpoints, base
// URLs the user gave and loopback addresses, may receive a key the user holds. Its list comes
// from VECTORLINT_TRUSTED_HOSTS in the process environment only.
func (h *Host) Trust() (*trust.Rule, error) {
	return trust.ParseHosts(h.Getenv(trust.HostsVar))
}

// Rel shows a path relative to the working directory when it is inside it.
func (h *Host) Rel(path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return path
	}
	if r, err := filepath.Rel(h.Dir, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

// RelErr shows the files an environment or trust error names relative to the working
// directory, as every other message does; other errors are returned as they are.
func (h *Host) RelErr(err error) error {
	var de *envsource.DotEnvError
	if errors.As(err, &de) {
		c := *de
		c.File = h.Rel(c.File)
		return &c
	}
	var ue *trust.UntrustedHostError
	if errors.As(err, &ue) {
		c := *ue
		c.Key.File, c.BaseURL.File = h.Rel(c.Key.File), h.Rel(c.BaseURL.File)
		return &c
	}
	return err
}

// proxy is the proxy chooser of the HTTP clients: the test hook, else
// http.ProxyFromEnvironment (the process's own variables, never a .env file's).
func (h *Host) proxy() func(*http.Request) (*url.URL, error) {
	if h.Proxy != nil {
		return h.Proxy
	}
	return http.ProxyFromEnvironment
}
