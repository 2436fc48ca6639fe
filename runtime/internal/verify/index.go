package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/catalog/trust"
	"github.com/skilledge/skilledge/edge/wire"
	"maps"
	"slices"
)

// maxIndexBytes bounds an index and a page of the MCP manifest.
const maxIndexBytes = 32 << 20

// DigestOf is the digest of b as indexes write it: "sha256:" and 64 lowercase hex digits.
func DigestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// readIndex reads the v0.2.0 index, settles the trust root and verifies every entry's
// artifact. It returns false if there is nothing further to check.
func (v *verifier) readIndex(ctx context.Context) bool {
	indexURL := v.withPath(IndexPath)
	v.rep.IndexURL = indexURL.String()
	resp, err := v.get(ctx, indexURL, "application/json", v.sameOrigin, maxIndexBytes)
	if err != nil {
		v.problem("", indexURL.String(), "cannot fetch the v0.2.0 skills index: %v", err)
		return false
	}
	if resp.status != 200 {
		v.rep.NoIndex = resp.status == 404
		why := "no v0.2.0 skills index"
		if resp.failure == wire.FailAuth.Name {
			why = authRefused
		}
		v.problem("", indexURL.String(), "%s: %s", statusText(resp.status), why)
		return false
	}
	indexURL = resp.url
	v.rep.IndexURL = indexURL.String()
	at := indexURL.String()
	if !gjson.ValidBytes(resp.body) {
		v.problem("", at, "the v0.2.0 skills index is not valid JSON")
		return false
	}
	doc := gjson.ParseBytes(resp.body)
	if !doc.IsObject() {
		v.problem("", at, "the v0.2.0 skills index is not a JSON object")
		return false
	}
	switch schema := doc.Get(`\$schema`); {
	case !schema.Exists():
		v.problem("", at, "the index has no $schema (it must be %q; an index without one is v0.1.0, which belongs at %s)", Schema, IndexV01Path)
		return false
	case schema.Type != gjson.String || schema.Str != Schema:
		v.problem("", at, "the index's $schema is %s, not %q: not processed", schema.Raw, Schema)
		return false
	}
	v.settleRoot(doc.Get("trustRoot"), indexURL)
	skills := doc.Get("skills")
	if !skills.IsArray() {
		v.problem("", at, "the index has no \"skills\" array")
		return false
	}
	for i, e := range skills.Array() {
		if ctx.Err() != nil {
			return false
		}
		v.checkEntry(ctx, i, e, indexURL)
	}
	return true
}

// settleRoot chooses the trust root (see Options.TrustRoot) given the index's declared
// trustRoot field (which may not exist).
func (v *verifier) settleRoot(field gjson.Result, indexURL *url.URL) {
	at := indexURL.String()
	var declared trust.Root
	if field.Exists() {
		if field.Type != gjson.String {
			v.problem("", at, "the index's trustRoot is %s, not a string", field.Raw)
		} else if r, err := v.parseRoot(field.Str); err != nil {
			v.problem("", at, "the index declares an invalid %v", err)
		} else {
			declared = r
			v.declared = r
		}
	}
	switch {
	case !v.root.IsZero():
		v.rep.TrustRootSource = "configured"
		if declared.IsZero() {
			break
		}
		if why := v.root.Explain(declared.String()); why != "" {
			v.problem("", at, "the index declares the trust root %s, which is not under the configured %s: %s",
				v.showRoot(declared), v.showRoot(v.root), why)
			break
		}
		v.root = declared // the narrower
		v.rep.TrustRootSource = "configured, narrowed by the index"
	case !declared.IsZero():
		if why := declared.Explain(v.asHTTPS(indexURL)); why != "" {
			v.problem("", at, "the index declares the trust root %s but is not under it (%s): a deployment can only declare a root it is served from; using the index's origin",
				v.showRoot(declared), why)
			break
		}
		v.root = declared
		v.rep.TrustRootSource = "declared by the index"
	}
	if v.root.IsZero() {
		o := url.URL{Scheme: indexURL.Scheme, Host: indexURL.Host, Path: "/"}
		r, err := v.parseRoot(o.String())
		if err != nil {
			// The origin of a deployment on a UGC platform, or an odd host: there is
			// nothing every skill URL could be trusted under.
			v.problem("", at, "no trust root: the index declares none, none was configured, and its origin is not one: %v", err)
		}
		v.root = r
		v.rep.TrustRootSource = "the origin of the index"
	}
	v.rep.TrustRoot = v.showRoot(v.root)
}

// checkEntry verifies entry i of the v0.2.0 index.
func (v *verifier) checkEntry(ctx context.Context, i int, e gjson.Result, indexURL *url.URL) {
	label := fmt.Sprintf("skills[%d]", i)
	if !e.IsObject() {
		v.problem(label, "", "not a JSON object: skipped")
		return
	}
	name := e.Get("name")
	if name.Type != gjson.String || !ValidName(name.Str) {
		v.problem(label, "", "name %s is not a valid skill name (1-64 of a-z, 0-9, \"-\"; no leading, trailing or doubled \"-\"): skipped", orMissing(name))
		return
	}
	if _, dup := v.skills[name.Str]; dup {
		v.problem(name.Str, "", "%s has the same name as an earlier entry; names must be unique: skipped", label)
		return
	}
	sr := &SkillReport{Name: name.Str}
	st := &skillState{rep: sr}
	v.list = append(v.list, sr)
	v.skills[sr.Name] = st

	typ, rawURL, digest := e.Get("type"), e.Get("url"), e.Get("digest")
	if rawURL.Type == gjson.String {
		if ref, err := url.Parse(rawURL.Str); err == nil {
			sr.URL = indexURL.ResolveReference(ref).String()
		} else {
			sr.URL = rawURL.Str
		}
	}
	if typ.Type != gjson.String || (typ.Str != "skill-md" && typ.Str != "archive") {
		v.skillProblem(sr, sr.URL, "unknown type %s (known: \"skill-md\", \"archive\"): skipped", orMissing(typ))
		return
	}
	st.kind = typ.Str
	switch d := e.Get("description"); {
	case d.Type != gjson.String || strings.TrimSpace(d.Str) == "":
		v.skillProblem(sr, "", "description %s is not a non-empty string", orMissing(d))
	case utf8.RuneCountInString(d.Str) > 1024:
		v.skillProblem(sr, "", "description is over 1024 characters")
	}
	if digest.Type != gjson.String || !catalog.IsDigest(digest.Str) {
		v.skillProblem(sr, sr.URL, "digest %s is not \"sha256:\" and 64 lowercase hex digits: not verifiable", orMissing(digest))
		return
	}
	if rawURL.Type != gjson.String || rawURL.Str == "" {
		v.skillProblem(sr, "", "url %s is not a non-empty string", orMissing(rawURL))
		return
	}
	u, why := v.resolve(indexURL, rawURL.Str)
	if why != "" {
		v.skillProblem(sr, sr.URL, "%s (not fetched)", why)
		return
	}
	sr.URL = u.String()
	version := listedVersion(e, "frontmatter.version", "frontmatter.metadata.version")
	listed := Fetched{Name: sr.Name, Path: sr.Name, URL: sr.URL, Digest: digest.Str, Kind: DigestArtifact, Version: Printable(version)}
	if v.want != nil && (v.takeErr != nil || !v.want(listed)) {
		v.fetched = append(v.fetched, listed)
		return
	}
	limit := v.lim.MaxBytes
	if typ.Str == "archive" {
		limit = v.archiveLimit()
	}
	resp, err := v.get(ctx, u, "*/*", v.outside, limit)
	if err != nil {
		if errors.Is(err, errTooBig) {
			v.skillProblem(sr, sr.URL, "the artifact is %v: refused", err)
		} else {
			v.skillProblem(sr, sr.URL, "cannot fetch: %v", err)
		}
		return
	}
	if resp.status != 200 {
		v.skillProblem(sr, sr.URL, "%s", statusText(resp.status))
		return
	}
	if got := DigestOf(resp.body); got != digest.Str {
		v.skillProblem(sr, sr.URL, "digest %s does not match the index's %s", got, digest.Str)
		return
	}
	var files []archive.File
	if typ.Str == "skill-md" {
		files = []archive.File{{Name: "SKILL.md", Data: resp.body}}
	} else {
		files, err = v.unpack(resp, u)
		if err != nil {
			v.skillProblem(sr, sr.URL, "%v", err)
			return
		}
	}
	sr.Files = len(files)
	st.files = make(map[string]fileInfo, len(files))
	var skillMD []byte
	for _, f := range files {
		st.files[f.Name] = fileInfo{digest: DigestOf(f.Data), size: int64(len(f.Data))}
		if f.Name == "SKILL.md" {
			skillMD = f.Data
		}
	}
	if skillMD == nil {
		v.skillProblem(sr, sr.URL, "the archive has no SKILL.md at its root")
		return
	}
	if typ.Str == "archive" {
		v.checkZip(ctx, sr, u, limit, files, st.files)
	}
	named, err := skillMDName(skillMD, sr.Name)
	if err != nil {
		v.skillProblem(sr, sr.URL, "%v", err)
	}
	listed.Named, sr.Named = named, named
	if v.want != nil && sr.OK() {
		listed.Files = files
		v.fetched = append(v.fetched, v.deliver(listed))
	}
}

// orMissing renders a JSON value for a message, or "(missing)".
func orMissing(r gjson.Result) string {
	if !r.Exists() {
		return "(missing)"
	}
	if len(r.Raw) > 80 {
		return r.Raw[:77] + "..."
	}
	return r.Raw
}

// resolve resolves ref against the index URL (RFC 3986 section 5) and returns the URL, or
// why it may not be fetched: not a URL, not https, or outside the trust root.
func (v *verifier) resolve(indexURL *url.URL, ref string) (*url.URL, string) {
	r, err := url.Parse(ref)
	if err != nil {
		return nil, fmt.Sprintf("url %q is not a URL", ref)
	}
	u := indexURL.ResolveReference(r)
	if why := v.outside(u); why != "" {
		return u, why
	}
	return u, ""
}

// archiveLimit bounds an archive download: MaxBytes of files, 1 KiB of headers per entry
// and 64 KiB more (Options.Limits).
func (v *verifier) archiveLimit() int64 {
	return v.lim.MaxBytes + int64(v.lim.MaxEntries)*1024 + 64<<10
}

// unpack reads an archive in memory. The format comes from the Content-Type, or from the
// URL's extension when the type is missing or generic.
// checkZip compares, for Verify, the .zip served beside the .tar.gz at u (skilledge serves
// both), when there is one, with the .tar.gz's files, verified already: the same files, by digest,
// and the same execute bits, for an agent that unpacks either must get the same skill.
// The index names no .zip, so none is no problem. digests are the .tar.gz's files'.
func (v *verifier) checkZip(ctx context.Context, sr *SkillReport, u *url.URL, limit int64, tar []archive.File, digests map[string]fileInfo) {
	if v.want != nil || !strings.HasSuffix(u.Path, ".tar.gz") {
		return // a read for pull takes the .tar.gz alone: it downloads nothing more
	}
	zu := *u
	zu.Path, zu.RawPath = strings.TrimSuffix(u.Path, ".tar.gz")+".zip", ""
	resp, err := v.get(ctx, &zu, "*/*", v.outside, limit)
	if err != nil || resp.status == 404 {
		return
	}
	at := zu.String()
	if resp.status != 200 {
		v.skillProblem(sr, at, "%s", statusText(resp.status))
		return
	}
	zip, err := v.unpack(resp, &zu)
	if err != nil {
		v.skillProblem(sr, at, "%v", err)
		return
	}
	byName := make(map[string]archive.File, len(tar))
	for _, f := range tar {
		byName[f.Name] = f
	}
	for _, z := range zip {
		t, ok := byName[z.Name]
		switch {
		case !ok:
			v.skillProblem(sr, at, "file %q is in the .zip but not in the .tar.gz", z.Name)
		case DigestOf(z.Data) != digests[t.Name].digest:
			v.skillProblem(sr, at, "file %q differs between the .zip and the .tar.gz", z.Name)
		case z.Exec != t.Exec:
			v.skillProblem(sr, at, "file %q is executable in %s only: the archives disagree on its mode", z.Name, map[bool]string{true: "the .zip", false: "the .tar.gz"}[z.Exec])
		}
		delete(byName, z.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		v.skillProblem(sr, at, "file %q is in the .tar.gz but not in the .zip", name)
	}
}

func (v *verifier) unpack(resp *response, u *url.URL) ([]archive.File, error) {
	var inspect func([]byte, archive.Limits) ([]archive.File, error)
	switch resp.contentType {
	case "application/gzip", "application/x-gzip", "application/x-tar+gzip", "application/x-gtar":
		inspect = archive.InspectTarGz
	case "application/zip", "application/x-zip-compressed":
		inspect = archive.InspectZip
	default:
		switch p := strings.ToLower(path.Base(u.Path)); {
		case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
			inspect = archive.InspectTarGz
		case strings.HasSuffix(p, ".zip"):
			inspect = archive.InspectZip
		default:
			return nil, fmt.Errorf("cannot tell the archive's format: Content-Type %q and no .tar.gz or .zip extension", resp.contentType)
		}
	}
	files, err := inspect(resp.body, v.lim)
	if errors.Is(err, archive.ErrUnsafe) {
		return nil, fmt.Errorf("unsafe archive refused: %s", strings.TrimPrefix(err.Error(), archive.ErrUnsafe.Error()+": "))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the archive: %s", strings.TrimPrefix(err.Error(), "archive: "))
	}
	return files, nil
}
