// Package packtest holds what tests of several packages check of an index: that two
// encodings of one catalog answer alike.
package packtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/search"
)

// CompareAll reads everything a server reads of w, an index, and s, the same catalog
// encoded otherwise (sharded), and reports each difference on t.
func CompareAll(t *testing.T, w, s *catalog.Pack) {
	t.Helper()
	diff := func(what string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: whole %q, sharded %q", what, a, b)
		}
	}
	diff("digest", w.Digest(), s.Digest())
	diff("skills", w.NumSkills(), s.NumSkills())
	diff("resources", w.NumResources(), s.NumResources())
	diff("listed", w.NumListed(), s.NumListed())
	diff("dirs", w.NumDirs(), s.NumDirs())
	diff("published", w.NumHTTPSkills(), s.NumHTTPSkills())
	if t.Failed() {
		return
	}
	var uris, names, paths []string
	for i := range w.NumSkills() {
		s.Tick()
		for f := range catalog.SkillFields {
			if f == catalog.SkillFiles || f == catalog.SkillArchives {
				continue // row numbers inside a shard: compared as SkillFileAt and Archives
			}
			diff(fmt.Sprintf("skill %d field %d", i, f), w.Skill(i, f), s.Skill(i, f))
		}
		for f := range catalog.FallbackFields {
			if f != catalog.FallbackSkillMD {
				diff(fmt.Sprintf("skill %d fallback %d", i, f), w.Fallback(i, f), s.Fallback(i, f))
			}
		}
		diff(fmt.Sprintf("skill %d SKILL.md", i), w.SkillMD(i), s.SkillMD(i))
		wt, wz, wok := w.Archives(i)
		st, sz, sok := s.Archives(i)
		diff(fmt.Sprintf("skill %d archives", i), []any{wt, wz, wok}, []any{st, sz, sok})
		nfiles := len(w.Skill(i, catalog.SkillFiles)) / 4
		for k := range nfiles {
			diff(fmt.Sprintf("skill %d file %d", i, k), w.SkillFileAt(i, k), s.SkillFileAt(i, k))
		}
		path := string(w.SkillPath(i))
		for _, prefix := range []string{"", path, path + "/", path[:len(path)/2]} {
			wl, wh := w.SkillPathsWithPrefix(prefix)
			sl, sh := s.SkillPathsWithPrefix(prefix)
			diff("paths with prefix "+prefix, []int{wl, wh}, []int{sl, sh})
			uri := catalog.Scheme + prefix
			wl, wh = w.SkillsUnder(uri)
			sl, sh = s.SkillsUnder(uri)
			diff("skills under "+uri, []int{wl, wh}, []int{sl, sh})
			fl, fh := w.SkillFilesWithPrefix(i, uri)
			gl, gh := s.SkillFilesWithPrefix(i, uri)
			diff("files with prefix "+uri, []int{fl, fh}, []int{gl, gh})
		}
		uris = append(uris, string(w.Skill(i, catalog.SkillURI)))
		names = append(names, string(w.Skill(i, catalog.SkillName)), string(w.Fallback(i, catalog.FallbackPrompt)))
		paths = append(paths, path)
	}
	for k := range w.NumSkills() {
		diff(fmt.Sprintf("URI rank %d", k), w.SkillByURIRank(k), s.SkillByURIRank(k))
		diff(fmt.Sprintf("path rank %d", k), w.SkillByPathRank(k), s.SkillByPathRank(k))
	}
	for k := range w.NumHTTPSkills() {
		diff(fmt.Sprintf("published %d", k), w.HTTPSkill(k), s.HTTPSkill(k))
	}
	for i := range w.NumResources() {
		s.Tick()
		for f := range catalog.ResFields {
			diff(fmt.Sprintf("resource %d field %d", i, f), w.Resource(i, f), s.Resource(i, f))
		}
		uris = append(uris, string(w.Resource(i, catalog.ResURI)))
	}
	for d := range w.NumDirs() {
		for f := range catalog.DirFields {
			if f != catalog.DirChildren {
				diff(fmt.Sprintf("dir %d field %d", d, f), w.Dir(d, f), s.Dir(d, f))
			}
		}
		diff(fmt.Sprintf("dir %d children", d), w.NumChildren(d), s.NumChildren(d))
		for k := range w.NumChildren(d) {
			diff(fmt.Sprintf("dir %d child %d", d, k), w.ChildAt(d, k), s.ChildAt(d, k))
		}
		uris = append(uris, string(w.Dir(d, catalog.DirURI)))
	}
	for _, u := range append(uris, "skill://", "skill://0", "skill://~", "skill://pdf-tools/x", "") {
		for _, probe := range []string{u, u + "/", u + "x", strings.TrimSuffix(u, "/SKILL.md")} {
			wi, wok := w.ResourceByURI(probe)
			si, sok := s.ResourceByURI(probe)
			diff("resource by URI "+probe, []any{wi, wok}, []any{si, sok})
			wi, wok = w.SkillByURI(probe)
			si, sok = s.SkillByURI(probe)
			if wok || sok {
				diff("skill by URI "+probe, []any{wi, wok}, []any{si, sok})
			}
			wi, wok = w.DirByURI(probe)
			si, sok = s.DirByURI(probe)
			if wok || sok {
				diff("dir by URI "+probe, []any{wi, wok}, []any{si, sok})
			}
			wl, wh := w.SkillsUnder(probe)
			sl, sh := s.SkillsUnder(probe)
			diff("skills under "+probe, []int{wl, wh}, []int{sl, sh})
			compareRead(t, w, s, probe, paths)
		}
	}
	for _, n := range append(names, "", "nope", "zzzz", "a") {
		diff("skills named "+n, w.SkillsByName(n), s.SkillsByName(n))
		wi, wok := w.SkillByPrompt(n)
		si, sok := s.SkillByPrompt(n)
		diff("prompt "+n, []any{wi, wok}, []any{si, sok})
	}
	for _, p := range append(paths, "", "zz", "a/") {
		wi, wok := w.SkillByPath(p)
		si, sok := s.SkillByPath(p)
		diff("skill by path "+p, []any{wi, wok}, []any{si, sok})
	}
	for f := range catalog.SiteFields {
		if f != catalog.SitePromptsByName && f != catalog.SiteHTTPSkills {
			diff(fmt.Sprintf("site %d", f), w.Site(f), s.Site(f))
		}
	}
	for _, doc := range []string{catalog.AgentSkillsIndex, catalog.SkillsIndex} {
		a, _ := w.HTTPDoc(doc, catalog.HTTPObject)
		b, _ := s.HTTPDoc(doc, catalog.HTTPObject)
		diff(doc, a, b)
	}
	// Search: every query of every term (and a prefix, a near spelling) finds the same
	// hits with the same scores, and every skill has the same entry. The older versions
	// have no search table (they are looked up by URI), in either encoding.
	if w.Search() == nil || s.Search() == nil {
		diff("a search table", w.Search() != nil, s.Search() != nil)
		return
	}
	wix, err := search.Open(w.Search(), w.NumSkills())
	if err != nil {
		t.Fatal(err)
	}
	six, err := search.OpenSharded(s.Search(), s.NumSkills(), s.SearchChunk, s.SearchEntry)
	if err != nil {
		t.Fatal(err)
	}
	if six.Chunks() < 2 {
		t.Errorf("%d postings chunks", six.Chunks())
	}
	for k := range w.NumSkills() {
		diff(fmt.Sprintf("entry %d", k), wix.Entry(k), six.Entry(k))
		diff(fmt.Sprintf("published %d", k), wix.Published(k), six.Published(k))
	}
	var sc search.Scratch
	for _, text := range append(names, "pdf", "deploy skil", "git worklfow", "releas", "the", "csv data") {
		q, err := search.ParseQuery(text)
		if err != nil {
			continue
		}
		a := wix.Search(q, &sc, nil)
		s.Tick()
		b := six.Search(q, &sc, nil)
		if m := six.Missed(&sc); len(m) > 0 {
			t.Errorf("query %q missed chunks %v with a Loader", text, m)
		}
		diff("query "+text, a, b)
	}
}

// compareRead checks what s, sharded, reads of uri from its read chunks (ReadByURI)
// against w's resource of that URI: a file of a skill is there, with w's head, value and
// meta, of the innermost skill of paths (the escaped paths of w's skills) that holds it;
// nothing else is.
func compareRead(t *testing.T, w, s *catalog.Pack, uri string, paths []string) {
	t.Helper()
	got, ok := s.ReadByURI(uri)
	wi, file := w.ResourceByURI(uri)
	file = file && wi < w.NumFiles()
	if !s.Sharded() || !file {
		if ok {
			t.Errorf("read of %q from the read chunks, which hold no such file", uri)
		}
		return
	}
	if !ok {
		t.Errorf("read of %q: not in the read chunks", uri)
		return
	}
	head := catalog.ReadHeadURIKey + `"` + uri + `"` + string(got.HeadRest)
	want, skill := w.Resource(wi, catalog.ResReadHead), ""
	for _, p := range paths {
		if strings.HasPrefix(uri, catalog.Scheme+p+"/") && len(p) > len(skill) {
			skill = p
		}
	}
	if head != string(want) || string(got.Value) != string(w.Resource(wi, catalog.ResReadValue)) ||
		string(got.Meta) != string(w.Resource(wi, catalog.ResReadMeta)) || got.Skill != skill {
		t.Errorf("read of %q: head %q value %q meta %q of %q, whole %q %q %q of %q", uri, head, got.Value, got.Meta, got.Skill,
			want, w.Resource(wi, catalog.ResReadValue), w.Resource(wi, catalog.ResReadMeta), skill)
	}
}
