package compile

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/skilledge/skilledge/catalog"
)

// Directory and file names that are version-control or operating-system clutter. They are
// skipped silently wherever they are: they are never part of a skill.
var (
	clutterDirs  = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true, "__MACOSX": true}
	clutterFiles = map[string]bool{".DS_Store": true, "Thumbs.db": true, "desktop.ini": true}
)

func isClutterFile(name string) bool {
	return clutterFiles[name] || strings.HasPrefix(name, "._")
}

// Ignored reports whether Load skips a directory (dir) or file named name wherever it is,
// as version-control or operating-system clutter: a watcher of the folder need not look
// into it.
func Ignored(name string, dir bool) bool {
	if dir {
		return clutterDirs[name]
	}
	return isClutterFile(name)
}

// checkSegment returns why a file or directory name inside a skill cannot be served as a
// segment of a skill:// URI, or "". See PROTOCOL.md#uris: paths never hold "..", ".", empty
// segments, backslashes or control characters.
func checkSegment(seg string) string {
	if seg == "" || seg == "." || seg == ".." {
		return "is not a usable name"
	}
	return catalog.NameProblem(seg)
}

// checkPrefixSegment returns why a directory name in a skill's path before the skill's own
// directory cannot serve as a URI path segment, or "". Such segments appear unescaped in
// skill:// URIs and in the well-known HTTP indexes.
func checkPrefixSegment(seg string) string {
	if why := checkSegment(seg); why != "" {
		return why
	}
	if i := strings.IndexAny(seg, "/?#%"); i >= 0 {
		return fmt.Sprintf("contains %q", seg[i])
	}
	if strings.IndexFunc(seg, unicode.IsSpace) >= 0 {
		return "contains whitespace"
	}
	return ""
}

// checkAuthority returns why the first segment of a skill path, which is the authority of
// its skill:// URIs, is not a good RFC 3986 reg-name, or "".
// See https://www.rfc-editor.org/rfc/rfc3986#section-3.2.2.
func checkAuthority(seg string) string {
	for _, r := range seg {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune("-._~!$&'()*+,;=", r):
		case r >= 'A' && r <= 'Z':
			return "has uppercase letters, and URI authorities are case-insensitive: clients may lowercase it"
		default:
			return fmt.Sprintf("is not an RFC 3986 reg-name (it contains %q), and it sits in the authority of skill:// URIs", r)
		}
	}
	return ""
}

// windowsProblem returns why seg cannot be a file or directory name on Windows, or "":
// a reserved device name (CON, PRN, AUX, NUL, COM0–9, LPT0–9 and their superscript-digit
// forms, in any case, with or without an extension: "con", "LPT1.md"), a character
// Windows forbids in names, or a trailing dot or space, which Windows drops. Such a file
// is served here, but archives of its skill do not unpack there, and a checkout of the
// folder fails. See https://learn.microsoft.com/windows/win32/fileio/naming-a-file.
func windowsProblem(seg string) string {
	if i := strings.IndexAny(seg, `<>:"|?*`); i >= 0 {
		return fmt.Sprintf("contains %q, which Windows does not allow in file names", seg[i])
	}
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return "ends in a dot or a space, which Windows drops from file names"
	}
	stem, _, _ := strings.Cut(seg, ".")
	stem = strings.TrimRight(stem, " ")
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL":
		return "is a device name reserved on Windows"
	}
	if len(stem) >= 4 {
		prefix, digit := strings.ToUpper(stem[:3]), stem[3:]
		if (prefix == "COM" || prefix == "LPT") && (len(digit) == 1 && digit[0] >= '0' && digit[0] <= '9' || digit == "¹" || digit == "²" || digit == "³") {
			return "is a device name reserved on Windows"
		}
	}
	return ""
}
