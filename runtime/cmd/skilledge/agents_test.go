package main

import (
	"os"
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
