package integration

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// editorBlocks returns the fenced code blocks of a language in docs/editors.md by the heading
// they are under, in order.
func editorBlocks(t *testing.T, lang string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "editors.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	heading := ""
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fence, ok := strings.CutPrefix(line, "```"); ok {
			var body []string
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			if fence == lang {
				out[heading] = append(out[heading], strings.Join(body, "\n")+"\n")
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
	}
	return out
}

// TestNeovimClient runs the built vectorlint lsp under Neovim's own LSP client, headless, with
// the Neovim 0.7 snippet of docs/editors.md as written there, driven by
// testdata/neovim/driver.lua against the fake model server: Neovim starts one server for the
// project, shows the deterministic and the model's findings at the lines and columns it counts
// (bytes), applies the quick fix it gets through vim.lsp.buf.code_action(), and the model's
// finding goes with the text it was on. Skipped without nvim, unless
// VECTORLINT_REQUIRE_NEOVIM=1 (CI, after .ci/install-neovim).
func TestNeovimClient(t *testing.T) {
	t.Parallel()
	nvim := requireTool(t, "nvim", "VECTORLINT_REQUIRE_NEOVIM", ".ci/install-neovim")
	snippets := editorBlocks(t, "lua")["Neovim 0.7"]
	if len(snippets) != 1 {
		t.Fatalf(`docs/editors.md has %d lua blocks under "Neovim 0.7", want 1`, len(snippets))
	}
	snippet := snippets[0]
	bin := buildVectorlint(t)
	srv := llmtest.Start(t, llmtest.RequireAPIKey(testAPIKey))
	srv.SetDefault(testutil.WordyModel())

	project := t.TempDir()
	writeFiles(t, project, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases; give the shorter one as the fix.\n",
		"rules/Acme/plain.md": "---\nid: Plain\nname: Plain\nseverity: warning\nshould:\n  - $not_icontains: utilize\n---\nPlain words.\n",
		"rules/Acme/title.md": "---\nid: Title\nname: Title\nseverity: warning\n" +
			"target: {regex: '^#\\s+(.+)$', flags: mu, group: 1, required: true, suggestion: Add a title.}\n---\nCheck the title.\n",
		"docs/guide.md": "Le café 👋 — in order to deploy, utilize the CLI.\nSecond line.\n",
	})
	dir := t.TempDir()
	snippetFile, resultFile := filepath.Join(dir, "snippet.lua"), filepath.Join(dir, "result.json")
	if err := os.WriteFile(snippetFile, []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(testutil.RepoRoot(t), "integration", "testdata", "neovim", "driver.lua")
	env := cleanEnv(
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY="+testAPIKey, "OPENAI_MODEL=test-model",
		"XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(),
		"VECTORLINT_NVIM_SNIPPET="+snippetFile, "VECTORLINT_NVIM_PROJECT="+project, "VECTORLINT_NVIM_RESULT="+resultFile,
	)
	r := run(t, project, env, 5*time.Minute, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile "+driver)
	data, err := os.ReadFile(resultFile)
	if r.code != 0 || err != nil {
		t.Fatalf("nvim: exit %d (%v)\nstdout:\n%s\nstderr:\n%s\nresult: %s", r.code, err, r.stdout, r.stderr, data)
	}
	var got struct {
		Error    string
		Filetype string
		Clients  []struct {
			Name    string   `json:"name"`
			RootDir string   `json:"root_dir"`
			Cmd     []string `json:"cmd"`
		}
		Steps []struct {
			Step        string
			Diagnostics []string
			Text        string
			Menu        []string
		}
		Stopped bool
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("result: %v\n%s", err, data)
	}
	if got.Error != "" {
		t.Fatalf("the driver failed: %s\nstderr:\n%s", got.Error, r.stderr)
	}
	root, _ := filepath.EvalSymlinks(project)
	if got.Filetype != "markdown" || len(got.Clients) != 1 || got.Clients[0].Name != "vectorlint" ||
		got.Clients[0].RootDir != root || !slices.Equal(got.Clients[0].Cmd, []string{"vectorlint", "lsp"}) {
		t.Errorf("filetype %q, clients %+v; want one vectorlint lsp for %s", got.Filetype, got.Clients, root)
	}
	if len(got.Steps) != 2 {
		t.Fatalf("steps %+v, want open and fixed", got.Steps)
	}
	open, fixed := got.Steps[0], got.Steps[1]
	// Neovim counts columns in bytes: "in order to" is at UTF-16 columns 13-24 ("é" one unit,
	// "👋" two), bytes 18-29 ("é" two, "👋" four, "—" three); "utilize" at 38-45, then at 29-36
	// once "to" has replaced "in order to".
	title := "0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title."
	if want := []string{title, "0:18-0:29 1 Acme.Wordiness: Wordy: use \"to\".", "0:38-0:45 2 Acme.Plain: Avoid \"utilize\"."}; !slices.Equal(open.Diagnostics, want) {
		t.Errorf("open: diagnostics\n%q\nwant\n%q", open.Diagnostics, want)
	}
	if want := []string{"Replace “in order to” with “to” (Acme.Wordiness)", "Apply all vectorlint fixes (1)"}; !slices.Equal(fixed.Menu, want) {
		t.Errorf("code action menu %q, want %q", fixed.Menu, want)
	}
	if want := "Le café 👋 — to deploy, utilize the CLI.\nSecond line."; fixed.Text != want {
		t.Errorf("the buffer after the quick fix:\n%q\nwant\n%q", fixed.Text, want)
	}
	if want := []string{title, "0:29-0:36 2 Acme.Plain: Avoid \"utilize\"."}; !slices.Equal(fixed.Diagnostics, want) {
		t.Errorf("fixed: diagnostics\n%q\nwant\n%q", fixed.Diagnostics, want)
	}
	if !got.Stopped {
		t.Error("the vectorlint client did not stop")
	}
}

// TestEditorSnippets checks the editor set-ups of docs/editors.md that CI has no editor to run
// (TestNeovimClient runs the Neovim 0.7 one): the Neovim 0.8+ snippet starts `vectorlint lsp`
// for the project and compiles in Neovim's Lua; Helix's languages.toml and Zed's settings parse
// and name the server; the Zed extension registers it for Markdown.
func TestEditorSnippets(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	lua := editorBlocks(t, "lua")
	if len(lua) != 2 || len(lua["Neovim 0.8 and later"]) != 1 || len(lua["Neovim 0.7"]) != 1 {
		t.Fatalf("docs/editors.md's lua blocks are under %v, want one under Neovim 0.8 and later, one under Neovim 0.7",
			slices.Sorted(maps.Keys(lua)))
	}
	modern := lua["Neovim 0.8 and later"][0]
	for _, want := range []string{"vim.lsp.start({", `cmd = { "vectorlint", "lsp" }`, `"vectorlint.ini", ".vectorlint.ini", "VECTORLINT.md"`} {
		if !strings.Contains(modern, want) {
			t.Errorf("the Neovim 0.8+ snippet lacks %s", want)
		}
	}

	helixBlocks := editorBlocks(t, "toml")["Helix"]
	if len(helixBlocks) != 1 {
		t.Fatalf("docs/editors.md has %d toml blocks under Helix, want 1", len(helixBlocks))
	}
	var helix struct {
		LanguageServer map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
		} `toml:"language-server"`
		Language []struct {
			Name            string   `toml:"name"`
			LanguageServers []string `toml:"language-servers"`
		} `toml:"language"`
	}
	if _, err := toml.Decode(helixBlocks[0], &helix); err != nil {
		t.Fatalf("Helix's languages.toml: %v", err)
	}
	if s := helix.LanguageServer["vectorlint"]; s.Command != "vectorlint" || !slices.Equal(s.Args, []string{"lsp"}) ||
		len(helix.Language) != 1 || helix.Language[0].Name != "markdown" || !slices.Contains(helix.Language[0].LanguageServers, "vectorlint") {
		t.Errorf("Helix's languages.toml: %+v", helix)
	}

	zedBlocks := editorBlocks(t, "json")["Zed"]
	if len(zedBlocks) != 1 {
		t.Fatalf("docs/editors.md has %d json blocks under Zed, want 1", len(zedBlocks))
	}
	var zed struct {
		Languages map[string]struct {
			LanguageServers []string `json:"language_servers"`
		} `json:"languages"`
	}
	if err := json.Unmarshal([]byte(zedBlocks[0]), &zed); err != nil || !slices.Contains(zed.Languages["Markdown"].LanguageServers, "vectorlint") {
		t.Errorf("Zed's settings: %+v (%v)", zed, err)
	}
	var ext struct {
		LanguageServers map[string]struct {
			Languages []string `toml:"languages"`
		} `toml:"language_servers"`
	}
	if _, err := toml.DecodeFile(filepath.Join(root, "editors", "zed", "extension.toml"), &ext); err != nil ||
		!slices.Equal(ext.LanguageServers["vectorlint"].Languages, []string{"Markdown"}) {
		t.Errorf("editors/zed/extension.toml: %+v (%v)", ext, err)
	}
	src, err := os.ReadFile(filepath.Join(root, "editors", "zed", "src", "lib.rs"))
	if err != nil || !strings.Contains(string(src), `worktree.which("vectorlint")`) || !strings.Contains(string(src), `args: vec!["lsp".to_string()]`) {
		t.Errorf("editors/zed/src/lib.rs does not run vectorlint lsp (%v)", err)
	}

	// Last, as it skips without Neovim: the 0.8+ snippet compiles in Neovim's Lua.
	nvim := requireTool(t, "nvim", "VECTORLINT_REQUIRE_NEOVIM", ".ci/install-neovim")
	file := filepath.Join(t.TempDir(), "snippet.lua")
	if err := os.WriteFile(file, []byte(modern), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, t.TempDir(), cleanEnv("XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir()), time.Minute, nvim,
		"--headless", "-u", "NONE", "-i", "NONE", "-c", "lua assert(loadfile('"+file+"'))", "-c", "qall!")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("the Neovim 0.8+ snippet does not compile: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
