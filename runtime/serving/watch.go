package serving

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/versions"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/internal/words"
	"github.com/skilledge/skilledge/runtime/store"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// How --watch looks at the folder: a walk of it every watchInterval, and once something
// changed, another every watchQuiet until two in a row agree (the editor or git has
// finished writing), then a rebuild. Tests shorten them.
//
// Why does `--watch` poll the folder instead of using inotify (fsnotify)? The main
// module's dependencies are fixed (gjson, yaml.v3, go-pdk, wazero), and fsnotify would be
// one more; writing inotify, kqueue and ReadDirectoryChangesW by hand would be three
// platform files for one feature. Polling also sees what event APIs miss: network and
// container mounts, editors that save by renaming over the file, directories created with
// their contents in one step; and it needs no watch per directory (inotify's per-user
// limit). The cost is a walk of the folder with one stat per file, twice a second, reading
// nothing (snapshot); waiting until two walks a quarter of a second apart agree makes an
// editor's or git's burst of writes one rebuild. The rebuild reads and hashes every file,
// as on start, through the build cache, so a change of times alone ends in "no skill
// changed" and no swap. Directory times are left out of the walk: they change when clutter
// (.git, .DS_Store) is written, which Load ignores anyway.
var (
	watchInterval = 500 * time.Millisecond
	watchQuiet    = 250 * time.Millisecond
)

// watcher rebuilds a skills folder when it changes and swaps the new catalog into a
// running server (Server.Watch: serve --watch, stdio --watch).
type watcher struct {
	opt    Options // the folder (Dir), how it is built, the pools' options, where to log
	plugin *wasm.Plugin
	srv    *front.Server
	// served is the digest of the catalog being served (catalog.Pack.Digest).
	served string
	// store is the content store of the catalog served: the build cache's folder for the
	// folder and its build options (folderKey), which every rebuild writes into, so the
	// pools it makes share it, and the objects it has loaded, instead of opening it again
	// each time.
	store *store.Dir
	// first is the folder's snapshot taken before the served catalog was built, so that
	// an edit made while the server started is seen.
	first [32]byte
}

// run watches until ctx ends. Each change of the folder's files (their names, types,
// sizes, modification and, where the system has them, change times), and, when it keeps
// versions, each commit (gitSnapshot), is checked and built
// as on start: problems are reported as validate does, a folder with invalid skills
// keeps the previous catalog in service, a catalog equal to the one served changes
// nothing, and any other is swapped in atomically, after which every stdio connection gets
// notifications/skills/list_changed and notifications/resources/list_changed.
func (w *watcher) run(ctx context.Context) {
	last := w.first
	for {
		if !sleep(ctx, watchInterval) {
			return
		}
		cur := snapshot(w.opt.Dir)
		if cur == last {
			continue
		}
		for { // debounce: wait for the writing to stop
			if !sleep(ctx, watchQuiet) {
				return
			}
			next := snapshot(w.opt.Dir)
			if next == cur {
				break
			}
			cur = next
		}
		last = cur
		w.rebuild(ctx)
	}
}

// rebuild checks and builds the folder and swaps the result in, unless it is invalid or
// the same catalog.
//
// Why does `--watch` keep the previous catalog on an invalid edit, and swap whole pools? A
// half-typed SKILL.md is normal while writing; serving a catalog without that skill, or
// none, would make the client's list flicker at every keystroke. So the problems are
// printed as validate prints them and the last good catalog stays until the folder is
// valid again (with --skip-invalid, the valid skills are swapped in, as on start). A new
// catalog gets a new pool of instances of the plugin already compiled, and front.Server's
// Swap replaces the pool atomically: each request runs on one pool from start to end, so
// none sees half of each, and the old pool closes once its requests are done.
func (w *watcher) rebuild(ctx context.Context) {
	dir, name, log := w.opt.Dir, w.opt.Command, w.opt.Log
	fmt.Fprintf(log, "skilledge: %s changed; checking it\n", dir)
	f, err := Check(dir, w.opt.Build, log)
	if err != nil {
		fmt.Fprintf(log, "skilledge %s: %s\nskilledge: still serving the previous catalog\n", name, w.opt.Advise(err))
		return
	}
	indexPath, assets, err := cachedBuild(w.opt.Cache, f, w.opt.Build, log) // into w.store's folder
	if err != nil {
		fmt.Fprintf(log, "skilledge %s: building the catalog: %v; still serving the previous one\n", name, err)
		return
	}
	index, pack, err := readIndex(indexPath, assets)
	if err != nil {
		fmt.Fprintf(log, "skilledge %s: %v; still serving the previous catalog\n", name, err)
		return
	}
	src := &source{index: index, pack: pack, store: w.store}
	if src.pack.Digest() == w.served {
		fmt.Fprintln(log, "skilledge: no skill changed; the catalog served stays")
		return
	}
	pool, err := w.plugin.NewPool(ctx, src.catalog(), w.opt.Pool)
	if err != nil {
		fmt.Fprintf(log, "skilledge %s: %s; still serving the previous catalog\n", name, w.opt.Advise(err))
		return
	}
	w.srv.Swap(pool)
	w.served = src.pack.Digest()
	n := w.srv.Notify(wire.ListChangedNotifications(w.opt.Pool.Server)...)
	fmt.Fprintf(log, "skilledge: now serving %s (%s)%s\n", words.Plural(src.pack.NumSkills(), "skill"), words.Plural(src.pack.NumFiles(), "file"), notified(name, n))
}

// notified says, for the log, whether stdio connections were told of the change. HTTP has
// no stream to send notifications on: its clients see the change when they next ask.
func notified(cmd string, n int) string {
	if cmd == "stdio" && n > 0 {
		return "; sent the list_changed notifications"
	}
	return ""
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// snapshot summarises the state of the files under dir that Load would read: every
// directory's path, every other entry's path, type, size and times (statTimes), without
// reading any contents; clutter that Load skips is not visited. Equal snapshots mean nothing was seen to change; the
// rebuild then compares contents, so a snapshot that changes needlessly costs a check,
// never a wrong catalog. Reading errors are part of the snapshot.
func snapshot(dir string) [32]byte {
	h := sha256.New()
	// The loader follows a folder given as a link; the walk must too (WalkDir does not
	// descend into a linked root), and a link pointed elsewhere is a change.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		fmt.Fprintf(h, "root %q\n", real)
		dir = real
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%q error %v\n", p, err)
			return nil
		}
		if p != dir && compile.Ignored(d.Name(), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			// A directory's times change with its entries, clutter included; the entries
			// that count are in the snapshot themselves.
			fmt.Fprintf(h, "%q dir\n", p)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			fmt.Fprintf(h, "%q gone %v\n", p, err)
			return nil
		}
		fmt.Fprintf(h, "%q %v %d %d %s\n", p, info.Mode(), info.Size(), info.ModTime().UnixNano(), statTimes(info))
		return nil
	})
	if err != nil {
		fmt.Fprintf(h, "walk %v\n", err)
	}
	gitSnapshot(h, dir)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// gitDirs caches, by skills folder, where its git history is kept (versions.GitDirs), so
// that a snapshot runs no git command after the first.
var gitDirs sync.Map // dir -> [2]string, empty when it is in no work tree

// gitSnapshot writes into h, for a skills folder whose policy keeps versions, the state of
// the refs of the git repository holding it: HEAD, its log, and the branches, so that a
// commit, which publishes versions without changing any file of the folder, is a change
// too. It reads no contents but HEAD's, and nothing for a folder that keeps no history.
func gitSnapshot(h io.Writer, dir string) {
	policy, err := os.ReadFile(filepath.Join(dir, compile.PolicyFile))
	if err != nil || !versionsLine.Match(policy) {
		return
	}
	v, ok := gitDirs.Load(dir)
	if !ok {
		g, c, err := versions.GitDirs(context.Background(), dir)
		if err != nil {
			g, c = "", ""
		}
		v, _ = gitDirs.LoadOrStore(dir, [2]string{g, c})
	}
	dirs := v.([2]string)
	if dirs[0] == "" {
		return
	}
	head, _ := os.ReadFile(filepath.Join(dirs[0], "HEAD"))
	fmt.Fprintf(h, "git HEAD %q\n", head)
	for _, p := range []string{filepath.Join(dirs[0], "logs", "HEAD"), filepath.Join(dirs[1], "packed-refs")} {
		if info, err := os.Stat(p); err == nil {
			fmt.Fprintf(h, "git %q %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		}
	}
	filepath.WalkDir(filepath.Join(dirs[1], "refs", "heads"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				fmt.Fprintf(h, "git %q %d %d\n", p, info.Size(), info.ModTime().UnixNano())
			}
		}
		return nil
	})
}

// versionsLine finds a versions section in a policy file.
var versionsLine = regexp.MustCompile(`(?m)^versions:`)
