package llmtest

import "strings"

// PerRule answers a rule evaluation request of vectorlint, rule by rule, for the OpenAI chat
// and Anthropic Messages shapes alike (docs/configuration.md, "RulesPerCall"). The rules are
// read from the request's last message that is a system message or holds "<rule " (Anthropic
// gets the rules in a user message after the chunk): a request that evaluates one rule is answered
// {"violations": answer(that message)}; a request that evaluates several lists each rule as a
// block opening with `<rule id="ID"` and is answered {"rules": [{"rule": ID, "violations":
// answer(the block)}, …]} in the order of the blocks, leaving out each rule for which answer
// returns false. A nil answer is an empty array. So a test answers every rule the same way
// whether it is evaluated alone or with others.
func PerRule(answer func(rule string) (violations []any, ok bool)) Reply {
	return Dynamic(func(req *Request) Reply {
		sys := ""
		for _, m := range req.Messages {
			if m.Role == "system" || strings.Contains(m.Content, "<rule ") {
				sys = m.Content // the last message holding the rules
			}
		}
		blocks := RuleBlocks(sys)
		if len(blocks) == 0 {
			vs, _ := answer(sys)
			return JSON(map[string]any{"violations": orEmpty(vs)})
		}
		entries := []any{}
		for _, b := range blocks {
			if vs, ok := answer(b.Text); ok {
				entries = append(entries, map[string]any{"rule": b.ID, "violations": orEmpty(vs)})
			}
		}
		return JSON(map[string]any{"rules": entries})
	})
}

// RuleBlock is one rule of a request that evaluates several: its id and its text, from its
// `<rule id="ID"` up to the next rule or the end of the message.
type RuleBlock struct {
	ID   string
	Text string
}

// RuleBlocks lists the rules of a message that evaluates several (none for a single rule's).
func RuleBlocks(msg string) []RuleBlock {
	const open = `<rule id="`
	var out []RuleBlock
	for {
		i := strings.Index(msg, open)
		if i < 0 {
			return out
		}
		msg = msg[i:]
		rest := msg[len(open):]
		end := strings.IndexByte(rest, '"')
		if end < 0 {
			return out
		}
		next := strings.Index(rest, open)
		if next < 0 {
			next = len(rest)
		}
		out = append(out, RuleBlock{ID: rest[:end], Text: msg[:len(open)+next]})
		msg = rest[next:]
	}
}

func orEmpty(vs []any) []any {
	if vs == nil {
		return []any{}
	}
	return vs
}
