package points

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/redact"
)

// AllowEnv is the set of environment variables a blueprint's ${VAR} references may read: the
// names given with --allow-env (spec/trust.md §1). Any other reference is an error before any
// call, so a blueprint from someone else cannot send an API key from the environment to a
// host it picked.
type AllowEnv map[string]bool

// ParseAllowEnv reads --allow-env values: each a variable name or a comma-separated list of
// them (the flag is repeatable). A name that is not a variable name is an error naming it.
func ParseAllowEnv(values []string) (AllowEnv, error) {
	out := AllowEnv{}
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if !validVarName(name) {
				return nil, fmt.Errorf("--allow-env: expected variable names such as OPENAI_API_KEY (letters, digits and _), found %q", name)
			}
			out[name] = true
		}
	}
	return out, nil
}

// validVarName reports whether s is an environment variable name: a letter or "_" followed
// by letters, digits and "_".
func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// notAllowedMessage says that a reference is not allowed and how to allow it.
func notAllowedMessage(where, name string) string {
	return fmt.Sprintf("%s uses ${%s}, which a blueprint may read only when the run names it: "+
		"add --allow-env %s if this blueprint may send that variable to its url", where, name, name)
}

// EnvNotAllowedError is a ${VAR} reference that the run does not allow (--allow-env).
type EnvNotAllowedError struct {
	// Name is the variable; Where the place of the reference.
	Name, Where string
}

// Error names the variable, where it is used and the flag that allows it.
func (e *EnvNotAllowedError) Error() string { return notAllowedMessage(e.Where, e.Name) }

// ExpandEnv replaces the ${VAR} references of s (found at where) with the variables' values.
// A variable that allow does not name is an *EnvNotAllowedError; one that is not set is an
// error naming it (never a value). It returns the expanded text and the sources of the
// variables used.
func ExpandEnv(s string, env envsource.Vars, allow AllowEnv, where string) (string, []envsource.Source, error) {
	if !strings.Contains(s, "${") {
		return s, nil, nil
	}
	var used []envsource.Source
	var firstErr error
	out := redact.EnvRef().ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		if firstErr != nil {
			return ""
		}
		if !allow[name] {
			firstErr = &EnvNotAllowedError{Name: name, Where: where}
			return ""
		}
		var val string
		ok := false
		if env != nil {
			val, ok = env.Lookup(name)
		}
		if !ok {
			firstErr = fmt.Errorf("%s uses ${%s}, which is not set", where, name)
			return ""
		}
		used = append(used, env.Source(name))
		return val
	})
	if firstErr != nil {
		return "", nil, firstErr
	}
	return out, used, nil
}

// ExpandHeaders expands the ${VAR} references of header values (see ExpandEnv), returning
// the headers and the sources of the variables used.
func ExpandHeaders(headers map[string]string, env envsource.Vars, allow AllowEnv, what string) (map[string]string, []envsource.Source, error) {
	if len(headers) == 0 {
		return nil, nil, nil
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]string, len(headers))
	var used []envsource.Source
	for _, k := range names {
		v, u, err := ExpandEnv(headers[k], env, allow, fmt.Sprintf("header %q of %s", k, what))
		if err != nil {
			return nil, nil, err
		}
		out[k], used = v, append(used, u...)
	}
	return out, used, nil
}

// HeldSource returns the first of sources the user holds (process environment, user config),
// or a zero Source when none is.
func HeldSource(sources []envsource.Source) envsource.Source {
	for _, s := range sources {
		if s.Origin.HeldByUser() {
			return s
		}
	}
	return envsource.Source{}
}

// EnvSecrets returns the values of the variables in used (the sources ExpandEnv and
// ExpandHeaders return), each with its URL-escaped forms when they differ: what a request
// carries because --allow-env let it, to be redacted wherever a key is (errors, and the
// successful replies of docs/security.md). Values shorter than 4 bytes are left out, as the
// redaction ignores them.
func EnvSecrets(env envsource.Vars, used []envsource.Source) []redact.Secret {
	if env == nil {
		return nil
	}
	var out []redact.Secret
	seen := map[string]bool{}
	for _, s := range used {
		v, ok := env.Lookup(s.Name)
		if !ok || len(v) < 4 {
			continue
		}
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			if !seen[form] {
				seen[form] = true
				out = append(out, redact.Secret(form))
			}
		}
	}
	return out
}
