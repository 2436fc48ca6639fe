//go:build e2e

package tests

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// releaseTargets are the binaries build/release writes.
var releaseTargets = []string{"skilledge-linux-amd64", "skilledge-linux-arm64", "skilledge-darwin-amd64", "skilledge-darwin-arm64",
	"skilledge-windows-amd64.exe", "skilledge-windows-arm64.exe"}

// releaseArchive is the archive of the files a skills repository copies, which
// build/release writes beside the binaries.
const releaseArchive = "skills-repo.tar.gz"

// releaseFiles are the files SHA256SUMS names: the binaries and the archive.
var releaseFiles = append(slices.Clone(releaseTargets), releaseArchive)

// releaseBuild runs build/release in the repository once per test binary, into a scratch
// folder it returns.
var releaseBuild = sync.OnceValues(func() (string, error) {
	out, err := scratchDir("skilledge-release-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(repoRoot(nil), "build", "release"), out)
	cmd.Dir = repoRoot(nil)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build/release: %v\n%s", err, b)
	}
	return out, nil
})

// TestRelease runs build/release twice and requires the same six binaries, skills
// repository archive and SHA256SUMS both times, the archive holding exactly the skills
// repository's files; then it copies the linux/amd64 binary into an empty folder and runs
// it with an environment holding no Go and no source (env -i, PATH=/usr/bin:/bin, an empty
// HOME): it validates the examples, builds a catalog whose plugin.wasm is byte for byte the
// one a clone builds, serves it (the conformance suite's skills scenarios and the
// Inspector's --verify pass against it) and answers over stdio.
func TestRelease(t *testing.T) {
	root := repoRoot(t)
	first, err := releaseBuild()
	if err != nil {
		t.Fatal(err)
	}
	outs := []string{first, t.TempDir()}
	again := exec.Command(filepath.Join(root, "build", "release"), outs[1])
	again.Dir = root
	if b, err := again.CombinedOutput(); err != nil {
		t.Fatalf("build/release: %v\n%s", err, b)
	}
	sums, err := os.ReadFile(filepath.Join(outs[0], "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	checkSkillsRepoArchive(t, filepath.Join(outs[0], releaseArchive), root)
	for _, name := range releaseFiles {
		a, errA := os.ReadFile(filepath.Join(outs[0], name))
		b, errB := os.ReadFile(filepath.Join(outs[1], name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("%s: not the same bytes on a second run (%v, %v)", name, errA, errB)
		}
		if want := fmt.Sprintf("%x  %s\n", sha256.Sum256(a), name); !strings.Contains(string(sums), want) {
			t.Errorf("SHA256SUMS has no line %q:\n%s", want, sums)
		}
	}
	if again, _ := os.ReadFile(filepath.Join(outs[1], "SHA256SUMS")); !bytes.Equal(again, sums) || strings.Count(string(sums), "\n") != len(releaseFiles) {
		t.Fatalf("SHA256SUMS:\n%s\nthen\n%s", sums, again)
	}

	// The binary, alone, without Go.
	dir := t.TempDir()
	bin := filepath.Join(dir, "skilledge")
	data, _ := os.ReadFile(filepath.Join(outs[0], "skilledge-linux-amd64"))
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + home}
	skills := filepath.Join(dir, "skills")
	if err := os.CopyFS(skills, os.DirFS(filepath.Join(root, "catalog", "examples", "skills"))); err != nil {
		t.Fatal(err)
	}
	run := func(stdin string, args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("skilledge %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	for _, p := range []string{"/usr/bin/go", "/bin/go"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists: the environment would not be without Go", p)
		}
	}

	// Both plugins are the ones a clone builds; build ships the public one for the
	// examples, which have no access policy, and the full one with --with-auth.
	version, _ := run("", "version")
	clone := map[pluginbuild.Variant][]byte{}
	for _, v := range pluginbuild.Variants {
		path, err := pluginbuild.Ensure(context.Background(), v, os.Stderr)
		if err != nil {
			t.Fatal(err)
		}
		clone[v], _ = os.ReadFile(path)
		if !strings.Contains(version, fmt.Sprintf("plugin.wasm sha256 %x (%s, carried by this binary)", sha256.Sum256(clone[v]), v)) {
			t.Fatalf("skilledge version, the %s plugin:\n%s", v, version)
		}
	}
	run("", "validate", "skills")
	run("", "build", "skills", "-o", "out-full", "--with-auth")
	run("", "build", "skills", "-o", "out")
	for out, v := range map[string]pluginbuild.Variant{"out": pluginbuild.Public, "out-full": pluginbuild.Full} {
		if got, _ := os.ReadFile(filepath.Join(dir, out, "plugin.wasm")); !bytes.Equal(got, clone[v]) {
			t.Fatalf("%s: the release binary's %s plugin.wasm (%d bytes) is not the one a clone builds (%d bytes)", out, v, len(got), len(clone[v]))
		}
	}
	reply, _ := run(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`+"\n", "stdio", "out")
	if !strings.Contains(reply, `"skills":[`) || !strings.Contains(reply, "skill://git-workflow/SKILL.md") {
		t.Fatalf("stdio: %s", reply)
	}

	// serve, and the third-party clients against it.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "out", "--addr", "127.0.0.1:0")
	cmd.Dir, cmd.Env = dir, env
	url := serveURL(t, cmd, cancel)
	suite := conformanceSuite(t)
	baseline := filepath.Join(root, "tests", "conformance", "expected-failures.yml")
	for _, r := range conformanceRuns {
		if strings.HasPrefix(r.scenario, "sep-2640-skills") {
			t.Run("conformance/"+r.scenario+"/"+strings.Join(r.args, "_"), func(t *testing.T) { conformanceRun(t, suite, baseline, url, r.scenario, r.args) })
		}
	}
	t.Run("inspector", func(t *testing.T) { inspect(t, url) })
}

// checkSkillsRepoArchive checks that the skills repository archive at file holds exactly
// skillsRepoFiles, each where the repository keeps it with the bytes of its source in the
// checkout root, read-only for all but the owner, owned by 0, and no entry but their
// folders.
func checkSkillsRepoArchive(t *testing.T, file, root string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tr := tar.NewReader(zr)
	got := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: %s is owned by %d:%d", file, h.Name, h.Uid, h.Gid)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			dir := strings.TrimSuffix(h.Name, "/") + "/"
			if !slices.ContainsFunc(slices.Collect(maps.Keys(skillsRepoFiles)), func(p string) bool { return strings.HasPrefix(p, dir) }) || h.Mode != 0o755 {
				t.Errorf("%s: folder %s (mode %o) holds none of the files", file, h.Name, h.Mode)
			}
		case tar.TypeReg:
			src, ok := skillsRepoFiles[h.Name]
			if !ok {
				t.Errorf("%s: %s is not a file a skills repository copies", file, h.Name)
				continue
			}
			got[h.Name] = true
			data, _ := io.ReadAll(tr)
			want, err := os.ReadFile(filepath.Join(root, src))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, want) || h.Mode != 0o644 {
				t.Errorf("%s: %s (mode %o) is not %s (mode 644)", file, h.Name, h.Mode, src)
			}
		default:
			t.Errorf("%s: %s is neither a file nor a folder", file, h.Name)
		}
	}
	for name := range skillsRepoFiles {
		if !got[name] {
			t.Errorf("%s has no %s", file, name)
		}
	}
}

// The release workflow's jobs, by their steps.
var releaseSteps = map[string][]string{
	"release": {"actions/checkout", "actions/setup-go", "Build", "Check", "actions/attest-build-provenance", "Publish"},
}

// TestReleaseWorkflow runs the release workflow (.github/workflows/release.yml) for a push
// of the tag v1.2.3, in a clone of the repository with the working tree's changes to
// tracked files applied (what the tag's checkout would hold): its run: steps as written,
// in order, with a stand-in for the attestation action (which checks that the files it
// names are exactly the release's) and a gh on PATH that records what it is asked and
// keeps the files it is given to upload. The uploaded files must be the release's, each
// as SHA256SUMS says.
//
// Why does the release workflow's test run its steps in a clone? build/release stamps the
// commit and builds from what git tracks, as the tag's checkout would: a clone of HEAD with
// the working tree's changes to tracked files applied (git diff --binary HEAD | git apply)
// is that, with the edits under test, and without anything untracked (a file not yet
// added fails here as it would in the release). Every run: step runs as written through the
// runner shared with the skills repository's workflow test (runJob); actions/checkout is
// the clone, setup-go the go on PATH (which must be the release go.mod names). Rejected:
// checking the YAML's shape only (a broken command would pass), and running the steps in
// the developer's own tree (dist/ there, and a release stamped from whatever is lying
// around).
func TestReleaseWorkflow(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	git := func(dir string, stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		return out
	}
	git(root, nil, "clone", "--quiet", "--no-hardlinks", root, dir)
	git(dir, nil, "checkout", "--quiet", "--detach", strings.TrimSpace(string(git(root, nil, "rev-parse", "HEAD"))))
	if diff := git(root, nil, "diff", "--binary", "HEAD"); len(diff) > 0 {
		git(dir, diff, "apply", "--binary", "-")
	}
	wf := readWorkflow(t, filepath.Join(dir, ".github", "workflows", "release.yml"), releaseSteps)

	// The shape: on a version tag only; the token may write nothing but where the job
	// needs it, which is the release, the attestation's certificate and the attestation.
	if fmt.Sprint(wf.On) != "map[push:map[tags:[v*]]]" {
		t.Errorf("on: %v, want a push of tags v*", wf.On)
	}
	job := wf.Jobs["release"]
	if fmt.Sprint(wf.Permissions) != "map[contents:read]" || fmt.Sprint(job.Permissions) != "map[attestations:write contents:write id-token:write]" {
		t.Errorf("permissions %v, the job's %v: want contents: read, and for the job contents, id-token and attestations: write", wf.Permissions, job.Permissions)
	}
	if job.RunsOn != "ubuntu-latest" {
		t.Errorf("the job runs on %q: Check runs the linux-amd64 binary", job.RunsOn)
	}

	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	var attested []string
	const tag, token = "v1.2.3", "the-job-token"
	jobs := jobContext{
		event: "push",
		ref:   "refs/tags/" + tag,
		exprs: map[string]string{
			"${{ github.token }}":      token,
			"${{ github.repository }}": "skilledge/skilledge",
			"${{ github.ref_name }}":   tag,
		},
		action: func(t *testing.T, s workflowStep, dir, path string) string {
			switch action, _, _ := strings.Cut(s.Uses, "@"); action {
			case "actions/checkout":
				// The clone is the workspace.
			case "actions/setup-go":
				// The go on PATH builds; it must be the release go.mod names.
				out, err := exec.Command("go", "env", "GOVERSION").Output()
				if s.With["go-version-file"] != "go.mod" || goLine == nil || err != nil || !strings.HasPrefix(string(out), "go"+string(goLine[1])) {
					t.Fatalf("setup-go with %v; go.mod says go %s, and the go here is %s (%v)", s.With, goLine, out, err)
				}
			case "actions/attest-build-provenance":
				// subject-path is a list of patterns, one a line or comma-separated.
				for _, p := range strings.FieldsFunc(s.With["subject-path"], func(r rune) bool { return r == '\n' || r == ',' }) {
					m, _ := filepath.Glob(filepath.Join(dir, strings.TrimSpace(p)))
					for _, f := range m {
						attested = append(attested, filepath.Base(f))
					}
				}
			default:
				t.Fatalf("the test cannot run step %q", s.Uses)
			}
			return path
		},
	}

	fake := t.TempDir()
	uploaded := filepath.Join(fake, "uploaded")
	ghLog := filepath.Join(fake, "gh.log")
	if err := os.Mkdir(uploaded, 0o755); err != nil {
		t.Fatal(err)
	}
	gh := "#!/bin/sh\n" +
		"echo \"GH_REPO=$GH_REPO GH_TOKEN=$GH_TOKEN $*\" >> " + ghLog + "\n" +
		"case \"$1 $2\" in\n" +
		"'release view') echo 'release not found' >&2; exit 1 ;;\n" +
		"'release create'|'release upload') for a; do if [ -f \"$a\" ]; then cp \"$a\" " + uploaded + "/ || exit 1; fi; done; exit 0 ;;\n" +
		"esac\n" +
		"echo \"gh: the test's stand-in does not know $*\" >&2; exit 2\n"
	if err := os.WriteFile(filepath.Join(fake, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runJob(t, wf, jobs, "release", dir, fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the job's output:\n%s", r.output)
		}
	})
	if r.failed != "" {
		t.Fatalf("step %q failed with %d", r.failed, r.code)
	}
	if !strings.Contains(r.output, "skilledge-linux-amd64: OK\n") || !strings.Contains(r.output, "carried by this binary)") {
		t.Error("Check did not check the sums and run the binary")
	}

	// What was attested and uploaded is the release, and SHA256SUMS holds for it.
	want := append(slices.Clone(releaseFiles), "SHA256SUMS")
	slices.Sort(want)
	var built []string
	entries, _ := os.ReadDir(filepath.Join(dir, "dist"))
	for _, e := range entries {
		built = append(built, e.Name())
	}
	var up []string
	entries, _ = os.ReadDir(uploaded)
	for _, e := range entries {
		up = append(up, e.Name())
	}
	slices.Sort(attested)
	if !slices.Equal(built, want) || !slices.Equal(attested, want) || !slices.Equal(up, want) {
		t.Fatalf("build/release wrote %q, the attestation names %q, gh was given %q: want %q", built, attested, up, want)
	}
	sums, err := os.ReadFile(filepath.Join(uploaded, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range releaseFiles {
		b, err := os.ReadFile(filepath.Join(uploaded, name))
		if err != nil {
			t.Fatal(err)
		}
		if line := fmt.Sprintf("%x  %s\n", sha256.Sum256(b), name); !strings.Contains(string(sums), line) {
			t.Errorf("the uploaded SHA256SUMS has no line %q", line)
		}
	}
	checkSkillsRepoArchive(t, filepath.Join(uploaded, releaseArchive), dir)
	log, _ := os.ReadFile(ghLog)
	create := "GH_REPO=skilledge/skilledge GH_TOKEN=" + token + " release create " + tag + " "
	if !strings.Contains(string(log), create) || !strings.Contains(string(log), " --verify-tag") || strings.Contains(string(log), "--prerelease") {
		t.Errorf("gh was run as\n%s\nwant %q… --verify-tag, not a pre-release", log, create)
	}
}

// TestReleaseREADME follows the README from a release alone, as someone with no clone and
// no Go would: in an empty folder with an empty HOME and no Go on PATH, the Install block
// (curl handing over the files build/release wrote) puts skilledge in ~/.local/bin, which
// then serves the example catalog and answers the README's curl as Try it says; in a
// folder holding skills/, the Deploy section's blocks unpack the skills repository's files
// and, with `npm install` stood in for (build/node_modules, whose versions package.json
// must pin, linked in entry by entry), build the Worker and have the pinned wrangler
// bundle it; what .gitignore leaves is the skills and the four files. The repository's own
// .gitignore keeps its lines (the release's are added), and a second unpacking replaces
// no file, naming each it kept.
func TestReleaseREADME(t *testing.T) {
	root := repoRoot(t)
	release, err := releaseBuild()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := exec.LookPath("skilledge"); err == nil {
		t.Fatalf("a skilledge is on PATH already (%s): the install cannot be tested", p)
	}
	files := map[string]string{"SHA256SUMS": filepath.Join(release, "SHA256SUMS")}
	for _, name := range releaseFiles {
		files[name] = filepath.Join(release, name)
	}
	curl, _ := fakeCurl(t, files)
	var install, unpack, deploy string
	for _, b := range docBlocks(t, "README.md") {
		switch {
		case strings.Contains(b, "install -m 755 skilledge-linux-amd64"):
			install = b
		case strings.Contains(b, "tar -xzf "+releaseArchive):
			unpack = b
		case strings.Contains(b, "npx wrangler deploy --dry-run"):
			deploy = b
		}
	}
	if install == "" || unpack == "" || deploy == "" {
		t.Fatalf("the README has no install block, no block unpacking %s, or no `npx wrangler deploy --dry-run` block", releaseArchive)
	}
	home := t.TempDir()
	bin := filepath.Join(home, ".local", "bin")
	run := func(dir, block string, path ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-ec", block)
		cmd.Dir = dir
		cmd.Env = append(toolEnv, "HOME="+home, "PATH="+strings.Join(path, string(os.PathListSeparator)))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the README's\n%s\nfailed (%v):\n%s", block, err, out)
		}
		return string(out)
	}

	// Install, and serve.
	out := run(t.TempDir(), install, curl, "/usr/bin", "/bin")
	if !strings.Contains(out, "skilledge-linux-amd64: OK\n") || !strings.Contains(out, "carried by this binary)") {
		t.Fatalf("the install block printed:\n%s", out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "skilledge"), "serve", "--addr", "127.0.0.1:0")
	cmd.Dir, cmd.Env = t.TempDir(), []string{"HOME=" + home, "PATH=" + bin + ":/usr/bin:/bin"}
	url := serveURL(t, cmd, cancel)
	curlCmd, curlOut := readmeCurl(t)
	checkCurl(t, strings.ReplaceAll(curlCmd, "http://127.0.0.1:8787/mcp", url), curlOut)

	// Deploy: the skills repository's files, then the build and the dry run.
	repo := t.TempDir()
	if err := os.CopyFS(filepath.Join(repo, "skills"), os.DirFS(filepath.Join(root, "catalog", "examples", "skills"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("secrets.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(repo, unpack, curl, "/usr/bin", "/bin")
	checkPins(t, filepath.Join(repo, "package.json"))
	ignore, _ := os.ReadFile(filepath.Join(repo, ".gitignore"))
	ours, _ := os.ReadFile(filepath.Join(root, "build", "skills-repo", ".gitignore"))
	if string(ignore) != "secrets.env\n"+string(ours) {
		t.Errorf("the repository's .gitignore after unpacking:\n%s", ignore)
	}
	mine := []byte("# the team's own\n")
	if err := os.WriteFile(filepath.Join(repo, "wrangler.toml"), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	again := run(repo, unpack, curl, "/usr/bin", "/bin")
	if b, _ := os.ReadFile(filepath.Join(repo, "wrangler.toml")); string(b) != string(mine) || !strings.Contains(again, "kept your wrangler.toml: compare it with ") ||
		!strings.Contains(again, "kept your package.json") {
		t.Fatalf("a second unpacking replaced a file, or did not say it kept it:\n%s", again)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), append([]byte("secrets.env\n"), ours...), 0o644); err != nil {
		t.Fatal(err)
	}
	// The release's wrangler.toml again, and .gitignore as one unpacking left it, for the
	// build below.
	wrangler, _ := os.ReadFile(filepath.Join(root, "build", "skills-repo", "wrangler.toml"))
	if err := os.WriteFile(filepath.Join(repo, "wrangler.toml"), wrangler, 0o644); err != nil {
		t.Fatal(err)
	}
	fake := t.TempDir()
	npm := "#!/bin/sh\n" +
		"[ \"$*\" = install ] || { echo \"npm: the test's stand-in runs only npm install, not $*\" >&2; exit 2; }\n" +
		"mkdir node_modules && for e in " + filepath.Join(root, "build", "node_modules") + "/* " + filepath.Join(root, "build", "node_modules") + "/.bin; do ln -s \"$e\" node_modules/; done\n"
	if err := os.WriteFile(filepath.Join(fake, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	// npx is the system's, run by the pinned Node; the Go toolchain may be on PATH, but no
	// skilledge but the one installed.
	out = run(repo, deploy, bin, fake, filepath.Dir(nodeBin(t)), os.Getenv("PATH"))
	if !strings.Contains(out, "--dry-run: exiting now.") {
		t.Fatalf("wrangler did not finish its dry run:\n%s", out)
	}
	m := outdirFlag.FindStringSubmatch(deploy)
	if m == nil {
		t.Fatalf("the deploy block has no --outdir:\n%s", deploy)
	}
	for _, name := range []string{"plugin.wasm", "catalog.pack"} {
		if m, _ := filepath.Glob(filepath.Join(repo, m[1], "*-"+name)); len(m) != 1 {
			t.Errorf("the bundle has no %s", name)
		}
	}

	// What git would commit: the skills and the four files, not what the build, npm and
	// wrangler wrote, nor what the download left.
	listed := run(repo, "git init -q && git add -A && git ls-files", "/usr/bin", "/bin")
	var wantFiles []string
	for name := range skillsRepoFiles {
		wantFiles = append(wantFiles, name)
	}
	fs.WalkDir(os.DirFS(repo), "skills", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			wantFiles = append(wantFiles, p)
		}
		return err
	})
	slices.Sort(wantFiles)
	if got := strings.Fields(listed); !slices.Equal(got, wantFiles) {
		t.Errorf("git add -A adds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantFiles, "\n"))
	}
}
