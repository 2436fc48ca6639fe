package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
)

// LockFile is the file beside the policy file that holds the commit each source resolved
// to.
const LockFile = "sources.lock"

// lockVersion is the version of the lock's format this package writes and reads.
const lockVersion = 1

// maxLockBytes bounds the lock read: a line or two a source.
const maxLockBytes = 4 << 20

// Lock is sources.lock: each source as configured when it was resolved, and the commit (a
// git source) or the digest (a remote catalog, catalogDigest) it resolved to. A build uses
// it while the source's configuration is the one locked.
type Lock struct {
	LockVersion int      `json:"lockVersion"`
	Sources     []Locked `json:"sources"`
}

// Locked is one source of the lock.
type Locked struct {
	Path    string   `json:"path"`
	Git     string   `json:"git,omitempty"`
	Ref     string   `json:"ref,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	Commit  string   `json:"commit,omitempty"`
	Catalog string   `json:"catalog,omitempty"`
	Skills  []string `json:"skills,omitempty"`
	Digest  string   `json:"digest,omitempty"`
}

// At names what l locked, short: a commit's first 12 digits, or a catalog's digest's.
func (l Locked) At() string { return short(l.Commit, l.Digest) }

// short is commit's first 12 digits, or, without one, digest's first 12.
func short(commit, digest string) string {
	if commit != "" {
		return commit[:min(12, len(commit))]
	}
	return digest[:min(19, len(digest))]
}

// matches reports whether l was locked for the source s as configured now.
func (l Locked) matches(s compile.Source) bool {
	return l.Path == s.Path && l.Git == s.Git && l.Ref == s.Ref && l.Dir == s.Dir &&
		l.Catalog == s.Catalog && slices.Equal(l.Skills, s.Skills) &&
		(!catalog.IsCommitName(s.Ref) || l.Commit == s.Ref) // a commit's lock names that commit
}

// Locked returns the entry locked for the source at path p.
func (l *Lock) Locked(p string) (Locked, bool) {
	for _, e := range l.Sources {
		if e.Path == p {
			return e, true
		}
	}
	return Locked{}, false
}

// ReadLock reads dir's sources.lock; an empty lock when there is none. A lock that is not
// what this package writes is an error saying where.
func ReadLock(dir string) (*Lock, error) {
	name := filepath.Join(dir, LockFile)
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{LockVersion: lockVersion}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) > maxLockBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxLockBytes)
	}
	return parseLock(b, name)
}

// parseLock reads the lock b, the file name says.
func parseLock(b []byte, name string) (*Lock, error) {
	var l Lock
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: not a sources lock (%v): delete it and build again to resolve every source afresh", name, err)
	}
	if l.LockVersion != lockVersion {
		return nil, fmt.Errorf("%s: lockVersion %d, and this skilledge reads %d", name, l.LockVersion, lockVersion)
	}
	for _, e := range l.Sources {
		git := e.Git != "" && catalog.IsCommitName(e.Commit) && e.Catalog == "" && e.Digest == ""
		cat := e.Catalog != "" && catalog.IsDigest(e.Digest) && e.Git == "" && e.Commit == ""
		if e.Path == "" || !git && !cat {
			return nil, fmt.Errorf("%s: the entry for %q is neither a path, a git URL and a full commit name nor a path, a catalog URL and a digest", name, e.Path)
		}
	}
	return &l, nil
}

// encode renders the lock as written: entries sorted by path, two-space indentation, a
// final newline; the same sources make the same bytes.
func (l *Lock) encode() []byte {
	out := Lock{LockVersion: lockVersion, Sources: slices.Clone(l.Sources)}
	if out.Sources == nil {
		out.Sources = []Locked{}
	}
	slices.SortFunc(out.Sources, func(a, b Locked) int { return strings.Compare(a.Path, b.Path) })
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}

// write writes the lock to dir atomically (a file beside it, renamed over it), unless it
// holds those bytes already; it reports whether it wrote.
func (l *Lock) write(dir string) (bool, error) {
	name := filepath.Join(dir, LockFile)
	b := l.encode()
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, b) {
		return false, nil
	}
	tmp, err := os.CreateTemp(dir, "."+LockFile+".*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	return true, os.Rename(tmp.Name(), name)
}
