package pull

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/skilledge/skilledge/catalog/archive"
)

// folderState is the skills folder as a plan sees it: for each locked skill, where its
// folder differs from what the lock says (LocalChanges), read once per plan.
type folderState struct {
	dir     string
	changed map[string][]string // by skill name
}

func newFolderState(dir string) *folderState {
	return &folderState{dir: dir, changed: map[string][]string{}}
}

// changes is LocalChanges of the locked skill l, read the first time it is asked for.
// Why read once? Because deciding what to download, then what to write, then what to
// refuse each asks, and a skill's files are read and hashed whole.
func (f *folderState) changes(l *LockedSkill) []string {
	ch, ok := f.changed[l.Name]
	if !ok {
		ch = LocalChanges(f.dir, l)
		f.changed[l.Name] = ch
	}
	return ch
}

// LocalChanges returns the paths, relative to the skill's folder and "/"-separated, at
// which DIR/NAME differs from what the lock says: a file missing, changed, or added, or
// anything that is not a regular file or folder. A missing skill folder is one change,
// ".". nil when the folder is exactly as pulled. A file whose execute bit the lock does not
// say (a chmod +x, or -x) is a change too.
func LocalChanges(dir string, l *LockedSkill) []string {
	root := filepath.Join(dir, l.Name)
	if fi, err := os.Lstat(root); err != nil || !fi.IsDir() {
		return []string{"."}
	}
	want := make(map[string]LockedFile, len(l.Files))
	for _, f := range l.Files {
		want[f.Path] = f
	}
	var changed []string
	seen := map[string]bool{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			changed = append(changed, rel)
			return nil
		}
		if d.IsDir() {
			return nil
		}
		f, ok := want[rel]
		if !ok || !d.Type().IsRegular() {
			changed = append(changed, rel)
			return nil
		}
		seen[rel] = true
		b, err := os.ReadFile(p)
		info, ierr := d.Info()
		if err != nil || ierr != nil || int64(len(b)) != f.Size || digestOf(b) != f.Digest || executable(info.Mode()) != f.Exec {
			changed = append(changed, rel)
		}
		return nil
	})
	for p := range want {
		if !seen[p] && !slices.Contains(changed, p) {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed
}

// missing reports whether changes say the skill's folder is gone.
func missing(changes []string) bool { return len(changes) == 1 && changes[0] == "." }

// inFolder is files of the skill name, relative to its folder, as paths under dir.
func inFolder(dir, name string, files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Join(dir, name, filepath.FromSlash(f))
	}
	return out
}

// writeTemp writes files into a new temporary folder in DIR (".skilledge-pull-NAME-…")
// and returns it and the bytes written; on failure it is removed.
func writeTemp(dir, name string, files []archive.File) (_ string, n int64, err error) {
	tmp, err := os.MkdirTemp(dir, ".skilledge-pull-"+name+"-")
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	for _, f := range files {
		if why := pathProblem(f.Name); why != "" {
			return "", 0, fmt.Errorf("%s: file %q refused: %s", name, f.Name, why)
		}
		p := filepath.Join(tmp, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", 0, err
		}
		mode := os.FileMode(0o644)
		if f.Exec {
			mode = 0o755 // a script, as the archive says; never a set-id or other bit
		}
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return "", 0, err
		}
		_, werr := w.Write(f.Data)
		if cerr := w.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", 0, werr
		}
		n += int64(len(f.Data))
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", 0, err
	}
	return tmp, n, nil
}

// swapIn renames the folder tmp (in DIR) into place as DIR/NAME, exchanged with the old
// folder where the system can, so the skill is always either all old or all new; the old
// one is then removed.
//
// Why is a skill replaced by exchanging folders, not file by file? Each skill is written
// to a temporary folder inside DIR as it verifies (writeTemp; inside DIR, so that the
// rename stays on one file system) and, when the plan is applied, exchanged with the
// installed one in one step (renameat2 with RENAME_EXCHANGE on Linux), so an agent reading
// the folder, or a pull interrupted, sees the old skill or the new one, never a mix. Where
// the exchange is not available (another system, or a file system that cannot), two
// renames leave the skill briefly absent, never mixed (exchangeByRenames). Rejected:
// overwriting files in place, which mixes versions on interruption and leaves removed
// files behind.
func swapIn(dir, name, tmp string) error {
	final := filepath.Join(dir, name)
	if _, err := os.Lstat(final); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, final)
	}
	if err := exchange(tmp, final); err != nil {
		return fmt.Errorf("replacing %s: %w", final, err)
	}
	// tmp now holds the old skill.
	return os.RemoveAll(tmp)
}

// removeSkill removes DIR/NAME: renamed away first, so that it is gone at once.
func removeSkill(dir, name string) error {
	tmp, err := os.MkdirTemp(dir, ".skilledge-pull-"+name+"-")
	if err != nil {
		return err
	}
	gone := filepath.Join(tmp, name)
	if err := os.Rename(filepath.Join(dir, name), gone); err != nil && !errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(tmp)
		return err
	}
	return os.RemoveAll(tmp)
}

// writeLock writes DIR/skills.lock atomically (a temporary file renamed over it).
func writeLock(dir string, l *Lock) error {
	f, err := os.CreateTemp(dir, "."+LockName+"-")
	if err != nil {
		return err
	}
	_, werr := f.Write(l.Marshal())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), filepath.Join(dir, LockName))
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// executable reports whether the owner may execute a file of mode m: the bit pull sets
// for a script (0755), whatever the umask left of the others.
func executable(m fs.FileMode) bool { return m.Perm()&0o100 != 0 }
