package testutil

import (
	"reflect"
	"testing"
)

// TestIsWorkflowCommandLine holds the oracle to the runner's own test cases
// (src/Test/L0/Worker/ActionCommandL0.cs in actions/runner) and to the cases its culture-
// sensitive comparison and White_Space trimming add.
func TestIsWorkflowCommandLine(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		// ActionCommandL0.cs, TryParse (##[) and TryParseV2 (::).
		{"##[do-something k1=v1;]msg", true},
		{"##[do-something]", true},
		{"::do-something k1=v1,::msg", true},
		{"::do-something::", true},
		{"   ::do-something k1=v1,::msg", true},
		{"   >>>   ::do-something k1=v1,::msg", false},
		// Anywhere in the line for the older form.
		{"text ##[error]x", true},
		{"###[x", true},
		// White space is Unicode's, and ignorable characters are skipped.
		{"\t\u00a0\u2003\u3000::error::x", true},
		{"\u200b::error::x", true},
		{":\u200d:error::x", true},
		{"#\u200d#[error]", true},
		{"\ufeff::x", true},
		// Not commands.
		{`\::error::x`, false},
		{`##\[error]`, false},
		{"## [x", false},
		{"a ::b", false},
		{": :x", false},
		{"", false},
		{`\u200b::error::x`, false}, // the escape, not the character
	}
	for _, tt := range tests {
		if got := IsWorkflowCommandLine(tt.line); got != tt.want {
			t.Errorf("IsWorkflowCommandLine(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestRunnerLines(t *testing.T) {
	got := RunnerLines("a\r\nb\rc\n\nd")
	if want := []string{"a", "b", "c", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("RunnerLines = %q, want %q", got, want)
	}
	if cmds := WorkflowCommandLines("ok\r::error::x\nfine\n"); !reflect.DeepEqual(cmds, []string{"::error::x"}) {
		t.Errorf("a lone CR ends a line for the runner: got %q", cmds)
	}
}

func TestParseWorkflowCommand(t *testing.T) {
	// ActionCommandL0.cs: "::do-something k1=;=%2C=%0D=%0A=]=%3A,::;-%0D-%0A-]-:-,".
	cmd, props, data, ok := ParseWorkflowCommand("::do-something k1=;=%2C=%0D=%0A=]=%3A,::;-%0D-%0A-]-:-,")
	if !ok || cmd != "do-something" || props["k1"] != ";=,=\r=\n=]=:" || data != ";-\r-\n-]-:-," {
		t.Errorf("got %q %q %q %v", cmd, props, data, ok)
	}
	if _, _, _, ok := ParseWorkflowCommand("vectorlint: x"); ok {
		t.Error("a plain line parsed as a command")
	}
}

func TestTerminalHazard(t *testing.T) {
	for s, want := range map[string]bool{
		"plain\ttab\n": false, "é 👨\u200d👩": false, `\x1b`: false,
		"\x1b": true, "\r": true, "\u0085": true, "\u202e": true, "\U000e0041": true, "\xff": true,
	} {
		if got := TerminalHazard(s) != ""; got != want {
			t.Errorf("TerminalHazard(%q) = %q", s, TerminalHazard(s))
		}
	}
}
