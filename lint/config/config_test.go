package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

func TestParseConfigGlobals(t *testing.T) {
	t.Parallel()
	src := "\ufeff# comment\n; another\nRulesPath = styles  \nConcurrency=4\nDefaultSeverity = error\nProvider = openai-compatible\n" +
		"Model = llama3.1:8b\nBaseURL = http://localhost:11434/v1#frag\nTemperature = 0.4\nConfidenceThreshold = 0.5 ; inline comment\nTimeout = 90\n" +
		"CacheMaxSize = 500MB\nMaxDocumentWords = 20000\nChunkWords = 800\n"
	cfg, ps := Parse("/proj/vectorlint.ini", []byte(src))
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	temp := 0.4
	want := &Config{Path: "/proj/vectorlint.ini", Dir: "/proj", RulesPath: "/proj/styles", RulesPathValue: "styles", RulesPathLine: 3,
		Concurrency: 4, DefaultSeverity: finding.SeverityError, Provider: "openai-compatible", Model: "llama3.1:8b",
		BaseURL: "http://localhost:11434/v1#frag", BaseURLLine: 8, Temperature: &temp, ConfidenceThreshold: 0.5, ConfidenceThresholdSet: true,
		Timeout: 90 * time.Second, CacheMaxSize: 500_000_000, CacheMaxSizeSet: true, MaxDocumentWords: 20_000, ChunkWords: 800}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got  %+v\nwant %+v", cfg, want)
	}
	cfg, ps = Parse("/proj/vectorlint.ini", []byte("[**/*.md]\nRunRules = A\n"))
	if len(ps) != 0 || cfg.Concurrency != 8 || cfg.DefaultSeverity != finding.SeverityWarning || cfg.ConfidenceThreshold != 0.75 ||
		cfg.Temperature != nil || cfg.RulesPath != "" || cfg.ConfidenceThresholdSet || cfg.Timeout != 0 || cfg.CacheMaxSizeSet ||
		cfg.MaxDocumentWords != DefaultMaxDocumentWords || cfg.DocumentWordLimit() != 50_000 || cfg.ChunkWordLimit() != 1500 {
		t.Errorf("defaults wrong: %+v %v", cfg, ps)
	}
	cfg, _ = Parse("/proj/vectorlint.ini", []byte("RulesPath = /abs/rules\n"))
	if cfg.RulesPath != "/abs/rules" {
		t.Errorf("absolute RulesPath = %q", cfg.RulesPath)
	}
}

func TestParseConfigSections(t *testing.T) {
	t.Parallel()
	src := `RulesPath = rules
[**/*.{md,mdx}]
RunRules = Acme, TechCorp ,
Acme.Wordiness = disabled
Acme.Headline.severity = error
Acme.Headline.strictness = strict
GrammarChecker.strictness = 8
GrammarChecker.severity = warning

[ ./docs/** ]
RunRules =
Acme.Wordiness = Enabled
`
	cfg, ps := Parse("/p/vectorlint.ini", []byte(src))
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	if len(cfg.Sections) != 2 {
		t.Fatalf("sections = %d", len(cfg.Sections))
	}
	s0, s1 := cfg.Sections[0], cfg.Sections[1]
	if s0.Pattern != "**/*.{md,mdx}" || s0.Line != 2 || !s0.HasRunRules || s0.RunRulesLine != 3 || !reflect.DeepEqual(s0.RunRules, []string{"Acme", "TechCorp"}) {
		t.Errorf("section 0 = %+v", s0)
	}
	wantOverrides := []Override{
		{Key: "Acme.Wordiness", Line: 4, Pack: "Acme", Rule: "Wordiness", Kind: OverrideDisabled},
		{Key: "Acme.Headline.severity", Line: 5, Pack: "Acme", Rule: "Headline", Kind: OverrideSeverity, Severity: finding.SeverityError},
		{Key: "Acme.Headline.strictness", Line: 6, Pack: "Acme", Rule: "Headline", Kind: OverrideStrictness, Strictness: 20},
		{Key: "GrammarChecker.strictness", Line: 7, Rule: "GrammarChecker", Kind: OverrideStrictness, Strictness: 8},
		{Key: "GrammarChecker.severity", Line: 8, Rule: "GrammarChecker", Kind: OverrideSeverity, Severity: finding.SeverityWarning},
	}
	if !reflect.DeepEqual(s0.Overrides, wantOverrides) {
		t.Errorf("overrides = %+v\nwant %+v", s0.Overrides, wantOverrides)
	}
	if s1.Pattern != "./docs/**" || s1.glob != "docs/**" || !s1.HasRunRules || len(s1.RunRules) != 0 || s1.Line != 10 ||
		!reflect.DeepEqual(s1.Overrides, []Override{{Key: "Acme.Wordiness", Line: 12, Pack: "Acme", Rule: "Wordiness", Kind: OverrideEnabled}}) {
		t.Errorf("section 1 = %+v", s1)
	}
}

// TestParseConfigProblems checks the exact message of each configuration mistake, all reported
// at once with their lines.
func TestParseConfigProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"bad global values", `RulesPath = rules
Concurrency = 0
DefaultSeverity = fatal
Provider = openia
BaseURL = localhost:8080
Temperature = hot
ConfidenceThreshold = 1.5
Timeout = 2 minutes
CacheMaxSize = lots
MaxDocumentWords = 0
`, []string{
			`vectorlint.ini:2: Concurrency: expected a whole number from 1 to 256, found "0"`,
			`vectorlint.ini:3: DefaultSeverity: expected "suggestion", "warning" or "error", found "fatal"`,
			`vectorlint.ini:4: Provider: expected one of openai, azure-openai, anthropic, gemini, openai-compatible, found "openia"`,
			`vectorlint.ini:5: BaseURL: expected an http:// or https:// URL, found "localhost:8080"`,
			`vectorlint.ini:6: Temperature: expected a number from 0 to 2, found "hot"`,
			`vectorlint.ini:7: ConfidenceThreshold: expected a number from 0 to 1, found "1.5"`,
			`vectorlint.ini:8: Timeout: expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h, found "2 minutes"`,
			`vectorlint.ini:9: CacheMaxSize: expected 0 (no cap) or a size from 1MB to 100TB, such as 500MB, 2GB or 1GiB, found "lots"`,
			`vectorlint.ini:10: MaxDocumentWords: expected a whole number of words from 1 to 100000000, found "0"`}},
		{"bad MaxDocumentWords", "MaxDocumentWords = 50,000\n[**/*.md]\nRunRules = A\nMaxDocumentWords = 10\n", []string{
			`vectorlint.ini:1: MaxDocumentWords: expected a whole number of words from 1 to 100000000, found "50,000"`,
			`vectorlint.ini:4: MaxDocumentWords: MaxDocumentWords is a global key: set it before the first section`}},
		{"bad ChunkWords", "ChunkWords = 99\n[**/*.md]\nRunRules = A\nChunkWords = 500\n", []string{
			`vectorlint.ini:1: ChunkWords: expected a whole number of words from 100 to 100000, found "99"`,
			`vectorlint.ini:4: ChunkWords: ChunkWords is a global key: set it before the first section`}},
		{"ChunkWords with a comma", "ChunkWords = 1,500\n", []string{
			`vectorlint.ini:1: ChunkWords: expected a whole number of words from 100 to 100000, found "1,500"`}},
		{"ChunkWords too large", "ChunkWords = 100001\n", []string{
			`vectorlint.ini:1: ChunkWords: expected a whole number of words from 100 to 100000, found "100001"`}},
		{"bad Samples and Models", "Samples = 0\nModels = a,,b\n[**/*.md]\nRunRules = A\nSamples = x\nModels = c\n[api/**]\nSamples = 26\n", []string{
			`vectorlint.ini:1: Samples: expected a whole number of samples from 1 to 25, found "0"`,
			`vectorlint.ini:2: Models: expected a comma-separated list of model names, such as gpt-4o, gpt-4o-mini, found "a,,b"`,
			`vectorlint.ini:5: Samples: expected a whole number of samples from 1 to 25, found "x"`,
			`vectorlint.ini:6: Models: Models is a global key: set it before the first section`,
			`vectorlint.ini:8: Samples: expected a whole number of samples from 1 to 25, found "26"`}},
		{"bad RulesPerCall", "RulesPerCall = 0\n[**/*.md]\nRunRules = A\nRulesPerCall = 11\n[api/**]\nRulesPerCall = x\n", []string{
			`vectorlint.ini:1: RulesPerCall: expected a whole number of rules from 1 to 10, found "0"`,
			`vectorlint.ini:4: RulesPerCall: expected a whole number of rules from 1 to 10, found "11"`,
			`vectorlint.ini:6: RulesPerCall: expected a whole number of rules from 1 to 10, found "x"`}},
		{"unknown global keys", "RulePath = rules\nColor = blue\n", []string{
			`vectorlint.ini:1: RulePath: unknown global key (did you mean "RulesPath"?)`,
			`vectorlint.ini:2: Color: unknown global key (known keys: RulesPath, Concurrency, DefaultSeverity, Provider, Model, BaseURL, Temperature, ConfidenceThreshold, Timeout, CacheMaxSize, MaxDocumentWords, ChunkWords, Samples, Models, RulesPerCall)`}},
		{"ScanPaths", "ScanPaths = [docs/*.md]\n", []string{
			"vectorlint.ini:1: ScanPaths: ScanPaths is the old syntax; list file patterns as sections instead, e.g.\n  [docs/**/*.md]\n  RunRules = MyPack"}},
		{"syntax errors", "RulesPath = rules\njust words\n[unclosed\n[]\n\"quoted\" = 1\n", []string{
			`vectorlint.ini:2: expected KEY = VALUE, a [GLOB] section header or a # comment, found "just words"`,
			`vectorlint.ini:3: expected a section header [GLOB], found "[unclosed"`,
			`vectorlint.ini:4: expected a file glob between [ and ], found []`,
			`vectorlint.ini:5: expected KEY = VALUE with an unquoted key, found "\"quoted\" = 1"`}},
		{"duplicate keys", "Concurrency = 2\nConcurrency = 3\n[*.md]\nRunRules = A\n[*.md]\nRunRules = B\n", []string{
			`vectorlint.ini:2: Concurrency: set twice before the first section (first on line 1)`,
			`vectorlint.ini:6: RunRules: set twice in section [*.md] (first on line 4)`}},
		{"section keys", `[**/*.md]
RunRule = A
Wordiness = disabled
Acme.Wordiness.severity = fatal
Acme.Wordiness.strictness = harsh
Wordiness.strictness = 0
A.B.C.D = x
.Rule = disabled
`, []string{
			`vectorlint.ini:2: RunRule: unknown key (did you mean "RunRules"?)`,
			`vectorlint.ini:3: Wordiness: unknown key (expected RunRules, Format, SkippedScopes, BlockIgnores, TokenIgnores, Pack.Rule, Pack.Rule.severity or Pack.Rule.strictness)`,
			`vectorlint.ini:4: Acme.Wordiness.severity: expected "suggestion", "warning" or "error", found "fatal"`,
			`vectorlint.ini:5: Acme.Wordiness.strictness: expected a number greater than 0 and at most 1000, or "lenient", "standard" or "strict", found "harsh"`,
			`vectorlint.ini:6: Wordiness.strictness: expected a number greater than 0 and at most 1000, or "lenient", "standard" or "strict", found "0"`,
			`vectorlint.ini:7: A.B.C.D: unknown key (expected RunRules, Format, SkippedScopes, BlockIgnores, TokenIgnores, Pack.Rule, Pack.Rule.severity or Pack.Rule.strictness)`,
			`vectorlint.ini:8: .Rule: expected RunRules, Format, SkippedScopes, BlockIgnores, TokenIgnores, Pack.Rule, Pack.Rule.severity or Pack.Rule.strictness, found ".Rule"`}},
		{"bad glob", "[docs/[a-]\nRunRules = A\n", []string{
			`vectorlint.ini:1: [docs/[a-]: expected a file glob such as **/*.md or docs/**/*.{md,mdx}, found "docs/[a-"`}},
		{"multi-line value", "Model = `a\nb`\n", []string{
			"vectorlint.ini:1: Model: expected a one-line value, found a quoted multi-line value",
			`vectorlint.ini:2: expected KEY = VALUE, a [GLOB] section header or a # comment, found "b` + "`" + `"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := Parse("/d/vectorlint.ini", []byte(tt.src))
			got := problemLines(ps, "/d")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestConfigCascade checks which packs run and which rule settings apply for a set of paths:
// the packs of every matching section add up (an empty RunRules clears them); overrides merge,
// the most specific wins.
func TestConfigCascade(t *testing.T) {
	t.Parallel()
	src := `[**/*.md]
RunRules = Acme
Acme.Wordiness.strictness = 8
GrammarChecker.severity = warning

[content/blog/**/*.md]
RunRules = Acme, TechCorp
Acme.Wordiness.strictness = lenient
Acme.Headline = disabled

[content/blog/drafts/**]
Acme.Headline = enabled
Acme.Wordiness.severity = error

[content/drafts/**/*.md]
RunRules =

[**/*.{md,mdx}]
GrammarChecker.severity = error
Acme.GrammarChecker.severity = warning

[*.txt]
Acme.Wordiness = disabled
`
	cfg, ps := Parse("/p/vectorlint.ini", []byte(src))
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	type rule struct {
		pack, id   string
		disabled   bool
		severity   string // "" for no override
		strictness float64
	}
	tests := []struct {
		path     string
		runRules []string
		from     string // pattern of the section that set RunRules ("" for none)
		rules    []rule
	}{
		{"readme.md", []string{"Acme"}, "**/*.md", []rule{
			{"Acme", "Wordiness", false, "", 8},
			{"Acme", "Headline", false, "", 0},
			// [**/*.{md,mdx}] has the same segments as [**/*.md] but more wildcards: less
			// specific, so its packless severity applies first, then [**/*.md]'s.
			{"TechCorp", "GrammarChecker", false, "warning", 0},
			{"Acme", "GrammarChecker", false, "warning", 0}}},
		{"content/blog/post.md", []string{"Acme", "TechCorp"}, "content/blog/**/*.md", []rule{
			{"Acme", "Wordiness", false, "", 5},
			{"Acme", "Headline", true, "", 0}}},
		{"content/blog/drafts/idea.md", []string{"Acme", "TechCorp"}, "content/blog/**/*.md", []rule{
			{"Acme", "Headline", false, "", 0},
			{"Acme", "Wordiness", false, "error", 5}}},
		{"content/drafts/a/b.md", nil, "content/drafts/**/*.md", nil},
		{"page.mdx", nil, "", []rule{{"Acme", "GrammarChecker", false, "warning", 0}}},
		{"notes.txt", nil, "", []rule{{"Acme", "Wordiness", true, "", 0}}},
		{"image.png", nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			fs := cfg.Settings(tt.path)
			from := ""
			if fs.RunRulesFrom != nil {
				from = fs.RunRulesFrom.Pattern
			}
			if !reflect.DeepEqual(fs.RunRules, tt.runRules) || from != tt.from {
				t.Errorf("RunRules = %v from [%s], want %v from [%s]", fs.RunRules, from, tt.runRules, tt.from)
			}
			for _, r := range tt.rules {
				rs := fs.Rule(r.pack, r.id)
				sev := ""
				if rs.Severity != nil {
					sev = rs.Severity.String()
				}
				st := 0.0
				if rs.Strictness != nil {
					st = *rs.Strictness
				}
				if rs.Disabled != r.disabled || sev != r.severity || st != r.strictness {
					t.Errorf("%s.%s: disabled=%v severity=%q strictness=%v, want %v %q %v", r.pack, r.id, rs.Disabled, sev, st, r.disabled, r.severity, r.strictness)
				}
			}
		})
	}
}

func TestSpecificityOrder(t *testing.T) {
	t.Parallel()
	patterns := []string{"**", "**/*.md", "docs/**", "*.md", "docs/*.md", "docs/api/**/*.md", "docs/api/v1/*.md", "**/*.{md,mdx}", "docs/a.md"}
	var src strings.Builder
	for _, p := range patterns {
		src.WriteString("[" + p + "]\nRunRules = X\n")
	}
	cfg, ps := Parse("/p/vectorlint.ini", []byte(src.String()))
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	secs := append([]*Section(nil), cfg.Sections...)
	sortSections(secs)
	var got []string
	for _, s := range secs {
		got = append(got, s.Pattern)
	}
	want := []string{"**", "*.md", "**/*.{md,mdx}", "**/*.md", "docs/**", "docs/*.md", "docs/a.md", "docs/api/**/*.md", "docs/api/v1/*.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("least to most specific:\n%v\nwant\n%v", got, want)
	}
}

func TestFindConfig(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"vectorlint.ini":    "",
		"a/.vectorlint.ini": "",
		"a/vectorlint.ini":  "",
		"a/b/c/doc.md":      "",
		"other/custom.ini":  "",
		"folder.ini/keep":   "",
	})
	tests := []struct {
		name, dir, flag, env, want, err string
	}{
		{"upward: the hidden name first", "a/b/c", "", "", "a/.vectorlint.ini", ""},
		{"in the folder itself", ".", "", "", "vectorlint.ini", ""},
		{"env, relative to the working folder", "a/b", "", "../../other/custom.ini", "other/custom.ini", ""},
		{"flag beats env", "a/b", "../../vectorlint.ini", "../../other/custom.ini", "vectorlint.ini", ""},
		{"missing flag file", ".", "nope.ini", "", "", "config file nope.ini (from --config) not found"},
		{"missing env file", ".", "", "nope.ini", "", "config file nope.ini (from VECTORLINT_CONFIG) not found"},
		{"folder", ".", "folder.ini", "", "", "config file folder.ini (from --config) is a folder, expected a vectorlint.ini file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(filepath.Join(root, tt.dir), tt.flag, tt.env)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != filepath.Join(root, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, filepath.Join(root, tt.want))
			}
		})
	}
	lonely := t.TempDir()
	_, err := Find(lonely, "", "")
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Start != lonely {
		t.Fatalf("err = %v, want *NotFoundError", err)
	}
	want := "no configuration found: looked for .vectorlint.ini and vectorlint.ini in " + lonely +
		" and every parent folder, and for VECTORLINT.md in " + lonely +
		", and no --config or VECTORLINT_CONFIG was given; run \"vectorlint init\" to create one"
	if err.Error() != want {
		t.Errorf("message = %q\nwant %q", err, want)
	}
}

func TestCheckConfig(t *testing.T) {
	t.Parallel()
	packs := []*rules.Pack{
		{Name: "Acme", Rules: []*rules.Rule{{Pack: "Acme", ID: "Wordiness"},
			{Pack: "Acme", ID: "Headline", Type: finding.Subjective, Criteria: []*rules.Criterion{{ID: "Clarity"}}}}},
		{Name: "TechCorp", Rules: []*rules.Rule{{Pack: "TechCorp", ID: "Voice"}}},
	}
	src := `RulesPath = rules
[**/*.md]
RunRules = Acme, Acme2
Acme.Wordines = disabled
Acme2.Wordiness.severity = error
Voice.strictness = 3
Missing.strictness = 3
Acme.Wordiness = off
Acme.Wordiness.level = error
Acme.Headline.strictness = 20
Headline.severity = error
strictness = 7
Severity = fatal
`
	cfg, ps := Parse("/p/vectorlint.ini", []byte(src))
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	got := problemLines(Check(cfg, packs), "/p")
	want := []string{
		`vectorlint.ini:3: RunRules: unknown pack "Acme2" (packs found in RulesPath: Acme, TechCorp)`,
		`vectorlint.ini:4: warning: Acme.Wordines: pack Acme has no rule with id "Wordines" (did you mean "Wordiness"? its rules: Wordiness, Headline); ignored`,
		`vectorlint.ini:5: warning: Acme2.Wordiness.severity: unknown pack "Acme2" (packs found in RulesPath: Acme, TechCorp); ignored`,
		`vectorlint.ini:7: warning: Missing.strictness: no pack has a rule with id "Missing"; ignored`,
		`vectorlint.ini:8: Acme.Wordiness: expected "disabled" or "enabled", found "off"`,
		`vectorlint.ini:9: warning: Acme.Wordiness.level: vectorlint has no setting "level" for rule "Acme.Wordiness" (a rule's settings are severity and strictness, and Pack.Rule = disabled or enabled); ignored`,
		`vectorlint.ini:10: warning: Acme.Headline.strictness: strictness has no effect on Acme.Headline: a subjective rule is scored from its criteria's ratings; ignored`,
		// A setting that names no rule (the original's own config-loader test writes
		// "strictness = 7"; the original accepts and ignores it): a warning, whatever its value.
		`vectorlint.ini:12: warning: strictness: names no rule (a rule's strictness is set with Pack.Rule.strictness or Rule.strictness); ignored`,
		`vectorlint.ini:13: warning: Severity: names no rule (a rule's severity is set with Pack.Rule.severity or Rule.severity); ignored`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cfg, _ = Parse("/p/vectorlint.ini", []byte("[*.md]\nRunRules = VectorLint\n"))
	got = problemLines(Check(cfg, nil), "/p")
	if want := []string{`vectorlint.ini:2: RunRules: unknown pack "VectorLint" (no packs: RulesPath is not set)`}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestCorpusConfigs parses every vectorlint.ini of the shared corpus.
func TestCorpusConfigs(t *testing.T) {
	t.Parallel()
	corpus := filepath.Join(testutil.SharedDir(t), "corpus", "vectorlint-rules")
	files, _ := filepath.Glob(filepath.Join(corpus, "head", "tests", "fixtures", "*", ".vectorlint.ini"))
	files = append(files, filepath.Join(corpus, "v2.1.1", "vectorlint.ini.example"))
	if len(files) < 8 {
		t.Fatalf("found %d corpus configs", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, ps := Parse(f, data)
		if len(ps) != 0 {
			t.Errorf("%s: %v", f, ps)
			continue
		}
		if len(cfg.Sections) == 0 || cfg.RulesPath == "" {
			t.Errorf("%s: sections %d, RulesPath %q", f, len(cfg.Sections), cfg.RulesPath)
		}
	}
	// The original's example: drafts are turned off by an empty RunRules, and
	// GrammarChecker.strictness (no pack) applies in [content/docs/**/*.md].
	data, _ := os.ReadFile(filepath.Join(corpus, "v2.1.1", "vectorlint.ini.example"))
	cfg, _ := Parse("/x/vectorlint.ini", data)
	if fs := cfg.Settings("content/drafts/a.md"); fs.RunRulesFrom == nil || len(fs.RunRules) != 0 {
		t.Errorf("drafts: %+v", fs)
	}
	if st := cfg.Settings("content/docs/x/a.md").Rule("Acme", "GrammarChecker").Strictness; st == nil || *st != 9 {
		t.Errorf("docs strictness = %v", st)
	}
	if cfg.Concurrency != 4 || cfg.DefaultSeverity != finding.SeverityWarning {
		t.Errorf("globals: %+v", cfg)
	}
}

// FuzzParseConfig checks that no input makes Parse panic and every problem names the file.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"",
		"RulesPath = rules\n[**/*.md]\nRunRules = A\n",
		"[**/*.{md,mdx}]\nA.B = disabled\nA.B.severity = error\nB.strictness = strict\n",
		"Concurrency = x\n[\n",
		"\ufeff; c\nBaseURL = http://h/#x ; c\n[docs/**]\nRunRules =\n",
		"Model = `a\nb`\n",
		"[a]\n[a]\nk=1\nk=2\n",
		"[content/**/*.md]\nRunRules = A\nstrictness = 7\nSeverity = x\nclarity.depth = high\n",
		"Concurrency = 9223372036854775807\nCacheMaxSize = 1kB\nTimeout = 1e308\n[*.md]\nA.B.strictness = 1e9\n",
		"[docs/**/*.md]\nFormat = mdx\n[x/**]\nFormat = asciidoctor\nformat = rst\n",
		"MaxDocumentWords = 99999999999999999999\n[*.md]\nMaxDocumentWords = 1\n",
		"Samples = 3\nModels = a, b,, c\n[*.md]\nSamples = x\nModels = d\n[a/**]\nSamples = 2\n",
	} {
		f.Add([]byte(s))
	}
	// The bundled configs and every ini file of the real rule packs.
	for _, name := range []string{"vectorlint.ini.example", "examples/vectorlint.ini"} {
		if data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(f), name)); err == nil {
			f.Add(data)
		}
	}
	for _, sf := range testutil.SharedFiles(f, "corpus/vectorlint-rules", 64<<10, ".ini", ".ini.example") {
		f.Add(sf.Data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, ps := Parse("/f/vectorlint.ini", data)
		lines := textLines(data)
		for _, p := range ps {
			if p.File != "/f/vectorlint.ini" || !strings.HasPrefix(p.Error(), "/f/vectorlint.ini") {
				t.Fatalf("problem without the file: %v", p)
			}
			if p.Line < 0 || p.Line > lines {
				t.Fatalf("problem on line %d of a %d-line file: %v", p.Line, lines, p)
			}
			if w := quotedRun(p.Error(), data); w != "" {
				t.Fatalf("problem quotes more than %d characters of a line (%q): %v", MaxQuoted, w, p)
			}
		}
		if cfg == nil {
			t.Fatal("nil config")
		}
		if !ps.HasErrors() {
			// The check against packs: every problem (an unknown pack, a key naming no rule or
			// setting) names the file and a line of it.
			packs := []*rules.Pack{{Name: "A", Rules: []*rules.Rule{{Pack: "A", ID: "B"}}}}
			for _, p := range Check(cfg, packs) {
				if p.File != "/f/vectorlint.ini" || p.Line < 1 || p.Line > lines {
					t.Fatalf("check problem without its file and line: %v", p)
				}
			}
			// Every number in its range (spec/trust.md §8).
			if cfg.Concurrency < 1 || cfg.Concurrency > llm.MaxConcurrency || !replycache.ValidCap(cfg.CacheMaxSize) ||
				cfg.MaxDocumentWords < 1 || cfg.MaxDocumentWords > MaxMaxDocumentWords ||
				cfg.Timeout < 0 || cfg.Timeout > retry.MaxTimeout {
				t.Fatalf("valid config out of range: %+v", cfg)
			}
			for _, s := range cfg.Sections {
				for _, o := range s.Overrides {
					if o.Kind == OverrideStrictness && !(o.Strictness > 0 && o.Strictness <= rules.MaxStrictness) {
						t.Fatalf("strictness %v accepted", o.Strictness)
					}
				}
			}
			for _, s := range cfg.Sections {
				_ = cfg.Settings("docs/a.md").Rule("A", "B")
				if s.HasRunRules && s.RunRulesLine == 0 {
					t.Fatalf("RunRules without a line: %+v", s)
				}
				if s.HasSkippedScopes && s.SkippedScopesLine == 0 {
					t.Fatalf("SkippedScopes without a line: %+v", s)
				}
				for _, k := range cfg.Settings("docs/a.md").Scopes().Skipped {
					if !slices.Contains(document.ScopeNames(), k) {
						t.Fatalf("unknown scope %q accepted", k)
					}
				}
			}
		}
	})
}

// quotedRun returns a run of more than MaxQuoted+1 characters of a line of data that msg holds
// ("" when there is none): a problem quotes at most MaxQuoted characters of a line
// (spec/trust.md §6), and the bracket or quote around a quote may match the line's own. Only
// runs that quoting leaves as they are (printable ASCII without quotes or backslashes) are
// looked for.
func quotedRun(msg string, data []byte) string {
	plain := func(c byte) bool { return c >= ' ' && c < 0x7f && c != '"' && c != '\\' && c != '`' }
	for _, line := range strings.Split(string(data), "\n") {
		start := 0
		for i := 0; i <= len(line); i++ {
			if i < len(line) && plain(line[i]) {
				continue
			}
			for j := start; j+MaxQuoted+2 <= i; j++ {
				if w := line[j : j+MaxQuoted+2]; strings.Contains(msg, w) {
					return w
				}
			}
			start = i + 1
		}
	}
	return ""
}

// TestConfigQuotesAtMost80: a line that cannot be parsed, a long value, a long section and a
// long pattern are quoted at most MaxQuoted characters (spec/trust.md §6: an SSH key or a
// .netrc read as a configuration would otherwise be printed line by line).
func TestConfigQuotesAtMost80(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("A", 200)
	for _, data := range []string{
		long + "\n",
		"Concurrency = " + long + "\n",
		"[" + long + "\n",
		"[a]\nRunRules = X\n[a]\nRunRules = Y\n[" + long + "]\nk=1\nk=2\n",
		"[*.md]\nBlockIgnores = (" + long + "\n",
		"[*.md]\nSkippedScopes = " + long + "\n",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn\n",
	} {
		_, ps := Parse("/f/vectorlint.ini", []byte(data))
		if len(ps) == 0 {
			t.Errorf("%.30q: no problem", data)
		}
		for _, p := range ps {
			if w := quotedRun(p.Error(), []byte(data)); w != "" {
				t.Errorf("%.30q: quotes %q in %v", data, w, p)
			}
		}
	}
	_, ps := Parse("/f/vectorlint.ini", []byte(long+"\n"))
	if want := `/f/vectorlint.ini:1: expected KEY = VALUE, a [GLOB] section header or a # comment, found "` + long[:80] + `"…`; len(ps) != 1 || ps[0].Error() != want {
		t.Errorf("problems %v\nwant %s", ps, want)
	}
}

// TestRepoExampleConfig keeps vectorlint.ini.example valid and its comments true.
func TestRepoExampleConfig(t *testing.T) {
	t.Parallel()
	path := filepath.Join(testutil.RepoRoot(t), "vectorlint.ini.example")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, ps := Parse(path, data)
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	tests := []struct {
		path       string
		runRules   []string
		headlineOn bool
		severity   string
	}{
		{"README.md", []string{"VectorLint", "Acme"}, true, ""},
		{"content/blog/2024/post.md", []string{"VectorLint", "Acme", "TechCorp"}, true, ""},
		{"content/docs/api/generated/users.md", []string{"VectorLint", "Acme"}, false, "error"},
		{"content/docs/api/generated/index.md", []string{"VectorLint", "Acme"}, true, "error"},
		{"content/drafts/idea.md", nil, true, ""},
	}
	for _, tt := range tests {
		fs := cfg.Settings(tt.path)
		rs := fs.Rule("Acme", "Headline")
		sev := ""
		if rs.Severity != nil {
			sev = rs.Severity.String()
		}
		if !reflect.DeepEqual(fs.RunRules, tt.runRules) || rs.Disabled == tt.headlineOn || sev != tt.severity {
			t.Errorf("%s: RunRules %v, Headline disabled=%v severity=%q", tt.path, fs.RunRules, rs.Disabled, sev)
		}
	}
	// Skipped scopes: all by default; the API docs lint their code spans; content's Markdown has
	// a shortcode block and Liquid tags ignored.
	for path, want := range map[string]string{
		"README.md":                 "code,inlinecode,urls,html,mdx,math,frontmatter,markup 0 0",
		"content/docs/api/users.md": "code,urls,html,mdx,math,frontmatter 1 1",
		"content/blog/post.md":      "code,inlinecode,urls,html,mdx,math,frontmatter,markup 1 1",
		"content/blog/post.mdx":     "code,inlinecode,urls,html,mdx,math,frontmatter,markup 0 0",
	} {
		s := cfg.Settings(path).Scopes()
		if got := fmt.Sprintf("%s %d %d", strings.Join(s.Skipped, ","), len(s.BlockIgnores), len(s.TokenIgnores)); got != want {
			t.Errorf("%s: scopes %s, want %s", path, got, want)
		}
	}
}

func TestSettingsOutsideConfigFolder(t *testing.T) {
	t.Parallel()
	cfg, _ := Parse("/p/vectorlint.ini", []byte("[**/*.md]\nRunRules = A\n[docs/*.md]\nRunRules = B\n"))
	if fs := cfg.Settings("../other/a.md"); !reflect.DeepEqual(fs.RunRules, []string{"A"}) {
		t.Errorf("outside file: %+v", fs)
	}
}

// textLines counts the lines of data as YAML and ini parsers do: "\n", "\r\n" and a lone "\r"
// each end a line.
func textLines(data []byte) int {
	return strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", ""), "\r") + 1
}

// TestConfigSuggestionLevel: DefaultSeverity and a rule's severity override take Vale's third
// level, suggestion.
func TestConfigSuggestionLevel(t *testing.T) {
	t.Parallel()
	cfg, ps := Parse("vectorlint.ini", []byte("DefaultSeverity = suggestion\n[*.md]\nRunRules = Acme\nAcme.Tone.severity = suggestion\n"))
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	rs := cfg.Settings("a.md").Rule("Acme", "Tone")
	if cfg.DefaultSeverity != finding.SeveritySuggestion || rs.Severity == nil || *rs.Severity != finding.SeveritySuggestion {
		t.Errorf("DefaultSeverity %v, override %v", cfg.DefaultSeverity, rs.Severity)
	}
}

// TestValeKeysNameOurs: a .vale.ini copied into vectorlint.ini — the keys of Vale's own test
// configuration (testdata/features/feature, "MinAlertLevel = warning": StylesPath,
// MinAlertLevel, then [*] with BasedOnStyles) and IgnoredScopes — is an error on each Vale key
// that names vectorlint's way to say it.
func TestValeKeysNameOurs(t *testing.T) {
	t.Parallel()
	src := "StylesPath = ../../styles/\nMinAlertLevel = warning\n\n[*]\nBasedOnStyles = vale\nIgnoredScopes = code, tt\n"
	_, ps := Parse("vectorlint.ini", []byte(src))
	want := []string{
		`vectorlint.ini:1: StylesPath: a key of Vale's .vale.ini; vectorlint's is RulesPath, the folder of rule packs (each pack a subfolder of Markdown rules)`,
		`vectorlint.ini:2: MinAlertLevel: a key of Vale's .vale.ini; vectorlint takes the level on the command line: --min-alert-level suggestion|warning|error (or --minAlertLevel)`,
		`vectorlint.ini:5: BasedOnStyles: a key of Vale's .vale.ini; vectorlint's is RunRules = PackA, PackB (the packs to run)`,
		`vectorlint.ini:6: IgnoredScopes: a key of Vale's .vale.ini; vectorlint's is SkippedScopes, in a [GLOB] section (code, inlinecode, urls, html, mdx, math, frontmatter, markup)`,
	}
	var got []string
	for _, p := range ps {
		p.File = filepath.Base(p.File)
		got = append(got, p.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || !ps.HasErrors() {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, ps = Parse("vectorlint.ini", []byte("BasedOnStyles = Vale\n"))
	if len(ps) == 1 {
		ps[0].File = filepath.Base(ps[0].File)
	}
	if len(ps) != 1 || ps[0].Error() != `vectorlint.ini:1: BasedOnStyles: a key of Vale's .vale.ini; vectorlint's is RunRules, in a [GLOB] section: [*.md] then RunRules = PackA, PackB` {
		t.Errorf("global BasedOnStyles: %v", ps)
	}
}

// problemLines is each problem's message, with its file relative to dir.
func problemLines(ps finding.Problems, dir string) []string {
	var out []string
	for _, p := range ps {
		p.File = strings.TrimPrefix(p.File, dir+string(filepath.Separator))
		out = append(out, p.Error())
	}
	return out
}

// TestRulesPerCallFor: a file's RulesPerCall comes from the most specific matching section
// that sets it, else the global key, else 1.
func TestRulesPerCallFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src string
		want      map[string]int
	}{
		{"nothing set", "[**/*.md]\nRunRules = A\n", map[string]int{"a.md": 1}},
		{"global only", "RulesPerCall = 3\n[**/*.md]\nRunRules = A\n", map[string]int{"a.md": 3, "api/x.md": 3}},
		{"global and sections", "RulesPerCall = 3\n[**/*.md]\nRunRules = A\n[api/**]\nRulesPerCall = 10\n[api/v1/**]\nRulesPerCall = 1\n[api/v1/x.md]\nRunRules = A\n",
			map[string]int{"a.md": 3, "api/x.md": 10, "api/v1/x.md": 1}},
		{"section only", "[**/*.md]\nRunRules = A\n[api/**]\nRulesPerCall = 2\n", map[string]int{"a.md": 1, "api/x.md": 2}},
	} {
		cfg, ps := Parse("vectorlint.ini", []byte(tt.src))
		if len(ps) != 0 {
			t.Fatalf("%s: %v", tt.name, ps)
		}
		for path, want := range tt.want {
			if got := cfg.RulesPerCallFor(cfg.Settings(path)); got != want {
				t.Errorf("%s: %s: RulesPerCall %d, want %d", tt.name, path, got, want)
			}
		}
	}
	if got := (*Config)(nil).RulesPerCallFor(FileSettings{}); got != 1 {
		t.Errorf("no config: %d", got)
	}
}

// TestSamplesFor: a rule's samples come from the most specific section that sets Samples, else
// the global key, else one per model of Models, else 1.
func TestSamplesFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src string
		want      map[string]int
	}{
		{"nothing set", "[**/*.md]\nRunRules = A\n", map[string]int{"a.md": 1}},
		{"models only", "Models = gpt-a, gpt-b ,gpt-c\n[**/*.md]\nRunRules = A\n", map[string]int{"a.md": 3}},
		{"global and sections", "Samples = 3\nModels = gpt-a, gpt-b\n[**/*.md]\nRunRules = A\n[api/**]\nSamples = 5\n[api/v1/**]\nSamples = 1\n",
			map[string]int{"a.md": 3, "api/x.md": 5, "api/v1/x.md": 1}},
	} {
		cfg, ps := Parse("vectorlint.ini", []byte(tt.src))
		if len(ps) != 0 {
			t.Fatalf("%s: %v", tt.name, ps)
		}
		for path, want := range tt.want {
			if got := cfg.SamplesFor(cfg.Settings(path).Rule("A", "R")); got != want {
				t.Errorf("%s: %s takes %d samples, want %d", tt.name, path, got, want)
			}
		}
	}
	cfg, _ := Parse("vectorlint.ini", []byte("Models = gpt-a, gpt-b ,gpt-c\n"))
	if !slices.Equal(cfg.Models, []string{"gpt-a", "gpt-b", "gpt-c"}) {
		t.Errorf("Models = %q", cfg.Models)
	}
}
