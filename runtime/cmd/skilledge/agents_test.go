package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentFolders: without DIR, pull installs into the folders of the agents the project
// uses (.agents/skills standing for those that read it) and says which and why, or into
// .agents/skills when it finds none; --agent names them; --user looks in the home
// directory. list finds what pull installed there. A folder so chosen that is a symbolic
// link out of the project is refused, and nothing is written through it.
func TestAgentFolders(t *testing.T) {
	base := fakeDeployment(t, "")
	project := t.TempDir()
	t.Chdir(project)
	home := t.TempDir()
	t.Setenv("HOME", home)

	// No agent found: .agents/skills.
	code, _, errOut := call(t, "", "pull", base)
	if code != 0 || !strings.Contains(errOut, "skilledge pull: .agents/skills (no agent's folder found in the project") {
		t.Fatalf("pull with no agent: %d\n%s", code, errOut)
	}
	os.RemoveAll(filepath.Join(project, ".agents"))

	os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(project, ".cursor"), 0o755)
	code, out, errOut := call(t, "", "pull", base)
	if code != 0 || !strings.Contains(errOut, "skilledge pull: .claude/skills (Claude Code: .claude is in the project)") ||
		!strings.Contains(errOut, "skilledge pull: .agents/skills (Cursor: .cursor is in the project)") {
		t.Fatalf("pull with .claude/ and .cursor/: %d\n%s%s", code, out, errOut)
	}
	for _, dir := range []string{".claude/skills", ".agents/skills"} {
		if _, err := os.Stat(filepath.Join(project, dir, "greet", "SKILL.md")); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
	code, out, _ = call(t, "", "list")
	if code != 0 || !strings.Contains(out, "1 skill installed in .claude/skills") || !strings.Contains(out, "1 skill installed in .agents/skills") {
		t.Errorf("list: %d\n%s", code, out)
	}

	code, _, errOut = call(t, "", "pull", base, "--agent", "gemini", "--agent", "vscode")
	if code != 0 || !strings.Contains(errOut, ".gemini/skills (Gemini CLI)") || !strings.Contains(errOut, ".github/skills (VS Code / GitHub Copilot)") {
		t.Fatalf("pull --agent gemini --agent vscode: %d\n%s", code, errOut)
	}
	code, _, errOut = call(t, "", "pull", base, "--agent", "claude", "--user")
	if _, err := os.Stat(filepath.Join(home, ".claude", "skills", "greet", "SKILL.md")); code != 0 || err != nil {
		t.Fatalf("pull --agent claude --user: %d %v\n%s", code, err, errOut)
	}
	for _, args := range [][]string{
		{"pull", base, "--agent", "emacs"},
		{"pull", base, "somewhere", "--agent", "claude"},
		{"list", "--agent", "emacs"},
	} {
		if code, _, errOut := call(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", args, code, errOut)
		}
	}

	// A project whose .gemini is a link out of it: refused, nothing written there.
	outside := t.TempDir()
	os.RemoveAll(filepath.Join(project, ".gemini"))
	if err := os.Symlink(outside, filepath.Join(project, ".gemini")); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = call(t, "", "pull", base, "--agent", "gemini")
	if code != 2 || !strings.Contains(errOut, "is a symbolic link to "+outside+", out of ") {
		t.Fatalf("pull into a link out of the project: %d\n%s", code, errOut)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("the pull wrote %d entries out of the project", len(ents))
	}
	// Given as DIR, the user's own choice, the same folder is used.
	if code, _, errOut := call(t, "", "pull", base, ".gemini/skills"); code != 0 {
		t.Errorf("pull into a link given as DIR: %d\n%s", code, errOut)
	}
}

// TestPullLocalSources: pull takes a skills folder and a git repository as it takes a
// deployment, says what it skipped, and list shows where each skill came from.
func TestPullLocalSources(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "skills", "alpha", "SKILL.md"), "---\nname: alpha\ndescription: Alpha.\n---\nAlpha.\n")
	writeFile(t, filepath.Join(src, "skills", "Bad", "SKILL.md"), "---\nname: Bad\ndescription: Bad.\n---\n")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "skills"}} {
		if out, err := exec.Command("git", append([]string{"-C", src}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for name, source := range map[string]string{"folder": filepath.Join(src, "skills"), "git": "git+file://" + src} {
		dir := t.TempDir()
		code, out, errOut := call(t, "", "pull", source, dir)
		if code != 0 || !strings.Contains(out, "1 installed (alpha)") || !strings.Contains(out, "publishes no digests") ||
			!strings.Contains(errOut, `Bad/SKILL.md: warning: skipped, not served: name "Bad"`) {
			t.Fatalf("%s: pull %s: %d\n%s%s", name, source, code, out, errOut)
		}
		if code, out, _ := call(t, "", "list", dir); code != 0 || !strings.Contains(out, "alpha  -  "+source+"  1 file") {
			t.Errorf("%s: list: %d\n%s", name, code, out)
		}
	}
}
