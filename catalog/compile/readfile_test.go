package compile

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFileLimit(t *testing.T) {
	fsys := fstest.MapFS{"a": {Data: []byte("12345")}}
	for _, tt := range []struct {
		limit int64
		want  string
		err   error
	}{{-1, "12345", nil}, {5, "12345", nil}, {4, "", errTooLarge}, {0, "", errTooLarge}} {
		for _, keep := range []bool{true, false} {
			got, err := readFile(fsys, "a", tt.limit, func(int64) bool { return keep })
			if keep && string(got.data) != tt.want || !keep && got.data != nil || !errors.Is(err, tt.err) ||
				err == nil && (got.size != 5 || got.digest != sha256.Sum256([]byte("12345")) || !got.text) {
				t.Errorf("readFile(limit %d, keep %v) = %+v, %v; want %q, %v", tt.limit, keep, got, err, tt.want, tt.err)
			}
		}
	}
}

// TestOversizeFileNotRead checks that a file over the skill size limit is refused without
// being kept, and served when oversize skills are allowed.
func TestOversizeFileNotRead(t *testing.T) {
	fsys := fstest.MapFS{
		"big/SKILL.md":   {Data: []byte("---\nname: big\ndescription: Big.\n---\n")},
		"big/blob.bin":   {Data: make([]byte, MaxSkillBytes+1)},
		"small/SKILL.md": {Data: []byte("---\nname: small\ndescription: Small.\n---\n")},
	}
	c, ps, err := Load(fsys, "skills", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !HasErrors(ps) || !strings.Contains(ps[0].String(), "skills/big/blob.bin: the file is over the per-skill limit") {
		t.Fatalf("problems = %v", ps)
	}
	if len(c.Skills) != 1 || c.Skills[0].Path != "small" {
		t.Fatalf("served %d skills", len(c.Skills))
	}
	c, ps, err = Load(fsys, "skills", Options{AllowOversize: true})
	if err != nil || HasErrors(ps) || len(c.Skills) != 2 {
		t.Fatalf("with AllowOversize: %d skills, %v, %v", len(c.Skills), ps, err)
	}
}

// TestSkippedMarksOneWarningPerSkill checks that SkipInvalid adds exactly one Skipped
// warning for each invalid skill, whatever its number of errors.
func TestSkippedMarksOneWarningPerSkill(t *testing.T) {
	fsys := fstest.MapFS{
		"Bad/SKILL.md":  {Data: []byte("---\nname: Bad\ndescription: \"\"\n---\n")},
		"good/SKILL.md": {Data: []byte("---\nname: good\ndescription: Good.\n---\n")},
	}
	_, ps, err := Load(fsys, "skills", Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, p := range ps {
		if p.Skipped {
			skipped = append(skipped, p.Skill)
		}
	}
	if len(skipped) != 1 || skipped[0] != "Bad" {
		t.Fatalf("skipped %v; problems %v", skipped, ps)
	}
}
