package envsource

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/safefile"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// Env is the environment of a run in layers, highest precedence first: the process
// environment, the project's .env.local, its .env, and the [env] table of the user config
// (trust.md §5). Every value knows its Source, so the trust rule can tell a key the user set
// from a base URL a repository set. It is safe for concurrent use (it never changes after
// Load).
type Env struct {
	process LookupFunc
	files   []envFile // in precedence order
}

// envFile is one file layer of an Env.
type envFile struct {
	origin Origin
	path   string
	vars   map[string]string
	lines  map[string]int // 0 (absent) when the format gives no lines
}

// Lookup returns the value of the first layer that sets key. A variable set to "" in the
// process environment is set: it hides the files' values.
func (e *Env) Lookup(key string) (string, bool) {
	if v, ok := e.process.Lookup(key); ok {
		return v, true
	}
	for _, f := range e.files {
		if v, ok := f.vars[key]; ok {
			return v, true
		}
	}
	return "", false
}

// Source says which layer Lookup answers key from (the process environment when none sets
// it).
func (e *Env) Source(key string) Source {
	if _, ok := e.process.Lookup(key); ok {
		return Source{Origin: OriginProcess, Name: key}
	}
	for _, f := range e.files {
		if _, ok := f.vars[key]; ok {
			return Source{Origin: f.origin, Name: key, File: f.path, Line: f.lines[key]}
		}
	}
	return Source{Origin: OriginProcess, Name: key}
}

// Process returns the process environment alone. VECTORLINT_TRUSTED_HOSTS and the proxy
// variables are read from it only: no file may widen where a key goes or route it through a
// proxy.
func (e *Env) Process() LookupFunc { return e.process }

// Files lists the files that were read, highest precedence first.
func (e *Env) Files() []string {
	out := make([]string, len(e.files))
	for i, f := range e.files {
		out[i] = f.path
	}
	return out
}

// Options say which files Load reads.
type Options struct {
	// Process is the process environment (os.LookupEnv in the command).
	Process LookupFunc
	// UserConfig is the user config file, ~/.vectorlint/config.toml; "" reads none.
	UserConfig string
	// Dir is the folder of the project's .env and .env.local: the folder of the config file
	// that was found, else the working directory; "" reads none.
	Dir string
	// Root is the project root (internal/tree) the .env files are read through: a link whose
	// target is a regular file inside it is followed, one leading out is an error. Nil opens a
	// root at Dir for the call.
	Root *tree.Root
}

// MaxFileSize is the largest environment file Load reads (1 MiB): an environment file
// is a few lines, and a huge one in a repository would only cost memory.
const MaxFileSize = 1 << 20

// Load reads the environment files and layers them under the process environment:
// process > Dir/.env.local > Dir/.env > the user config's [env] table. A missing file is
// skipped. The project's files are read through the project root (Options.Root): a file
// that is not a regular file (a FIFO, a device, a folder) or a symbolic link leading out of the
// root is an error and is not read, since a repository could otherwise make the tool read
// /proc/self/environ, a key file, or hang on a pipe; a link to a regular file inside the root
// is followed. The user config may be a link (dotfile managers link it), but its target must be
// a regular file. Malformed files are errors naming the file and line; no value is ever quoted
// in an error.
func Load(opts Options) (*Env, error) {
	e := &Env{process: opts.Process}
	if opts.Dir != "" {
		root := opts.Root
		if root == nil {
			r, err := tree.Open(opts.Dir)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			root = r
		}
		for _, f := range []struct {
			name   string
			origin Origin
		}{{".env.local", OriginDotEnvLocal}, {".env", OriginDotEnv}} {
			path := filepath.Join(opts.Dir, f.name)
			data, err := readProjectEnvFile(root, path)
			if err != nil {
				return nil, err
			}
			if data == nil {
				continue
			}
			vars, lines, err := parseDotEnv(path, data)
			if err != nil {
				return nil, err
			}
			e.files = append(e.files, envFile{origin: f.origin, path: path, vars: vars, lines: lines})
		}
	}
	if opts.UserConfig != "" {
		data, err := readEnvFile(opts.UserConfig)
		if err != nil {
			return nil, err
		}
		if data != nil {
			vars, err := ParseUserConfig(opts.UserConfig, data)
			if err != nil {
				return nil, err
			}
			e.files = append(e.files, envFile{origin: OriginUserConfig, path: opts.UserConfig, vars: vars})
		}
	}
	return e, nil
}

// readProjectEnvFile reads a project's environment file through root, or returns nil when there
// is none. Only a regular file inside the root is read (a link to one inside counts), and only
// up to MaxFileSize.
func readProjectEnvFile(root *tree.Root, path string) ([]byte, error) {
	fi, err := root.Stat(path)
	var le *tree.LeavesRootError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.As(err, &le):
		return nil, &DotEnvError{File: path, Expected: notRegularExpected, Found: le.Error()}
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	data, err := root.ReadFile(path, MaxFileSize)
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, &DotEnvError{File: path, Expected: "an environment file of at most 1 MiB", Found: "a larger file"}
	case safefile.IsNotRegular(err):
		var pe *fs.PathError
		errors.As(err, &pe)
		return nil, &DotEnvError{File: path, Expected: notRegularExpected, Found: strings.TrimSuffix(pe.Err.Error(), ", not a regular file")}
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	return data, nil
}

// readEnvFile reads the user's own environment file (the user config), or returns nil when
// there is none. Only a regular file is read (a symbolic link to one counts: dotfile managers
// link it), and only up to MaxFileSize.
func readEnvFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	// The file may have been replaced since Lstat: check what was opened.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
		}
		return nil, notRegular(path, fi.Mode())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	if len(data) > MaxFileSize {
		return nil, &DotEnvError{File: path, Expected: "an environment file of at most 1 MiB", Found: "a larger file"}
	}
	return data, nil
}

// notRegular is the error for an environment file that is not a regular file.
func notRegular(path string, mode fs.FileMode) error {
	return &DotEnvError{File: path, Expected: notRegularExpected, Found: describeMode(mode)}
}

// notRegularExpected is what an environment file must be.
const notRegularExpected = "a regular file (environment files that are pipes, devices or links out of the project are not read)"

// describeMode names a kind of file.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	}
	return "a special file"
}

// unwrapPath drops the path *fs.PathError repeats (the message names the file already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// UserConfigPath returns ~/.vectorlint/config.toml for the given home folder ("" when home is
// "").
func UserConfigPath(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".vectorlint", "config.toml")
}

// envValue is one value of the user config's [env] table.
type envValue string

// UnmarshalTOML takes strings as they are and numbers and booleans as written (an [env] entry
// such as OPENAI_TEMPERATURE = 0.2 is meant as the string "0.2"); lists, tables and dates are
// errors, which the decoder reports with the key's line.
func (v *envValue) UnmarshalTOML(x any) error {
	switch t := x.(type) {
	case string:
		*v = envValue(t)
	case int64:
		*v = envValue(strconv.FormatInt(t, 10))
	case float64:
		*v = envValue(strconv.FormatFloat(t, 'g', -1, 64))
	case bool:
		*v = envValue(strconv.FormatBool(t))
	case []any:
		return errors.New(envValueFound + "a list")
	case map[string]any:
		return errors.New(envValueFound + "a table")
	case time.Time:
		return errors.New(envValueFound + "a date")
	default:
		return fmt.Errorf("%sa %T", envValueFound, x)
	}
	return nil
}

// envValueFound starts the errors of envValue. The decoder copies them into a
// toml.ParseError's Message (with the line) without wrapping them, so this prefix is how
// ParseUserConfig tells them from syntax errors, whose messages may quote a value.
const envValueFound = "found "

// quotedRe finds the quoted text of a TOML parser message, which may be part of a value.
var quotedRe = regexp.MustCompile(`"[^"]*"|'[^']*'`)

// ParseUserConfig parses the user config (~/.vectorlint/config.toml, the original VectorLint's
// global config): the keys of its [env] table are variable names and their values strings
// (numbers and booleans are taken as written). Other tables and keys are ignored: they hold
// the original's other settings. name is used in errors, which give the line and never a
// value.
func ParseUserConfig(name string, data []byte) (map[string]string, error) {
	var cfg struct {
		Env map[string]envValue `toml:"env"`
	}
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var pe toml.ParseError
		if !errors.As(err, &pe) {
			return nil, &DotEnvError{File: name, Expected: "a TOML file", Found: "text that cannot be read"}
		}
		if found, ok := strings.CutPrefix(pe.Message, envValueFound); ok {
			return nil, &DotEnvError{File: name, Line: pe.Position.Line,
				Expected: `a string value in [env], such as NAME = "value"`, Found: found}
		}
		// The parser's message may quote part of a value (a key written without quotes):
		// show the message with quoted text removed.
		msg := quotedRe.ReplaceAllString(pe.Message, "…")
		return nil, &DotEnvError{File: name, Line: pe.Position.Line, Expected: "TOML, such as [env] NAME = \"value\"",
			Found: "a syntax error: " + msg + " (quoted text not shown: it may be secret)"}
	}
	if md.IsDefined("env") && md.Type("env") != "Hash" {
		return nil, &DotEnvError{File: name, Expected: "env to be a table ([env] with NAME = \"value\" lines)", Found: "a " + strings.ToLower(md.Type("env"))}
	}
	out := make(map[string]string, len(cfg.Env))
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !validEnvKey(k) {
			return nil, &DotEnvError{File: name, Expected: "[env] keys that are variable names of letters, digits, '_', '.' or '-'",
				Found: strconv.Quote(clip(redact.Text(k), 60))}
		}
		out[k] = string(cfg.Env[k])
	}
	return out, nil
}
