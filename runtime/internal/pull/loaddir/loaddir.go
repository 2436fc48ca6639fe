// Package loaddir reads a skills folder for pull as `skilledge build` reads one: Load is
// the pull.FolderLoader the CLI gives pull (pull.Options.LoadFolder), on compile.LoadDir,
// so that pull itself never links the compiler.
package loaddir

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/internal/pull"
)

// Load loads the skills folder dir by the compiler's rules, each invalid skill left out
// (compile.Options.SkipInvalid) and said in a line of skipped, its path relative to dir.
// A skill's files are read when pull asks for them.
func Load(dir string) (skills []pull.FolderSkill, skipped []string, err error) {
	cat, problems, err := compile.LoadDir(dir, compile.Options{SkipInvalid: true})
	if err != nil {
		return nil, nil, err
	}
	for _, p := range problems {
		if p.Skipped {
			skipped = append(skipped, strings.TrimPrefix(p.String(), dir+string(filepath.Separator)))
		}
	}
	for _, s := range cat.Skills {
		skills = append(skills, pull.FolderSkill{
			Name: s.Name, Path: s.Path, Manifest: compile.ManifestDigest(s), Version: compile.FrontmatterVersion(s.Files[0].Data),
			Files: func() ([]archive.File, error) { return skillFiles(s) },
		})
	}
	return skills, skipped, nil
}

// skillFiles reads the files of s, named relative to its folder.
func skillFiles(s *compile.Skill) ([]archive.File, error) {
	files := make([]archive.File, 0, len(s.Files))
	for _, f := range s.Files {
		data := f.Data
		if data == nil {
			r, err := f.Open()
			if err != nil {
				return nil, err
			}
			data, err = io.ReadAll(r)
			r.Close()
			if err != nil {
				return nil, err
			}
		}
		files = append(files, archive.File{Name: strings.TrimPrefix(f.Path, s.Path+"/"), Data: data, Exec: f.Exec})
	}
	return files, nil
}
