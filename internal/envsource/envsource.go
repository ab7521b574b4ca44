// Package envsource is the environment that settings are read from, in layers, each value
// knowing where it came from: the process environment, the project's .env.local and .env (read
// through the project root, internal/tree), and the [env] table of the user config
// (~/.vectorlint/config.toml), spec/trust.md §5. Where a value came from (its Origin) decides
// where an API key may be sent (internal/trust). The package never reads the process
// environment itself: the command passes os.LookupEnv in.
package envsource

import (
	"fmt"
	"strconv"
)

// LookupFunc reads an environment variable: os.LookupEnv in the command, a map in tests. As a
// Vars, every value it gives counts as coming from the process environment; an *Env knows
// which values came from files.
type LookupFunc func(key string) (string, bool)

// Origin is where a setting's value came from. Where an API key may be sent depends on it
// (internal/trust): whoever runs the tool chose the values of the command line, the process
// environment and the user config; the repository being read chose those of its .env files,
// vectorlint.ini and blueprints, and on a pull request that is its author.
type Origin int

// The origins of settings. OriginUnknown, the zero value, is a value the calling program set
// itself (a Go test building its own llm.Endpoint): it is treated as chosen by the user.
const (
	OriginUnknown     Origin = iota
	OriginDefault            // built into vectorlint: a provider's own endpoint
	OriginFlag               // the command line
	OriginProcess            // the process environment
	OriginUserConfig         // the [env] table of the user config, ~/.vectorlint/config.toml
	OriginDotEnv             // the project's .env
	OriginDotEnvLocal        // the project's .env.local
	OriginConfigFile         // vectorlint.ini
	OriginBlueprint          // a blueprint file
)

// UserChosen reports whether whoever runs the tool chose values of this origin, rather than
// the repository the tool reads.
func (o Origin) UserChosen() bool {
	switch o {
	case OriginDotEnv, OriginDotEnvLocal, OriginConfigFile, OriginBlueprint:
		return false
	}
	return true
}

// HeldByUser reports whether a secret of this origin is the user's own: one from the process
// environment or the user config. Such a secret goes only where the trust rule allows.
func (o Origin) HeldByUser() bool { return o == OriginProcess || o == OriginUserConfig }

// String names the origin in messages.
func (o Origin) String() string {
	switch o {
	case OriginDefault:
		return "the built-in default"
	case OriginFlag:
		return "the command line"
	case OriginProcess:
		return "the process environment"
	case OriginUserConfig:
		return "the user config"
	case OriginDotEnv:
		return "the project's .env"
	case OriginDotEnvLocal:
		return "the project's .env.local"
	case OriginConfigFile:
		return "the config file"
	case OriginBlueprint:
		return "the blueprint"
	}
	return "the calling program"
}

// Source says where one value came from. It never holds the value.
type Source struct {
	Origin Origin
	// Name is the variable, ini key, flag or field that held the value: "OPENAI_BASE_URL",
	// "BaseURL", "--base-url", `url of custom model "x"`.
	Name string
	// File is the file of values read from one (.env, the user config, vectorlint.ini, a
	// blueprint); Line is the value's 1-based line there, 0 when unknown.
	File string
	Line int
}

// Where returns "file:line" (or "file") for a value read from a file, else the origin's name.
func (s Source) Where() string {
	switch {
	case s.File != "" && s.Line > 0:
		return s.File + ":" + strconv.Itoa(s.Line)
	case s.File != "":
		return s.File
	}
	return s.Origin.String()
}

// String describes the source: "OPENAI_BASE_URL in .env:3", "OPENAI_API_KEY in the process
// environment", "--base-url on the command line".
func (s Source) String() string {
	where := s.Where()
	if s.Name == "" {
		return where
	}
	if s.Origin == OriginFlag {
		return s.Name + " on " + where
	}
	return s.Name + " in " + where
}

// Vars is an environment that settings are resolved from: each variable's value and where it
// came from. A LookupFunc is a Vars whose every value comes from the process environment; an
// *Env adds the project's .env files and the user config.
type Vars interface {
	Lookup(key string) (string, bool)
	Source(key string) Source
}

// Lookup calls f; a nil LookupFunc has no variables.
func (f LookupFunc) Lookup(key string) (string, bool) {
	if f == nil {
		return "", false
	}
	return f(key)
}

// Source reports every variable of a LookupFunc as coming from the process environment.
func (f LookupFunc) Source(key string) Source { return Source{Origin: OriginProcess, Name: key} }

// Lookup reads a variable from vars, which may be nil (no variables).
func Lookup(vars Vars, key string) (string, bool) {
	if vars == nil {
		return "", false
	}
	return vars.Lookup(key)
}

// SourceOf is vars.Source(key), or the process environment when vars is nil.
func SourceOf(vars Vars, key string) Source {
	if vars == nil {
		return Source{Origin: OriginProcess, Name: key}
	}
	return vars.Source(key)
}

// SettingError is a setting with a bad value. Source names where it came from: an environment
// variable, a flag ("--base-url") or an ini key ("BaseURL in the config file").
type SettingError struct {
	Source   string
	Expected string
	Found    string
}

// Error says where the value came from, what was expected and what was found.
func (e *SettingError) Error() string {
	return fmt.Sprintf("%s: expected %s, found %q", e.Source, e.Expected, e.Found)
}
