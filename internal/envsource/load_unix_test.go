//go:build unix

package envsource_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
)

// TestLoadEnvFIFO: a .env that is a named pipe would block the run forever on open; it is an
// error instead, at once, and never opened.
func TestLoadEnvFIFO(t *testing.T) {
	t.Parallel()
	for _, name := range []string{".env", ".env.local"} {
		dir := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := envsource.Load(envsource.Options{Dir: dir})
			done <- err
		}()
		select {
		case err := <-done:
			want := filepath.Join(dir, name) + ": expected a regular file (environment files that are pipes, devices or links out of the project are not read), found a named pipe (FIFO)"
			if err == nil || err.Error() != want {
				t.Errorf("%s: %v\nwant %s", name, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: LoadEnv hangs on a FIFO", name)
		}
	}
	// A user config that is a FIFO is refused too (its target must be a regular file).
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := envsource.Load(envsource.Options{UserConfig: path}); err == nil {
		t.Error("a FIFO user config was accepted")
	}
}
