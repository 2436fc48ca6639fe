package verify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/archive"
)

// MetaVersions is the _meta member of a latest skill's kept versions
// (PROTOCOL.md#versions).
const MetaVersions = catalog.MetaVersions

// keptEntry is what the MCP resources/list says of one latest SKILL.md: its kept
// versions, newest first, or why they cannot be read.
type keptEntry struct {
	versions []Version
	err      error
}

// listKept reads the MCP resources/list (2026-07-28) page by page and returns, by the URI
// of every latest SKILL.md it lists (one with no "/@" version segment), the kept versions
// in its _meta[MetaVersions]: none for a skill without history. A server without
// resources/list (-32601, or a 404 without a JSON-RPC error, which is how a 2026-07-28
// server answers a method it does not have) keeps none: the result is empty.
func (v *verifier) listKept(ctx context.Context, endpoint *url.URL) (map[string]keptEntry, error) {
	kept := map[string]keptEntry{}
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > maxPages {
			return nil, fmt.Errorf("resources/list: more than %d pages", maxPages)
		}
		result, err := v.call(ctx, endpoint, page, "resources/list", cursor)
		if re := (*rpcError)(nil); errors.As(err, &re) && (re.code == "-32601" || re.code == "" && re.status == 404) {
			return kept, nil
		}
		if err != nil {
			return nil, err
		}
		for _, r := range result.Get("resources").Array() {
			uri := r.Get("uri").Str
			if strings.HasPrefix(uri, "skill://") && strings.HasSuffix(uri, "/SKILL.md") && !strings.Contains(uri, "/@") {
				vs, err := parseKept(uri, r.Get("_meta").Get(gjson.Escape(MetaVersions)))
				kept[uri] = keptEntry{vs, err}
			}
		}
		next := result.Get("nextCursor")
		if next.Type != gjson.String || next.Str == "" {
			return kept, nil
		}
		if seen[next.Str] {
			return nil, fmt.Errorf("resources/list: nextCursor %q came back: the listing loops", next.Str)
		}
		seen[next.Str] = true
		cursor = next.Str
	}
}

// parseKept reads the kept versions of the latest SKILL.md at uri: each must be a
// version name that stands in a URI path segment as it is (catalog.ValidVersion), the URI
// of a SKILL.md under the skill's own "@VERSION/" path whose folder is a valid skill
// name, and a digest.
func parseKept(uri string, list gjson.Result) ([]Version, error) {
	if !list.Exists() {
		return nil, nil
	}
	if !list.IsArray() {
		return nil, fmt.Errorf("%s: _meta[%q] is not an array", uri, MetaVersions)
	}
	root := strings.TrimSuffix(uri, "SKILL.md")
	var kept []Version
	for _, e := range list.Array() {
		k := Version{Version: e.Get("version").Str, URI: e.Get("uri").Str, Digest: e.Get("digest").Str}
		rest, ok := strings.CutPrefix(k.URI, root+"@"+k.Version+"/")
		vname, ok2 := strings.CutSuffix(rest, "/SKILL.md")
		if !catalog.ValidVersion(k.Version) || !ok || !ok2 || !ValidName(vname) || !catalog.IsDigest(k.Digest) {
			return nil, fmt.Errorf("%s: a kept version %s is not {version, uri of the SKILL.md at the skill's @VERSION/NAME, digest}", uri, e.Raw)
		}
		kept = append(kept, k)
	}
	return kept, nil
}

// versionName is the skill's name in kept version k: the folder of its SKILL.md URI,
// which parseKept checked is a valid name.
func versionName(k Version) string {
	n := strings.TrimSuffix(k.URI, "/SKILL.md")
	return n[strings.LastIndex(n, "/")+1:]
}

// versionFiles downloads kept version k of the skill called name (the latest's name) from
// /.well-known/agent-skills/NAME/@VERSION/VNAME.tar.gz and returns its files, which it
// checked: their manifest digest is k's, and their SKILL.md is named VNAME. It returns
// the archive's URL and bytes with them; the URL also with an error, when it got as far.
func (v *verifier) versionFiles(ctx context.Context, name string, k Version) ([]archive.File, *url.URL, []byte, error) {
	vname := versionName(k)
	u := v.withPath(catalog.AgentSkillsPrefix + catalog.VersionPath(name, k.Version, vname) + catalog.ArchiveTarGz)
	if why := v.outside(u); why != "" {
		return nil, u, nil, errors.New(why)
	}
	resp, err := v.get(ctx, u, "*/*", v.outside, v.archiveLimit())
	if err != nil {
		return nil, u, nil, err
	}
	if resp.status != 200 {
		return nil, u, nil, errors.New(statusText(resp.status))
	}
	files, err := v.unpack(resp, u)
	if err != nil {
		return nil, u, nil, err
	}
	if got := ManifestDigest(files); got != k.Digest {
		return nil, u, nil, fmt.Errorf("the files' manifest digest %s is not %s, the one %s gives", got, k.Digest, MetaVersions)
	}
	md := skillMDOf(files)
	if md == nil {
		return nil, u, nil, errors.New("the archive has no SKILL.md")
	}
	if got, err := FrontmatterName(md); err != nil || got != vname {
		return nil, u, nil, fmt.Errorf("SKILL.md frontmatter name is %q (%v), not %q", got, err, vname)
	}
	return files, u, resp.body, nil
}

// checkVersions verifies every kept version of every skill the index and the MCP
// manifest agree on: it downloads each version's archive and holds its files to the
// manifest digest resources/list gives (versionFiles), and holds the newest kept version,
// which is the latest's own, to the manifest digest of the latest files the index's
// artifact gave.
//
// Why does `skilledge verify` check kept versions by their archives? A catalog that keeps
// versions publishes bytes no listing or index names: each older version, served at its
// own path. verify once checked the latest only, so a damaged or altered version in the
// store went unseen until an agent pinned it. The versions are read where they are
// announced, the _meta of each latest SKILL.md in resources/list (one pass over the
// listing); an entry that is not a version name, a SKILL.md URI under the skill's own
// @VERSION/ and a digest is a problem, and nothing it names is fetched. This is the read
// pull NAME@VERSION makes (versionFiles serves both). A server without resources/list
// keeps no versions. Rejected: reading each version's files over MCP (resources/read per
// file), many more requests for the same check, and a --versions flag, since a check that
// leaves bytes out by default is the gap this closes. Cost: one download per kept
// version, up to keep times the latest's.
func (v *verifier) checkVersions(ctx context.Context) {
	if v.mcp == nil {
		return // the MCP manifest was not read: already a problem
	}
	endpoint := v.withPath(MCPPath)
	kept, err := v.listKept(ctx, endpoint)
	if err != nil {
		if ctx.Err() == nil {
			v.problem("", endpoint.String(), "cannot read the kept versions: %v", err)
		}
		return
	}
	for _, sr := range v.list {
		m, why := v.mcpEntry(sr.Name)
		if why != "" {
			continue // reported by the cross-check
		}
		e := kept[m.uri]
		if e.err != nil {
			v.skillProblem(sr, endpoint.String(), "%v", e.err)
			continue
		}
		for i, k := range e.versions {
			if ctx.Err() != nil {
				return
			}
			_, u, _, err := v.versionFiles(ctx, sr.Name, k)
			if err != nil {
				at := k.URI
				if u != nil {
					at = u.String()
				}
				v.skillProblem(sr, at, "version %s: %v", k.Version, err)
				continue
			}
			sr.Versions++
			v.versionsOK = append(v.versionsOK, keptOK{sr, k})
			if st := v.skills[sr.Name]; i == 0 && st.files != nil {
				if latest := manifestOfInfo(st.files); latest != k.Digest {
					v.skillProblem(sr, u.String(), "version %s, the newest kept, has manifest digest %s; the latest files, %s", k.Version, k.Digest, latest)
				}
			}
		}
	}
}

// keptOK is a kept version that verified (checkVersions), of the skill sr: checkRoot holds
// it to the signed root too.
type keptOK struct {
	sr *SkillReport
	k  Version
}
