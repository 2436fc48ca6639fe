package serving

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

// The files of a built catalog, in OUT (Build) and in the build cache.
const (
	IndexFile = "catalog.pack" // the index
	AssetsDir = "assets"       // the content store is AssetsDir/catalog.StoreDir
	PacksDir  = "packs"        // and its packs, if any, PacksDir/catalog.StoreDir (catalog/packs.go)
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

// IsBuilt reports whether dir is the output of Build (skilledge build): it holds
// catalog.pack.
func IsBuilt(dir string) bool {
	if dir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, IndexFile))
	return err == nil && fi.Mode().IsRegular()
}

// openSource returns the catalog to serve for the folder argument dir: a built output
// folder (IsBuilt) as it is, without building anything; otherwise a skills folder, or
// the built-in examples for "", checked (Check: problems printed on log) and built into
// the build cache under cacheDir, or the previous build reused when nothing changed.
func openSource(dir string, opt BuildOptions, cacheDir string, log io.Writer) (*source, error) {
	if IsBuilt(dir) {
		return openBuilt(filepath.Join(dir, IndexFile), filepath.Join(dir, AssetsDir))
	}
	f, err := Check(dir, opt, log)
	if err != nil {
		return nil, err
	}
	VersionsLine(log, f.Catalog, false)
	indexPath, assets, err := cachedBuild(cacheDir, f, opt, log)
	if err != nil {
		return nil, fmt.Errorf("building the catalog: %w", err)
	}
	return openBuilt(indexPath, assets)
}

// readIndex reads and opens the index at indexPath; an index that does not open is an
// error naming the file. A sharded index reads its shards from the store in assets when
// asked (the store's check reads each once), and keeps none of them long.
func readIndex(indexPath, assets string) ([]byte, *catalog.Pack, error) {
	b, err := os.ReadFile(indexPath)
	if err != nil {
		return nil, nil, err
	}
	p, err := catalog.OpenWith(b, func(r catalog.Ref) ([]byte, error) {
		return os.ReadFile(filepath.Join(assets, catalog.StoreDir, r.Name))
	}, hostShardBudget)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", indexPath, err)
	}
	return b, p, nil
}

// hostShardBudget bounds the shards a host's own reading of a sharded index keeps: it
// reads counts and checks, never answers.
const hostShardBudget = 8 << 20

// openBuilt reads the index at indexPath and opens the store in assets.
func openBuilt(indexPath, assets string) (*source, error) {
	b, p, err := readIndex(indexPath, assets)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(assets, filepath.Join(filepath.Dir(assets), PacksDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no content store (%s): copy the whole output of skilledge build, or rebuild it", filepath.Dir(indexPath), filepath.Join(assets, catalog.StoreDir))
	} else if err != nil {
		return nil, err
	}
	return &source{index: b, pack: p, store: st}, nil
}
