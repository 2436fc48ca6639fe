package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/archive"
)

// checkV01 checks the v0.1.0 index, if the deployment has one: every entry's files are
// fetched from /.well-known/skills/<name>/<file> and compared with the MCP manifest's
// entry of that name (or, without one, with the verified v0.2.0 artifact). An absent
// index is a note, not a problem: v0.1.0 is the older, optional surface.
func (v *verifier) checkV01(ctx context.Context) {
	indexURL, doc, absent := v.readV01Index(ctx)
	if absent {
		v.rep.Notes = append(v.rep.Notes, indexURL.String()+": no v0.1.0 skills index (it is optional): not checked")
		return
	}
	if indexURL == nil {
		return
	}
	at := indexURL.String()
	if tr := doc.Get("trustRoot"); tr.Exists() {
		r, err := v.parseRoot(tr.Str)
		switch {
		case tr.Type != gjson.String:
			v.problem("", at, "the index's trustRoot is %s, not a string", tr.Raw)
		case err != nil:
			v.problem("", at, "the index declares an invalid %v", err)
		case v.declared.IsZero():
			v.problem("", at, "the v0.1.0 index declares the trust root %s and the v0.2.0 index none", v.showRoot(r))
		case r != v.declared:
			v.problem("", at, "the v0.1.0 index declares the trust root %s and the v0.2.0 index %s", v.showRoot(r), v.showRoot(v.declared))
		}
	}
	seen := v.v01Entries(ctx, doc, at, func(name string, e gjson.Result) {
		v.checkV01Entry(ctx, indexURL, name, e)
	})
	for _, sr := range v.list {
		if v.skills[sr.Name].kind != "" && !seen[sr.Name] {
			v.skillProblem(sr, at, "the v0.1.0 index does not list this skill")
		}
	}
}

// checkV01Entry checks one entry of the v0.1.0 index.
func (v *verifier) checkV01Entry(ctx context.Context, indexURL *url.URL, name string, e gjson.Result) {
	dir := indexURL.ResolveReference(&url.URL{Path: name + "/"})
	at := indexURL.String()
	if _, ok := v.skills[name]; !ok {
		v.problem(name, at, "the v0.1.0 index lists this skill, the v0.2.0 index does not")
	}
	if d := e.Get("description"); d.Type != gjson.String || d.Str == "" {
		v.nameProblem(name, at, "the v0.1.0 entry's description %s is not a non-empty string", orMissing(d))
	}
	if p := e.Get("path"); p.Exists() {
		ref, err := url.Parse(p.Str)
		if p.Type != gjson.String || err != nil {
			v.nameProblem(name, at, "the v0.1.0 entry's path %s is not a URL path", p.Raw)
		} else if got := indexURL.ResolveReference(ref); got.String() != dir.String() {
			v.nameProblem(name, at, "the v0.1.0 entry's path %s resolves to %s, not the skill's directory %s", p.Raw, got, dir)
		}
	}
	list, ok := v.v01FileList(name, at, e)
	if !ok {
		return
	}
	ref, refWhat := v.reference(name)
	if ref == nil {
		v.nameProblem(name, dir.String(), "the v0.1.0 files cannot be checked: neither the MCP manifest nor a verified v0.2.0 artifact gives their digests")
		return
	}
	got, fetched, ok := v.v01Files(ctx, dir, at, name, list)
	if !ok {
		return
	}
	listed := make(map[string]fileInfo, len(got))
	for _, f := range got {
		if _, ok := fetched[f.Name]; ok {
			listed[f.Name] = fileInfo{digest: DigestOf(f.Data), size: int64(len(f.Data))}
		} else {
			listed[f.Name] = fileInfo{}
		}
	}
	if _, ok := listed["SKILL.md"]; !ok {
		v.nameProblem(name, at, "the v0.1.0 entry's files do not include SKILL.md")
	}
	for _, d := range compareFiles(listed, "the v0.1.0 index", ref, refWhat) {
		v.nameProblem(name, dir.String(), "%s", d)
	}
}

// reference returns the files the v0.1.0 entry name must hold, and what says so: the
// MCP manifest's single entry of that name, else the verified v0.2.0 artifact.
func (v *verifier) reference(name string) (map[string]fileInfo, string) {
	if ms := v.mcp[name]; len(ms) == 1 && ms[0].bad == "" {
		return ms[0].files, fmt.Sprintf("the MCP manifest (%s)", ms[0].uri)
	}
	if st, ok := v.skills[name]; ok && st.files != nil {
		return st.files, "the v0.2.0 artifact"
	}
	return nil, ""
}

// readV01Index fetches and parses the v0.1.0 index. It returns the index URL (after
// redirects) and the document; absent when the deployment answers 404 (with the URL
// asked); a nil URL when the index is unusable (the problem is recorded).
func (v *verifier) readV01Index(ctx context.Context) (indexURL *url.URL, doc gjson.Result, absent bool) {
	indexURL = v.withPath(IndexV01Path)
	at := indexURL.String()
	resp, err := v.get(ctx, indexURL, "application/json", v.sameOrigin, maxIndexBytes)
	if err != nil {
		v.problem("", at, "cannot fetch the v0.1.0 skills index: %v", err)
		return nil, doc, false
	}
	if resp.status == 404 {
		return indexURL, doc, true
	}
	if resp.status != 200 {
		v.problem("", at, "%s", statusText(resp.status))
		return nil, doc, false
	}
	indexURL = resp.url
	at = indexURL.String()
	if !gjson.ValidBytes(resp.body) {
		v.problem("", at, "the v0.1.0 skills index is not valid JSON")
		return nil, doc, false
	}
	return indexURL, gjson.ParseBytes(resp.body), false
}

// v01Entries calls each for every entry of the v0.1.0 index doc (at) whose name is a
// valid skill name given once, recording a problem for every other, and returns the
// names seen.
func (v *verifier) v01Entries(ctx context.Context, doc gjson.Result, at string, each func(name string, e gjson.Result)) map[string]bool {
	seen := make(map[string]bool)
	skills := doc.Get("skills")
	if !skills.IsArray() {
		v.problem("", at, "the v0.1.0 index has no \"skills\" array")
		return seen
	}
	for i, e := range skills.Array() {
		if ctx.Err() != nil {
			return seen
		}
		label := fmt.Sprintf("v0.1.0 skills[%d]", i)
		name := e.Get("name")
		switch {
		case !e.IsObject():
			v.problem(label, at, "not a JSON object")
			continue
		case name.Type != gjson.String || !ValidName(name.Str):
			v.problem(label, at, "name %s is not a valid skill name: skipped", orMissing(name))
			continue
		case seen[name.Str]:
			v.nameProblem(name.Str, at, "%s has the same name as an earlier entry of the v0.1.0 index: skipped", label)
			continue
		}
		seen[name.Str] = true
		each(name.Str, e)
	}
	return seen
}

// v01Files fetches the files list names from the skill's directory dir, each a safe
// relative path given once, under the trust root, all of them within Limits.MaxBytes.
// It returns them in the list's order (a file that could not be fetched has no data and
// is not in fetched; its problem is recorded), and fetched, each file fetched with the
// ETag it was served with ("" for none, or one that ValidETag refuses); ok is false when
// the skill is over the limit or ctx is done.
func (v *verifier) v01Files(ctx context.Context, dir *url.URL, at, name string, list []gjson.Result) (files []archive.File, fetched map[string]string, ok bool) {
	listed := make(map[string]bool, len(list))
	fetched = make(map[string]string, len(list))
	budget := v.lim.MaxBytes
	for _, f := range list {
		if ctx.Err() != nil {
			return files, fetched, false
		}
		if f.Type != gjson.String {
			v.nameProblem(name, at, "the v0.1.0 entry's files hold %s, not a string", orMissing(f))
			continue
		}
		if why := v01FileProblem(f.Str); why != "" {
			v.nameProblem(name, at, "the v0.1.0 entry's file %q: %s: not fetched", f.Str, why)
			continue
		}
		if listed[f.Str] {
			v.nameProblem(name, at, "the v0.1.0 entry lists the file %q twice", f.Str)
			continue
		}
		listed[f.Str] = true
		files = append(files, archive.File{Name: f.Str})
		fu := dir.ResolveReference(&url.URL{Path: f.Str})
		if why := v.outside(fu); why != "" {
			v.nameProblem(name, fu.String(), "%s (not fetched)", why)
			continue
		}
		resp, err := v.get(ctx, fu, "*/*", v.outside, budget)
		switch {
		case errors.Is(err, errTooBig):
			v.nameProblem(name, fu.String(), "the skill's v0.1.0 files hold more than %d bytes: refused", v.lim.MaxBytes)
			return nil, nil, false
		case err != nil:
			v.nameProblem(name, fu.String(), "cannot fetch: %v", err)
			continue
		case resp.status != 200:
			v.nameProblem(name, fu.String(), "%s", statusText(resp.status))
			continue
		}
		budget -= int64(len(resp.body))
		files[len(files)-1].Data = resp.body
		fetched[f.Str] = ""
		if tag := resp.header.Get("ETag"); ValidETag(tag) {
			fetched[f.Str] = tag
		}
	}
	return files, fetched, true
}

// v01FileList returns the entry's files member, or false (with the problem recorded)
// when it is not a non-empty array within Limits.MaxEntries.
func (v *verifier) v01FileList(name, at string, e gjson.Result) ([]gjson.Result, bool) {
	files := e.Get("files")
	list := files.Array()
	switch {
	case !files.IsArray() || len(list) == 0:
		v.nameProblem(name, at, "the v0.1.0 entry's files %s are not a non-empty array", orMissing(files))
		return nil, false
	case len(list) > v.lim.MaxEntries:
		v.nameProblem(name, at, "the v0.1.0 entry lists %d files, over the limit of %d: not fetched", len(list), v.lim.MaxEntries)
		return nil, false
	}
	return list, true
}

// v01FileProblem is why a v0.1.0 entry's file name may not be fetched, or "".
func v01FileProblem(s string) string {
	why := safeRelPath(s)
	if l := strings.ToLower(s); why == "" && (strings.Contains(l, "%2f") || strings.Contains(l, "%5c")) {
		why = "it contains an encoded separator (%2F or %5C)"
	}
	return why
}

// ValidETag reports whether s is an entity tag a client may keep and send back in
// If-None-Match: a quoted string, optionally weak (W/), of printable ASCII, at most 256
// bytes.
func ValidETag(s string) bool {
	t := strings.TrimPrefix(s, "W/")
	if len(s) > 256 || len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
		return false
	}
	for _, c := range []byte(t[1 : len(t)-1]) {
		if c <= ' ' || c == '"' || c >= 0x7f {
			return false
		}
	}
	return true
}

// v01NotModified asks for each file of list, under dir, with If-None-Match its ETag in
// etags, and reports whether every answer is 304 Not Modified: the files the caller
// holds are the ones served. list must name each file of etags once. No body is read: any other answer is false. A server that
// lies keeps the caller's files as they are, never writes any.
func (v *verifier) v01NotModified(ctx context.Context, dir *url.URL, list []gjson.Result, etags map[string]string) bool {
	if len(list) != len(etags) {
		return false
	}
	seen := make(map[string]bool, len(list))
	for _, f := range list {
		tag, ok := etags[f.Str]
		if f.Type != gjson.String || !ok || seen[f.Str] || !ValidETag(tag) || v01FileProblem(f.Str) != "" {
			return false
		}
		seen[f.Str] = true
		fu := dir.ResolveReference(&url.URL{Path: f.Str})
		if v.outside(fu) != "" {
			return false
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fu.String(), nil)
		if err != nil {
			return false
		}
		req.Header.Set("Accept", "*/*")
		req.Header.Set("If-None-Match", tag)
		resp, err := v.do(req, v.outside, 0)
		if err != nil || resp.status != http.StatusNotModified {
			return false
		}
	}
	return true
}
