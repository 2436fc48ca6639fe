package pull

import (
	"context"
	"net/url"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// fetchCatalog reads the catalog at source, downloading the skills want accepts, and
// says how it read it. A source whose path ends in "/mcp", or any source when opt.Era is
// set, is an MCP endpoint, read over the Skills extension (verify.FetchMCP). Any other
// source is a deployment whose well-known v0.2.0 index is read (verify.Fetch); one that
// answers 404 there is read over MCP at SOURCE/mcp. Every problem the reads find is an
// error: nothing is returned from a catalog that did not verify.
func fetchCatalog(ctx context.Context, source string, opt Options, want func(name, digest string) bool) ([]verify.Fetched, string, error) {
	if opt.Era != "" || isMCPEndpoint(source) {
		got, err := verify.FetchMCP(ctx, source, opt.Verify, opt.Era, want)
		return got, "mcp", err
	}
	got, rep, err := verify.Fetch(ctx, source, opt.Verify, want)
	if err != nil {
		return nil, "", err
	}
	if rep.NoIndex {
		got, err := verify.FetchMCP(ctx, strings.TrimSuffix(source, "/")+"/mcp", opt.Verify, "", want)
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
