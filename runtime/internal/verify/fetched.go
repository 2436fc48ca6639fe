package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/archive"
)

// Fetched is an entry of the v0.2.0 index as Fetch hands it over.
type Fetched struct {
	// Name is the entry's name, a valid skill name: the name the catalog keys the skill
	// by (a skilledge catalog's index name, catalog.IndexNames), and the folder pull
	// installs it in.
	Name string
	// Named is the skill's own name, its SKILL.md's frontmatter name, where the entry
	// names it otherwise (another skill of the catalog has that name: the entry's is
	// qualified); "" when it is Name. Set once the SKILL.md is read (Files), or from the
	// MCP listing.
	Named string
	// Path is the skill's path in the catalog: from MCP, its SKILL.md URI without
	// "skill://" and "/SKILL.md"; a well-known index names skills by name only, so there
	// it is Name.
	Path   string
	URL    string // the resolved artifact URL, under the trust root
	Digest string // the index's digest of the artifact, "sha256:<hex>"; see Kind
	// Kind says what Digest is: DigestArtifact, the digest of the artifact's bytes (an
	// archive or a SKILL.md; Fetch, FetchVersion), or DigestManifest, the manifest digest
	// of the skill's files as listed (FetchMCP), or DigestUnpublished, the manifest
	// digest of the files as downloaded from a source that publishes no digest
	// (FetchV01): nothing to check them against.
	Kind string
	// ETags are, for a skill read from a v0.1.0 index (FetchV01), each file's ETag as
	// served, where it gave a valid one.
	ETags map[string]string
	// NotModified is set, by FetchV01, for a skill whose files the server answered 304
	// Not Modified to the ETags the caller gave: the caller's files are current; Files
	// is nil.
	NotModified bool
	// Version is the skill's version as the listing gives it, "" when it gives none:
	// from the v0.2.0 index entry's frontmatter (version, else metadata.version), from a
	// skills/list entry's version (else its frontmatter's). Fetch and FetchMCP set it.
	Version string
	// Files are the artifact's files (a skill-md entry is one file, "SKILL.md"), each
	// read within Options.Limits, from an artifact whose SHA-256 is Digest, unpacked by
	// catalog/archive (no traversal, links, devices or bombs), with a SKILL.md whose
	// frontmatter name is Name. nil when want declined the entry: nothing was fetched;
	// nil too when Options.Take took the files (Taken).
	Files []archive.File
	// Taken is set when the files were downloaded, verified and handed to Options.Take
	// instead of returned.
	Taken bool
	// Commit is, for a skill read from a git repository (not by this package), the
	// commit read.
	Commit string
}

// What Fetched.Digest is.
const (
	DigestArtifact = "artifact"
	DigestManifest = "manifest"
	// DigestUnpublished is the manifest digest of what was downloaded, computed here:
	// the source published none (the v0.1.0 index), so nothing verified the bytes.
	DigestUnpublished = "unpublished"
)

// FetchV01 reads the deployment at base through its well-known v0.1.0 index
// (/.well-known/skills/index.json, every file at /.well-known/skills/NAME/FILE), with
// the rules of Fetch: trust root (configured, else the index's trustRoot, else its
// origin), loopback, token, redirects and limits (Limits.MaxEntries files and
// Limits.MaxBytes bytes a skill). A v0.1.0 index publishes no digests: for each valid
// entry, want (given the entry as listed: Name, Path, URL and Kind DigestUnpublished)
// says whether its files are downloaded (there is no digest to compare first); one that is is returned only if every file was fetched, each a safe relative
// path, with a SKILL.md whose frontmatter name is the entry's, its Digest the manifest
// digest of the files as downloaded and its Kind DigestUnpublished. When etags (if not
// nil) gives, for a wanted skill, an ETag for each file the entry lists and no other,
// each file is first asked for with If-None-Match: if every answer is 304, the skill is
// returned NotModified, without files, and nothing is downloaded. A deployment that
// answers 404 for the index has Report.NoIndex set.
func FetchV01(ctx context.Context, base string, opt Options, want func(Fetched) bool, etags func(name string) map[string]string) ([]Fetched, *Report, error) {
	v, err := newVerifier(base, opt)
	if err != nil {
		return nil, nil, err
	}
	indexURL, doc, absent := v.readV01Index(ctx)
	if absent {
		v.rep.IndexURL = indexURL.String()
		v.rep.NoIndex = true
		v.problem("", indexURL.String(), "%s: no v0.1.0 skills index", statusText(404))
		return nil, v.rep, ctx.Err()
	}
	if indexURL == nil {
		return nil, v.rep, ctx.Err()
	}
	v.rep.IndexURL = indexURL.String()
	at := indexURL.String()
	if !doc.IsObject() {
		v.problem("", at, "the v0.1.0 skills index is not a JSON object")
		return nil, v.rep, ctx.Err()
	}
	v.settleRoot(doc.Get("trustRoot"), indexURL)
	v.v01Entries(ctx, doc, at, func(name string, e gjson.Result) {
		dir := indexURL.ResolveReference(&url.URL{Path: name + "/"})
		if listed := (Fetched{Name: name, Path: name, URL: dir.String(), Kind: DigestUnpublished}); v.takeErr != nil || want != nil && !want(listed) {
			v.fetched = append(v.fetched, listed)
			return
		}
		list, ok := v.v01FileList(name, at, e)
		if !ok {
			return
		}
		if etags != nil {
			if m := etags(name); len(m) > 0 && v.v01NotModified(ctx, dir, list, m) {
				v.fetched = append(v.fetched, Fetched{Name: name, Path: name, URL: dir.String(), Kind: DigestUnpublished, NotModified: true})
				return
			}
		}
		n := len(v.rep.Problems)
		files, fetched, ok := v.v01Files(ctx, dir, at, name, list)
		if !ok || len(v.rep.Problems) > n || len(fetched) != len(files) {
			return
		}
		skillMD := skillMDOf(files)
		if skillMD == nil {
			v.problem(name, at, "the v0.1.0 entry's files do not include SKILL.md")
			return
		}
		named, err := skillMDName(skillMD, name)
		if err != nil {
			v.problem(name, dir.String()+"SKILL.md", "%v", err)
			return
		}
		tags := map[string]string{}
		for p, tag := range fetched {
			if tag != "" {
				tags[p] = tag
			}
		}
		v.fetched = append(v.fetched, v.deliver(Fetched{Name: name, Named: named, Path: name, URL: dir.String(), Digest: ManifestDigest(files), Kind: DigestUnpublished, Files: files, ETags: tags}))
	})
	if v.takeErr != nil {
		return nil, v.rep, v.takeErr
	}
	return v.fetched, v.rep, ctx.Err()
}

// Fetch reads the deployment at base as Verify reads its v0.2.0 index, with the same
// rules (trust root, loopback, token, redirects, limits), and hands over the entries that
// verified: for each valid entry, want (given the entry as listed, without files: Name,
// Path, URL, Digest, Kind DigestArtifact and the Version it names) says whether its
// artifact is downloaded; one that is not is returned as listed, and one that is is returned only
// if every check passed (else its problems are in the report). Neither the MCP manifest
// nor the v0.1.0 index is read: one request for the index, one per wanted skill.
//
// Errors are those of Verify: ErrUsage with no report, ctx's with the report so far.
func Fetch(ctx context.Context, base string, opt Options, want func(Fetched) bool) ([]Fetched, *Report, error) {
	v, err := newVerifier(base, opt)
	if err != nil {
		return nil, nil, err
	}
	if want == nil {
		want = func(Fetched) bool { return true }
	}
	v.want = want
	v.readIndex(ctx)
	for _, s := range v.list {
		v.rep.Skills = append(v.rep.Skills, *s)
	}
	if v.takeErr != nil {
		return nil, v.rep, v.takeErr
	}
	if err := ctx.Err(); err != nil {
		return v.fetched, v.rep, err
	}
	return v.fetched, v.rep, nil
}

// listedVersion is the version a listing entry gives: the first of paths in e that is a
// non-empty string or a number, or "".
func listedVersion(e gjson.Result, paths ...string) string {
	for _, p := range paths {
		switch r := e.Get(p); r.Type {
		case gjson.String:
			if r.Str != "" {
				return r.Str
			}
		case gjson.Number:
			return r.Raw
		}
	}
	return ""
}

// Version is one kept version of a skill, as _meta[MetaVersions] lists it.
type Version struct {
	Version string // its name
	URI     string // its SKILL.md at its version path
	Digest  string // its manifest digest
}

// skillMDOf is the SKILL.md of a skill's files, or nil.
func skillMDOf(files []archive.File) []byte {
	for _, f := range files {
		if f.Name == "SKILL.md" {
			return f.Data
		}
	}
	return nil
}

// ManifestDigest is the manifest digest of a skill's files (PROTOCOL.md#versions):
// "sha256:" and the SHA-256 of one line "HEX  PATH\n" per file, SKILL.md first, then by
// path.
func ManifestDigest(files []archive.File) string {
	lines := make([]manifestLine, len(files))
	for i, f := range files {
		sum := sha256.Sum256(f.Data)
		lines[i] = manifestLine{f.Name, hex.EncodeToString(sum[:])}
	}
	return manifestOf(lines)
}

// manifestOfInfo is the manifest digest of files whose digests a surface gave.
func manifestOfInfo(files map[string]fileInfo) string {
	lines := make([]manifestLine, 0, len(files))
	for p, f := range files {
		lines = append(lines, manifestLine{p, strings.TrimPrefix(f.digest, "sha256:")})
	}
	return manifestOf(lines)
}

// manifestLine is one file of a manifest: its path and the hex of its SHA-256.
type manifestLine struct{ path, hex string }

// manifestOrder orders a skill's file paths as its manifest lists them: SKILL.md first,
// then by path.
func manifestOrder(a, b string) int {
	if (a == "SKILL.md") != (b == "SKILL.md") {
		if a == "SKILL.md" {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// manifestOf is the manifest digest of lines (ManifestDigest), which it sorts.
func manifestOf(lines []manifestLine) string {
	slices.SortFunc(lines, func(a, b manifestLine) int { return manifestOrder(a.path, b.path) })
	h := sha256.New()
	for _, l := range lines {
		fmt.Fprintf(h, "%s  %s\n", l.hex, l.path)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// FetchVersion reads version of the skill called name from the deployment at base: the
// v0.2.0 index (which must list name, and settles the trust root), the kept versions
// from the _meta of the skill's SKILL.md in the MCP resources/list (2026-07-28), and the
// version's archive at /.well-known/agent-skills/NAME/@VERSION/VNAME.tar.gz, whose files
// must have the manifest digest _meta gives and a SKILL.md named VNAME, the latest's own
// name (the last segment of its path; Fetched.Named where name is qualified). It returns the
// version (Fetched.Digest is the archive's own digest) and the skill's path in the
// catalog. A problem of the deployment is an error naming the URL concerned.
func FetchVersion(ctx context.Context, base string, opt Options, name, version string) (Fetched, string, error) {
	v, err := newVerifier(base, opt)
	if err != nil {
		return Fetched{}, "", err
	}
	v.want = func(Fetched) bool { return false }
	v.readIndex(ctx)
	if len(v.rep.Problems) > 0 {
		return Fetched{}, "", errors.New(strings.Join(v.rep.Problems, "; "))
	}
	if v.skills[name] == nil {
		return Fetched{}, "", fmt.Errorf("%s: the index lists no skill %q", v.rep.IndexURL, name)
	}
	kept, path, err := v.keptVersions(ctx, name)
	if err != nil {
		return Fetched{}, "", err
	}
	var ver *Version
	var names []string
	for i := range kept {
		names = append(names, kept[i].Version)
		if kept[i].Version == version {
			ver = &kept[i]
		}
	}
	if ver == nil {
		return Fetched{}, "", fmt.Errorf("%s: version %q of %s is not kept (kept: %s)", base, version, name, strings.Join(names, ", "))
	}
	// The version is installed in the latest's folder (name), so it must carry the
	// latest's own name: the last segment of its path.
	own := path[strings.LastIndexByte(path, '/')+1:]
	vname := versionName(*ver)
	if vname != own {
		return Fetched{}, "", fmt.Errorf("%s: version %s of %s was named %q: a skill's folder must carry its name, so it cannot be installed as %s", ver.URI, version, name, vname, name)
	}
	files, u, body, err := v.versionFiles(ctx, name, *ver)
	if err != nil {
		if u != nil {
			return Fetched{}, "", fmt.Errorf("%s: %v", u, err)
		}
		return Fetched{}, "", err
	}
	v.progress(name, files)
	return Fetched{Name: name, Named: otherThan(vname, name), Path: path, URL: u.String(), Digest: DigestOf(body), Kind: DigestArtifact, Files: files}, path, nil
}

// otherThan is named where it is not name, else "" (Fetched.Named).
func otherThan(named, name string) string {
	if named == name {
		return ""
	}
	return named
}

// keptVersions finds the skill called name in the MCP skills/list (by entryName: the
// index's name, qualified where skills share one), pages the resources/list for its
// latest SKILL.md, and returns its kept versions and its skill path.
func (v *verifier) keptVersions(ctx context.Context, name string) ([]Version, string, error) {
	endpoint := v.withPath(MCPPath)
	kept, err := v.listKept(ctx, endpoint)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", endpoint, err)
	}
	// The skill's URI from skills/list, which names each skill as the index does
	// (entryName: a qualified name where skills share one).
	listed, err := v.listSkills(ctx, endpoint)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", endpoint, err)
	}
	if n := len(listed[name]); n != 1 {
		return nil, "", fmt.Errorf("%s: skills/list has %d skills named %q, not one", endpoint, n, name)
	}
	uri := listed[name][0].uri
	e, ok := kept[uri]
	if !ok {
		return nil, "", fmt.Errorf("%s: resources/list has no latest %s", endpoint, uri)
	}
	if e.err != nil {
		return nil, "", fmt.Errorf("%s: %v", endpoint, e.err)
	}
	if len(e.versions) == 0 {
		return nil, "", fmt.Errorf("%s: %s keeps no versions (the catalog has no history)", endpoint, uri)
	}
	return e.versions, strings.TrimSuffix(strings.TrimPrefix(uri, "skill://"), "/SKILL.md"), nil
}

// deliver hands over f, whose files were downloaded and verified: as it is, or, when
// Options.Take is set, to Take, and returned without its files (Taken). After Take's
// first error (v.takeErr) nothing more is downloaded, and the read returns that error.
func (v *verifier) deliver(f Fetched) Fetched {
	v.progress(f.Name, f.Files)
	if v.opt.Take == nil {
		return f
	}
	if v.takeErr == nil {
		v.takeErr = v.opt.Take(f)
	}
	f.Files, f.Taken = nil, true
	return f
}

// progress reports a skill downloaded and verified to Options.Fetched, if set.
func (v *verifier) progress(name string, files []archive.File) {
	if v.opt.Fetched == nil {
		return
	}
	var n int64
	for _, f := range files {
		n += int64(len(f.Data))
	}
	v.opt.Fetched(name, len(files), n)
}
