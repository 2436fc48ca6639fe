package serving

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/internal/cachedir"
	"github.com/skilledge/skilledge/runtime/store"
)

// The build cache: serve and stdio build a skills folder into
//
//	<cache>/<folder key>/index-<fingerprint>.pack
//	<cache>/<folder key>/assets/sha256/<object>
//
// where <cache> is Options.Cache, by default <user cache>/skilledge/catalogs, and reuse
// that build when the folder has not changed. The folder key names the folder (its
// absolute path) and the build options; the fingerprint names the content (see
// buildFingerprint), so an index never changes once written and two processes serving the
// same folder at once (clients that launch a stdio server twice) share it safely. A build
// is reused only if its store still holds every object, with the right size; otherwise it
// is written again, which also replaces damaged objects. After a new build, indexes that
// no run has used for cacheKeep go, then every object no remaining index refers to.
//
// Why is a skills folder's build reused by a content fingerprint, and not by file times?
// serve DIR and stdio DIR load the folder anyway: every file is read, hashed and
// validated, which for a skills repository of some 11 MB takes tens of milliseconds
// (BENCHMARKS.md, "Why reuse a build by a content fingerprint"), and its problems are
// reported as validate reports them. The build is named by a fingerprint of exactly what
// the encoder reads (every file's path and SHA-256, the skill layout, the trust root),
// the build options and the SHA-256 of the skilledge executable (a new skilledge may
// encode differently), so a reused build is the one this run would write: an edit is
// never missed, even one that keeps the size and the modification time, and nothing else
// forces a rebuild. Modification times and inode numbers lie across checkouts, copies and
// touch; trusting them would save that time and risk serving stale contents. Indexes and
// objects no build has used for a week (cacheKeep) are removed, so that a long-running
// server on an older build keeps its objects; and an object goes only when no index this
// skilledge can read names it and no build has written or used it for a week (pruneCache),
// because two skilledge versions share the folder and an older one reads a newer index
// without the tables it does not know: by references alone it removed the newer build's
// catalog page (a 500 on / until the next start rebuilt it; seen while two versions ran
// side by side).
const cacheKeep = 7 * 24 * time.Hour

// cacheRoot is the build cache's directory: cache, or the user cache's when "".
func cacheRoot(cache string) string {
	if cache != "" {
		return cache
	}
	return cachedir.Dir("catalogs")
}

// cachedBuild returns the index and assets folder of the build of f in the build cache
// cache: the cached one when the cache holds a complete build of exactly this content,
// else a new one, written to the cache first. It says which on progress.
func cachedBuild(cache string, f *Folder, opt BuildOptions, progress io.Writer) (indexPath, assets string, err error) {
	fp, err := buildFingerprint(f.Catalog, opt)
	if err != nil {
		return "", "", err
	}
	label := f.label()
	root := filepath.Join(cacheRoot(cache), folderKey(f.Dir, opt))
	indexPath = filepath.Join(root, "index-"+fp+".pack")
	assets = filepath.Join(root, AssetsDir)
	if fi, err := os.Stat(indexPath); err == nil && fi.Mode().IsRegular() {
		err := checkBuild(indexPath, assets)
		if err == nil {
			now := time.Now()
			os.Chtimes(indexPath, now, now) // used: keep it (and its objects) from pruning
			fmt.Fprintf(progress, "skilledge: reusing the build of %s from %s: no file has changed\n", label, fi.ModTime().Format("2006-01-02 15:04"))
			return indexPath, assets, nil
		}
		fmt.Fprintf(progress, "skilledge: the cached build of %s is incomplete (%v); building it again\n", label, err)
	}
	if err := privateDir(root); err != nil {
		return "", "", err
	}
	// Objects first, written into the store as they are made, then the index that names
	// them: a reader that finds the index finds its objects. An index that build would shard
	// is sharded here too, so that an instance holds its root and ShardBudget of shards
	// however large the catalog (its objects are never packed: a folder has no file limit).
	enc, err := encode(f.Catalog, assets, label, compile.EncodeOptions{ShardBytes: shardBytes(f.Catalog, DeployOptions{})}, progress)
	if err != nil {
		return "", "", err
	}
	if err := compile.WriteFileAtomic(indexPath, enc.Index); err != nil {
		return "", "", err
	}
	pruneCache(root, indexPath)
	return indexPath, assets, nil
}

// checkBuild verifies that the store in assets holds the objects the index at indexPath
// refers to (store.Dir.CheckPresent: of a sharded index, those its root names and its
// parts, so that reusing the build of 50,000 skills does not read its whole index).
func checkBuild(indexPath, assets string) error {
	_, p, err := readIndex(indexPath, assets)
	if err != nil {
		return err
	}
	st, err := store.Open(assets)
	if err != nil {
		return err
	}
	return st.CheckPresent(p)
}

// pruneCache removes the indexes of root other than current that no run has used for
// cacheKeep, then the objects no remaining index refers to. A server still running on an
// index removed that way (one started more than cacheKeep ago, whose folder has been built
// again since) would lose the objects it has not loaded yet; restarting it rebuilds them.
func pruneCache(root, current string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if !strings.HasPrefix(e.Name(), "index-") || !strings.HasSuffix(e.Name(), ".pack") {
			continue
		}
		if info, err := e.Info(); err == nil && p != current && time.Since(info.ModTime()) > cacheKeep {
			os.Remove(p)
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return // keep every object rather than guess
		}
		idx, err := catalog.OpenWith(b, func(r catalog.Ref) ([]byte, error) {
			return os.ReadFile(filepath.Join(root, AssetsDir, catalog.StoreDir, r.Name))
		}, hostShardBudget)
		if err != nil {
			continue // not an index this skilledge reads: its objects are not kept for it
		}
		for _, o := range idx.Objects() {
			keep[o.Name] = true
		}
	}
	compile.PruneDir(filepath.Join(root, AssetsDir), keep, time.Now().Add(-cacheKeep))
}

// privateDir makes dir (and its parents) if missing, readable only by this user, and
// fails unless it is a directory this user owns that no one else may write: a build in a
// folder someone else controls could be swapped for theirs.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm()&0o022 != 0 {
		return errors.New("the build cache " + dir + " is not a private directory of this user; remove it, or set XDG_CACHE_HOME")
	}
	return nil
}

// folderKey names the cache folder of dir built with opt.
func folderKey(dir string, opt BuildOptions) string {
	abs := "examples"
	if dir != "" {
		if a, err := filepath.Abs(dir); err == nil {
			abs = a
		} else {
			abs = dir
		}
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%q %t %t %q", abs, opt.SkipInvalid, opt.AllowOversize, opt.TrustRoot)))
	return hex.EncodeToString(sum[:8])
}

// buildFingerprint names the build of c: the catalog's content fingerprint (every file's
// path and SHA-256, which Load computed from the bytes it read, and the trust root), the
// build options, and the skilledge program itself (a new skilledge may encode differently).
func buildFingerprint(c *compile.Catalog, opt BuildOptions) (string, error) {
	self, err := selfDigest()
	if err != nil {
		return "", err
	}
	content := c.Fingerprint()
	sum := sha256.Sum256(fmt.Appendf(nil, "%x %x %t %t", content, self, opt.SkipInvalid, opt.AllowOversize))
	return hex.EncodeToString(sum[:16]), nil
}

// selfDigest is the SHA-256 of this program's executable, read once per process.
var selfDigest = sync.OnceValues(func() ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program's executable: %w", err)
	}
	fh, err := os.Open(exe)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
})
