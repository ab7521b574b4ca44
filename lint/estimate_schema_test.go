package lint

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestCallTokensCountsTheRequest: the dry run's estimate of a call is the request the call
// stage sends, counted at four characters a token: its messages, four tokens a message, and the
// response schema (spec/linter.md §13, "Dry-run estimates count the response schema's tokens"),
// for a semi-objective and a subjective rule, a chunk of a long document included.
func TestCallTokensCountsTheRequest(t *testing.T) {
	t.Parallel()
	files := budgetProject()
	files["vectorlint.ini"] = "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n"
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	plan.Prepare()
	checked := 0
	for _, fp := range plan.Files {
		for _, pr := range fp.Rules {
			if !cacheable(pr.Kind) {
				continue
			}
			for _, u := range pr.Units {
				for _, ch := range u.Chunks() {
					req := cacheRequest(pr, u, ch, EvalOptions{}, 1, 0)
					chars := 0
					for _, m := range req.Messages {
						chars += utf8.RuneCountInString(m.Content) + EstimateMessageChars
					}
					js, _ := json.Marshal(req.Schema.Schema)
					schema := utf8.RuneCount(js)
					chars += schema
					// The estimate counts a line break after the text's last line too.
					if got, want := callTokens(pr, u, ch), (chars+3)/4; got != want && got != (chars+1+3)/4 {
						t.Errorf("%s %s: estimate %d tokens, the request %d", fp.Path, pr.ID, got, want)
					}
					if schema < 400 {
						t.Errorf("%s: a schema of %d characters", pr.ID, schema)
					}
					checked++
				}
			}
		}
	}
	if checked < 3 {
		t.Errorf("%d calls checked", checked)
	}
}
