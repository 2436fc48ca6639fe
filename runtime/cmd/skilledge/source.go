package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/runtime/store"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// The files of a built catalog, in OUT (skilledge build) and in the build cache.
const (
	indexFile = "catalog.pack" // the index
	assetsDir = "assets"       // the content store is assetsDir/catalog.StoreDir
)

// source is a catalog ready to serve: its index, opened, and its content store.
type source struct {
	index []byte
	pack  *catalog.Pack
	store *store.Dir
}

func (s *source) catalog() wasm.Catalog {
	return wasm.Catalog{Index: s.index, Store: s.store, Pack: s.pack}
}

// isBuilt reports whether dir is the output of skilledge build: it holds catalog.pack.
func isBuilt(dir string) bool {
	if dir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, indexFile))
	return err == nil && fi.Mode().IsRegular()
}

// openSource returns the catalog serve and stdio answer from for the folder argument dir:
// a built output folder (holding catalog.pack) as it is, without building anything;
// otherwise a skills folder, or the built-in examples for "", checked (problems printed)
// and built into the build cache, or the previous build reused when nothing changed. ok
// is false after printing why not on stderr.
func openSource(name, dir string, f catalogFlags, stderr io.Writer) (_ *source, ok bool) {
	if isBuilt(dir) {
		if f != (catalogFlags{}) {
			fmt.Fprintf(stderr, "skilledge %s: %s is a built catalog (it holds %s): --skip-invalid, --allow-oversize and --trust-root apply when building it, with skilledge build\n", name, dir, indexFile)
			return nil, false
		}
		src, err := openBuilt(filepath.Join(dir, indexFile), filepath.Join(dir, assetsDir))
		if err != nil {
			fmt.Fprintf(stderr, "skilledge %s: %s\n", name, advised(err))
			return nil, false
		}
		return src, true
	}
	l, ok := checkedFolder(name, dir, f, stderr)
	if !ok {
		return nil, false
	}
	historyLine(stderr, l.catalog, false)
	label := dir
	if dir == "" {
		label = "the built-in examples"
	}
	indexPath, assets, err := cachedBuild(dir, l, f, label, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge %s: building the catalog: %s\n", name, advised(err))
		return nil, false
	}
	src, err := openBuilt(indexPath, assets)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge %s: %s\n", name, advised(err))
		return nil, false
	}
	return src, true
}

// readIndex reads and opens the index at indexPath; an index that does not open is an
// error naming the file.
func readIndex(indexPath string) ([]byte, *catalog.Pack, error) {
	b, err := os.ReadFile(indexPath)
	if err != nil {
		return nil, nil, err
	}
	p, err := catalog.Open(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", indexPath, err)
	}
	return b, p, nil
}

// openBuilt reads the index at indexPath and opens the store in assets.
func openBuilt(indexPath, assets string) (*source, error) {
	b, p, err := readIndex(indexPath)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(assets)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no content store (%s): copy the whole output of skilledge build, or rebuild it", filepath.Dir(indexPath), filepath.Join(assets, catalog.StoreDir))
	} else if err != nil {
		return nil, err
	}
	return &source{index: b, pack: p, store: st}, nil
}
