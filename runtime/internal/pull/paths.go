package pull

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// The name and digest rules are the verifier's.
var (
	validName   = verify.ValidName
	validDigest = catalog.IsDigest
	digestOf    = verify.DigestOf
)

// pathProblem returns why p may not be a file's path inside a skill folder, or "": it must
// be a relative, "/"-separated path of non-empty segments, none "." or "..", with no
// backslash, colon, NUL or other control character, valid UTF-8, and at most 1024 bytes,
// and no segment Windows cannot hold (catalog.WindowsNameProblem: a reserved device name
// such as CON or aux.txt, a name ending in a dot or a space). These are the paths that
// mean the same file on Linux, macOS and Windows.
func pathProblem(p string) string {
	switch {
	case p == "":
		return "empty path"
	case len(p) > 1024:
		return "path over 1024 bytes"
	case !utf8.ValidString(p):
		return "not valid UTF-8"
	case strings.HasPrefix(p, "/"):
		return "absolute path"
	case strings.ContainsAny(p, "\\:"):
		return "backslash or colon in the path"
	case strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return "control character in the path"
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "":
			return "empty segment in the path"
		case ".", "..":
			return "\".\" or \"..\" segment in the path"
		}
		if why := catalog.WindowsNameProblem(seg); why != "" {
			return fmt.Sprintf("%q %s", seg, why)
		}
	}
	return ""
}

// foldCollision returns two of paths that name one file on a case-insensitive or
// normalizing file system (Windows, macOS: archive.FileKey), or "", "". lockedOf refuses
// a skill that has two.
//
// Why are file names that fold or normalize to one name refused, not renamed? Windows and
// macOS (by default) store README.md and readme.md, or an NFC and an NFD café.md, as one
// file: writing both would leave one, and which one depends on the order of writes. The
// key is the compiler's (archive.FileKey: NFD, then case folding, as catalog/compile
// compares sibling names), so a catalog `validate` warns about is the one pull refuses.
// Rejected: renaming one of them, which breaks every reference to it inside the skill.
func foldCollision(paths []string) (string, string) {
	seen := make(map[string]string, len(paths))
	for _, p := range paths {
		k := archive.FileKey(p)
		if q, ok := seen[k]; ok {
			return q, p
		}
		seen[k] = p
	}
	return "", ""
}

// underPaths reports whether the skill path p is one of prefixes or under one of them,
// segment by segment; every path is when there are none.
func underPaths(p string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, x := range prefixes {
		if p == x || strings.HasPrefix(p, x+"/") {
			return true
		}
	}
	return false
}

// cleanPaths checks --path values and returns them without a trailing "/".
func cleanPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		q := strings.TrimSuffix(p, "/")
		if why := pathProblem(q); why != "" {
			return nil, usageErrorf("--path %q: %s", p, why)
		}
		out = append(out, q)
	}
	return out, nil
}
