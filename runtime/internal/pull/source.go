package pull

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// fetchCatalog reads the catalog at source, downloading the skills want accepts (given
// each as listed, without files), and says how it read it. A source whose path ends in
// "/mcp", or any source when opt.Era or opt.Paths is set (a well-known index names
// skills by name only, so it cannot be selected by path), is read over the Skills
// extension (verify.FetchMCP), at SOURCE/mcp when source is not itself the endpoint. Any
// other source is a deployment whose well-known v0.2.0 index is read (verify.Fetch); one
// that answers 404 there is read through its v0.1.0 index (verify.FetchV01, which
// publishes no digests: every selected skill is downloaded, and what was downloaded is
// what is locked, marked unverified), and one that answers 404 there too over MCP at
// SOURCE/mcp. opt.Index forces one index. Every problem the reads find is an error:
// nothing is returned from a catalog that did not verify.
//
// etags gives, for a skill read from a v0.1.0 index, the ETags of the files the caller
// holds (see verify.FetchV01), or nil. A folder or git repository (sourceKind) is read by
// fetchLocal instead, and the skills it left out are put in skipped (when not nil).
//
// Why does `pull` read the well-known index and archives first, and MCP only without one?
// A skill's archive is one request that carries every file, and the v0.2.0 index gives its
// digest, so a pull costs one request for the index and one per changed skill, and an
// up-to-date folder the index alone. Over MCP a pull is skills/list, then a resources/read
// per file (eight at a time), each checked against the digest and size the listing gives:
// many more requests, and about 1.7× the cold time on the benchmark's catalog
// (BENCHMARKS.md#pull-installing-a-catalog-into-a-folder). So MCP is the path for a URL
// that names the endpoint, for --era, for --path (the index names skills by name only;
// skills/list gives each skill's path), and for a server with neither well-known index
// (the TS SDK's); one with a v0.1.0 index and no v0.2.0 one is read through that, before
// MCP (LockedSkill.Unverified). A read over MCP is compared with the lock's manifest
// digest, a read of the index with its artifact digest (lockMatches); an archive whose
// files match a lock made over MCP only rewrites the lock (WhySameFiles). The reads are
// verify's own (verify.Fetch, verify.FetchV01, verify.FetchMCP): the trust root, loopback
// and token rules, redirect checks, bounds and safe unpacking are the same code, so what
// skilledge verify refuses pull never writes. Rejected: a package of its own for the
// fetching of both commands (their entries are small, and nothing is written twice), and
// resources/directory/read to list a skill's files, which skills/list already gives with
// their digests.
func fetchCatalog(ctx context.Context, source string, opt Options, want func(verify.Fetched) bool, etags func(name string) map[string]string, skipped *[]string) ([]verify.Fetched, string, error) {
	if sourceKind(source) != "" {
		if opt.Index != "" || opt.Era != "" {
			return nil, "", usageErrorf("--index and --era read a deployment, not the folder or git repository %s", source)
		}
		got, via, sk, err := fetchLocal(ctx, source, opt, want)
		if skipped != nil {
			*skipped = sk
		}
		return got, via, err
	}
	endpoint := mcpEndpoint(source)
	if opt.Index != "" && (opt.Era != "" || len(opt.Paths) > 0 || isMCPEndpoint(source)) {
		return nil, "", usageErrorf("--index %s reads a well-known index, which --era, --path and an MCP URL do not", opt.Index)
	}
	if opt.Era != "" || len(opt.Paths) > 0 || isMCPEndpoint(source) {
		got, err := verify.FetchMCP(ctx, endpoint, opt.Verify, opt.Era, want)
		return got, ViaMCP, err
	}
	if opt.Index != IndexV01 {
		got, rep, err := verify.Fetch(ctx, source, opt.Verify, want)
		if err != nil {
			return nil, "", err
		}
		if !rep.NoIndex || opt.Index == IndexV02 {
			if !rep.OK() {
				return nil, "", reportError(source, rep)
			}
			return got, ViaWellKnown, nil
		}
	}
	v01 := opt.Verify
	if opt.Progress != nil {
		v01.Fetched = func(name string, files int, bytes int64) {
			fmt.Fprintf(opt.Progress, "downloaded %s (%d files, %d bytes), unverified: the v0.1 index publishes no digests\n", name, files, bytes)
		}
	}
	got, rep, err := verify.FetchV01(ctx, source, v01, want, etags)
	if err != nil {
		return nil, "", err
	}
	if rep.NoIndex && opt.Index == "" {
		got, err := verify.FetchMCP(ctx, endpoint, opt.Verify, "", want)
		return got, ViaMCP, err
	}
	if !rep.OK() {
		return nil, "", reportError(source, rep)
	}
	return got, ViaWellKnownV01, nil
}

// How a catalog was read (Result.Via).
const (
	ViaWellKnown    = "well-known"      // the v0.2.0 index, digests checked
	ViaWellKnownV01 = "well-known-v0.1" // the v0.1.0 index: no digests published, nothing verified
	ViaMCP          = "mcp"             // skills/list and resources/read, digests checked
)

// isMCPEndpoint reports whether source names an MCP endpoint: its path ends in "/mcp".
func isMCPEndpoint(source string) bool {
	u, err := url.Parse(source)
	return err == nil && strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/mcp")
}

// lockMatches reports whether the locked skill l is what f, as served, names: by the
// digest of its artifact, or by its manifest digest when that is what the read gives.
func lockMatches(l *LockedSkill, f verify.Fetched) bool {
	if f.Kind == verify.DigestUnpublished && f.Files == nil && !f.Taken {
		return f.NotModified // else not downloaded: nothing says what it is
	}
	if f.Kind == verify.DigestManifest || f.Kind == verify.DigestUnpublished {
		return l.Manifest == f.Digest
	}
	return l.Artifact == f.Digest
}

// sameFiles reports whether the skill was downloaded (st, staged) and its files are the
// ones l locks, by their manifest digest.
func sameFiles(l *LockedSkill, st *staged) bool {
	return st != nil && st.lock.Manifest == l.Manifest
}

// mcpEndpoint is the MCP endpoint of the deployment source: source itself when it is one
// (isMCPEndpoint), else SOURCE/mcp.
func mcpEndpoint(source string) string {
	if isMCPEndpoint(source) {
		return source
	}
	return strings.TrimSuffix(source, "/") + "/mcp"
}

// fetchUnlisted looks the skills called names up one by one over MCP (verify.Options.
// Unlisted: skills/get {name}, then {uri}), downloading those want accepts, and returns
// the ones the server serves; none from a deployment with no MCP endpoint.
func fetchUnlisted(ctx context.Context, source string, opt Options, names []string, want func(verify.Fetched) bool) ([]verify.Fetched, error) {
	endpoint := mcpEndpoint(source)
	vo := opt.Verify
	vo.Unlisted = names
	got, err := verify.FetchMCP(ctx, endpoint, vo, opt.Era, func(f verify.Fetched) bool { return slices.Contains(names, f.Name) && want(f) })
	if verify.NoEndpoint(err) {
		return nil, nil // a deployment without MCP serves no skill its index does not list
	}
	if err != nil {
		return nil, err
	}
	var out []verify.Fetched
	for _, f := range got {
		if slices.Contains(names, f.Name) {
			out = append(out, f)
		}
	}
	return out, nil
}

// reportError renders the problems of a report that did not verify.
func reportError(source string, rep *verify.Report) error {
	var lines []string
	lines = append(lines, rep.Problems...)
	for _, s := range rep.Skills {
		lines = append(lines, s.Problems...)
	}
	return fmt.Errorf("%s did not verify; nothing was written:\n  %s", source, strings.Join(lines, "\n  "))
}
