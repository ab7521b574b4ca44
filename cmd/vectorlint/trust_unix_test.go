//go:build unix

package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestDotEnvFIFO: a .env that is a named pipe would hang a run that opened it; the run stops at
// once with a message naming it instead.
func TestDotEnvFIFO(t *testing.T) {
	t.Parallel()
	dir := trustProject(t, nil)
	if err := syscall.Mkfifo(filepath.Join(dir, ".env"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan cliResult, 1)
	go func() { done <- runRouted(t, dir, map[string]string{"OPENAI_API_KEY": userKey}, nil, "docs") }()
	select {
	case r := <-done:
		r.expect(t, exitFailure, "", "vectorlint: .env: expected a regular file (environment files that are pipes, devices or links out of the project are not read), found a named pipe (FIFO)\n")
	case <-time.After(10 * time.Second):
		t.Fatal("the run hangs on a FIFO named .env")
	}
}
