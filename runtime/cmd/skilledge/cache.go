package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/skilledge/skilledge/catalog/build"
	skruntime "github.com/skilledge/skilledge/runtime"
)

// The build cache: serve and stdio build a skills folder into
//
//	<user cache>/skilledge/catalogs/<folder key>/index-<fingerprint>.pack
//	<user cache>/skilledge/catalogs/<folder key>/assets/sha256/<object>
//
// and reuse that build when the folder has not changed. The folder key names the folder
// (its absolute path) and the build flags; the fingerprint names the content (see
// buildFingerprint), so a build never changes once written and two processes serving the
// same folder at once (clients that launch a stdio server twice) share it safely. Objects
// and indexes that the current build does not use are removed once no build has used
// them for cacheKeep, so a long-running server on an older build keeps its objects.
const cacheKeep = 7 * 24 * time.Hour

// cacheRoot is the build cache's directory; tests point it elsewhere.
var cacheRoot = func() string { return skruntime.DefaultCacheDir("catalogs") }

// cachedBuild returns the index and assets folder of the build of l (from dir, "" for the
// examples): the cached one when the cache holds a build of exactly this content, else a
// new one, written to the cache first. It says which on progress.
func cachedBuild(dir string, l *loaded, f catalogFlags, label string, progress io.Writer) (indexPath, assets string, err error) {
	fp, err := buildFingerprint(l.catalog, f)
	if err != nil {
		return "", "", err
	}
	root := filepath.Join(cacheRoot(), folderKey(dir, f))
	indexPath = filepath.Join(root, "index-"+fp+".pack")
	assets = filepath.Join(root, assetsDir)
	if fi, err := os.Stat(indexPath); err == nil && fi.Mode().IsRegular() {
		fmt.Fprintf(progress, "skilledge: reusing the build of %s from %s: no file has changed\n", label, fi.ModTime().Format("2006-01-02 15:04"))
		return indexPath, assets, nil
	}
	enc := encode(l.catalog, label, progress)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", "", err
	}
	// Objects first, then the index that names them: a reader that finds the index finds
	// its objects.
	if err := enc.Store.WriteDir(assets, true, cacheKeep); err != nil {
		return "", "", err
	}
	if err := build.WriteFileAtomic(indexPath, enc.Index); err != nil {
		return "", "", err
	}
	pruneIndexes(root, indexPath)
	return indexPath, assets, nil
}

// pruneIndexes removes the cached indexes of root other than keep that no run has built
// for cacheKeep.
func pruneIndexes(root, keep string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if p == keep || !strings.HasPrefix(e.Name(), "index-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > cacheKeep {
			os.Remove(p)
		}
	}
}

// folderKey names the cache folder of dir built with f.
func folderKey(dir string, f catalogFlags) string {
	abs := "examples"
	if dir != "" {
		if a, err := filepath.Abs(dir); err == nil {
			abs = a
		} else {
			abs = dir
		}
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%q %t %t %q", abs, f.skipInvalid, f.allowOversize, f.trustRoot)))
	return hex.EncodeToString(sum[:8])
}

// buildFingerprint names the build of c: the catalog's content fingerprint (every file's
// path and SHA-256, which Load computed from the bytes it read, and the trust root), the
// build flags, and the skilledge program itself (a new skilledge may encode differently).
func buildFingerprint(c *build.Catalog, f catalogFlags) (string, error) {
	self, err := selfDigest()
	if err != nil {
		return "", err
	}
	content := c.Fingerprint()
	sum := sha256.Sum256(fmt.Appendf(nil, "%x %x %t %t", content, self, f.skipInvalid, f.allowOversize))
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
