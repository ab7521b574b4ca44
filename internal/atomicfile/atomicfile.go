// Package atomicfile writes result and report files whole: through a temporary file in the same
// folder, renamed into place, so a reader (or a run interrupted half-way) never sees half a file.
//
// The file gets the permissions any other tool gives a new file, 0666 less the process's umask:
// the temporary file is created with mode 0666 and the kernel applies the umask, which is never
// read or changed here (umask cannot be read without setting it, and setting it races with every
// other goroutine creating files). os.CreateTemp would make it 0600 whatever the umask.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path atomically, creating the file with mode 0666 less the umask. The
// folder must exist. On failure the temporary file is removed and path is left as it was.
func Write(path string, data []byte) error {
	return write(path, data, nil, nil)
}

// Replace rewrites the existing file path with data atomically, keeping its permission bits
// (mode: the file's mode, whose permission, setuid, setgid and sticky bits are set on the new
// file whatever the umask), for a tool that edits a file in place (vectorlint --fix). When
// unchanged is not nil it is called after the new content is written and just before the
// rename: an error from it leaves path as it was and is returned, so a caller can refuse to
// replace a file that changed meanwhile. Path is replaced, not written through: a symbolic link
// would become a regular file, so the caller refuses those.
func Replace(path string, data []byte, mode fs.FileMode, unchanged func() error) error {
	perm := mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	return write(path, data, &perm, unchanged)
}

// write is Write, with the mode set explicitly when perm is not nil and a check before the
// rename.
func write(path string, data []byte, perm *fs.FileMode, beforeRename func() error) error {
	dir, base := filepath.Split(path)
	if len(base) > 100 {
		base = base[:100] // the temporary name must stay a valid file name
	}
	var (
		f   *os.File
		err error
	)
	for range 100 {
		var suffix [6]byte
		_, _ = rand.Read(suffix[:])
		f, err = os.OpenFile(filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(suffix[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	var merr error
	if perm != nil {
		merr = f.Chmod(*perm)
	}
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = os.Remove(tmp)
		return &fs.PathError{Op: "write", Path: path, Err: unwrap(err)}
	}
	if beforeRename != nil {
		if err := beforeRename(); err != nil {
			_ = os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// unwrap drops the temporary file's name from an error: the caller names the real file.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Probe creates the folder dir (and its parents, with mode 0777 less the umask) and proves that
// files can be written in it by creating and removing a probe file. Commands call it before
// work that costs money, so an unusable output folder is found first.
func Probe(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".vectorlint-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		_ = os.Remove(name)
		return err
	}
	return os.Remove(name)
}
