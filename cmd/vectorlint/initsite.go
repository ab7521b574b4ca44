package main

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vectorlint/vectorlint/internal/tree"
)

// A Docusaurus site reads its .md pages as MDX (imports, JSX components, {expressions}), unless
// its configuration sets markdown.format to "detect". init writes a section that reads them
// the same way (spec/linter.md §14), for the folders of content the site has.

// docusaurusConfigs are the names of a Docusaurus site's configuration file.
func docusaurusConfigs() []string {
	return []string{"docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs"}
}

// docusaurusSite is a Docusaurus site found by init.
type docusaurusSite struct {
	// config is its configuration file, slash-separated, relative to the working folder.
	config string
	// content are its folders of pages, slash-separated, relative to the working folder.
	content []string
	// detect is set when the site reads .md as CommonMark (markdown.format "detect").
	detect bool
}

// Patterns in a Docusaurus configuration: a content plugin's folder (path: 'docs') and the
// Markdown format setting.
var (
	docusaurusPath   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s{,])path:\s*['"]([^'"]+)['"]`) })
	docusaurusDetect = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`format:\s*['"]detect['"]`) })
)

// findDocusaurus looks for a Docusaurus configuration in dir and in its folders one level
// down (a site in "website/" beside the code), and returns the first site found. Everything is
// read through root, the project root at dir: a committed link leading out of it is not read
// (spec/trust.md §6).
func findDocusaurus(root *tree.Root, dir string) (docusaurusSite, bool) {
	places := []string{"."}
	if entries, err := root.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "node_modules" {
				places = append(places, e.Name())
			}
		}
	}
	for _, place := range places {
		for _, name := range docusaurusConfigs() {
			// Read as text (never run): a regular file of at most 1 MiB.
			data, err := root.ReadFile(filepath.Join(dir, place, name), 1<<20)
			if err != nil {
				continue
			}
			return docusaurusLayout(root, dir, place, name, string(data)), true
		}
	}
	return docusaurusSite{}, false
}

// docusaurusLayout works out a site's folders of pages: the folders its configuration names
// (path: '…') and the usual ones (docs, blog, src/pages, versioned_docs) that exist, inside
// the working folder; docs when none does.
func docusaurusLayout(root *tree.Root, dir, place, name, config string) docusaurusSite {
	site := docusaurusSite{config: path.Join(place, name), detect: docusaurusDetect().MatchString(config)}
	candidates := []string{"docs", "blog", "src/pages", "versioned_docs"}
	for _, m := range docusaurusPath().FindAllStringSubmatch(config, -1) {
		candidates = append(candidates, m[1])
	}
	for _, c := range candidates {
		rel := path.Clean(path.Join(place, filepath.ToSlash(c)))
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) || slices.Contains(site.content, rel) {
			continue
		}
		if st, err := root.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err == nil && st.IsDir() {
			site.content = append(site.content, rel)
		}
	}
	if len(site.content) == 0 {
		site.content = []string{path.Join(place, "docs")}
	}
	slices.Sort(site.content)
	return site
}

// glob is the section glob of the site's .md pages.
func (s docusaurusSite) glob() string {
	if len(s.content) == 1 {
		return s.content[0] + "/**/*.md"
	}
	return "{" + strings.Join(s.content, ",") + "}/**/*.md"
}

// section is what init adds to the configuration for the site.
func (s docusaurusSite) section() string {
	if s.detect {
		return fmt.Sprintf("\n# %s sets markdown.format to \"detect\": Docusaurus reads .md pages as CommonMark and\n"+
			"# .mdx pages as MDX, as vectorlint does by extension. Should its .md pages be MDX after all:\n# [%s]\n# Format = mdx\n",
			s.config, s.glob())
	}
	return fmt.Sprintf("\n# Docusaurus (%s) reads .md pages as MDX: their imports, JSX components and\n"+
		"# {expressions} are not prose, and their title is in front matter (title:).\n[%s]\nFormat = mdx\n",
		s.config, s.glob())
}
