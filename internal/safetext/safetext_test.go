package safetext

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"html/template"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// hostile are texts an attacker would put in a document, a model reply, a file name or an HTTP
// body: every workflow command form and terminal escape this package must neutralise.
var hostile = []string{
	"::error::pwned",
	"  ::error file=x.md::pwned",
	"\t::warning::pwned",
	"\u00a0\u2003\u3000::notice::pwned",
	"\u200d::error::behind a zero-width joiner",
	":\u200d:error::split by a zero-width joiner",
	"\ufeff::error::behind a BOM",
	"\u034f\ufe0f::error::behind a combining grapheme joiner",
	"::stop-commands::deadbeef",
	"::add-mask::secret",
	"text ##[error]legacy form",
	"#\u200d#[error]split legacy form",
	"#\u0301#[error]accented",
	"###[set-output name=x;]y",
	"line one\n::error::on line two",
	"line one\r::error::after a lone CR",
	"line one\r\n   ::error::after CR LF",
	"\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ \x07bell \bback",
	"\u009b31m C1 CSI \u0085 NEL \u202eevil\u202c \u2066iso\u2069 \u2028 \U000e0041\U000e007f",
	"bad \xff\xfe utf8 \xe2\x80",
	"::",
	":",
	"##",
	"[",
}

func TestTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text, café 👋", "plain text, café 👋"},
		{"tab\there\nnext", "tab\there\nnext"},
		{"a\x1b[31mred\x1b[0m", `a\x1b[31mred\x1b[0m`},
		{"bell\x07 back\b nul\x00", `bell\x07 back\x08 nul\x00`},
		{"cr\rover", `cr\x0dover`},
		{"crlf\r\nnext\r", "crlf\nnext\\x0d"},
		{"vt\v ff\f del\x7f", `vt\x0b ff\x0c del\x7f`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"rlo\u202eevil\u202c lri\u2066x\u2069", `rlo\u202eevil\u202c lri\u2066x\u2069`},
		{"zw\u200b wj\u2060 bom\ufeff ls\u2028 ps\u2029 mvs\u180e ia\ufff9", `zw\u200b wj\u2060 bom\ufeff ls\u2028 ps\u2029 mvs\u180e ia\ufff9`},
		{"tag\U000E0041\U000E007F", `tag\U000e0041\U000e007f`},
		{"bad \xff utf8 \xe2\x80", `bad \xff utf8 \xe2\x80`},
		{"osc8 \x1b]8;;http://e\x1b\\x\x1b]8;;\x1b\\", `osc8 \x1b]8;;http://e\x1b\x\x1b]8;;\x1b\`},
		// Kept: scripts and emoji need them, and none reorders or hides text.
		{"👨\u200d👩 \u200c \u200e\u200f \u00ad ⚠\ufe0f é\u0301", "👨\u200d👩 \u200c \u200e\u200f \u00ad ⚠\ufe0f é\u0301"},
		// Workflow commands are not a terminal's business.
		{"::error::x ##[y]", "::error::x ##[y]"},
	}
	for _, tt := range tests {
		if got := Terminal(tt.in); got != tt.want {
			t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Human(tt.in, false); got != tt.want {
			t.Errorf("Human(%q, false) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHumanWorkflow(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"::error::pwned", `\::error::pwned`},
		{"  ::error::pwned", `  \::error::pwned`},
		{"\t::warning::x", "\t\\::warning::x"},
		{"\u00a0\u2003\u3000::notice::x", "\u00a0\u2003\u3000\\::notice::x"},
		{"\u200d::error::x", "\u200d\\::error::x"},
		{":\u200d:error::x", "\\:\u200d:error::x"},
		{"\u200b::error::x", `\u200b::error::x`}, // the escape is visible: no command
		{"::stop-commands::deadbeef", `\::stop-commands::deadbeef`},
		{"text ##[error]x", `text ##\[error]x`},
		{"#\u200d#[error]x", "#\u200d#\\[error]x"},
		{"#\u0301#[x", "#\u0301#\\[x"},
		{"###[x", `###\[x`},
		{"## [x", "## [x"},
		{`##\[x`, `##\[x`},
		{"a\n::b", "a\n\\::b"},
		{"a\r::b", `a\x0d::b`}, // CR is shown, so the line does not break
		{"a\r\n  ::b", "a\n  \\::b"},
		{"a ::b", "a ::b"},
		{"a::b::c", "a::b::c"},
		{": :x", ": :x"},
		{":x", ":x"},
		{"\\::x", "\\::x"},
		// The edges: s may start a line, and a ':' may follow it.
		{"[x", "[x"},
		{"#[x", "#[x"},
		{":", `\:`},
		{"x\n  :", "x\n  \\:"},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		if got := Human(tt.in, true); got != tt.want {
			t.Errorf("Human(%q, true) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{"plain", `"plain"`},
		{"##[error]x", `"##\u005berror]x"`},
		{"#\u200d#[x", "\"#\u200d#\\u005bx\""},
		{"a\n::error::x", `"a\n::error::x"`},
		{"rlo\u202e del\x7f c1\u0085 tag\U000E0041", `"rlo\u202e del\u007f c1\u0085 tag\udb40\udc41"`},
		{map[string]any{"##[k": []any{"##", 1, []any{"#"}}}, `{"##\u005bk":["##",1,["#"]]}`},
		{[]any{"##"}, `["##"]`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got := JSON(b)
		if string(got) != tt.want {
			t.Errorf("JSON(%s) = %s, want %s", b, got, tt.want)
		}
		var back, orig any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("JSON(%s) = %s: not JSON: %v", b, got, err)
		}
		json.Unmarshal(b, &orig)
		if !jsonEqual(back, orig) {
			t.Errorf("JSON(%s) decodes to %#v, want %#v", b, back, orig)
		}
	}
	// Nothing to do: the very same slice comes back.
	b := []byte(`{"a": ["#", "x[y]"]}`)
	if got := JSON(b); &got[0] != &b[0] {
		t.Error("JSON copied text that needed no change")
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestXML(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, text, attr string }{
		{`a<b>&"c"`, `a&lt;b&gt;&amp;"c"`, `a&lt;b&gt;&amp;&quot;c&quot;`},
		{"l1\nl2\tx\r", "l1\nl2\tx&#xD;", "l1&#xA;l2&#x9;x&#xD;"},
		{"nul\x00 esc\x1b", "nul\uFFFD esc\uFFFD", "nul\uFFFD esc\uFFFD"},
		{"bad \xff utf8", "bad \uFFFD utf8", "bad \uFFFD utf8"},
		{"l1\n::error::x", "l1\n&#58;:error::x", "l1&#xA;::error::x"},
		{"l1\n \u200d::error::x", "l1\n \u200d&#58;:error::x", "l1&#xA; \u200d::error::x"},
		{"::x", "&#58;:x", "&#58;:x"},
		{"a ##[error]", "a ##&#91;error]", "a ##&#91;error]"},
		{"rlo\u202e c1\u0085 del\x7f", "rlo&#x202E; c1&#x85; del&#x7F;", "rlo&#x202E; c1&#x85; del&#x7F;"},
	}
	for _, tt := range tests {
		if got := XMLText(tt.in); got != tt.text {
			t.Errorf("XMLText(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if got := XMLAttr(tt.in); got != tt.attr {
			t.Errorf("XMLAttr(%q) = %q, want %q", tt.in, got, tt.attr)
		}
	}
}

func TestHTML(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"<pre>a\n::error::x</pre>", "<pre>a\n&#58;:error::x</pre>"},
		{"<p title=\"##[x\">##[error]</p>", "<p title=\"##&#91;x\">##&#91;error]</p>"},
		{"<style>\np::before { content: \"[\" }\n</style>", "<style>\np::before { content: \"[\" }\n</style>"},
	}
	for _, tt := range tests {
		if got := string(HTML([]byte(tt.in))); got != tt.want {
			t.Errorf("HTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHostile: every hostile text comes out of every function with no line the runner could act
// on, and the human-readable ones with nothing a terminal could act on.
func TestHostile(t *testing.T) {
	t.Parallel()
	for _, s := range hostile {
		checkHuman(t, s)
		checkJSON(t, s)
		checkXML(t, s)
		checkHTML(t, s)
		checkWriters(t, s, []int{1, 2, 3})
	}
}

// contexts are what the tool's own text puts before an escaped value on its line.
var contexts = []string{"", "  ", "\t", "vectorlint: ", "  12 | ", "\u00a0", "Acme.Rule: "}

func checkHuman(t *testing.T, s string) {
	t.Helper()
	out := Human(s, true)
	for _, before := range contexts {
		for _, after := range []string{"", ":", ": x", "\n", "  Acme.Rule"} {
			line := before + out + after
			if cmds := testutil.WorkflowCommandLines(line); cmds != nil {
				t.Fatalf("Human(%q, true) = %q: in %q the runner sees %q", s, out, line, cmds)
			}
		}
	}
	if h := testutil.TerminalHazard(out); h != "" {
		t.Fatalf("Human(%q, true) = %q: %s", s, out, h)
	}
	if h := testutil.TerminalHazard(Terminal(s)); h != "" {
		t.Fatalf("Terminal(%q) = %q: %s", s, Terminal(s), h)
	}
	// Escaping twice changes nothing: text can pass through more than one layer.
	if again := Human(out, true); again != out {
		t.Fatalf("Human is not idempotent on %q: %q then %q", s, out, again)
	}
	if again := Terminal(Terminal(s)); again != Terminal(s) {
		t.Fatalf("Terminal is not idempotent on %q: %q then %q", s, Terminal(s), again)
	}
	if !strings.ContainsAny(s, "\r\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f") && utf8.ValidString(s) {
		// Without anything to show escaped, only backslashes are added.
		if strings.ReplaceAll(out, `\`, "") != strings.ReplaceAll(Terminal(s), `\`, "") {
			t.Fatalf("Human(%q, true) = %q changed more than a backslash", s, out)
		}
	}
}

func checkJSON(t *testing.T, s string) {
	t.Helper()
	v := map[string]any{s: []any{s, map[string]string{"k": s}}, "plain": "##"}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(b)
	if cmds := testutil.WorkflowCommandLines(string(out)); cmds != nil {
		t.Fatalf("JSON of %q: the runner sees %q in\n%s", s, cmds, out)
	}
	if h := testutil.TerminalHazard(string(out)); h != "" {
		t.Fatalf("JSON of %q: %s in\n%s", s, h, out)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("JSON of %q is not JSON: %v\n%s", s, err, out)
	}
	want := validRunes(s) // what encoding/json writes for invalid UTF-8
	list, ok := back[want].([]any)
	if !ok || list[0] != want || list[1].(map[string]any)["k"] != want {
		t.Fatalf("JSON of %q decodes to %#v", s, back)
	}
}

// xmlWant is what an XML parser gives back for s: characters XML cannot carry become U+FFFD.
func xmlWant(s string) string {
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as U+FFFD
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xfffe || r == 0xffff {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// validRunes replaces each byte of invalid UTF-8 in s by U+FFFD.
func validRunes(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

func checkXML(t *testing.T, s string) {
	t.Helper()
	doc := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r>\n  <a v=\"" + XMLAttr(s) + "\">" + XMLText(s) + "</a>\n</r>\n"
	if cmds := testutil.WorkflowCommandLines(doc); cmds != nil {
		t.Fatalf("XML of %q: the runner sees %q in\n%s", s, cmds, doc)
	}
	if h := testutil.TerminalHazard(doc); h != "" {
		t.Fatalf("XML of %q: %s in\n%s", s, h, doc)
	}
	var r struct {
		A struct {
			V    string `xml:"v,attr"`
			Text string `xml:",chardata"`
		} `xml:"a"`
	}
	if err := xml.Unmarshal([]byte(doc), &r); err != nil {
		t.Fatalf("XML of %q does not parse: %v\n%s", s, err, doc)
	}
	if want := xmlWant(s); r.A.V != want || r.A.Text != want {
		t.Fatalf("XML of %q decodes to attribute %q and text %q, want %q", s, r.A.V, r.A.Text, want)
	}
}

var htmlPage = template.Must(template.New("p").Parse("<!DOCTYPE html>\n<p title=\"{{.}}\">\n<pre>{{.}}</pre>\n"))

func checkHTML(t *testing.T, s string) {
	t.Helper()
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	out := string(HTML(b.Bytes()))
	if cmds := testutil.WorkflowCommandLines(out); cmds != nil {
		t.Fatalf("HTML of %q: the runner sees %q in\n%s", s, cmds, out)
	}
	// The page shows the same text as html/template's alone.
	pre := func(page string) string {
		_, rest, _ := strings.Cut(page, "<pre>")
		body, _, _ := strings.Cut(rest, "</pre>")
		return html.UnescapeString(body)
	}
	if pre(out) != pre(b.String()) {
		t.Fatalf("HTML of %q shows %q, html/template alone %q", s, pre(out), pre(b.String()))
	}
}

// checkWriters writes s through each Writer in pieces of every given size: the output must not
// depend on how the text was split, and the human and workflow writers must leave nothing the
// runner could act on.
func checkWriters(t *testing.T, s string, sizes []int) {
	t.Helper()
	doc := "x ##\n" + s + "\n" + s
	for _, mk := range []struct {
		name string
		new  func(w *bytes.Buffer) *Writer
	}{
		{"human", func(w *bytes.Buffer) *Writer { return NewHumanWriter(w, true) }},
		{"terminal", func(w *bytes.Buffer) *Writer { return NewHumanWriter(w, false) }},
		{"workflow", func(w *bytes.Buffer) *Writer { return NewWorkflowWriter(w) }},
	} {
		var whole bytes.Buffer
		w := mk.new(&whole)
		w.Write([]byte(doc))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		for _, size := range sizes {
			var pieces bytes.Buffer
			w := mk.new(&pieces)
			for i := 0; i < len(doc); i += size {
				w.Write([]byte(doc[i:min(i+size, len(doc))]))
			}
			w.Flush()
			if pieces.String() != whole.String() {
				t.Fatalf("%s writer on %q: %d-byte writes give %q, one write %q", mk.name, doc, size, pieces.String(), whole.String())
			}
		}
		if mk.name == "terminal" {
			if h := testutil.TerminalHazard(whole.String()); h != "" {
				t.Fatalf("terminal writer on %q: %s in %q", doc, h, whole.String())
			}
			continue
		}
		if cmds := testutil.WorkflowCommandLines(whole.String()); cmds != nil {
			t.Fatalf("%s writer on %q: the runner sees %q", mk.name, doc, cmds)
		}
		if mk.name == "human" {
			if h := testutil.TerminalHazard(whole.String()); h != "" {
				t.Fatalf("human writer on %q: %s in %q", doc, h, whole.String())
			}
		}
	}
}

// TestWorkflowWriterPassesTheRest: the safety net changes nothing but workflow commands.
func TestWorkflowWriterPassesTheRest(t *testing.T) {
	t.Parallel()
	in := "\x1b[31mred\x1b[0m \xff {\"a\": [\"#\"]}\r\nsafe ::x:: line\n"
	var b bytes.Buffer
	w := NewWorkflowWriter(&b)
	w.Write([]byte(in))
	w.Flush()
	if b.String() != in {
		t.Errorf("workflow writer changed %q into %q", in, b.String())
	}
	b.Reset()
	w = NewWorkflowWriter(&b)
	w.Write([]byte("ok\r::error::x\n ##[y]\n"))
	w.Flush()
	if want := "ok\r\\::error::x\n ##\\[y]\n"; b.String() != want {
		t.Errorf("workflow writer wrote %q, want %q", b.String(), want)
	}
}

// TestWriterFlushMidLine: a flush between a line-leading ':' and the next cannot let them meet.
func TestWriterFlushMidLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewHumanWriter(&b, true)
	w.Write([]byte("  :"))
	w.Flush()
	w.Write([]byte(":error::x\n"))
	w.Flush()
	if cmds := testutil.WorkflowCommandLines(b.String()); cmds != nil {
		t.Errorf("the runner sees %q in %q", cmds, b.String())
	}
	if want := "  \\::error::x\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errFull }

var errFull = &json.UnsupportedValueError{Str: "disk full"}

func TestWriterError(t *testing.T) {
	t.Parallel()
	w := NewHumanWriter(failing{}, false)
	if n, err := w.Write([]byte("x\n")); n != 0 || err != errFull {
		t.Errorf("Write = %d, %v; want 0 and the writer's error", n, err)
	}
}

func FuzzHuman(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkHuman(t, s)
		checkWriters(t, s, []int{1, 5})
	})
}

func FuzzJSON(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkJSON(t, s)
		// The JSON writer gives the same bytes as JSON, however the stream is split.
		b, _ := json.MarshalIndent([]string{s, "##", s}, "", "  ")
		var out bytes.Buffer
		w := NewJSONWriter(&out)
		for i := 0; i < len(b); i += 3 {
			w.Write(b[i:min(i+3, len(b))])
		}
		w.Flush()
		if !bytes.Equal(out.Bytes(), JSON(b)) {
			t.Fatalf("JSON writer gives %s, JSON %s", out.Bytes(), JSON(b))
		}
	})
}

func FuzzXML(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkXML(t, s) })
}

func FuzzHTML(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkHTML(t, s) })
}

func BenchmarkJSONWriter(b *testing.B) {
	doc, _ := json.MarshalIndent(map[string]any{"files": strings.Repeat(`Le café 👋 naïve — "in order to" #1 [x] `, 2000)}, "", "  ")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		w := NewJSONWriter(discard{})
		w.Write(doc)
		w.Flush()
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestMarkdownCell: text in a Markdown table cell (the GitHub step summary, blueprint compare) keeps
// its table and shows its markup as written.
func TestMarkdownCell(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"plain text.":          "plain text.",
		"a | b":                `a \| b`,
		"<b>&amp;</b>":         `\<b\>\&amp;\</b\>`,
		"*bold* _it_ `code`":   "\\*bold\\* \\_it\\_ \\`code\\`",
		"line\r\nnext\nlast":   "line<br>next<br>last",
		`back\slash [link](x)`: `back\\slash \[link\](x)`,
	}
	for in, want := range tests {
		if got := MarkdownCell(in); got != want {
			t.Errorf("MarkdownCell(%q) = %q, want %q", in, got, want)
		}
	}
}
