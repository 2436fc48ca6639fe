package pull

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// lockedOf checks the files of a fetched skill as paths of the local file system and
// makes its lock entry.
func lockedOf(source string, f verify.Fetched) (LockedSkill, error) {
	var paths []string
	ls := LockedSkill{Name: f.Name, Named: f.Named, Source: source, Path: f.Path, URL: f.URL, Artifact: f.Digest, Commit: f.Commit}
	if f.Kind == verify.DigestUnpublished {
		// The source published no digest: claim none (Manifest and Files are what was
		// downloaded).
		ls.Artifact, ls.Unverified = "", true
	}
	for _, file := range f.Files {
		if why := pathProblem(file.Name); why != "" {
			return ls, fmt.Errorf("%s: %s: file %q refused: %s", f.Name, f.URL, file.Name, why)
		}
		paths = append(paths, file.Name)
		ls.Files = append(ls.Files, LockedFile{Path: file.Name, Digest: digestOf(file.Data), Size: int64(len(file.Data)), Exec: file.Exec, ETag: f.ETags[file.Name]})
		if file.Name == "SKILL.md" {
			ls.Version = frontmatterVersion(file.Data)
		}
	}
	if a, b := foldCollision(paths); a != "" {
		return ls, fmt.Errorf("%s: %s: files %q and %q are one file where case is folded or Unicode normalized (Windows, macOS): refused", f.Name, f.URL, a, b)
	}
	// A file that is also a directory's prefix ("a" and "a/b") cannot be written.
	sort.Strings(paths)
	for i := 1; i < len(paths); i++ {
		if strings.HasPrefix(paths[i], paths[i-1]+"/") {
			return ls, fmt.Errorf("%s: %s: %q is both a file and a folder: refused", f.Name, f.URL, paths[i-1])
		}
	}
	ls.Files = sortedFiles(ls.Files)
	ls.Manifest = verify.ManifestDigest(f.Files)
	return ls, nil
}

// sameModes reports whether a and b give their files the same execute bits: the manifest
// digest covers names and bytes only, and a script that became one is an update.
func sameModes(a, b *LockedSkill) bool {
	exec := map[string]bool{}
	for _, f := range a.Files {
		exec[f.Path] = f.Exec
	}
	for _, f := range b.Files {
		if exec[f.Path] != f.Exec {
			return false
		}
	}
	return true
}

// frontmatterVersion is the "version" (or "metadata.version") of a SKILL.md's
// frontmatter, verify.Printable (it is shown, and it is the server's), or "".
func frontmatterVersion(b []byte) string {
	s := strings.TrimPrefix(string(b), "\ufeff")
	rest, ok := strings.CutPrefix(s, "---")
	if !ok {
		return ""
	}
	fm, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return ""
	}
	var v struct {
		Version  any `yaml:"version"`
		Metadata struct {
			Version any `yaml:"version"`
		} `yaml:"metadata"`
	}
	if yaml.Unmarshal([]byte(fm), &v) != nil {
		return ""
	}
	for _, x := range []any{v.Version, v.Metadata.Version} {
		if x != nil {
			return verify.Printable(fmt.Sprint(x))
		}
	}
	return ""
}
