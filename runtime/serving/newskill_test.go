package serving

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNewSkill: the skill NewSkill makes loads with no problem, strict; a second one of
// the same name is refused.
func TestNewSkill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills")
	path, err := NewSkill(dir, "release-notes")
	if err != nil || path != filepath.Join(dir, "release-notes", "SKILL.md") {
		t.Fatalf("NewSkill: %q, %v", path, err)
	}
	f, err := Load(dir, BuildOptions{Strict: true})
	if err != nil || f.Checked != 1 || len(f.Problems) != 0 {
		t.Fatalf("Load: %+v, %v", f, err)
	}
	if _, err := NewSkill(dir, "release-notes"); err == nil || !strings.HasSuffix(err.Error(), "release-notes exists already: nothing was written") {
		t.Errorf("NewSkill over a skill: %v", err)
	}
}
