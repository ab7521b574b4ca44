package rules

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTargetFind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		regex      string
		flags      string
		group      int
		text       string
		wantFound  bool
		wantText   string
		start, end int
	}{
		{"h1 group 1", `^#\s+(.+)$`, "mu", 1, "intro\n# Café ☕ guide\nbody", true, "Café ☕ guide", 8, 23},
		{"emoji before match", `world`, "", 0, "👋🏽 hello world", true, "world", 15, 20},
		{"default flags are mu: ^ at a line start", `^b`, "", 0, "a\nb", true, "b", 2, 3},
		{"without m, ^ is the start of text only", `^b`, "u", 0, "a\nb", false, "", 0, 0},
		{"dot does not cross lines", `a.b`, "", 0, "a\nb", false, "", 0, 0},
		{"s flag: dot crosses lines", `a.b`, "s", 0, "a\nb", true, "a\nb", 0, 3},
		{"i flag", `HELLO`, "i", 0, "say hello", true, "hello", 4, 9},
		{"no match", `^## Summary`, "mu", 0, "# Title\n", false, "", 0, 0},
		{"group that did not take part", `(x)|y`, "", 1, "y", false, "", 0, 0},
		{"empty group", `^#\s*(.*)$`, "mu", 1, "#\n", false, "", 0, 0},
		{"CRLF line ends with m", `^(.+)$`, "mu", 1, "first\r\nsecond", true, "first", 0, 5},
		{"y flag: the match must start at the beginning", `^#\s+(.+)$`, "my", 1, "intro\n# Title", false, "", 0, 0},
		{"y flag: a match at the beginning", `^#\s+(.+)$`, "my", 1, "# Title\nbody", true, "Title", 2, 7},
		{"whole text", `[\s\S]+`, "mu", 0, "ünïcödé\ntext", true, "ünïcödé\ntext", 0, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg, err := NewTarget(tt.regex, tt.flags, tt.group, false, "")
			if err != nil {
				t.Fatal(err)
			}
			m, found, err := tg.Find(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if found != tt.wantFound || m.Text != tt.wantText || m.Start != tt.start || m.End != tt.end {
				t.Errorf("got %v %q [%d,%d), want %v %q [%d,%d)", found, m.Text, m.Start, m.End, tt.wantFound, tt.wantText, tt.start, tt.end)
			}
			if found && tt.text[m.Start:m.End] != m.Text {
				t.Errorf("byte span [%d,%d) selects %q, not the match %q", m.Start, m.End, tt.text[m.Start:m.End], m.Text)
			}
		})
	}
}

func TestNewTargetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		regex, flags string
		group        int
		want         string
	}{
		{"(a", "", 0, "invalid regular expression /(a/mu: missing closing )"},
		{"a", "x", 0, `unknown flag 'x' (expected some of "gimsuy")`},
		{"a", "d", 0, `unknown flag 'd' (expected some of "gimsuy")`},
		{"(a)", "", 2, "group 2 does not exist in /(a)/ (it has 1 capture groups)"},
	}
	for _, tt := range tests {
		_, err := NewTarget(tt.regex, tt.flags, tt.group, false, "")
		if err == nil || err.Error() != tt.want {
			t.Errorf("NewTarget(%q, %q, %d) error = %v, want %q", tt.regex, tt.flags, tt.group, err, tt.want)
		}
	}
}

func TestTargetFindTimeout(t *testing.T) {
	t.Parallel()
	tg, err := NewTarget(`^(a+)+$`, "", 0, false, "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, found, err := tg.Find(strings.Repeat("a", 40) + "!")
	if found || err == nil || !strings.Contains(err.Error(), "target /^(a+)+$/mu: regular expression took too long") {
		t.Errorf("got found=%v err=%v, want a timeout error", found, err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("the time bound did not hold: %v", time.Since(start))
	}
	if _, _, err := (&Target{Regex: "a"}).Find("a"); !errors.Is(err, ErrTargetNotCompiled) {
		t.Errorf("uncompiled target: err = %v", err)
	}
}

func TestTargetHelpers(t *testing.T) {
	t.Parallel()
	a, _ := NewTarget("x", "", 0, true, "")
	b, _ := NewTarget("x", "mu", 0, false, "Add x.")
	c, _ := NewTarget("x", "i", 0, false, "")
	if !a.Equal(b) || a.Equal(c) || a.Equal(nil) || !(*Target)(nil).Equal(nil) {
		t.Error("Equal is wrong")
	}
	if a.EffectiveSuggestion() != DefaultTargetSuggestion || b.EffectiveSuggestion() != "Add x." {
		t.Error("EffectiveSuggestion is wrong")
	}
	g, _ := NewTarget("(x)", "", 1, false, "")
	if a.String() != "/x/mu" || g.String() != "/(x)/mu group 1" {
		t.Errorf("String = %q, %q", a.String(), g.String())
	}
}
