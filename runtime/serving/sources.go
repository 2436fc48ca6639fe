package serving

import (
	"context"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/sources"
	"github.com/skilledge/skilledge/runtime/internal/cachedir"
)

// composeSources mounts into c, the catalog of the folder dir, the skills of the sources
// its policy file names (catalog/sources), each at the commit dir's sources.lock holds or
// that its ref resolves to, fetched into the user cache; it returns their problems and
// those of the whole. A folder without sources, and without a lock, is left as it is.
func composeSources(c *compile.Catalog, dir string, opt BuildOptions) ([]compile.Problem, error) {
	ctx := context.Background()
	rs, err := sources.Resolve(ctx, dir, c.Sources, sources.Options{CacheDir: cachedir.Dir("sources"), Frozen: opt.Frozen, Tokens: opt.SourceTokens, Log: opt.Log})
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	copt := compile.Options{SkipInvalid: true, AllowOversize: opt.AllowOversize, Strict: opt.Strict}
	problems, err := sources.Compose(ctx, c, dir, rs, copt, opt.Log)
	if err != nil {
		return nil, err
	}
	return problems, nil
}
