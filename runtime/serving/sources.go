package serving

import (
	"context"
	"fmt"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/sources"
	"github.com/skilledge/skilledge/runtime/internal/cachedir"
	"github.com/skilledge/skilledge/runtime/internal/pull"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// composeSources mounts into c, the catalog of the folder dir, the skills of the sources
// its policy file names (catalog/sources), each at the commit dir's sources.lock holds or
// that its ref resolves to, fetched into the user cache; it returns their problems and
// those of the whole. The lock is written once they are composed into a catalog that may
// be served (never under Frozen, nor for a policy file with problems, which names no
// sources). A folder without sources, and without a lock, is left as it is.
func composeSources(c *compile.Catalog, dir string, opt BuildOptions) ([]compile.Problem, error) {
	if c.Access != nil && c.Access.Broken {
		return nil, nil // a policy file with problems names no sources, and the lock stays
	}
	ctx := context.Background()
	rs, err := sources.Resolve(ctx, dir, c.Sources, sources.Options{CacheDir: cachedir.Dir("sources"), Frozen: opt.Frozen, Tokens: opt.SourceTokens, Catalogs: catalogReader{opt.SourceTokens}, Log: opt.Log})
	if err != nil {
		return nil, err
	}
	var problems []compile.Problem
	if len(rs) > 0 {
		copt := compile.Options{SkipInvalid: true, AllowOversize: opt.AllowOversize, Strict: opt.Strict}
		if problems, err = sources.Compose(ctx, c, dir, rs, copt, opt.Log); err != nil {
			return nil, err
		}
	}
	if (c.Access == nil || !c.Access.Broken) && !opt.Frozen {
		if err := sources.WriteLock(dir, rs, opt.Log); err != nil {
			return nil, err
		}
	}
	return problems, nil
}

// CatalogReader returns the reader of remote catalog sources the builds use, with the
// tokens given (by origin), for skilledge sources update.
func CatalogReader(tokens map[string]string) sources.CatalogReader { return catalogReader{tokens} }

// catalogReader reads remote catalog sources as pull installs a deployment's skills:
// every file verified against the digests the catalog publishes (and its signed root
// held, trusted on first use, where it serves one), the skills.lock of the cache folder
// saying what was read (catalog/sources.CatalogReader).
type catalogReader struct {
	tokens map[string]string // by origin (BuildOptions.SourceTokens)
}

// Read implements sources.CatalogReader.
func (r catalogReader) Read(ctx context.Context, url string, skills []string, dir string) ([]sources.RemoteSkill, error) {
	// Force: the cache is ours; a file edited there is replaced, not kept as a local edit.
	opt := pull.Options{Skills: skills, Force: true, Verify: verify.Options{AllowHTTPLoopback: true, Tokens: verify.Credentials(r.tokens)}}
	if _, err := pull.Pull(ctx, url, dir, opt); err != nil {
		return nil, err
	}
	return r.Cached(dir)
}

// Cached implements sources.CatalogReader: the skills dir's skills.lock names, each folder
// exactly as pulled (pull.LocalChanges: a cache edited since is read again, not served).
func (catalogReader) Cached(dir string) ([]sources.RemoteSkill, error) {
	lock, err := pull.ReadLock(dir)
	if err != nil {
		return nil, err
	}
	var out []sources.RemoteSkill
	for _, s := range lock.Skills {
		if s.Unverified {
			return nil, fmt.Errorf("%s publishes no digests (a well-known v0.1.0 index alone): its skills cannot be verified, and a source's are", s.Source)
		}
		if changed := pull.LocalChanges(dir, &s); len(changed) > 0 {
			return nil, fmt.Errorf("%s/%s: the cache is not what was read", s.Name, changed[0])
		}
		path := s.Path
		if s.Named != "" && path == s.Name { // read by its qualified index name alone
			path += "/" + s.Named
		}
		out = append(out, sources.RemoteSkill{Path: path, Folder: s.Name, Manifest: s.Manifest})
	}
	return out, nil
}
