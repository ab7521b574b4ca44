package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// Violation is one passage a model reported as breaking a rule (the reply contract of
// spec/linter.md §6).
type Violation struct {
	// Line is the model's line hint (0 when it gave none or an unusable one).
	Line          int
	QuotedText    string
	ContextBefore string
	ContextAfter  string
	Description   string
	Analysis      string
	Message       string
	Suggestion    string
	Fix           string
	// Confidence is from 0 to 1; a reply without one counts as 1.
	Confidence float64
}

// Quote is the violation's quote, as the document locates it.
func (v Violation) Quote() document.Quote {
	return document.Quote{Text: v.QuotedText, Line: v.Line, Before: v.ContextBefore, After: v.ContextAfter}
}

// CriterionRating is a subjective reply's rating of one criterion.
type CriterionRating struct {
	Criterion  *rules.Criterion
	Rating     int
	Summary    string
	Reasoning  string
	Violations []Violation
}

// ContractError is a model reply that breaks the reply contract. Its text is quoted back to the
// model on the retry, so it says exactly where the problem is, what was expected and what was
// found.
type ContractError struct {
	// Path locates the problem in the reply, e.g. "violations[2].quoted_text".
	Path     string
	Expected string
	Found    string
}

// Error reads "PATH: expected …, found …".
func (e *ContractError) Error() string {
	if e.Path == "" {
		return "expected " + e.Expected + ", found " + e.Found
	}
	return e.Path + ": expected " + e.Expected + ", found " + e.Found
}

// parseViolationsReply reads a semi-objective rule's reply: {"violations": [...]}. quoted_text
// and message are required in each violation; a missing confidence counts as 1; line is a hint
// and an unusable one is ignored. Unknown fields are ignored.
func parseViolationsReply(js string) ([]Violation, error) {
	obj, err := replyObject(js)
	if err != nil {
		return nil, err
	}
	raw, ok := obj["violations"]
	if !ok {
		return nil, &ContractError{Path: "violations", Expected: `a "violations" array`, Found: "no such field" + fieldList(obj)}
	}
	return parseViolations("violations", raw)
}

// parseCriteriaReply reads a subjective rule's reply: {"criteria": [...]}, with one rating per
// criterion of criteria. Criteria are matched by id, else by name (case-insensitive). A missing
// criterion, a criterion rated twice and a rating outside 1–4 are contract errors; a criterion
// the rule does not have is ignored with a warning. The ratings come back in the order of
// criteria.
func parseCriteriaReply(js string, criteria []*rules.Criterion) ([]CriterionRating, []string, error) {
	obj, err := replyObject(js)
	if err != nil {
		return nil, nil, err
	}
	raw, ok := obj["criteria"]
	if !ok {
		return nil, nil, &ContractError{Path: "criteria", Expected: `a "criteria" array`, Found: "no such field" + fieldList(obj)}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || isNull(raw) {
		return nil, nil, &ContractError{Path: "criteria", Expected: "an array", Found: describe(raw)}
	}
	var (
		warnings []string
		rated    = make([]*CriterionRating, len(criteria))
	)
	for i, item := range items {
		path := fmt.Sprintf("criteria[%d]", i)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil || isNull(item) {
			return nil, nil, &ContractError{Path: path, Expected: "an object", Found: describe(item)}
		}
		id, _ := optionalString(fields["id"])
		name, _ := optionalString(fields["name"])
		idx := matchCriterion(criteria, id, name)
		if idx < 0 {
			label := id
			if label == "" {
				label = name
			}
			warnings = append(warnings, fmt.Sprintf("the reply rates a criterion the rule does not have (%q); ignored", label))
			continue
		}
		c := criteria[idx]
		if rated[idx] != nil {
			return nil, nil, &ContractError{Path: path, Expected: "one rating per criterion", Found: fmt.Sprintf("criterion %q rated twice", c.ID)}
		}
		scoreRaw, ok := fields["score"]
		if !ok {
			return nil, nil, &ContractError{Path: path + ".score", Expected: "an integer from 1 to 4", Found: "no score"}
		}
		rating, ok := integer(scoreRaw)
		if !ok || rating < scoring.MinRating || rating > scoring.MaxRating {
			return nil, nil, &ContractError{Path: path + ".score", Expected: "an integer from 1 to 4", Found: describe(scoreRaw)}
		}
		cr := &CriterionRating{Criterion: c, Rating: rating}
		cr.Summary, _ = optionalString(fields["summary"])
		cr.Reasoning, _ = optionalString(fields["reasoning"])
		if vr, ok := fields["violations"]; ok && !isNull(vr) {
			vs, err := parseViolations(path+".violations", vr)
			if err != nil {
				return nil, nil, err
			}
			cr.Violations = vs
		}
		rated[idx] = cr
	}
	var missing []string
	for i, r := range rated {
		if r == nil {
			missing = append(missing, strconv.Quote(criteria[i].ID))
		}
	}
	if len(missing) > 0 {
		return nil, nil, &ContractError{Path: "criteria", Expected: "a rating for every criterion (" + criterionIDs(criteria) + ")",
			Found: "none for " + strings.Join(missing, ", ")}
	}
	out := make([]CriterionRating, len(rated))
	for i, r := range rated {
		out[i] = *r
	}
	return out, warnings, nil
}

// Claim is a factual claim a technical-accuracy rule checks.
type Claim struct {
	Claim      string
	QuotedText string
	Line       int
}

// parseClaimsReply reads the claim extraction reply: {"claims": [{"claim", "quoted_text",
// "line"}]}. claim is required; the others are hints. Claims beyond MaxClaims are dropped.
func parseClaimsReply(js string) ([]Claim, error) {
	obj, err := replyObject(js)
	if err != nil {
		return nil, err
	}
	raw, ok := obj["claims"]
	if !ok {
		return nil, &ContractError{Path: "claims", Expected: `a "claims" array`, Found: "no such field" + fieldList(obj)}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || isNull(raw) {
		return nil, &ContractError{Path: "claims", Expected: "an array", Found: describe(raw)}
	}
	var out []Claim
	for i, item := range items {
		p := fmt.Sprintf("claims[%d]", i)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil || isNull(item) {
			return nil, &ContractError{Path: p, Expected: "an object", Found: describe(item)}
		}
		var c Claim
		if c.Claim, ok = optionalString(fields["claim"]); !ok || strings.TrimSpace(c.Claim) == "" {
			return nil, &ContractError{Path: p + ".claim", Expected: "the claim as a sentence", Found: describeField(fields, "claim")}
		}
		c.Claim = strings.TrimSpace(c.Claim)
		c.QuotedText, _ = optionalString(fields["quoted_text"])
		if l, ok := integer(fields["line"]); ok && l > 0 {
			c.Line = l
		}
		if len(out) < MaxClaims {
			out = append(out, c)
		}
	}
	return out, nil
}

// matchCriterion finds the criterion a reply entry rates: by id, else by name
// (case-insensitive), else by id case-insensitively. -1 when none matches.
func matchCriterion(criteria []*rules.Criterion, id, name string) int {
	id, name = strings.TrimSpace(id), strings.TrimSpace(name)
	if id != "" {
		for i, c := range criteria {
			if c.ID == id {
				return i
			}
		}
	}
	if name != "" {
		for i, c := range criteria {
			if strings.EqualFold(c.Name, name) {
				return i
			}
		}
	}
	if id != "" {
		for i, c := range criteria {
			if strings.EqualFold(c.ID, id) || strings.EqualFold(c.Name, id) {
				return i
			}
		}
	}
	return -1
}

func criterionIDs(criteria []*rules.Criterion) string {
	ids := make([]string, len(criteria))
	for i, c := range criteria {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}

// replyObject decodes the top level of a reply, which must be a JSON object.
func replyObject(js string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &obj); err != nil || obj == nil {
		return nil, &ContractError{Expected: "a JSON object", Found: describe(json.RawMessage(js))}
	}
	return obj, nil
}

// parseViolations reads an array of violations at path.
func parseViolations(path string, raw json.RawMessage) ([]Violation, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || isNull(raw) {
		return nil, &ContractError{Path: path, Expected: "an array", Found: describe(raw)}
	}
	out := make([]Violation, 0, len(items))
	for i, item := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil || isNull(item) {
			return nil, &ContractError{Path: p, Expected: "an object", Found: describe(item)}
		}
		v := Violation{Confidence: 1}
		var ok bool
		// quoted_text is required, but one given empty (or null) is the model saying it has no
		// words to point at: that violation cannot be located, so it is listed as unverified and
		// the reply's other violations are kept, as the original does (its locator returns no
		// place for an empty quote; tests/findings/finding-evidence-verifier.test.ts).
		quote, present := fields["quoted_text"]
		if v.QuotedText, ok = optionalString(quote); !present || !ok {
			return nil, &ContractError{Path: p + ".quoted_text", Expected: "the exact words of the text that break the rule",
				Found: describeField(fields, "quoted_text")}
		}
		if v.Message, ok = optionalString(fields["message"]); !ok || strings.TrimSpace(v.Message) == "" {
			return nil, &ContractError{Path: p + ".message", Expected: "a sentence saying what is wrong",
				Found: describeField(fields, "message")}
		}
		if c, present := fields["confidence"]; present && !isNull(c) {
			f, ok := number(c)
			if !ok || f < 0 || f > 1 {
				return nil, &ContractError{Path: p + ".confidence", Expected: "a number from 0 to 1", Found: describe(c)}
			}
			v.Confidence = f
		}
		if l, ok := integer(fields["line"]); ok && l > 0 {
			v.Line = l
		}
		v.ContextBefore, _ = optionalString(fields["context_before"])
		v.ContextAfter, _ = optionalString(fields["context_after"])
		v.Description, _ = optionalString(fields["description"])
		v.Analysis, _ = optionalString(fields["analysis"])
		v.Suggestion, _ = optionalString(fields["suggestion"])
		v.Fix, _ = optionalString(fields["fix"])
		out = append(out, v)
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// optionalString reads a JSON string. Absent or null gives "" and true; any other type gives
// "" and false.
func optionalString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || isNull(raw) {
		return "", true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// number reads a JSON number, or a string holding one (as weaker models write).
func number(raw json.RawMessage) (float64, bool) {
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return f, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	return 0, false
}

// integer reads a whole number (3, 3.0 or "3").
func integer(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	f, ok := number(raw)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, false
	}
	return int(f), true
}

// describeField describes a required field's value for a ContractError.
func describeField(fields map[string]json.RawMessage, name string) string {
	raw, ok := fields[name]
	if !ok {
		return "no " + name + fieldList(fields)
	}
	return describe(raw)
}

// fieldList names the fields an object has, for errors: " (fields: a, b)".
func fieldList(fields map[string]json.RawMessage) string {
	if len(fields) == 0 {
		return ""
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, strconv.Quote(k))
	}
	slices.Sort(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	return " (fields: " + strings.Join(names, ", ") + ")"
}

// describe shows a JSON value briefly: its type and the start of its text.
func describe(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return "nothing"
	}
	short := s
	if len(short) > 60 {
		cut := 60
		for cut > 0 && !isRuneStart(short[cut]) {
			cut--
		}
		short = short[:cut] + "…"
	}
	if !json.Valid([]byte(s)) {
		return fmt.Sprintf("text that is not JSON: %q", short)
	}
	switch kind := jsonKind(raw, s); kind {
	case "":
		return "an empty string"
	case "null", "number":
		return s
	default:
		return kind + " " + short
	}
}

// jsonKind names the type of a valid JSON value: "an object", "a string"…; "" for an empty or
// blank string, "null" and "number" for values shown as they are.
func jsonKind(raw json.RawMessage, s string) string {
	switch s[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var str string
		if json.Unmarshal(raw, &str) == nil && strings.TrimSpace(str) == "" {
			return ""
		}
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "number"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
