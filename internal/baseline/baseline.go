// Package baseline records a run's findings and hides them in later runs (docs/output-formats.md,
// "Baselines"): a team adopting the linter on an existing docs set accepts what it finds today
// and is shown only what is new. A finding is recognised by a fingerprint of its rule, its file,
// the text it matched and that text's surroundings on its line, not by its line number, so lines
// inserted or removed above it keep it matched; a changed quote makes it a new finding.
package baseline

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
)

// Kind and Version identify a baseline file.
const (
	Kind    = "vectorlint-baseline"
	Version = 1
)

// contextRunes is how much of the match's line, on each side of it, the fingerprint takes.
const contextRunes = 32

// Entry is one accepted finding.
type Entry struct {
	Path string `json:"path"`
	Rule string `json:"rule"`
	// Fingerprint is the hash of the rule, the path, the match and its surroundings
	// (Fingerprint).
	Fingerprint string `json:"fingerprint"`
	// Match is the text the finding matched, for a reader of the file (not matched on).
	Match string `json:"match,omitempty"`
	// Message is the finding's message, for a reader of the file (not matched on).
	Message string `json:"message,omitempty"`
}

// File is a baseline file.
type File struct {
	Kind     string  `json:"kind"`
	Version  int     `json:"version"`
	Findings []Entry `json:"findings"`
}

// Fingerprint is the fingerprint of a finding of the file at path whose text is source (nil
// when it is not known): the SHA-256 of the rule, the path, the match with its white space
// collapsed, and up to 32 characters of its line before and after it. A finding with no match (a
// rule's note on the whole file) is fingerprinted by its message instead.
func Fingerprint(path string, f finding.Finding, source []byte) string {
	h := sha256.New()
	parts := []string{f.Rule, path}
	if f.Match == "" && f.Start.Offset == f.End.Offset {
		parts = append(parts, "message", collapse(f.Message))
	} else {
		before, after := surroundings(source, f.Start.Offset, f.End.Offset)
		parts = append(parts, "match", collapse(f.Match), collapse(before), collapse(after))
	}
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// surroundings are the text of the match's first line before it and of its last line after
// it, each at most contextRunes runes, nearest the match.
func surroundings(src []byte, start, end int) (before, after string) {
	if start < 0 || end < start || end > len(src) {
		return "", ""
	}
	lineStart := bytes.LastIndexAny(src[:start], "\n\r") + 1
	lineEnd := len(src)
	if i := bytes.IndexAny(src[end:], "\n\r"); i >= 0 {
		lineEnd = end + i
	}
	b, a := src[lineStart:start], src[end:lineEnd]
	for utf8.RuneCount(b) > contextRunes {
		_, n := utf8.DecodeRune(b)
		b = b[n:]
	}
	for utf8.RuneCount(a) > contextRunes {
		_, n := utf8.DecodeLastRune(a)
		a = a[:len(a)-n]
	}
	return string(b), string(a)
}

// collapse trims s and makes each run of white space one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// Recorder collects a run's findings for a new baseline (--write-baseline). It is safe for
// concurrent use.
type Recorder struct {
	mu      sync.Mutex
	entries []Entry
}

// Add records every finding of fr (fr.Source gives the surroundings).
func (r *Recorder) Add(fr finding.FileResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range fr.Findings {
		r.entries = append(r.entries, Entry{Path: fr.Path, Rule: f.Rule, Fingerprint: Fingerprint(fr.Path, f, fr.Source), Match: f.Match, Message: f.Message})
	}
}

// Len is the number of findings recorded.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// Marshal is the baseline file of the findings recorded, sorted by path, rule and fingerprint
// (so it does not change when lines move), indented, with a final newline.
func (r *Recorder) Marshal() []byte {
	r.mu.Lock()
	entries := slices.Clone(r.entries)
	r.mu.Unlock()
	slices.SortStableFunc(entries, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Fingerprint, b.Fingerprint))
	})
	if entries == nil {
		entries = []Entry{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(File{Kind: Kind, Version: Version, Findings: entries}) // cannot fail: plain strings
	return buf.Bytes()
}

// Error is a baseline file that cannot be used: it names the file and says what was expected
// and what was found.
type Error struct {
	Name            string
	Expected, Found string
}

func (e *Error) Error() string {
	return fmt.Sprintf("baseline %s: expected %s, found %s", e.Name, e.Expected, e.Found)
}

// Parse reads a baseline file named name.
func Parse(name string, data []byte) (*Set, error) {
	bad := func(expected, found string) error { return &Error{Name: name, Expected: expected, Found: found} }
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		found := strings.TrimPrefix(err.Error(), "json: ")
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			found = fmt.Sprintf("%s at line %d", found, 1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")))
		}
		return nil, bad("a vectorlint baseline (JSON written by --write-baseline)", found)
	}
	if dec.More() {
		return nil, bad("one JSON object", "more after it")
	}
	switch {
	case f.Kind != Kind:
		return nil, bad(fmt.Sprintf("kind %q", Kind), fmt.Sprintf("%q", f.Kind))
	case f.Version != Version:
		return nil, bad(fmt.Sprintf("version %d", Version), fmt.Sprint(f.Version))
	case f.Findings == nil:
		return nil, bad(`a "findings" list`, "none")
	}
	s := &Set{left: make(map[key]int), entries: make(map[key]Entry)}
	for i, e := range f.Findings {
		switch {
		case e.Path == "" || e.Rule == "":
			return nil, bad(fmt.Sprintf("a path and a rule in finding %d", i+1), fmt.Sprintf("path %q, rule %q", e.Path, e.Rule))
		case len(e.Fingerprint) != 64 || strings.Trim(e.Fingerprint, "0123456789abcdef") != "":
			return nil, bad(fmt.Sprintf("a fingerprint of 64 hex digits in finding %d", i+1), fmt.Sprintf("%q", e.Fingerprint))
		}
		k := key{e.Path, e.Fingerprint}
		s.left[k]++
		s.entries[k] = e
		s.total++
	}
	return s, nil
}

// key is an entry's identity: its file and fingerprint (the fingerprint covers the rule).
type key struct{ path, fingerprint string }

// Set is a baseline being applied to a run: each entry hides one finding. It is safe for
// concurrent use.
type Set struct {
	mu      sync.Mutex
	left    map[key]int
	entries map[key]Entry
	total   int
	seen    map[string]bool
}

// Len is the number of entries of the baseline.
func (s *Set) Len() int { return s.total }

// Hide returns fr without the findings the baseline accepts, and how many it hid.
func (s *Set) Hide(fr finding.FileResult) (finding.FileResult, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = make(map[string]bool)
	}
	s.seen[fr.Path] = true
	var kept []finding.Finding
	hidden := 0
	for _, f := range fr.Findings {
		k := key{fr.Path, Fingerprint(fr.Path, f, fr.Source)}
		if s.left[k] > 0 {
			s.left[k]--
			hidden++
			continue
		}
		kept = append(kept, f)
	}
	if hidden > 0 {
		fr.Findings = kept
	}
	return fr, hidden
}

// Stale returns the entries, of the files the run linted, that hid no finding: the findings
// they accepted no longer occur (fixed, or their text changed). They are sorted by path, rule
// and match.
func (s *Set) Stale() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var stale []Entry
	for k, n := range s.left {
		if !s.seen[k.path] {
			continue
		}
		for range n {
			stale = append(stale, s.entries[k])
		}
	}
	slices.SortFunc(stale, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Match, b.Match), cmp.Compare(a.Fingerprint, b.Fingerprint))
	})
	return stale
}
