package lint

import (
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
)

// DocumentInput is a document planned by hand with PlanDocument: a text that is not a file of
// the project, such as a rule's example (`vectorlint test`, docs/rules.md "Examples").
type DocumentInput struct {
	// Path is the reported path (FileResult.Path); it need not exist.
	Path string
	// Doc is the document to evaluate.
	Doc *document.Document
	// Rules are the rules to run on it, with their own severity and strictness (no section
	// of the configuration applies to a document that is not a file of the project).
	Rules []*rules.Rule
	// SearchModel and SharedPrompt as in PlanInput.
	SearchModel  bool
	SharedPrompt string
}

// PlanDocument plans rules on one document exactly as BuildPlan plans a file (the same units,
// targets and chunks), for Evaluate: the FilePlan is complete as it is.
func PlanDocument(cfg *config.Config, in DocumentInput) *FilePlan {
	fp := &FilePlan{Path: in.Path, RelPath: in.Path, Doc: in.Doc}
	targets := &targetCache{doc: in.Doc}
	shared := len([]rune(in.SharedPrompt))
	for _, r := range in.Rules {
		pr := planRule(in.Doc, r, config.RuleSettings{}, cfg, in.SearchModel, targets)
		pr.SharedChars = shared
		fp.Rules = append(fp.Rules, pr)
	}
	return fp
}
