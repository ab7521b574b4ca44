package blueprint

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReproducibility: the record of a run with two temperatures, a list of system prompts and
// the default judges (with the backup): each variant's temperature and system prompt from its
// id, each judge's settings, the blueprint's hash (formatting does not change it, content
// does) and the version given.
func TestReproducibility(t *testing.T) {
	t.Parallel()
	const src = "title: R\nmodels: [openai:m]\ntemperatures: [0, 0.7]\nsystem: [\"Be brief.\", null]\n---\n- prompt: Hi\n  should: [Greets]\n"
	bp := mustParse(t, "r.yml", src)
	judge, err := NewLLMJudge(bp, JudgeOptions{Client: testClient(t), LookupEnv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range modelVariants(bp, bp.Models) {
		ids = append(ids, v.ID)
	}
	r := reproducibility(bp, ids, true, judge, ToolVersion{Version: "9.9.9", Commit: "abc+dirty"})
	b, err := json.Marshal(r.Models)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"openai:m[temp:0][sp_idx:0]","temperature":0,"systemPrompt":"Be brief.","maxTokens":1500},` +
		`{"id":"openai:m[temp:0][sp_idx:1]","temperature":0,"systemPrompt":null,"maxTokens":1500},` +
		`{"id":"openai:m[temp:0.7][sp_idx:0]","temperature":0.7,"systemPrompt":"Be brief.","maxTokens":1500},` +
		`{"id":"openai:m[temp:0.7][sp_idx:1]","temperature":0.7,"systemPrompt":null,"maxTokens":1500}]`
	if string(b) != want {
		t.Errorf("models:\n%s\nwant\n%s", b, want)
	}
	var judges []string
	for _, j := range r.Judges {
		judges = append(judges, j.ID+" "+j.Model+" "+j.Approach)
		if j.Temperature != 0 || j.MaxTokens != defaultJudgeMaxTokens || !strings.HasPrefix(j.SystemPrompt, "You are an expert examiner.") ||
			!strings.Contains(j.SystemPrompt, "CLASS_FULLY_PRESENT") {
			t.Errorf("judge %s: %+v", j.ID, j)
		}
	}
	if got := strings.Join(judges, "\n"); got != "holistic-qwen3-30b-a3b-instruct-2507 openrouter:qwen/qwen3-30b-a3b-instruct-2507 holistic\n"+
		"holistic-openai-gpt-oss-120b openrouter:openai/gpt-oss-120b holistic\nbackup-claude-3-5-haiku anthropic:claude-3.5-haiku holistic" ||
		!r.Judges[2].Backup || r.Judges[0].Backup {
		t.Errorf("judges:\n%s", got)
	}
	if r.Responses != "generated" || r.Vectorlint != (ToolVersion{Version: "9.9.9", Commit: "abc+dirty"}) || len(r.BlueprintSHA256) != 64 {
		t.Errorf("%+v", r)
	}
	// Formatting is not content; a changed prompt is.
	same := mustParse(t, "r.yml", strings.ReplaceAll(src, "[0, 0.7]", "[ 0 ,  0.7 ]"))
	other := mustParse(t, "r.yml", strings.Replace(src, "Hi", "Hello", 1))
	if BlueprintSHA256(same) != r.BlueprintSHA256 || BlueprintSHA256(other) == r.BlueprintSHA256 {
		t.Error("the hash follows the formatting, or misses a change of content")
	}
	if contentHash(bp) != r.BlueprintSHA256[:12] {
		t.Errorf("the default run label %s is not the hash's start", contentHash(bp))
	}
	// Given responses: no generation settings.
	g := reproducibility(bp, []string{"openai:m"}, false, nil, ToolVersion{Version: "1"})
	if b, _ := json.Marshal(g); string(b) != `{"blueprintSha256":"`+r.BlueprintSHA256+`","responses":"given","models":[{"id":"openai:m","temperature":null,"systemPrompt":"Be brief."}],"vectorlint":{"version":"1"}}` {
		t.Errorf("given: %s", b)
	}
}

// TestBuildVersion: under go test the main module is vectorlint, built from a checkout.
func TestBuildVersion(t *testing.T) {
	t.Parallel()
	if v := BuildVersion(); v.Version == "" || v.Version == "unknown" {
		t.Errorf("%+v", v)
	}
}
