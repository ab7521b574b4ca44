package points

// Message is one turn of a conversation: a blueprint prompt's authored turns, the turns a model
// generated, as point functions ($js's context.messages, $call's {messages}) and prompt-aware
// judges see them.
type Message struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
}

// Text returns the content, or "" for a turn still to be generated.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}
