package serving

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skilledge/skilledge/catalog"
)

// NewSkill makes a new skill, for `skilledge init`: dir/name/SKILL.md, whose frontmatter
// holds name (which the caller has checked is a skill name) and a description to
// replace, and whose body says what to write; Load finds no problem with it as it is. It
// returns the path of SKILL.md. A folder dir/name that exists already is left as it is:
// the error says so, and nothing is written.
func NewSkill(dir, name string) (path string, err error) {
	folder := filepath.Join(dir, name)
	if _, err := os.Lstat(folder); !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s exists already: nothing was written", folder)
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return "", err
	}
	title := strings.ToUpper(name[:1]) + strings.ReplaceAll(name[1:], "-", " ")
	md := "---\nname: " + name + "\n" +
		"description: What " + name + " does, and when an agent should use it. Agents read this line to choose a skill; say both in a sentence or two.\n" +
		"---\n\n# " + title + "\n\n" +
		"Write the steps an agent follows, the files of this folder it should read (link each\n" +
		"by its path in the folder), and how it checks its work.\n"
	path = filepath.Join(folder, catalog.SkillMD)
	return path, os.WriteFile(path, []byte(md), 0o644)
}
