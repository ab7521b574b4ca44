package blueprint

import (
	"fmt"
	"sort"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/points"
)

// EnvRef is one ${VAR} reference at a place a blueprint run expands variables: a custom
// model's url or header, a $call's or an externalServices entry's url or header. ${...} in
// other places (prompts, $js code) is text and never expanded.
type EnvRef struct {
	// Name is the variable.
	Name string
	// Line is where the reference is written (0 when unknown).
	Line int
	// Where names the place: `header "x-api-key" of custom model "proxy:claude"`.
	Where string
	// Model is the custom model's id, "" for a $call or a service.
	Model string
	// Call reports a $call's or an externalServices entry's reference: it is expanded only
	// when the run allows the network (--allow-net).
	Call bool
	// URL is the url the value is sent to, as written; URLWhere names it and URLLine locates it.
	URL      string
	URLWhere string
	URLLine  int
}

// envRefs returns the names of the ${VAR} references in s, in order.
func envRefNames(s string) []string {
	var out []string
	for _, m := range redact.EnvRef().FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// EnvRefs lists every ${VAR} reference a run of the blueprint may expand, in file order:
// custom models' urls and headers, externalServices' urls and headers, and inline $call urls
// and headers.
func EnvRefs(bp *Blueprint) []EnvRef {
	var out []EnvRef
	add := func(s string, line int, where string, ref EnvRef) {
		for _, name := range envRefNames(s) {
			r := ref
			r.Name, r.Line, r.Where = name, line, where
			out = append(out, r)
		}
	}
	// addDef adds the references of one definition's url and headers (sorted by name, then
	// ordered by line below).
	addDef := func(what, rawURL string, headers map[string]string, lines points.FieldLines, base EnvRef) {
		base.URL, base.URLWhere, base.URLLine = rawURL, "url of "+what, lines.URLLine()
		add(rawURL, lines.URLLine(), "url of "+what, base)
		names := make([]string, 0, len(headers))
		for k := range headers {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			add(headers[k], lines.HeaderLine(k), fmt.Sprintf("header %q of %s", k, what), base)
		}
	}
	for _, m := range bp.Models {
		if m.Custom != nil {
			addDef(fmt.Sprintf("custom model %q", m.Custom.ID), m.Custom.URL, m.Custom.Headers, m.Custom.Lines, EnvRef{Model: m.Custom.ID})
		}
	}
	names := make([]string, 0, len(bp.Services))
	for k := range bp.Services {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s := bp.Services[k]
		addDef(fmt.Sprintf("external service %q", k), s.URL, s.Headers, s.Lines, EnvRef{Call: true})
	}
	for _, p := range bp.Prompts {
		for _, pt := range p.Rubric().Points() {
			if pt.Fn != "call" {
				continue
			}
			spec, ok := pt.Args.(map[string]any)
			if !ok {
				continue
			}
			if _, named := spec["service"].(string); named {
				continue // the service's own references are listed above
			}
			rawURL, _ := spec["url"].(string)
			headers := map[string]string{}
			if h, ok := spec["headers"].(map[string]any); ok {
				for k, v := range h {
					if s, ok := v.(string); ok {
						headers[k] = s
					}
				}
			}
			addDef(fmt.Sprintf("$call in prompt %q", p.ID), rawURL, headers, points.FieldLines{Object: pt.Line}, EnvRef{Call: true})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// CodeEnv marks a ${VAR} reference that --allow-env does not allow.
const CodeEnv = "env"

// CheckEnvRefs returns a problem at finding.LevelError (code "env", with the line) for each reference
// that allow does not name. `blueprint check` reports them; `blueprint run` stops on them
// before any call.
func CheckEnvRefs(bp *Blueprint, refs []EnvRef, allow points.AllowEnv) finding.Problems {
	var out finding.Problems
	for _, r := range refs {
		if !allow[r.Name] {
			out = append(out, finding.Problem{File: bp.File, Line: r.Line, Level: finding.LevelError, Code: CodeEnv,
				Message: (&points.EnvNotAllowedError{Name: r.Name, Where: r.Where}).Error()})
		}
	}
	return out
}

// checkEnvTrust checks, before any call, where the values of allowed references would go: a
// value the user holds (from the process environment or the user config) may be sent only to
// a loopback address or a host in VECTORLINT_TRUSTED_HOSTS, since every url of a blueprint is
// the blueprint author's choice. It returns one *trust.UntrustedHostError for each url that
// would receive one, naming the blueprint's file and the url's line. References that are not
// allowed are CheckEnvRefs's to report and are skipped here.
func checkEnvTrust(bp *Blueprint, refs []EnvRef, env envsource.Vars, allow points.AllowEnv, rule *trust.Rule) []error {
	var out []error
	seen := map[string]bool{}
	for _, r := range refs {
		if !allow[r.Name] || env == nil {
			continue
		}
		if _, set := env.Lookup(r.Name); !set {
			continue
		}
		src := env.Source(r.Name)
		if err := checkSend(rule, bp.File, r.URL, r.URLWhere, r.URLLine, src, env, allow); err != nil {
			key := r.URLWhere + "\x00" + r.Name
			if !seen[key] {
				seen[key] = true
				out = append(out, err)
			}
		}
	}
	return out
}

// checkSend applies the trust rule to sending the value of a variable (from src) to rawURL, a
// url written in the blueprint (its ${VAR} references expanded first).
func checkSend(rule *trust.Rule, file, rawURL, where string, line int, src envsource.Source, env envsource.Vars, allow points.AllowEnv) error {
	target, _, err := points.ExpandEnv(rawURL, env, allow, where)
	if err != nil {
		target = rawURL
	}
	return rule.Check(target, src, envsource.Source{Origin: envsource.OriginBlueprint, Name: where, File: file, Line: line})
}
