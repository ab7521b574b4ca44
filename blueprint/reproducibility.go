package blueprint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/vectorlint/vectorlint/points"
)

// Reproducibility is what a result document records so that a run can be done again and two
// runs compared knowingly (docs/blueprints.md, "The result document"): which blueprint, which
// models with which settings, which judges, which vectorlint. It is vectorlint's addition to
// Weval's format, under the key "reproducibility".
type Reproducibility struct {
	// BlueprintSHA256 is the SHA-256, in hex, of the normalised blueprint as JSON (the
	// document's config): the same blueprint, however it was formatted, has the same hash.
	BlueprintSHA256 string `json:"blueprintSha256"`
	// Responses is "generated" when the run generated them (with fixtures where they applied),
	// "given" when they were read from a responses file (the models' settings then describe
	// the ids, not how the texts were made).
	Responses string `json:"responses"`
	// Models are the scored model ids (the variants) with their settings.
	Models []ModelRecord `json:"models"`
	// Judges are the judges of the text points (none when nothing was judged).
	Judges []JudgeRecord `json:"judges,omitempty"`
	// JudgeBatch reports that each judge got every text point of a response in one call
	// (--judge-batch).
	JudgeBatch bool `json:"judgeBatch,omitempty"`
	// Vectorlint is the version and commit of the program that ran it.
	Vectorlint ToolVersion `json:"vectorlint"`
}

// ModelRecord is one model variant of a run with the settings of its requests.
type ModelRecord struct {
	// ID is the effective id, e.g. "openai:gpt-4o-mini[temp:0.7][sp_idx:1]".
	ID string `json:"id"`
	// Temperature is the variant's temperature (its [temp:T]); a prompt's own temperature, in
	// config, is sent instead when the header sets none. Null when the id has no suffix.
	Temperature *float64 `json:"temperature"`
	// SystemPrompt is the header's system prompt of the variant (its [sp_idx:i] of a list);
	// a prompt's own system prompt, in config, replaces it for that prompt. Null for none.
	SystemPrompt *string `json:"systemPrompt"`
	// MaxTokens bounds each generated turn (absent when the responses were given).
	MaxTokens int `json:"maxTokens,omitempty"`
}

// JudgeRecord is one judge of a run with the settings of its requests.
type JudgeRecord struct {
	ID       string `json:"id,omitempty"`
	Model    string `json:"model"`
	Approach string `json:"approach"`
	// Temperature and MaxTokens of every judge request.
	Temperature float64 `json:"temperature"`
	MaxTokens   int     `json:"maxTokens"`
	// SystemPrompt is the judge's system message for one point (points.JudgePrompt builds the
	// user message); BatchSystemPrompt the one for several points at once, with JudgeBatch
	// (points.JudgeBatchPrompt).
	SystemPrompt      string `json:"systemPrompt"`
	BatchSystemPrompt string `json:"batchSystemPrompt,omitempty"`
	// Backup marks the backup judge, asked only when every default judge failed on a point.
	Backup bool `json:"backup,omitempty"`
}

// ToolVersion names the vectorlint that ran a blueprint.
type ToolVersion struct {
	// Version is the release version ("0.1.0"), or what the build information says.
	Version string `json:"version"`
	// Commit is the source's commit, when the build recorded it ("+dirty" when the checkout
	// had changes).
	Commit string `json:"commit,omitempty"`
}

// BuildVersion is the vectorlint version and commit from the running program's build
// information: the main module's when vectorlint is the program, else the version of the
// vectorlint module it depends on. The command passes its own (stamped) version instead.
func BuildVersion() ToolVersion {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ToolVersion{Version: "unknown"}
	}
	const module = "github.com/vectorlint/vectorlint"
	if bi.Main.Path != module {
		for _, d := range bi.Deps {
			if d.Path == module {
				return ToolVersion{Version: d.Version}
			}
		}
		return ToolVersion{Version: "unknown"}
	}
	v := ToolVersion{Version: bi.Main.Version}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if v.Commit != "" && dirty {
		v.Commit += "+dirty"
	}
	if v.Version == "" {
		v.Version = "unknown"
	}
	return v
}

// BlueprintSHA256 is the SHA-256, in hex, of the normalised blueprint as JSON.
func BlueprintSHA256(bp *Blueprint) string {
	b, err := json.Marshal(bp)
	if err != nil {
		b = []byte(bp.ID)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

var tempSuffixRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[temp:([^\]]+)\]`) })

// reproducibility builds the record of a run of bp over the model ids, judged by judge (an
// *LLMJudge, else no judge is recorded).
func reproducibility(bp *Blueprint, models []string, generated bool, judge points.Judge, tool ToolVersion) *Reproducibility {
	r := &Reproducibility{BlueprintSHA256: BlueprintSHA256(bp), Responses: "given", Models: []ModelRecord{}, Vectorlint: tool}
	if generated {
		r.Responses = "generated"
	}
	for _, id := range models {
		rec := ModelRecord{ID: id}
		if generated {
			rec.MaxTokens = defaultMaxTokens
		}
		if m := tempSuffixRe().FindStringSubmatch(id); m != nil {
			if t, err := strconv.ParseFloat(m[1], 64); err == nil {
				rec.Temperature = &t
			}
		}
		rec.SystemPrompt = systemPrompt(bp, &Prompt{}, systemIndexOf(id))
		r.Models = append(r.Models, rec)
	}
	lj, ok := judge.(*LLMJudge)
	if !ok {
		return r
	}
	system, _ := points.JudgePrompt(points.ApproachStandard, points.JudgeRequest{}, lj.experimental)
	batchSystem := ""
	if lj.batch {
		r.JudgeBatch = true
		batchSystem, _ = points.JudgeBatchPrompt(points.ApproachStandard, nil, lj.experimental)
	}
	add := func(s JudgeSpec, backup bool) {
		approach := s.Approach
		if approach == "" {
			approach = points.ApproachHolistic
		}
		r.Judges = append(r.Judges, JudgeRecord{ID: s.ID, Model: s.Model, Approach: approach, MaxTokens: lj.maxTokens,
			SystemPrompt: strings.TrimSpace(system), BatchSystemPrompt: batchSystem, Backup: backup})
	}
	for _, s := range lj.judgeSpecs() {
		add(s, false)
	}
	if b := lj.backupSpec(); b != nil {
		add(*b, true)
	}
	return r
}
