package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/numfmt"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// DirectiveFileName is the project directive of the original VectorLint: instructions, written
// by the project, that go to the model with every rule (its src/prompts/directive-loader.ts).
// The path is relative to the folder it is looked for in (FindDirective).
const DirectiveFileName = ".vectorlint/directive.md"

// FileTypePlaceholder in a directive is replaced, in each call, by the extension of the file
// the call evaluates (".md", ".mdx"), as the original does (its request builder).
const FileTypePlaceholder = "{{file_type}}"

// FindDirective returns the project's directive: DirectiveFileName in dir (the working
// directory, where the original looks), else beside configPath when configPath is not "" (so a
// run from a subfolder finds the project's, as it finds its VECTORLINT.md). It returns "" when
// there is none.
func FindDirective(dir, configPath string) string {
	candidates := []string{filepath.Join(dir, filepath.FromSlash(DirectiveFileName))}
	if configPath != "" {
		candidates = append(candidates, filepath.Join(filepath.Dir(configPath), filepath.FromSlash(DirectiveFileName)))
	}
	for _, path := range candidates {
		if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
			return path
		}
	}
	return ""
}

// loadDirective reads a project directive with read: a regular file inside the project root
// (internal/tree: no FIFO, device, or link leading out), UTF-8, trimmed. One that cannot be read is an error (a run must not go on without
// instructions the project gave); one that is not UTF-8 an error problem; an empty one is
// ignored with a warning (the original then sends no directive); one over
// styleGuideTokenLimit gets the style guide's warning, since it rides along with every call.
func loadDirective(read readFunc, path string) (string, finding.Problems, error) {
	data, err := read(path, rules.MaxFileSize)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read the project directive: %w", err)
	}
	if bad := rules.FirstInvalidUTF8(data); bad < len(data) {
		line := strings.Count(string(data[:bad]), "\n") + 1
		return "", finding.Problems{{File: path, Line: line, Field: "directive",
			Expected: "UTF-8 text", Found: "bytes that are not UTF-8"}}, nil
	}
	directive := strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff"))
	if directive == "" {
		return "", finding.Problems{{File: path, Field: "directive", Level: finding.LevelWarning,
			Message: "empty file: no directive is sent; ignored"}}, nil
	}
	var problems finding.Problems
	if n := llm.EstimateTokens(directive); n > styleGuideTokenLimit {
		problems = append(problems, finding.Problem{File: path, Level: finding.LevelWarning, Field: "directive",
			Message: fmt.Sprintf("about %s tokens, more than %s: the directive is sent with every rule on every file, so every model call pays for it; keep it short",
				numfmt.Thousands(n), numfmt.Thousands(styleGuideTokenLimit))})
	}
	return directive, problems, nil
}
