package serving

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	deploy "github.com/skilledge/skilledge/build"
	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/runtime/internal/words"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// DeployOptions say which plugin Build ships.
type DeployOptions struct {
	// Plugin is the plugin.wasm file to ship; "" is the one pluginbuild.Module finds.
	Plugin string
	// WithAuth ships the full plugin, which checks credentials, for a catalog without an
	// access policy too (one with a policy always gets it); otherwise the public one.
	WithAuth bool
	// Shard says whether the index is sharded (catalog/compile's ShardBytes): ShardAuto
	// (the zero value), ShardAlways or ShardNever; ShardSize, when above 0, is about how
	// large each shard is (default ShardBytes).
	Shard     Shard
	ShardSize int
	// Pack says whether the store's objects are packed (catalog/compile's PackBytes), for
	// R2: PackAuto (the zero value), PackAlways or PackNever; PackSize, when above 0, is
	// about how large each pack is (default compile.PackMax).
	Pack     Pack
	PackSize int64
	// Sign, if not nil, signs each view's root (catalog/compile's Signer), and Build
	// writes what it signed to out/RootsFile, for the next build's Signer.Previous.
	Sign *compile.Signer
}

// RootsFile is the file of OUT where Build records the roots it signed: each view's
// sequence and payload digest, which the next build's --sign-previous reads so that its
// roots follow these. It is not deployed: a private catalog's views are named by their
// scopes there.
const RootsFile = "roots.json"

// Roots is RootsFile's content.
type Roots struct {
	Catalog string             `json:"catalog"`
	Roots   []compile.RootInfo `json:"roots"`
}

// Pack is DeployOptions.Pack.
type Pack string

const (
	PackAuto   Pack = ""       // pack the objects of a store of more files than the free plan's assets
	PackAlways Pack = "always" // pack the objects of any catalog that can be
	PackNever  Pack = "never"  // never: every object is an asset
)

// packBytes is the PackBytes of c's encoding under opt. Auto packs a catalog whose store
// would be more asset files than the free plan allows (estimated: a file is stored twice,
// its bytes and its resources/read form, and a skill's two archives twice too).
func packBytes(c *compile.Catalog, opt DeployOptions) int64 {
	size := int64(compile.PackMax)
	if opt.PackSize > 0 {
		size = opt.PackSize
	}
	files, _ := c.Size()
	switch {
	case opt.Pack == PackNever:
		return 0
	case opt.Pack == PackAlways || 2*files+4*len(c.Skills) > assetsFreeCount:
		return size
	}
	return 0
}

// Shard is DeployOptions.Shard.
type Shard string

const (
	ShardAuto   Shard = ""       // shard an index too large for the script of a Worker on the free plan
	ShardAlways Shard = "always" // shard any catalog that can be
	ShardNever  Shard = "never"  // never: the index travels whole in the script
)

// ShardBytes is about how large Build makes each shard of a sharded index.
//
// Why shards of 256 KiB? A request that reads a skill reads its shard whole: the Worker
// fetches it from its assets, the plugin hashes and opens it, and a first answer waits for
// that. Smaller shards cost more objects and more rounds for a listing's page (a page of
// 100 skills spans its shards); larger ones cost the first answer more. 256 KiB holds about
// 50 skills of real size and is read, checked and opened in a few milliseconds.
const ShardBytes = 256 << 10

// autoShardBytes is the estimated index above which ShardAuto shards: the index of a
// catalog that large would take more than the room the free plan leaves a Worker's script
// beside the plugin and host (about 1.4 MiB gzipped, at about five to one).
//
// Why does build shard on its own only past about 7 MiB of index? Below it the whole index
// fits the free plan beside the plugin, and a whole index needs no fetch for any answer:
// the anthropics-shaped catalog deploys as before, and 1,000 skills of a SKILL.md each
// (5 MiB of index, a 2.5 MiB script) stay whole. Above it, the script would pass the free
// plan's limit, and the paid plan's a little later: the cache-cold benchmark's 1,000
// skills of ten files (9.9 MiB of index, a 3.5 MiB script) are sharded.
const autoShardBytes = 7 << 20

// shardBytes is the compile.EncodeOptions.ShardBytes Build uses for c under opt.
func shardBytes(c *compile.Catalog, opt DeployOptions) int {
	size := ShardBytes
	if opt.ShardSize > 0 {
		size = opt.ShardSize
	}
	switch {
	case opt.Shard == ShardNever:
		return 0
	case opt.Shard == ShardAlways || compile.IndexEstimate(c) > autoShardBytes:
		return size
	}
	return 0
}

// Deployment is what Build wrote, for Report.
type Deployment struct {
	folder            *Folder
	pack              *catalog.Pack
	plugin            string // DeployOptions.Plugin
	variant           pluginbuild.Variant
	index, wasm, host artifact
	modules, entries  []artifact
	storeDir          string // OUT/assets/sha256/
	storeLen          int
	storeSize         int64
	packs             []string // the names of the packs, in OUT/packs/sha256/
	packsDir          string
	packsSize         int64
	roots             []compile.RootInfo // the roots signed, with sign, recorded in rootsFile
	rootsFile         string
	sign              *compile.Signer
}

// Build writes the deployment of the checked folder f into out (created if missing):
// out/catalog.pack, the content store in out/assets/sha256/, out/plugin.wasm (the public
// plugin unless the catalog has an access policy or opt.WithAuth), and the JavaScript
// host and its entries (build's entries.go). It says on progress what takes long. The
// store's objects are written as they are made (so that no large file is held in memory)
// into a staging folder beside out, or in it when it exists, and moved into place once
// the catalog is accepted: a catalog refused (ErrAssetSize: an object over the Workers
// asset limit) leaves nothing behind. Objects of earlier builds in out/assets go, so that
// the assets are exactly this catalog's. Everything is reproducible.
func Build(ctx context.Context, f *Folder, out string, opt DeployOptions, progress io.Writer) (*Deployment, error) {
	stageIn := filepath.Dir(filepath.Clean(out))
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		stageIn = out
	}
	staging, err := os.MkdirTemp(stageIn, ".skilledge-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(staging)
	enc, err := encode(f.Catalog, staging, f.label(), compile.EncodeOptions{ShardBytes: shardBytes(f.Catalog, opt), PackBytes: packBytes(f.Catalog, opt), Sign: opt.Sign}, progress)
	if err != nil {
		return nil, err
	}
	if err := checkAssetSizes(enc.Store); err != nil {
		return nil, err
	}
	d := &Deployment{folder: f, plugin: opt.Plugin, variant: pluginbuild.Public, storeLen: enc.Store.Len(), storeSize: enc.Store.Size()}
	if opt.WithAuth || f.Catalog.Access != nil {
		d.variant = pluginbuild.Full
	}
	wasm, _, err := pluginbuild.Module(ctx, opt.Plugin, d.variant, progress)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	if err := writeStore(enc.Store, filepath.Join(out, AssetsDir), filepath.Join(out, PacksDir)); err != nil {
		return nil, fmt.Errorf("writing the content store: %w", err)
	}
	d.packs, d.packsDir = enc.Store.Packs(), filepath.Join(out, PacksDir, catalog.StoreDir)+string(filepath.Separator)
	for _, name := range d.packs {
		d.storeLen--
		d.storeSize -= enc.Store.ObjectSize(name)
		d.packsSize += enc.Store.ObjectSize(name)
	}
	d.storeDir = filepath.Join(out, AssetsDir, catalog.StoreDir) + string(filepath.Separator)
	d.index = newArtifact(filepath.Join(out, IndexFile), enc.Index, "")
	d.wasm = newArtifact(filepath.Join(out, "plugin.wasm"), wasm, "")
	d.host = newArtifact(filepath.Join(out, deploy.HostName), deploy.Host, "")
	for _, m := range deploy.HostModules() {
		d.modules = append(d.modules, newArtifact(filepath.Join(out, filepath.FromSlash(m.Name)), m.Data, m.What))
	}
	for _, e := range deploy.Entries() {
		d.entries = append(d.entries, newArtifact(filepath.Join(out, e.Name), e.Data, e.What))
	}
	for _, a := range slices.Concat([]artifact{d.index, d.wasm, d.host}, d.modules, d.entries) {
		err := os.MkdirAll(filepath.Dir(a.path), 0o755)
		if err == nil {
			err = compile.WriteFileAtomic(a.path, a.data)
		}
		if err != nil {
			return nil, err
		}
	}
	if opt.Sign != nil {
		b, _ := json.MarshalIndent(Roots{Catalog: opt.Sign.Catalog, Roots: enc.Roots}, "", "  ")
		if err := compile.WriteFileAtomic(filepath.Join(out, RootsFile), append(b, '\n')); err != nil {
			return nil, err
		}
		d.roots, d.rootsFile, d.sign = enc.Roots, filepath.Join(out, RootsFile), opt.Sign
	}
	if d.pack, err = catalog.Open(enc.Index); err != nil { // a bug in catalog/compile
		return nil, fmt.Errorf("the encoded index does not open: %w", err)
	}
	return d, nil
}

// writeStore moves the store's objects from the staging folder into assets, and its packs
// into packs, then removes the objects and packs of earlier builds (a serve of OUT running
// meanwhile must be restarted). The index that names them is written after.
func writeStore(st *compile.Store, assets, packs string) error {
	keep := map[string]bool{}
	for _, name := range st.Names() {
		keep[name] = true
	}
	if err := st.WritePacks(packs); err != nil { // first: WriteDir moves the directory store
		return err
	}
	if err := st.WriteDir(assets); err != nil {
		return err
	}
	if len(st.Packs()) == 0 {
		if err := os.RemoveAll(packs); err != nil {
			return err
		}
	} else if err := compile.PruneDir(packs, keep, time.Time{}); err != nil {
		return err
	}
	return compile.PruneDir(assets, keep, time.Time{})
}

// Report prints what Build wrote on stdout, a line per file with its size (gzipped, as
// the Workers limit measures) and what it is, the history kept, and the Worker's script
// and assets against the Workers plan limits, with a warning on stderr for each limit
// passed (reportBundle, reportAssetCount).
func (d *Deployment) Report(stdout, stderr io.Writer) {
	p := d.pack
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  the index: %s, %s, catalog digest %s%s\n", d.index.path, len(d.index.data), size(d.index.gzipped),
		words.Plural(p.NumSkills(), "skill"), words.Plural(p.NumFiles(), "file"), p.Digest(), privateNote(p))
	fmt.Fprintf(stdout, "%s  %s in %s  the content store\n", d.storeDir, size(int(d.storeSize)), words.Plural(d.storeLen, "object"))
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  sha256 %x  %s\n", d.wasm.path, len(d.wasm.data), size(d.wasm.gzipped), sha256.Sum256(d.wasm.data), variantNote(d.variant, d.plugin))
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  the JavaScript host: the entries' API\n", d.host.path, len(d.host.data), size(d.host.gzipped))
	for _, m := range d.modules {
		fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  %s\n", m.path, len(m.data), size(m.gzipped), m.what)
	}
	for _, e := range d.entries {
		fmt.Fprintf(stdout, "%s  %d bytes  %s\n", e.path, len(e.data), e.what)
	}
	VersionsLine(stdout, d.folder.Catalog, true)
	if d.sign != nil {
		fmt.Fprintf(stdout, "%s  %s signed for %q (sequence %s), valid until %s, with key %s; keep this file for the next build's --sign-previous\n",
			d.rootsFile, words.Plural(len(d.roots), "root"), d.sign.Catalog, sequences(d.roots), d.sign.Expires.UTC().Format(time.RFC3339),
			signing.FormatPublic(d.sign.Key.Public().(ed25519.PublicKey)))
	}
	worker := d.entries[0] // deploy.Entries starts with worker.mjs
	reportBundle(stdout, stderr, d.index, d.wasm, slices.Concat([]artifact{worker, d.host}, d.modules), p)
	reportAssetCount(stdout, stderr, d.storeLen, d.storeSize)
	reportPacks(stdout, d.packsDir, d.packs, d.packsSize)
}

// sequences says the sequences of roots: one number, or the least and the greatest.
func sequences(roots []compile.RootInfo) string {
	lo, hi := roots[0].Sequence, roots[0].Sequence
	for _, r := range roots {
		lo, hi = min(lo, r.Sequence), max(hi, r.Sequence)
	}
	if lo == hi {
		return strconv.FormatUint(lo, 10)
	}
	return strconv.FormatUint(lo, 10) + " to " + strconv.FormatUint(hi, 10)
}

// variantNote says which plugin Build wrote: the variant, or the file given instead.
func variantNote(v pluginbuild.Variant, file string) string {
	switch {
	case file != "" || os.Getenv(pluginbuild.Env) != "":
		return "the plugin named by --plugin or $" + pluginbuild.Env
	case v == pluginbuild.Public:
		return "the public plugin: no auth option (--with-auth for one)"
	}
	return "the full plugin: the auth option checks credentials"
}
