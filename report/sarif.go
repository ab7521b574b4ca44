package report

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
)

// sarifSchemaURI is the OASIS SARIF 2.1.0 schema (errata 01), the one GitHub code scanning
// validates uploads against.
const sarifSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SARIF 2.1.0 objects, limited to what vectorlint writes.
type (
	sarifText struct {
		Text string `json:"text"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int        `json:"startLine"`
		StartColumn int        `json:"startColumn,omitempty"`
		EndLine     int        `json:"endLine,omitempty"`
		EndColumn   int        `json:"endColumn,omitempty"`
		Snippet     *sarifText `json:"snippet,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           *sarifRegion          `json:"region,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	}
	sarifReplacement struct {
		DeletedRegion   sarifRegion `json:"deletedRegion"`
		InsertedContent sarifText   `json:"insertedContent"`
	}
	sarifArtifactChange struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Replacements     []sarifReplacement    `json:"replacements"`
	}
	sarifFix struct {
		Description     *sarifText            `json:"description,omitempty"`
		ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
		Fixes     []sarifFix      `json:"fixes,omitempty"`
	}
	sarifMultiformat struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifRule struct {
		ID               string           `json:"id"`
		Name             string           `json:"name,omitempty"`
		ShortDescription sarifText        `json:"shortDescription"`
		FullDescription  sarifText        `json:"fullDescription"`
		Help             sarifMultiformat `json:"help"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifRuleReference struct {
		ID    string `json:"id"`
		Index int    `json:"index"`
	}
	sarifNotification struct {
		Level          string              `json:"level"`
		Message        sarifText           `json:"message"`
		Locations      []sarifLocation     `json:"locations,omitempty"`
		AssociatedRule *sarifRuleReference `json:"associatedRule,omitempty"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
)

// sarifWriter prints a SARIF 2.1.0 log with one run. Results stream out as files arrive; the
// rule descriptors (one per rule id, indexed in order of first appearance) and the invocation,
// whose notifications carry operational errors, unverified quotes and skipped files, close the
// run. Those notifications are held until Finish: they are few next to the findings.
type sarifWriter struct {
	*stream
	opts          Options
	started       bool
	results       int
	rules         []string
	ruleIndex     map[string]int
	notifications []sarifNotification
	failed        bool
}

func (s *sarifWriter) header() {
	if s.started {
		return
	}
	s.started = true
	fmt.Fprintf(s.out, "{\n  \"$schema\": %q,\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n"+
		"      \"columnKind\": \"unicodeCodePoints\",\n      \"results\": [", sarifSchemaURI)
}

// rule returns the rule's index in the driver's rules, adding it on first sight.
func (s *sarifWriter) rule(id string) int {
	if i, ok := s.ruleIndex[id]; ok {
		return i
	}
	s.ruleIndex[id] = len(s.rules)
	s.rules = append(s.rules, id)
	return len(s.rules) - 1
}

// sarifURI turns a reported path into an artifact location: a relative path becomes a relative
// URI reference against %SRCROOT% (the repository root for code scanning), an absolute one a
// file: URI. Characters outside the URI syntax are percent-encoded.
func sarifURI(p string) sarifArtifactLocation {
	slashed := filepath.ToSlash(p)
	if vol := filepath.VolumeName(p); vol != "" || strings.HasPrefix(slashed, "/") {
		if !strings.HasPrefix(slashed, "/") {
			slashed = "/" + slashed
		}
		return sarifArtifactLocation{URI: (&url.URL{Scheme: "file", Path: slashed}).String()}
	}
	return sarifArtifactLocation{URI: (&url.URL{Path: slashed}).String(), URIBaseID: "%SRCROOT%"}
}

// sarifDescriptor is the rule descriptor of a rule id: its name, the first sentence and the
// first paragraph of its instructions, and the instructions themselves as help (text and
// Markdown: GitHub code scanning shows help.markdown with each alert), from its rule file. A
// rule the writer was not told about (Options.Rules: vectorlint merge has no rule files) gets
// generic text.
func sarifDescriptor(id string, infos map[string]finding.RuleInfo) sarifRule {
	info, ok := infos[id]
	if !ok {
		return sarifRule{
			ID:               id,
			ShortDescription: sarifText{Text: id},
			FullDescription:  sarifText{Text: "VectorLint rule " + id + ", evaluated by an LLM."},
			Help:             sarifMultiformat{Text: "The rule's instructions are in its Markdown file in the pack under RulesPath."},
		}
	}
	return sarifRule{ID: id, Name: info.Name, ShortDescription: sarifText{Text: info.Summary},
		FullDescription: sarifText{Text: info.Description},
		Help:            sarifMultiformat{Text: info.Help, Markdown: info.Help}}
}

// sarifLevel is a finding's SARIF level: error, warning, or note for a suggestion.
func sarifLevel(s finding.Severity) string {
	if s == finding.SeveritySuggestion {
		return "note"
	}
	return s.String()
}

func findingRegion(f finding.Finding) sarifRegion {
	return sarifRegion{StartLine: f.Start.Line, StartColumn: f.Start.Column, EndLine: f.End.Line,
		EndColumn: f.End.Column}
}

// toSARIFFix is a finding's fix: one artifact change of the file, a replacement per edit. The
// deleted region is given in lines and columns, in the run's column kind (code points); an
// insertion is an empty region (endColumn = startColumn). The description is the finding's
// suggestion, else the fix's own message.
func toSARIFFix(loc sarifArtifactLocation, f finding.Finding) sarifFix {
	change := sarifArtifactChange{ArtifactLocation: loc}
	for _, e := range f.Edits {
		change.Replacements = append(change.Replacements, sarifReplacement{
			DeletedRegion: sarifRegion{StartLine: e.Start.Line, StartColumn: e.Start.Column,
				EndLine: e.End.Line, EndColumn: e.End.Column},
			InsertedContent: sarifText{Text: e.NewText},
		})
	}
	fix := sarifFix{ArtifactChanges: []sarifArtifactChange{change}}
	switch msg := f.FixMessage(); {
	case f.Suggestion != "":
		fix.Description = &sarifText{Text: f.Suggestion}
	case msg != "":
		fix.Description = &sarifText{Text: msg}
	}
	return fix
}

// File writes one result per finding and records the file's rules and notifications.
func (s *sarifWriter) File(fr finding.FileResult) error {
	if err := s.begin(fr); err != nil {
		return err
	}
	s.header()
	loc := sarifURI(fr.Path)
	for _, sc := range fr.Scores {
		s.rule(sc.Rule)
	}
	for _, f := range fr.Findings {
		region := findingRegion(f)
		if f.Match != "" {
			region.Snippet = &sarifText{Text: f.Match}
		}
		res := sarifResult{
			RuleID:    f.Rule,
			RuleIndex: s.rule(f.Rule),
			Level:     sarifLevel(f.Severity),
			Message:   sarifText{Text: messageWithSuggestion(f)},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: loc, Region: &region}}},
		}
		if len(f.Edits) > 0 {
			res.Fixes = []sarifFix{toSARIFFix(loc, f)}
		}
		b, err := json.MarshalIndent(res, "        ", "  ")
		if err != nil {
			return fmt.Errorf("report: %s: %w", fr.Path, err)
		}
		if s.results == 0 {
			s.out.WriteString("\n        ")
		} else {
			s.out.WriteString(",\n        ")
		}
		s.results++
		s.out.Write(b)
	}
	fileLoc := []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: loc}}}
	for _, e := range fr.Errors {
		s.failed = true
		s.notifications = append(s.notifications, sarifNotification{
			Level:          "error",
			Message:        sarifText{Text: e.Rule + " could not run: " + e.Message},
			Locations:      fileLoc,
			AssociatedRule: &sarifRuleReference{ID: e.Rule, Index: s.rule(e.Rule)},
		})
	}
	for _, u := range fr.Unverified {
		n := sarifNotification{
			Level:          "note",
			Message:        sarifText{Text: fmt.Sprintf("%s: unverified quote %q (not counted): %s", u.Rule, u.Quote, u.Message)},
			Locations:      fileLoc,
			AssociatedRule: &sarifRuleReference{ID: u.Rule, Index: s.rule(u.Rule)},
		}
		if u.Line > 0 {
			n.Locations = []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: loc,
				Region: &sarifRegion{StartLine: u.Line}}}}
		}
		s.notifications = append(s.notifications, n)
	}
	return s.end()
}

// Finish closes the results and writes the tool with its rule descriptors and the invocation.
func (s *sarifWriter) Finish(t finding.Totals) error {
	if err := s.finish(); err != nil {
		return err
	}
	s.header()
	for _, sk := range t.Skipped {
		s.notifications = append(s.notifications, sarifNotification{
			Level:   "note",
			Message: sarifText{Text: "skipped: " + sk.Reason},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: sarifURI(sk.Path)}}},
		})
	}
	for _, e := range t.RunErrors {
		s.notifications = append(s.notifications, sarifNotification{Level: "error", Message: sarifText{Text: runErrorText(e)}})
	}
	if s.results > 0 {
		s.out.WriteString("\n      ")
	}
	s.out.WriteString("],\n      \"tool\": ")
	driver := sarifDriver{Name: "vectorlint", Version: s.opts.Version, InformationURI: projectURL,
		Rules: make([]sarifRule, len(s.rules))}
	for i, id := range s.rules {
		driver.Rules[i] = sarifDescriptor(id, s.opts.Rules)
	}
	b, err := json.MarshalIndent(sarifTool{Driver: driver}, "      ", "  ")
	if err != nil {
		return err
	}
	s.out.Write(b)
	inv := []sarifInvocation{{
		ExecutionSuccessful:        !s.failed && t.Complete(),
		ToolExecutionNotifications: s.notifications,
	}}
	b, err = json.MarshalIndent(inv, "      ", "  ")
	if err != nil {
		return err
	}
	s.out.WriteString(",\n      \"invocations\": ")
	s.out.Write(b)
	s.out.WriteString("\n    }\n  ]\n}\n")
	return s.out.Flush()
}
