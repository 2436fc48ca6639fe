package pull

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// fetchCatalog reads the catalog at source, downloading the skills want accepts (given
// each as listed, without files), and says how it read it. A source whose path ends in
// "/mcp", or any source when opt.Era or opt.Paths is set (a well-known index names
// skills by name only, so it cannot be selected by path), is read over the Skills
// extension (verify.FetchMCP), at SOURCE/mcp when source is not itself the endpoint. Any
// other source is a deployment whose well-known v0.2.0 index is read (verify.Fetch); one
// that answers 404 there is read over MCP at SOURCE/mcp. Every problem the reads find is
// an error: nothing is returned from a catalog that did not verify.
func fetchCatalog(ctx context.Context, source string, opt Options, want func(verify.Fetched) bool) ([]verify.Fetched, string, error) {
	endpoint := source
	if !isMCPEndpoint(source) {
		endpoint = strings.TrimSuffix(source, "/") + "/mcp"
	}
	if opt.Era != "" || len(opt.Paths) > 0 || isMCPEndpoint(source) {
		got, err := verify.FetchMCP(ctx, endpoint, opt.Verify, opt.Era, want)
		return got, "mcp", err
	}
	got, rep, err := verify.Fetch(ctx, source, opt.Verify, func(name, digest string) bool {
		return want(verify.Fetched{Name: name, Path: name, Digest: digest, Kind: verify.DigestArtifact})
	})
	if err != nil {
		return nil, "", err
	}
	if rep.NoIndex {
		got, err := verify.FetchMCP(ctx, endpoint, opt.Verify, "", want)
		return got, "mcp", err
	}
	if !rep.OK() {
		return nil, "", reportError(source, rep)
	}
	return got, "well-known", nil
}

// isMCPEndpoint reports whether source names an MCP endpoint: its path ends in "/mcp".
func isMCPEndpoint(source string) bool {
	u, err := url.Parse(source)
	return err == nil && strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/mcp")
}

// lockMatches reports whether the locked skill l is what f, as served, names: by the
// digest of its artifact, or by its manifest digest when that is what the read gives.
func lockMatches(l *LockedSkill, f verify.Fetched) bool {
	if f.Kind == verify.DigestManifest {
		return l.Manifest == f.Digest
	}
	return l.Artifact == f.Digest
}

// underPaths reports whether the skill path p is one of prefixes or under one of them,
// segment by segment; every path is when there are none.
func underPaths(p string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, x := range prefixes {
		if p == x || strings.HasPrefix(p, x+"/") {
			return true
		}
	}
	return false
}

// cleanPaths checks --path values and returns them without a trailing "/".
func cleanPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		q := strings.TrimSuffix(p, "/")
		if why := pathProblem(q); why != "" {
			return nil, usageErrorf("--path %q: %s", p, why)
		}
		out = append(out, q)
	}
	return out, nil
}

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...)
}
