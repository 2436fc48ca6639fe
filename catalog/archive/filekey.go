package archive

import "github.com/skilledge/skilledge/catalog/internal/unicodex"

// FileKey is the key under which a case-insensitive or normalizing file system (Windows,
// macOS by default) stores the path p: its NFD form, case-folded, as the compiler compares
// sibling names. Two paths with one key are one file there (what the compiler warns of, and
// what a client writing a skill's files to disk must refuse).
//
// Why does it live here, not in catalog/compile? Because pull refuses such names as it
// writes an archive's files, and pull must not link the compiler (its YAML resolver and
// encoder) for nine lines; archive is what both the compiler and pull link already.
func FileKey(p string) string { return unicodex.FoldCase(unicodex.NFD(p)) }
