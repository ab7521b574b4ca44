package integration

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// actionRunner is what a GitHub runner gives the action's install steps (those before the
// reply cache's "Cache key"): its operating system and architecture, github.com, the action's
// ref, and a cache service. install runs the steps as a runner does.
type actionRunner struct {
	os, arch string // RUNNER_OS and RUNNER_ARCH
	server   string // GITHUB_SERVER_URL
	// ref and repo are github.action_ref and github.action_repository ("" for a local action,
	// uses: ./).
	ref, repo string
	// cache is the folder of the emulated cache service (actions/cache): one folder per key.
	cache string
	// stopAfter ends the run after this step ("": after the install steps).
	stopAfter string
}

// hostRunner is a runner on this machine's system and architecture, so the binaries it gets
// run here; server is a local stand-in for github.com (never the real one).
func hostRunner(t *testing.T, server string) actionRunner {
	t.Helper()
	osName := map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if osName == "" || arch == "" {
		t.Skipf("no GitHub runner is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if server == "" {
		server = "http://127.0.0.1:9" // nothing listens there
	}
	return actionRunner{os: osName, arch: arch, server: server, cache: t.TempDir()}
}

// installRun is what the install steps did.
type installRun struct {
	ran       []string // the steps that ran, in order
	log       string   // what the run steps printed, standard output then error, step by step
	failed    string   // the step that failed ("" when none did)
	binDir    string   // the one folder the steps added to GITHUB_PATH
	workspace string
	// goSum is the setup-go step's cache-dependency-path, and whether the file was there when
	// setup-go ran.
	goSum       string
	goSumExists bool
}

// exe is the file name of the command on the runner.
func (rn actionRunner) exe() string {
	if rn.os == "Windows" {
		return "vectorlint.exe"
	}
	return "vectorlint"
}

// condTerm is one term of an if: condition the test runner evaluates.
var condTerm = regexp.MustCompile(`^([A-Za-z0-9_.-]+) (==|!=) '([^']*)'$`)

// cond evaluates a step's if: condition: terms joined by &&, each always() or a comparison of a
// context value with a string (what action.yml uses). Anything else fails the test, so the
// action cannot use a condition the test does not check.
func (r *actionRun) cond(expr string, given map[string]string) bool {
	r.t.Helper()
	if expr == "" {
		return true
	}
	for _, term := range strings.Split(expr, "&&") {
		term = strings.TrimSpace(term)
		if term == "always()" {
			continue
		}
		m := condTerm.FindStringSubmatch(term)
		if m == nil {
			r.t.Fatalf("if: %q: the test runner evaluates only always() and name == 'x' or name != 'x', joined by &&", expr)
		}
		// GitHub compares strings without regard to case.
		if strings.EqualFold(r.expand("${{ "+m[1]+" }}", given), m[3]) != (m[2] == "==") {
			return false
		}
	}
	return true
}

// install runs the action's install steps as a runner does: each step whose condition holds,
// in order, stopping at a failure; run steps with bash, their GITHUB_OUTPUT read into the
// steps context and GITHUB_PATH put on the PATH of later steps; actions/cache/restore and save
// against rn.cache; actions/setup-go checked (this machine's go is already on PATH).
func (r *actionRun) install(rn actionRunner, given map[string]string) installRun {
	t := r.t
	t.Helper()
	root := testutil.RepoRoot(t)
	temp, res := t.TempDir(), installRun{workspace: t.TempDir()}
	githubPath := filepath.Join(t.TempDir(), "github_path")
	r.ctx = map[string]string{"runner.temp": temp, "github.workspace": res.workspace, "github.action_path": root,
		"github.action_ref": rn.ref, "github.action_repository": rn.repo}
	goEnv, err := exec.CommandContext(t.Context(), "go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gocache, gomodcache, _ := strings.Cut(strings.TrimSpace(string(goEnv)), "\n")
	base := []string{"GITHUB_ACTION_PATH=" + root, "RUNNER_TEMP=" + temp, "RUNNER_OS=" + rn.os, "RUNNER_ARCH=" + rn.arch,
		"GITHUB_WORKSPACE=" + res.workspace, "GITHUB_PATH=" + githubPath, "GITHUB_SERVER_URL=" + rn.server,
		"GOCACHE=" + gocache, "GOMODCACHE=" + gomodcache, "GOFLAGS=-mod=mod", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	paths := func() []string {
		data, _ := os.ReadFile(githubPath)
		return strings.Fields(string(data))
	}
	for _, s := range r.a.Runs.Steps {
		if s.Name == "Cache key" {
			break
		}
		if !r.cond(s.If, given) {
			continue
		}
		res.ran = append(res.ran, s.Name)
		switch {
		case s.Run != "":
			output := filepath.Join(t.TempDir(), "github_output")
			if err := os.WriteFile(output, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			path := strings.Join(append(paths(), os.Getenv("PATH")), string(os.PathListSeparator))
			x := r.runStep(s.Name, res.workspace, given, append(base, "GITHUB_OUTPUT="+output, "PATH="+path)...)
			res.log += x.stdout + x.stderr
			if x.code != 0 {
				res.failed = s.Name
				return res
			}
			data, err := os.ReadFile(output)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok && s.ID != "" {
					r.ctx["steps."+s.ID+".outputs."+k] = v
				}
			}
		case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
			key, path := r.expand(s.With["key"], given), r.expand(s.With["path"], given)
			if stored := filepath.Join(rn.cache, key); isDir(stored) {
				copyTree(t, stored, path)
				r.ctx["steps."+s.ID+".outputs.cache-hit"] = "true"
			}
		case strings.HasPrefix(s.Uses, "actions/cache/save@"):
			key, path := r.expand(s.With["key"], given), r.expand(s.With["path"], given)
			if key == "" || strings.ContainsAny(key, `/\`) {
				t.Fatalf("step %q: cache key %q", s.Name, key)
			}
			stored := filepath.Join(rn.cache, key)
			if isDir(stored) {
				t.Errorf("step %q: the key %s is saved a second time (actions/cache refuses that)", s.Name, key)
			}
			copyTree(t, path, stored)
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			// setup-go reads the Go version from go.mod and keys its cache by a hash of
			// cache-dependency-path, which it computes only for files in the workspace.
			if _, err := os.Stat(r.expand(s.With["go-version-file"], given)); err != nil {
				t.Errorf("setup-go: go-version-file: %v", err)
			}
			res.goSum = r.expand(s.With["cache-dependency-path"], given)
			_, err := os.Stat(res.goSum)
			res.goSumExists = err == nil
		default:
			t.Fatalf("step %q uses %s, which the test runner does not emulate", s.Name, s.Uses)
		}
		if s.Name == rn.stopAfter {
			break
		}
	}
	if p := paths(); len(p) == 1 {
		res.binDir = p[0]
	} else {
		t.Errorf("GITHUB_PATH = %q, want one folder", p)
	}
	return res
}

// output is a step output the last install run set.
func (r *actionRun) output(id, name string) string { return r.ctx["steps."+id+".outputs."+name] }

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// copyTree copies the files under src into dst (created as needed), keeping their modes.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sourceHash is the hash the Locate step names a build of a local action (or a tag or branch)
// by, computed here independently: sha256sum's line ("<hash>  ./<path>") for every regular
// file of the action's folder but .git, in byte order of the path, hashed together.
func sourceHash(t *testing.T, root string) string {
	t.Helper()
	type entry struct{ path, sum string }
	var files []entry
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" && filepath.Dir(path) == root {
			return filepath.SkipDir
		}
		if d.Name() == ".git" && filepath.Dir(path) == root {
			return nil // a worktree's .git file
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		sum := sha256.Sum256(data)
		files = append(files, entry{"./" + filepath.ToSlash(rel), hex.EncodeToString(sum[:])})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	var list strings.Builder
	for _, f := range files {
		fmt.Fprintf(&list, "%s  %s\n", f.sum, f.path)
	}
	sum := sha256.Sum256([]byte(list.String()))
	return hex.EncodeToString(sum[:])
}

// releaseServer is a local stand-in for github.com serving the repository vectorlint/vectorlint:
// its tags over git's HTTP protocol (a bare repository served as files, the protocol git calls
// "dumb") and release files under /vectorlint/vectorlint/releases/download/<tag>/.
type releaseServer struct {
	url string
	// commits: "v1.2.3" and "v1.2.4" (tagged), "v1.2.5" (tagged, its checksum wrong),
	// "untagged".
	commits map[string]string
	// binary is the release binary, built with v1.2.3's stamps.
	binary []byte
	date   string
	mu     sync.Mutex
	gets   []string // the paths requested
}

// requested returns the paths requested so far.
func (s *releaseServer) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gets)
}

// startReleaseServer builds the release binary and serves: the tags (v1.2.3 annotated, v1.2.4
// and v1.2.5 lightweight) of a repository with four commits; for v1.2.3, archives named as
// .goreleaser.yaml names them — for linux and darwin on amd64 and arm64, and windows on amd64 —
// and checksums.txt; for v1.2.5, the host's archive with a checksums.txt that does not match it;
// for v1.2.4, nothing (a tag without a release). Every archive holds this machine's binary, so
// that it runs whatever runner the test pretends to be.
func startReleaseServer(t *testing.T) *releaseServer {
	t.Helper()
	requireTool(t, "git", "VECTORLINT_REQUIRE_GIT", "apt-get install git")
	s := &releaseServer{commits: map[string]string{}, date: "2026-03-04T05:06:07Z"}
	work, root := t.TempDir(), t.TempDir()
	git(t, work, "init", "-q")
	for _, name := range []string{"v1.2.3", "v1.2.4", "v1.2.5", "untagged"} {
		writeFiles(t, work, map[string]string{"version.txt": name + "\n"})
		git(t, work, "add", "-A")
		git(t, work, "commit", "-q", "-m", name)
		s.commits[name] = strings.TrimSpace(git(t, work, "rev-parse", "HEAD"))
	}
	git(t, work, "tag", "-a", "-m", "release v1.2.3", "v1.2.3", s.commits["v1.2.3"])
	git(t, work, "tag", "v1.2.4", s.commits["v1.2.4"])
	git(t, work, "tag", "v1.2.5", s.commits["v1.2.5"])
	bare := filepath.Join(root, "vectorlint", "vectorlint")
	git(t, root, "clone", "-q", "--bare", work, bare)
	git(t, bare, "update-server-info")

	bin := buildStamped(t, "1.2.3", s.commits["v1.2.3"], s.date)
	var err error
	if s.binary, err = os.ReadFile(bin); err != nil {
		t.Fatal(err)
	}
	publish := func(tag string, archives map[string][]byte, wrongSums bool) {
		dir := filepath.Join(bare, "releases", "download", tag)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var sums []string
		for name, data := range archives {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			if wrongSums {
				sum = sha256.Sum256(append(data, 0))
			}
			sums = append(sums, hex.EncodeToString(sum[:])+"  "+name)
		}
		sort.Strings(sums)
		if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(strings.Join(sums, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	release := map[string][]byte{}
	for _, p := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"} {
		release["vectorlint_1.2.3_"+p+".tar.gz"] = tarGz(t, "vectorlint", s.binary)
	}
	release["vectorlint_1.2.3_windows_amd64.zip"] = zipped(t, "vectorlint.exe", s.binary)
	publish("v1.2.3", release, false)
	host := runtime.GOOS + "_" + runtime.GOARCH
	publish("v1.2.5", map[string][]byte{"vectorlint_1.2.5_" + host + ".tar.gz": tarGz(t, "vectorlint", s.binary)}, true)

	files := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.mu.Lock()
		s.gets = append(s.gets, req.URL.Path)
		s.mu.Unlock()
		files.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// tarGz is a .tar.gz archive of one executable file, with a README.md beside it as GoReleaser
// packs it.
func tarGz(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	// Stored, not compressed: the binary is tens of megabytes, and deflate under the race
	// detector took minutes; the archive's format is what the installers read, not its size.
	gz, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("# vectorlint\n")}, {name, 0o755, data}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipped is a .zip archive of one file and a README.md.
func zipped(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct {
		name string
		data []byte
	}{{"README.md", []byte("# vectorlint\n")}, {name, data}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Store}) // stored: see tarGz
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestActionInstallRelease runs the action's install steps against a local stand-in for
// github.com: the release binary is used, checksum verified, for a release tag, for a commit a
// release tag points at and for a version input naming a release, in the archive of the
// runner's system and architecture; no release (a tag without one, a commit without a tag, an
// architecture without binaries) builds from source; a checksum that does not match fails.
func TestActionInstallRelease(t *testing.T) {
	t.Parallel()
	requireTool(t, "bash", "VECTORLINT_REQUIRE_GIT", "apt-get install bash")
	requireTool(t, "curl", "VECTORLINT_REQUIRE_GIT", "apt-get install curl")
	srv := startReleaseServer(t)
	host := runtime.GOOS + "_" + runtime.GOARCH
	stamped := fmt.Sprintf("vectorlint 1.2.3 (commit %s, built %s)\n", srv.commits["v1.2.3"], srv.date)
	releaseDir := "/vectorlint/vectorlint/releases/download/"
	installSteps := []string{"Locate vectorlint"}
	buildSteps := []string{"Locate vectorlint", "Restore the vectorlint build", "Prepare the Go build", "Set up Go", "Build vectorlint",
		"Save the vectorlint build"}

	tests := []struct {
		name   string
		runner func(rn *actionRunner)
		inputs map[string]string
		// ran are the steps that must run; failed the one that must fail.
		ran    []string
		failed string
		// log must hold these lines; get are the release files that must be downloaded.
		log []string
		get []string
		// source and key are the Locate step's outputs; binary says the release binary is
		// on the PATH.
		source, key string
		binary      bool
	}{
		{
			name:   "uses: …@v1.2.3",
			runner: func(rn *actionRunner) { rn.ref = "v1.2.3" },
			ran:    installSteps,
			log:    []string{stamped},
			get:    []string{releaseDir + "v1.2.3/vectorlint_1.2.3_" + host + ".tar.gz", releaseDir + "v1.2.3/checksums.txt"},
			source: "release", binary: true,
		},
		{
			name:   "uses: …@<the commit of v1.2.3>",
			runner: func(rn *actionRunner) { rn.ref = srv.commits["v1.2.3"] },
			ran:    installSteps,
			log:    []string{stamped},
			get: []string{"/vectorlint/vectorlint/info/refs", releaseDir + "v1.2.3/vectorlint_1.2.3_" + host + ".tar.gz",
				releaseDir + "v1.2.3/checksums.txt"},
			source: "release", binary: true,
		},
		{
			name:   "an ARM64 runner gets the arm64 archive",
			runner: func(rn *actionRunner) { rn.ref, rn.os, rn.arch = "v1.2.3", "Linux", "ARM64" },
			ran:    installSteps,
			get:    []string{releaseDir + "v1.2.3/vectorlint_1.2.3_linux_arm64.tar.gz"},
			source: "release", binary: true,
		},
		{
			name:   "a Windows runner gets the zip",
			runner: func(rn *actionRunner) { rn.ref, rn.os, rn.arch = "v1.2.3", "Windows", "X64" },
			ran:    installSteps,
			get:    []string{releaseDir + "v1.2.3/vectorlint_1.2.3_windows_amd64.zip"},
			source: "release", binary: true,
		},
		{
			name:   "the version input names a release",
			inputs: map[string]string{"version": "v1.2.3"},
			ran:    installSteps,
			log:    []string{stamped},
			get:    []string{releaseDir + "v1.2.3/vectorlint_1.2.3_" + host + ".tar.gz"},
			source: "release", binary: true,
		},
		{
			name:   "a tag without a release builds from source",
			runner: func(rn *actionRunner) { rn.ref = "v1.2.4" },
			ran:    buildSteps,
			log: []string{"vectorlint: no release archive vectorlint_1.2.4_" + host + ".tar.gz for v1.2.4 at " + srv.url + releaseDir +
				"v1.2.4: building from source\n"},
			source: "build", key: "src-" + sourceHash(t, testutil.RepoRoot(t)),
		},
		{
			name:   "a commit no release tag points at builds from source, its commit stamped",
			runner: func(rn *actionRunner) { rn.ref = srv.commits["untagged"] },
			ran:    buildSteps,
			// The commit stamped; Go adds its time when the build's checkout records it.
			log:    []string{"vectorlint " + sourceVersion(t) + " (commit " + srv.commits["untagged"]},
			source: "build", key: srv.commits["untagged"],
		},
		{
			name:   "a runner architecture without release binaries",
			runner: func(rn *actionRunner) { rn.ref, rn.arch, rn.stopAfter = "v1.2.3", "X86", "Locate vectorlint" },
			ran:    installSteps,
			source: "build", key: "src-" + sourceHash(t, testutil.RepoRoot(t)),
		},
		{
			name:   "another module version is go installed",
			runner: func(rn *actionRunner) { rn.stopAfter = "Locate vectorlint" },
			inputs: map[string]string{"version": "latest"},
			ran:    installSteps,
			source: "install",
		},
		{
			name:   "a checksum that does not match",
			runner: func(rn *actionRunner) { rn.ref = "v1.2.5" },
			ran:    installSteps,
			failed: "Locate vectorlint",
			log: []string{fmt.Sprintf("::error title=vectorlint::the release archive vectorlint_1.2.5_%s.tar.gz of v1.2.5 does not match "+
				"its checksums.txt (sha256 %s, expected %s): not using it\n", host,
				sha256Hex(tarGz(t, "vectorlint", srv.binary)), sha256Hex(append(tarGz(t, "vectorlint", srv.binary), 0)))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &actionRun{t: t, a: readAction(t)}
			rn := hostRunner(t, srv.url)
			rn.repo = "vectorlint/vectorlint"
			if tt.runner != nil {
				tt.runner(&rn)
			}
			before := len(srv.requested())
			res := r.install(rn, tt.inputs)
			if !slices.Equal(res.ran, tt.ran) || res.failed != tt.failed {
				t.Fatalf("steps run %q, failed %q; want %q, failed %q\n%s", res.ran, res.failed, tt.ran, tt.failed, res.log)
			}
			for _, want := range tt.log {
				if !strings.Contains(res.log, want) {
					t.Errorf("the log lacks %q:\n%s", want, res.log)
				}
			}
			got := srv.requested()[before:]
			for _, want := range tt.get {
				if !slices.Contains(got, want) {
					t.Errorf("requested %q, want %s among them", got, want)
				}
			}
			if src := r.output("vectorlint-bin", "source"); src != tt.source {
				t.Errorf("source = %q, want %q", src, tt.source)
			}
			wantKey := ""
			if tt.key != "" {
				wantKey = "vectorlint-bin-" + rn.os + "-" + rn.arch + "-" + tt.key
			}
			if key := r.output("vectorlint-bin", "build-key"); key != wantKey {
				t.Errorf("build-key = %q, want %q", key, wantKey)
			}
			data, err := os.ReadFile(filepath.Join(res.binDir, rn.exe()))
			switch {
			case tt.binary && (err != nil || !bytes.Equal(data, srv.binary)):
				t.Errorf("%s on the PATH is not the release binary (%v)", rn.exe(), err)
			case tt.failed != "" && err == nil:
				t.Errorf("a failed install left %s on the PATH", rn.exe())
			}
		})
	}
}

// TestReadmeInstallRelease runs the README's release download commands, as written but for
// the host (github.com is the local stand-in, the platform this machine's, and the binary goes
// to a temporary folder rather than /usr/local/bin with sudo): the archive passes the checksum
// check and the installed vectorlint prints the release's version, commit and build time.
func TestReadmeInstallRelease(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the README's commands use sha256sum and a .tar.gz: Linux and macOS with coreutils")
	}
	requireTool(t, "curl", "VECTORLINT_REQUIRE_GIT", "apt-get install curl")
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n## Install\n.*?[*][*]Release binaries[*][*].*?```sh\n(.*?)```").FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md's Install section has no sh block after **Release binaries**")
	}
	script := string(m[1])
	srv := startReleaseServer(t)
	bin := t.TempDir()
	host := runtime.GOOS + "_" + runtime.GOARCH
	for old, repl := range map[string]string{
		"https://github.com/vectorlint/":     srv.url + "/vectorlint/",
		"p=linux_amd64":                      "p=" + host,
		"sudo mv vectorlint /usr/local/bin/": `mv vectorlint "$BIN/"`,
	} {
		if !strings.Contains(script, old) {
			t.Fatalf("the README's install commands have no %q:\n%s", old, script)
		}
		script = strings.ReplaceAll(script, old, repl)
	}
	file := filepath.Join(t.TempDir(), "install.sh")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, t.TempDir(), cleanEnv("BIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH")), time.Minute,
		"bash", "-euo", "pipefail", file)
	want := "vectorlint_1.2.3_" + host + ".tar.gz: OK\n" +
		fmt.Sprintf("vectorlint 1.2.3 (commit %s, built %s)\n", srv.commits["v1.2.3"], srv.date)
	if r.code != 0 || r.stdout != want {
		t.Errorf("the README's install commands: exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", r.code, r.stdout, r.stderr, want)
	}
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestActionBuildCache runs the install steps of a local action (no release to use) twice
// with one cache service: the first run sets up Go, builds and saves the binary under a key
// naming the runner and the action's source; the second restores it and neither sets up Go
// nor builds, so linting starts at once. setup-go gets its go.sum inside the workspace, where it
// can hash it, and the copy is gone after the build.
func TestActionBuildCache(t *testing.T) {
	t.Parallel()
	requireTool(t, "bash", "VECTORLINT_REQUIRE_GIT", "apt-get install bash")
	rn := hostRunner(t, "")
	key := "vectorlint-bin-" + rn.os + "-" + rn.arch + "-src-" + sourceHash(t, testutil.RepoRoot(t))

	r := &actionRun{t: t, a: readAction(t)}
	first := r.install(rn, nil)
	want := []string{"Locate vectorlint", "Restore the vectorlint build", "Prepare the Go build", "Set up Go", "Build vectorlint",
		"Save the vectorlint build"}
	if !slices.Equal(first.ran, want) || first.failed != "" {
		t.Fatalf("first run: steps %q, failed %q; want %q\n%s", first.ran, first.failed, want, first.log)
	}
	if got := r.output("vectorlint-bin", "build-key"); got != key {
		t.Errorf("build-key = %q, want %q", got, key)
	}
	if first.goSum != filepath.Join(first.workspace, ".vectorlint-action-go.sum") || !first.goSumExists {
		t.Errorf("setup-go's cache-dependency-path %q (there: %v), want the workspace's .vectorlint-action-go.sum", first.goSum, first.goSumExists)
	}
	if _, err := os.Stat(first.goSum); !os.IsNotExist(err) {
		t.Errorf("the go.sum copy is still in the workspace after the build: %v", err)
	}
	if !strings.Contains(first.log, "vectorlint: building the action's source") {
		t.Errorf("first run's log:\n%s", first.log)
	}
	built, err := os.ReadFile(filepath.Join(first.binDir, rn.exe()))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(rn.cache, key, rn.exe()))
	if err != nil || !bytes.Equal(saved, built) {
		t.Fatalf("the cache service holds no copy of the build under %s: %v", key, err)
	}

	r = &actionRun{t: t, a: readAction(t)}
	second := r.install(rn, nil)
	if want := []string{"Locate vectorlint", "Restore the vectorlint build"}; !slices.Equal(second.ran, want) || second.failed != "" {
		t.Fatalf("second run: steps %q, failed %q; want %q (no Go, no build)\n%s", second.ran, second.failed, want, second.log)
	}
	if r.output("vectorlint-build", "cache-hit") != "true" {
		t.Error("second run: the restore step reported no cache hit")
	}
	reused, err := os.ReadFile(filepath.Join(second.binDir, rn.exe()))
	if err != nil || !bytes.Equal(reused, built) {
		t.Fatalf("second run: %s on the PATH is not the first run's build (%v)", rn.exe(), err)
	}
	v := run(t, t.TempDir(), os.Environ(), time.Minute, filepath.Join(second.binDir, rn.exe()), "version")
	if v.code != 0 || !strings.HasPrefix(v.stdout, "vectorlint "+sourceVersion(t)+" (") {
		t.Errorf("the restored binary: vectorlint version: exit %d, %q %q", v.code, v.stdout, v.stderr)
	}
}
