//go:build e2e

package tests

import (
	"context"
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

// A GitHub Actions job run the way a GitHub-hosted runner runs it, for the tests of the
// workflows skilledge ships (build/skills-repo/skills.yml, in workflow_e2e_test.go) and
// runs (.github/workflows/release.yml, in release_e2e_test.go): each step in order, every
// `run:` with `bash --noprofile --norc -eo pipefail`, the workflow's, job's and step's env,
// and GITHUB_PATH honoured between steps. What needs the network or GitHub is stood in
// for by each test, where it is: an action (uses:) by a function that does what it would,
// a command by a stand-in on PATH, a run: step by a script of the test's.

// workflow is the part of a GitHub Actions workflow the tests run or check.
type workflow struct {
	On       map[string]any `yaml:"on"`
	Defaults struct {
		Run struct{ Shell string }
	}
	Permissions map[string]string
	Env         map[string]string
	Jobs        map[string]*workflowJob
}

type workflowJob struct {
	Needs       string
	If          string
	RunsOn      string `yaml:"runs-on"`
	Permissions map[string]string
	Env         map[string]string
	Strategy    struct {
		FailFast *bool `yaml:"fail-fast"`
		Matrix   map[string][]string
	}
	Steps []workflowStep
}

type workflowStep struct {
	Name, Uses, Run string
	With            map[string]string
	Env             map[string]string
}

// id is how the tests name a step: its name, or the action it uses without the version.
func (s workflowStep) id() string {
	if s.Name != "" {
		return s.Name
	}
	action, _, _ := strings.Cut(s.Uses, "@")
	return action
}

// readWorkflow reads a workflow file and checks what every workflow the tests run must
// be: bash for run: steps (the shell the tests run them with), and each job's steps, by
// id, exactly those of want, in order. Renaming, removing or reordering a step fails the
// test, which then needs to learn what the new step does.
func readWorkflow(t *testing.T, file string, want map[string][]string) *workflow {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if wf.Defaults.Run.Shell != "bash" {
		t.Errorf("%s: defaults.run.shell is %q, want bash (the shell the test runs steps with)", file, wf.Defaults.Run.Shell)
	}
	for name, steps := range want {
		job := wf.Jobs[name]
		if job == nil {
			t.Fatalf("%s: no job %q", file, name)
		}
		var got []string
		for _, s := range job.Steps {
			got = append(got, s.id())
		}
		if !slices.Equal(got, steps) {
			t.Fatalf("%s: job %s has steps %q, want %q", file, name, got, steps)
		}
	}
	if len(wf.Jobs) != len(want) {
		t.Fatalf("%s has %d jobs, the test knows %d", file, len(wf.Jobs), len(want))
	}
	return &wf
}

// jobContext is what a test gives runJob besides the job: the event the job runs for,
// and how the test stands in for what the runner would get from GitHub or the network.
type jobContext struct {
	event, ref string // GITHUB_EVENT_NAME, GITHUB_REF
	// exprs is the value of each expression (`${{ github.token }}`) a step's env may hold;
	// a secret is empty, as for a pull request from a fork, and any other fails the test.
	exprs map[string]string
	// action does what step s's action would do in the workspace dir, and returns the PATH
	// the next step runs with. It fails the test for an action it does not know.
	action func(t *testing.T, s workflowStep, dir, path string) string
	// script returns what the test runs for step s's run:, which is s.Run unless the test
	// stands in for it ("" skips the step). temp is the job's RUNNER_TEMP. Nil runs every
	// run: as written.
	script func(t *testing.T, s workflowStep, dir, temp string) string
}

// workflowRun is one run of a job.
type workflowRun struct {
	failed string // the id of the step that failed, "" if none
	code   int    // its exit status
	output string // every step's stdout and stderr
	temp   string // RUNNER_TEMP
}

var (
	secretExpr = regexp.MustCompile(`^\$\{\{ secrets\.[A-Z_]+ \}\}$`)
	refName    = regexp.MustCompile(`^refs/(?:heads|tags)/`)
)

// runJob runs job name's steps in the workspace dir with PATH path, as a runner does,
// stopping at the first that fails.
func runJob(t *testing.T, wf *workflow, c jobContext, name, dir, path string) workflowRun {
	t.Helper()
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
		script := s.Run
		if s.Uses == "" && c.script != nil {
			script = c.script(t, s, dir, r.temp)
		}
		switch {
		case s.Uses != "":
			path = c.action(t, s, dir, path)
		case script == "":
			// Stood in for by the test.
		default:
			if strings.Contains(script, "${{") {
				t.Fatalf("%s: step %q has an expression in run:, which the test cannot evaluate", name, s.id())
			}
			env := append(os.Environ(), toolEnv...)
			env = append(env, "GITHUB_ACTIONS=true", "CI=true", "RUNNER_TEMP="+r.temp, "GITHUB_WORKSPACE="+dir,
				"GITHUB_PATH="+githubPath, "GITHUB_ENV="+githubEnv, "GITHUB_EVENT_NAME="+c.event, "GITHUB_REF="+c.ref,
				"GITHUB_REF_NAME="+refName.ReplaceAllString(c.ref, ""))
			for _, m := range []map[string]string{wf.Env, job.Env, s.Env} {
				for k, v := range m {
					if secretExpr.MatchString(v) {
						v = "" // as for a pull request from a fork
					} else if strings.Contains(v, "${{") {
						value, ok := c.exprs[v]
						if !ok {
							t.Fatalf("%s: step %q: env %s=%s is an expression the test cannot evaluate", name, s.id(), k, v)
						}
						v = value
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

// releaseDownload is where a release's files are downloaded from: the README's, and the
// skills repository workflow's when SKILLEDGE_VERSION is latest.
const releaseDownload = "https://github.com/skilledge/skilledge/releases/latest/download/"

// fakeCurl writes a curl to a new folder, for PATH, that stands in for downloads of the
// latest release: it hands over files[NAME] for the URL releaseDownload+NAME, saved where
// the -o before it says or else under NAME (as -O and -fsSLO say), refuses any other URL
// as curl -f does (exit 22), takes any other argument for an option, and appends each
// command line to the log file it returns.
func fakeCurl(t *testing.T, files map[string]string) (dir, log string) {
	t.Helper()
	dir = t.TempDir()
	log = filepath.Join(dir, "curl.log")
	var cases strings.Builder
	for name, file := range files {
		fmt.Fprintf(&cases, "      %q) src=%q ;;\n", releaseDownload+name, file)
	}
	curl := "#!/bin/sh\n" +
		"echo \"$@\" >> " + log + "\n" +
		"out=\n" +
		"while [ $# -gt 0 ]; do\n" +
		"  case $1 in\n" +
		"  -o) out=$2; shift 2 ;;\n" +
		"  https://*)\n" +
		"    src=\n" +
		"    case $1 in\n" + cases.String() + "    esac\n" +
		"    [ -n \"$src\" ] || { echo \"curl: (22) The requested URL returned error: 404 ($1)\" >&2; exit 22; }\n" +
		"    cp \"$src\" \"${out:-${1##*/}}\" || exit 23\n" +
		"    out=; shift ;;\n" +
		"  *) shift ;;\n" +
		"  esac\n" +
		"done\n"
	if err := os.WriteFile(filepath.Join(dir, "curl"), []byte(curl), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, log
}

// TestCIWorkflow checks that CI (.github/workflows/ci.yml) runs the README's test command
// on every push and pull request, in its tiers: a job for each tier ./build/test runs when
// given none (its line tiers=(…)), none cancelled when another fails, whose last step runs
// ./build/test with the tier, after the checkout and the Go go.mod names. (.ci/run, which
// TestREADME holds to exec the test command, runs them in one go.)
func TestCIWorkflow(t *testing.T) {
	root := repoRoot(t)
	wf := readWorkflow(t, filepath.Join(root, ".github", "workflows", "ci.yml"),
		map[string][]string{"test": {"actions/checkout", "actions/setup-go", "Test"}})
	if fmt.Sprint(wf.On) != "map[pull_request:<nil> push:<nil>]" {
		t.Errorf("on: %v, want every push and pull request", wf.On)
	}
	job := wf.Jobs["test"]
	if job.Steps[1].With["go-version-file"] != "go.mod" {
		t.Errorf("setup-go with %v, want go-version-file: go.mod", job.Steps[1].With)
	}
	if run := strings.TrimSpace(job.Steps[2].Run); run != "./build/test ${{ matrix.tier }}" {
		t.Errorf("Test runs %q, want ./build/test ${{ matrix.tier }}", run)
	}
	script, err := os.ReadFile(filepath.Join(root, "build", "test"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^tiers=\(([a-z0-9 ]+)\)$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("build/test has no line tiers=(…)")
	}
	if want, got := strings.Fields(string(m[1])), job.Strategy.Matrix["tier"]; !slices.Equal(got, want) || len(job.Strategy.Matrix) != 1 {
		t.Errorf("the job's matrix is %v, want tier: %q, the tiers ./build/test runs", job.Strategy.Matrix, want)
	}
	if f := job.Strategy.FailFast; f == nil || *f {
		t.Errorf("the job's fail-fast is not false: a failing tier would cancel the others")
	}
}

var usesLine = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*([^@\s]+)@(\S+)`)

// TestWorkflowVersions checks that the workflows name each action at one version, a major
// tag (v6): a bump is made in every workflow at once, and actionlint knows the inputs of
// the majors it was released with.
func TestWorkflowVersions(t *testing.T) {
	root := repoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	files = append(files, filepath.Join(root, "build", "skills-repo", "skills.yml"))
	versions := map[string]map[string][]string{} // action, version, files
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range usesLine.FindAllStringSubmatch(string(b), -1) {
			if versions[m[1]] == nil {
				versions[m[1]] = map[string][]string{}
			}
			rel, _ := filepath.Rel(root, f)
			versions[m[1]][m[2]] = append(versions[m[1]][m[2]], rel)
		}
	}
	if len(versions) < 4 {
		t.Fatalf("found %d actions in %q", len(versions), files)
	}
	major := regexp.MustCompile(`^v[0-9]+$`)
	for action, vs := range versions {
		for v, in := range vs {
			if len(vs) > 1 || !major.MatchString(v) {
				t.Errorf("%s@%s in %q: want one major version of each action (%d here)", action, v, in, len(vs))
			}
		}
	}
}
