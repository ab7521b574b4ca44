package envsource_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
)

// writeFiles creates files (relative paths) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadEnvPrecedence checks trust.md §5's order — process environment > .env.local > .env >
// the user config's [env] — value by value, and that each value knows its source (file and
// line; the user config has no lines).
func TestLoadEnvPrecedence(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	user := envsource.UserConfigPath(home)
	writeFiles(t, dir, map[string]string{
		".env":       "A=env\nB=env\nC=env\n\nD=env\n",
		".env.local": "# local overrides\nA=local\nB=local\n",
	})
	writeFiles(t, home, map[string]string{
		".vectorlint/config.toml": "title = \"ignored\"\n[env]\nA = \"user\"\nB = \"user\"\nC = \"user\"\nD = \"user\"\nE = \"user\"\nT = 0.5\n[other]\nx = 1\n",
	})
	process := envOf(map[string]string{"A": "process", "EMPTY": ""})
	env, err := envsource.Load(envsource.Options{Process: process, UserConfig: user, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	envFile, localFile := filepath.Join(dir, ".env"), filepath.Join(dir, ".env.local")
	tests := []struct {
		key, value string
		src        envsource.Source
	}{
		{"A", "process", envsource.Source{Origin: envsource.OriginProcess, Name: "A"}},
		{"B", "local", envsource.Source{Origin: envsource.OriginDotEnvLocal, Name: "B", File: localFile, Line: 3}},
		{"C", "env", envsource.Source{Origin: envsource.OriginDotEnv, Name: "C", File: envFile, Line: 3}},
		{"D", "env", envsource.Source{Origin: envsource.OriginDotEnv, Name: "D", File: envFile, Line: 5}},
		{"E", "user", envsource.Source{Origin: envsource.OriginUserConfig, Name: "E", File: user}},
		{"T", "0.5", envsource.Source{Origin: envsource.OriginUserConfig, Name: "T", File: user}},
		{"EMPTY", "", envsource.Source{Origin: envsource.OriginProcess, Name: "EMPTY"}},
	}
	for _, tt := range tests {
		v, ok := env.Lookup(tt.key)
		if !ok || v != tt.value {
			t.Errorf("%s = %q, %v; want %q", tt.key, v, ok, tt.value)
		}
		if got := env.Source(tt.key); got != tt.src {
			t.Errorf("Source(%s) = %+v, want %+v", tt.key, got, tt.src)
		}
	}
	if _, ok := env.Lookup("x"); ok {
		t.Error("a key of another table of the user config is a variable")
	}
	if got, want := env.Files(), []string{localFile, envFile, user}; !reflect.DeepEqual(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
	if v, ok := env.Process().Lookup("B"); ok {
		t.Errorf("Process() answers B = %q from a file", v)
	}
	if s := env.Source("B").String(); s != "B in "+localFile+":3" {
		t.Errorf("Source.String = %q", s)
	}

	// No files at all: the process environment alone.
	env, err = envsource.Load(envsource.Options{Process: process, UserConfig: filepath.Join(t.TempDir(), "none.toml"), Dir: t.TempDir()})
	if err != nil || len(env.Files()) != 0 {
		t.Fatalf("without files: %v, %v", env.Files(), err)
	}
	if v, _ := env.Lookup("A"); v != "process" {
		t.Errorf("A = %q", v)
	}
}

// TestLoadEnvNotRegular: a .env or .env.local that is a symbolic link leading out of the project
// root (it could point at /proc/self/environ or a key file) or a folder is an error and is never
// read; a link to a regular file inside the root is read (spec/trust.md §6), and so is a user
// config that links to a regular file (dotfile managers link it).
func TestLoadEnvNotRegular(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "target.env")
	writeFiles(t, filepath.Dir(target), map[string]string{"target.env": "OPENAI_BASE_URL=http://attacker.test/v1\n"})
	for _, name := range []string{".env", ".env.local"} {
		dir := t.TempDir()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
		_, err := envsource.Load(envsource.Options{Process: envOf(nil), Dir: dir})
		want := filepath.Join(dir, name) + ": expected a regular file (environment files that are pipes, devices or links out of the project are not read), found a symbolic link leading outside the project root " + dir
		if err == nil || err.Error() != want {
			t.Errorf("%s link: %v\nwant %s", name, err, want)
		}
		var de *envsource.DotEnvError
		if !errors.As(err, &de) {
			t.Errorf("%s link: %T, want *DotEnvError", name, err)
		}
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".env"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := envsource.Load(envsource.Options{Dir: dir})
	if want := filepath.Join(dir, ".env") + ": expected a regular file (environment files that are pipes, devices or links out of the project are not read), found a folder"; err == nil || err.Error() != want {
		t.Errorf("folder: %v", err)
	}
	// A link inside the root, relative or absolute, is followed.
	for _, absolute := range []bool{false, true} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"env/shared.env": "OPENAI_MODEL=inside\n"})
		target := "env/shared.env"
		if absolute {
			target = filepath.Join(dir, "env", "shared.env")
		}
		if err := os.Symlink(target, filepath.Join(dir, ".env")); err != nil {
			t.Fatal(err)
		}
		env, err := envsource.Load(envsource.Options{Process: envOf(nil), Dir: dir})
		if v, _ := env.Lookup("OPENAI_MODEL"); err != nil || v != "inside" {
			t.Errorf("link inside (%s): %q, %v", target, v, err)
		}
	}

	home := t.TempDir()
	real := filepath.Join(t.TempDir(), "dotfiles", "config.toml")
	writeFiles(t, filepath.Dir(real), map[string]string{"config.toml": "[env]\nOPENAI_MODEL = \"m\"\n"})
	if err := os.MkdirAll(filepath.Join(home, ".vectorlint"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, envsource.UserConfigPath(home)); err != nil {
		t.Fatal(err)
	}
	env, err := envsource.Load(envsource.Options{UserConfig: envsource.UserConfigPath(home)})
	if v, _ := env.Lookup("OPENAI_MODEL"); err != nil || v != "m" {
		t.Errorf("linked user config: %q, %v", v, err)
	}
}

func TestLoadEnvTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".env": "A=" + strings.Repeat("x", envsource.MaxFileSize) + "\n"})
	_, err := envsource.Load(envsource.Options{Dir: dir})
	if want := filepath.Join(dir, ".env") + ": expected an environment file of at most 1 MiB, found a larger file"; err == nil || err.Error() != want {
		t.Errorf("%v", err)
	}
}

func TestLoadEnvSyntaxErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".env": "A=1\n", ".env.local": "A=1\nOPENAI_API_KEY sk-secret-value\n"})
	_, err := envsource.Load(envsource.Options{Dir: dir})
	want := filepath.Join(dir, ".env.local") + `:2: expected KEY=VALUE, found "OPENAI_API_KEY" and 15 more characters (not shown: the value may be secret)`
	if err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
}

// TestParseUserConfig checks the accepted forms of [env] and that every error names the file
// and line without showing a value.
func TestParseUserConfig(t *testing.T) {
	t.Parallel()
	const secret = "sk-abc123SECRET"
	tests := []struct {
		name, src string
		want      map[string]string
		wantErr   string
	}{
		{"strings and scalars", "[env]\nOPENAI_API_KEY = \"" + secret + "\"\nOPENAI_TEMPERATURE = 0.2\nN = 3\nB = true\nLIT = 'a\\b'\n",
			map[string]string{"OPENAI_API_KEY": secret, "OPENAI_TEMPERATURE": "0.2", "N": "3", "B": "true", "LIT": `a\b`}, ""},
		{"other tables are ignored", "[ui]\ncolor = false\n[env]\nA = \"x\"\n", map[string]string{"A": "x"}, ""},
		{"no env table", "[ui]\ncolor = false\n", map[string]string{}, ""},
		{"empty file", "", map[string]string{}, ""},
		{"unquoted value", "[env]\nOPENAI_API_KEY = " + secret + "\n", nil,
			`config.toml:2: expected TOML, such as [env] NAME = "value", found a syntax error: expected value but found … instead (quoted text not shown: it may be secret)`},
		{"unterminated string", "[env]\n\nOPENAI_API_KEY = \"" + secret + "\n", nil,
			`config.toml:3: expected TOML, such as [env] NAME = "value", found a syntax error: strings cannot contain newlines (quoted text not shown: it may be secret)`},
		{"trailing text", "[env]\nA = '" + secret + "' junk\n", nil,
			`config.toml:2: expected TOML, such as [env] NAME = "value", found a syntax error: expected a top-level item to end with a newline, comment, or EOF, but got … instead (quoted text not shown: it may be secret)`},
		{"list value", "[env]\nA = \"x\"\nB = [\"" + secret + "\"]\n", nil, `config.toml:3: expected a string value in [env], such as NAME = "value", found a list`},
		{"nested table", "[env]\nA = 1\n[env.sub]\nx = 1\n", nil, `config.toml:3: expected a string value in [env], such as NAME = "value", found a table`},
		{"date", "[env]\nA = 1979-05-27\n", nil, `config.toml:2: expected a string value in [env], such as NAME = "value", found a date`},
		{"env not a table", "env = \"" + secret + "\"\n", nil, `config.toml: expected env to be a table ([env] with NAME = "value" lines), found a string`},
		{"bad name", "[env]\n\"A B\" = \"x\"\n", nil, `config.toml: expected [env] keys that are variable names of letters, digits, '_', '.' or '-', found "A B"`},
		{"duplicate key", "[env]\nA = \"1\"\nA = \"2\"\n", nil,
			`config.toml:3: expected TOML, such as [env] NAME = "value", found a syntax error: Key … has already been defined. (quoted text not shown: it may be secret)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := envsource.ParseUserConfig("config.toml", []byte(tt.src))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "abc123") {
					t.Fatalf("the error shows the value: %v", err)
				}
				var de *envsource.DotEnvError
				if !errors.As(err, &de) {
					t.Fatalf("%T, want *DotEnvError", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func FuzzParseUserConfig(f *testing.F) {
	for _, s := range []string{"[env]\nA = \"1\"\n", "[env]\nA = 1\nB = true\n", "[env]\nA = [1]\n", "env = 1", "[env.x]\n",
		"[env]\nA = sk-secret\n", "[env]\n\"A B\" = \"x\"\n", "a = { b = 1 }\n[env]\nC = 'x'\n", "[env]\nA = \"\\u0000\"\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vars, err := envsource.ParseUserConfig("config.toml", []byte(s))
		if err != nil {
			var de *envsource.DotEnvError
			if !errors.As(err, &de) || de.File != "config.toml" || de.Line < 0 {
				t.Fatalf("error %v is not a *DotEnvError naming the file", err)
			}
			return
		}
		for k := range vars {
			if k == "" || strings.ContainsAny(k, " =\n") {
				t.Fatalf("accepted the variable name %q", k)
			}
		}
	})
}

func TestLoadDotEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	content := "# provider settings\n" +
		"export LLM_PROVIDER=gemini\n" +
		"GEMINI_API_KEY = AIza-file-key   # from the file\n" +
		"GEMINI_MODEL='gemini-2.5-pro'\n" +
		"OPENAI_MODEL=from-file\n" +
		"MULTI=\"line one\nline two\"\n" +
		"ESCAPED=\"a\\tb\\n\\\"c\\\"\"\r\n" +
		"EMPTY=\n" +
		"HASH=abc#def\n"
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	process := envOf(map[string]string{"OPENAI_MODEL": "from-process", "EMPTY_IN_PROCESS": ""})
	env, err := envsource.Load(envsource.Options{Process: process, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"LLM_PROVIDER":   "gemini",
		"GEMINI_API_KEY": "AIza-file-key",
		"GEMINI_MODEL":   "gemini-2.5-pro",
		"OPENAI_MODEL":   "from-process", // the process environment wins
		"MULTI":          "line one\nline two",
		"ESCAPED":        "a\tb\n\"c\"",
		"EMPTY":          "",
		"HASH":           "abc#def",
	}
	for k, v := range want {
		got, ok := env.Lookup(k)
		if !ok || got != v {
			t.Errorf("%s = %q, %v; want %q", k, got, ok, v)
		}
	}
	if _, ok := env.Lookup("NOT_SET"); ok {
		t.Errorf("NOT_SET found")
	}
	if v, ok := env.Lookup("EMPTY_IN_PROCESS"); !ok || v != "" {
		t.Errorf("a variable set to empty in the process is still set: got %q, %v", v, ok)
	}
	// No .env: the lookup is returned unchanged.
	env, err = envsource.Load(envsource.Options{Process: process, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := env.Lookup("OPENAI_MODEL"); v != "from-process" {
		t.Fatalf("without .env: OPENAI_MODEL = %q", v)
	}
}

func TestParseDotEnvErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ content, want string }{
		{"A=1\nnot a pair\n", `.env:2: expected KEY=VALUE, found "not" and 6 more characters (not shown: the value may be secret)`},
		{"A=1\n\nBAD KEY=2\n", `.env:3: expected a variable name of letters, digits, '_', '.' or '-' before '=', found "BAD KEY"`},
		{"=value\n", `.env:1: expected a variable name of letters, digits, '_', '.' or '-' before '=', found ""`},
		{"A=1\nKEY=\"sk-unterminated-secret-value\n", `.env:2: expected a closing " quote for the value of KEY, found the end of the file`},
		{"KEY='secret' trailing\n", `.env:1: expected a comment or the end of the line after the quoted value of KEY, found 8 more characters (not shown: the value may be secret)`},
		{"sk-abcdefghijklmnopqrstuvwxyz\n", `.env:1: expected KEY=VALUE, found a line of 29 characters without '=' (not shown: it may be secret)`},
	}
	for _, tt := range tests {
		_, err := envsource.ParseDotEnv(".env", []byte(tt.content))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseDotEnv(%q) error:\n got %v\nwant %s", tt.content, err, tt.want)
		}
		var de *envsource.DotEnvError
		if !errors.As(err, &de) {
			t.Errorf("ParseDotEnv(%q): error is %T, want *DotEnvError", tt.content, err)
		}
	}
}

func FuzzParseDotEnv(f *testing.F) {
	for _, s := range []string{"A=1\n", "export B='x'\n", "C=\"a\\nb\"\n", "D=\"multi\nline\"", "# c\n\nE = v # c\n",
		"F='unterminated", "G=`back`", "\ufeffH=1\r\n", "=", "export\n", "K=\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vars, err := envsource.ParseDotEnv("fuzz.env", []byte(s))
		if err != nil {
			var de *envsource.DotEnvError
			if !errors.As(err, &de) || de.Line < 1 {
				t.Fatalf("error %v is not a *DotEnvError with a line", err)
			}
			return
		}
		again, err := envsource.ParseDotEnv("fuzz.env", []byte(s))
		if err != nil || !reflect.DeepEqual(vars, again) {
			t.Fatalf("not deterministic")
		}
	})
}

// envOf is a process environment made of m.
func envOf(m map[string]string) envsource.LookupFunc {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}
