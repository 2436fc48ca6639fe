package verify

import (
	"context"

	"github.com/skilledge/skilledge/catalog/archive"
)

// Fetched is an entry of the v0.2.0 index as Fetch hands it over.
type Fetched struct {
	Name   string // the entry's name, a valid skill name
	URL    string // the resolved artifact URL, under the trust root
	Digest string // the index's digest of the artifact, "sha256:<hex>"
	// Files are the artifact's files (a skill-md entry is one file, "SKILL.md"), each
	// read within Options.Limits, from an artifact whose SHA-256 is Digest, unpacked by
	// catalog/archive (no traversal, links, devices or bombs), with a SKILL.md whose
	// frontmatter name is Name. nil when want declined the entry: nothing was fetched.
	Files []archive.File
}

// Fetch reads the deployment at base as Verify reads its v0.2.0 index, with the same
// rules (trust root, loopback, token, redirects, limits), and hands over the entries that
// verified: for each valid entry, want(name, digest) says whether its artifact is
// downloaded; one that is not is returned without files, and one that is is returned only
// if every check passed (else its problems are in the report). Neither the MCP manifest
// nor the v0.1.0 index is read: one request for the index, one per wanted skill.
//
// Errors are those of Verify: ErrUsage with no report, ctx's with the report so far.
func Fetch(ctx context.Context, base string, opt Options, want func(name, digest string) bool) ([]Fetched, *Report, error) {
	v, err := newVerifier(base, opt)
	if err != nil {
		return nil, nil, err
	}
	if want == nil {
		want = func(string, string) bool { return true }
	}
	v.want = want
	v.readIndex(ctx)
	for _, s := range v.list {
		v.rep.Skills = append(v.rep.Skills, *s)
	}
	if err := ctx.Err(); err != nil {
		return v.fetched, v.rep, err
	}
	return v.fetched, v.rep, nil
}
