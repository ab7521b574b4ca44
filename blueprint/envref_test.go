package blueprint

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/points"
)

// envRefBlueprint has ${VAR} references at every place a run expands them, and ${...} in
// places it never does (prompt text, $js code).
const envRefBlueprint = `title: Refs
models:
  - openai:gpt
  - id: proxy:x
    url: "https://models.example/${PATH_PART}/v1/chat/completions"
    modelName: m
    inherit: openai
    headers:
      Authorization: "Bearer ${OPENAI_API_KEY}"
      X-Org: "${ORG} and ${ORG2}"
externalServices:
  checker:
    url: "https://svc.example/check"
    headers: {X-Key: "${CALL_KEY}"}
---
- id: p
  prompt: "Explain ${HOME} in a shell"
  should:
    - $js: "return ` + "`${r.length}`" + ` !== '';"
    - $call: {service: checker}
    - $call: {url: "https://inline.example/${TOKEN}", headers: {Auth: "${TOKEN}"}}
`

func TestEnvRefs(t *testing.T) {
	t.Parallel()
	bp, err := Parse([]byte(envRefBlueprint), ParseOptions{File: "refs.yml"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range EnvRefs(bp) {
		got = append(got, r.Name+" line "+strconv.Itoa(r.Line)+" "+r.Where+" → "+r.URLWhere+" line "+strconv.Itoa(r.URLLine))
	}
	want := []string{
		`PATH_PART line 5 url of custom model "proxy:x" → url of custom model "proxy:x" line 5`,
		`OPENAI_API_KEY line 9 header "Authorization" of custom model "proxy:x" → url of custom model "proxy:x" line 5`,
		`ORG line 10 header "X-Org" of custom model "proxy:x" → url of custom model "proxy:x" line 5`,
		`ORG2 line 10 header "X-Org" of custom model "proxy:x" → url of custom model "proxy:x" line 5`,
		`CALL_KEY line 14 header "X-Key" of external service "checker" → url of external service "checker" line 13`,
		`TOKEN line 21 url of $call in prompt "p" → url of $call in prompt "p" line 21`,
		`TOKEN line 21 header "Auth" of $call in prompt "p" → url of $call in prompt "p" line 21`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EnvRefs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	diags := CheckEnvRefs(bp, EnvRefs(bp), points.AllowEnv{"PATH_PART": true, "ORG": true, "ORG2": true, "TOKEN": true})
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Labeled())
	}
	wantDiags := []string{
		`refs.yml:9: error: header "Authorization" of custom model "proxy:x" uses ${OPENAI_API_KEY}, which a blueprint may read only when the run names it: add --allow-env OPENAI_API_KEY if this blueprint may send that variable to its url`,
		`refs.yml:14: error: header "X-Key" of external service "checker" uses ${CALL_KEY}, which a blueprint may read only when the run names it: add --allow-env CALL_KEY if this blueprint may send that variable to its url`,
	}
	if !reflect.DeepEqual(lines, wantDiags) {
		t.Errorf("CheckEnvRefs:\n%s", strings.Join(lines, "\n"))
	}
}

// TestCheckEnvTrust: a value the user holds goes only to a loopback or trusted url; a value
// from the project's .env travels with the blueprint's url.
func TestCheckEnvTrust(t *testing.T) {
	t.Parallel()
	bp, err := Parse([]byte(envRefBlueprint), ParseOptions{File: "refs.yml"})
	if err != nil {
		t.Fatal(err)
	}
	allow := points.AllowEnv{"PATH_PART": true, "OPENAI_API_KEY": true, "ORG": true, "ORG2": true, "TOKEN": true, "CALL_KEY": true}
	env := sourcedVars{
		"OPENAI_API_KEY": {"sk-user", envsource.Source{Origin: envsource.OriginProcess, Name: "OPENAI_API_KEY"}},
		"PATH_PART":      {"p", envsource.Source{Origin: envsource.OriginDotEnv, Name: "PATH_PART", File: ".env", Line: 1}},
		"ORG":            {"o", envsource.Source{Origin: envsource.OriginDotEnv, Name: "ORG", File: ".env", Line: 2}},
		"ORG2":           {"o", envsource.Source{Origin: envsource.OriginDotEnv, Name: "ORG2", File: ".env", Line: 3}},
		"TOKEN":          {"t", envsource.Source{Origin: envsource.OriginDotEnv, Name: "TOKEN", File: ".env", Line: 4}},
		"CALL_KEY":       {"c", envsource.Source{Origin: envsource.OriginUserConfig, Name: "CALL_KEY", File: "config.toml"}},
	}
	strict, _ := trust.ParseHosts("")
	errs := checkEnvTrust(bp, EnvRefs(bp), env, allow, strict)
	var got []string
	for _, e := range errs {
		var ue *trust.UntrustedHostError
		if !errors.As(e, &ue) {
			t.Fatalf("%T: %v", e, e)
		}
		got = append(got, e.Error())
	}
	want := []string{
		`refs.yml:5: url of custom model "proxy:x" would send OPENAI_API_KEY (from the process environment) to models.example, which is not the provider's endpoint, a loopback address or a host in VECTORLINT_TRUSTED_HOSTS: refused before any call (a file in the repository may not redirect your key). If you trust models.example, add it to VECTORLINT_TRUSTED_HOSTS in the process environment (a .env file cannot set it)`,
		`refs.yml:13: url of external service "checker" would send CALL_KEY (from the user config) to svc.example, which is not the provider's endpoint, a loopback address or a host in VECTORLINT_TRUSTED_HOSTS: refused before any call (a file in the repository may not redirect your key). If you trust svc.example, add it to VECTORLINT_TRUSTED_HOSTS in the process environment (a .env file cannot set it)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CheckEnvTrust:\n%s", strings.Join(got, "\n"))
	}
	trusted, _ := trust.ParseHosts("models.example,svc.example")
	if errs := checkEnvTrust(bp, EnvRefs(bp), env, allow, trusted); errs != nil {
		t.Errorf("trusted hosts: %v", errs)
	}
}

// sourcedVars is a Vars with explicit sources.
type sourcedVars map[string]struct {
	value string
	src   envsource.Source
}

func (v sourcedVars) Lookup(k string) (string, bool)   { e, ok := v[k]; return e.value, ok }
func (v sourcedVars) Source(k string) envsource.Source { return v[k].src }
