package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/vectorlint/vectorlint/rules"
)

// Fingerprint is a SHA-256 (hex) of what the project's model replies depend on besides the
// documents and the model: the configuration file, the style guide and every regular file in
// each rule pack's folder, each by its path relative to the configuration's folder and its
// content. It changes when a rule, the configuration or the style guide changes, and not when a
// document does, wherever the project is checked out: a CI job keys its saved reply cache with
// it (the GitHub Action does, through `vectorlint cache key`). Every file is read through the
// project root (Project.Root): a link out of it fails the fingerprint, naming the link.
func (p *Project) Fingerprint() (string, error) {
	root := p.Root
	if root == nil {
		return "", errors.New("the project has no root: load it with LoadProject")
	}
	base := ""
	var files []string
	if p.Config != nil {
		base = p.Config.Dir
		if p.Config.Path != "" {
			files = append(files, p.Config.Path)
		}
	}
	if p.StyleGuidePath != "" {
		files = append(files, p.StyleGuidePath)
	}
	for _, pk := range p.Packs {
		if pk.Dir == "" {
			continue // built in: part of the binary
		}
		err := root.WalkDir(pk.Dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("reading the rule pack %s: %w", pk.Name, err)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	h := sha256.New()
	for _, f := range files {
		data, err := root.ReadFile(f, rules.MaxFileSize)
		if err != nil {
			return "", err
		}
		name := f
		if base != "" {
			if rel, err := filepath.Rel(base, f); err == nil {
				name = rel
			}
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(name), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
