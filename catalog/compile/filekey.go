package compile

import "github.com/skilledge/skilledge/catalog/internal/unicodex"

// FileKey is the key under which a case-insensitive or normalizing file system (Windows,
// macOS by default) stores the path p: its NFD form, case-folded, as the loader compares
// sibling names. Two paths with one key are one file there (what the loader warns of, and
// what a client writing a skill's files to disk must refuse).
func FileKey(p string) string { return unicodex.FoldCase(unicodex.NFD(p)) }
