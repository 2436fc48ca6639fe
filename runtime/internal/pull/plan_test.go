package pull

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

const planSource = "https://skills.example.com"

// The states of an installed skill's folder in a plan case.
const (
	asPulled  = "as pulled"
	edited    = "edited"    // its SKILL.md changed since the pull
	gone      = "gone"      // its folder deleted
	unmanaged = "unmanaged" // a folder the lock does not name
)

// planSkill is a skill of a plan case: as the lock has it (with the state of its folder),
// or as the source serves it.
type planSkill struct {
	name    string
	version string // the files' version: "1" or "2"
	kind    string // how the source gives its digest (verify.Digest…): the artifact's by default
	source  string // the lock's source, planSource by default
	pinned  bool
	folder  string // the lock's: the folder's state, asPulled by default
}

func (p planSkill) files() []archive.File {
	return []archive.File{{Name: "SKILL.md", Data: []byte(skillMD(p.name, "Version "+p.version+"."))}}
}

// fetched is p as a read of the source gives it, with its files.
func (p planSkill) fetched() verify.Fetched {
	f := verify.Fetched{Name: p.name, Path: p.name, URL: planSource + "/" + p.name, Kind: p.kind, Files: p.files()}
	if f.Kind == "" {
		f.Kind = verify.DigestArtifact
	}
	f.Digest = verify.ManifestDigest(f.Files)
	if f.Kind == verify.DigestArtifact {
		f.Digest = digestOf([]byte(fmt.Sprint("artifact of ", f.Files)))
	}
	return f
}

// writeLocked writes p's lock entry into lock and its folder into dir, in the state it
// says.
func (p planSkill) writeLocked(t *testing.T, dir string, lock *Lock) {
	t.Helper()
	if p.folder == unmanaged {
		writeSkills(t, filepath.Join(dir, p.name), map[string]string{"mine.md": "mine"})
		return
	}
	f := p.fetched()
	source := p.source
	if source == "" {
		source = planSource
	}
	l, err := lockedOf(source, f)
	if err != nil {
		t.Fatal(err)
	}
	l.Pinned = p.pinned
	if p.pinned {
		l.Version = p.version
	}
	lock.put(l)
	switch p.folder {
	case "", asPulled:
		writeSkills(t, filepath.Join(dir, p.name), map[string]string{"SKILL.md": string(f.Files[0].Data)})
	case edited:
		writeSkills(t, filepath.Join(dir, p.name), map[string]string{"SKILL.md": "mine"})
	}
}

// planOf makes the checked plan of a pull of planSource into a folder holding lock, with
// opt, where the source serves served: read as readSource reads, each skill the plan
// wants downloaded into a dry stager.
func planOf(t *testing.T, lock []planSkill, sel *Selection, served []planSkill, opt Options) (*Plan, error) {
	t.Helper()
	dir := t.TempDir()
	l := &Lock{LockVersion: 1}
	for _, p := range lock {
		p.writeLocked(t, dir, l)
	}
	if sel != nil {
		l.LockVersion, l.Selections = LockVersion, []Selection{*sel}
	}
	if err := writeLock(dir, l); err != nil {
		t.Fatal(err)
	}
	s, _, err := newScope(planSource, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	stage := newStager(dir, planSource, 0, true)
	r := &reading{staged: stage.skills}
	for _, p := range served {
		f := p.fetched()
		files := f.Files
		f.Files = nil
		if s.want(f) {
			f.Files = files
			if err := stage.take(f); err != nil {
				t.Fatal(err)
			}
			f.Files, f.Taken = nil, true
		}
		r.add(f)
	}
	p := &Plan{Source: planSource, Dir: dir, DryRun: true, Actions: s.plan(r), scope: s, stage: stage}
	return p, p.Check()
}

// TestPlan: what a plan makes of each skill, and why, from the lock, the folder and the
// source (and the options).
func TestPlan(t *testing.T) {
	v1 := func(name string) planSkill { return planSkill{name: name, version: "1"} }
	v2 := func(name string) planSkill { return planSkill{name: name, version: "2"} }
	with := func(p planSkill, change func(*planSkill)) planSkill { change(&p); return p }
	folder := func(state string) func(*planSkill) { return func(p *planSkill) { p.folder = state } }
	for _, c := range []struct {
		name     string
		lock     []planSkill
		sel      *Selection
		served   []planSkill
		opt      Options
		want     map[string]string // name -> "verb: why"
		checkErr bool
	}{
		{name: "a new skill", served: []planSkill{v1("a")},
			want: map[string]string{"a": "install: not installed"}},
		{name: "unchanged", lock: []planSkill{v1("a")}, served: []planSkill{v1("a")},
			want: map[string]string{"a": "keep: unchanged"}},
		{name: "changed at the source", lock: []planSkill{v1("a")}, served: []planSkill{v2("a")},
			want: map[string]string{"a": "update: changed at the source"}},
		{name: "folder deleted", lock: []planSkill{with(v1("a"), folder(gone))}, served: []planSkill{v1("a")},
			want: map[string]string{"a": "update: its folder is missing"}},
		{name: "edited, unchanged at the source: the edit is kept", lock: []planSkill{with(v1("a"), folder(edited))}, served: []planSkill{v1("a")},
			want: map[string]string{"a": "keep: unchanged"}},
		{name: "edited, changed at the source", lock: []planSkill{with(v1("a"), folder(edited)), v1("b")}, served: []planSkill{v2("a"), v2("b")},
			want: map[string]string{"a": "refuse: edited locally", "b": "update: changed at the source"}},
		{name: "edited, changed, forced", lock: []planSkill{with(v1("a"), folder(edited))}, served: []planSkill{v2("a")}, opt: Options{Force: true},
			want: map[string]string{"a": "update: changed at the source"}},
		{name: "edited, unchanged, forced", lock: []planSkill{with(v1("a"), folder(edited))}, served: []planSkill{v1("a")}, opt: Options{Force: true},
			want: map[string]string{"a": "update: edited locally, overwritten (--force)"}},
		{name: "no longer served", lock: []planSkill{v1("a"), v1("b")}, served: []planSkill{v1("b")},
			want: map[string]string{"a": "remove: no longer served", "b": "keep: unchanged"}},
		{name: "no longer served, edited", lock: []planSkill{with(v1("a"), folder(edited))},
			want: map[string]string{"a": "refuse: edited locally"}},
		{name: "pinned", lock: []planSkill{with(v1("a"), func(p *planSkill) { p.pinned = true })}, served: []planSkill{v2("a")},
			want: map[string]string{"a": "keep: pinned"}},
		{name: "pinned, named again", lock: []planSkill{with(v1("a"), func(p *planSkill) { p.pinned = true })}, served: []planSkill{v2("a")},
			opt: Options{Skills: []string{"a"}}, want: map[string]string{"a": "update: named again, no longer pinned"}},
		{name: "installed from another source", lock: []planSkill{with(v1("a"), func(p *planSkill) { p.source = "https://other.example.com" })}, served: []planSkill{v2("a")},
			want: map[string]string{"a": "skip: installed from another source"}},
		{name: "a folder the lock does not name", lock: []planSkill{with(v1("a"), folder(unmanaged))}, served: []planSkill{v1("a")},
			want: map[string]string{"a": "refuse: its folder exists and skills.lock does not name it"}, checkErr: true},
		{name: "outside the folder's selection", lock: []planSkill{v1("a")}, sel: &Selection{Source: planSource, Skills: []string{"a"}}, served: []planSkill{v1("a"), v1("b")},
			want: map[string]string{"a": "keep: unchanged", "b": "skip: new, not in this folder's selection"}},
		{name: "removed from the folder", sel: &Selection{Source: planSource, Removed: []string{"b"}}, served: []planSkill{v1("a"), v1("b")},
			want: map[string]string{"a": "install: not installed", "b": "skip: removed from this folder"}},
		{name: "named: the others are left", lock: []planSkill{v1("b"), v1("c")}, served: []planSkill{v1("a"), v1("b"), v2("c")}, opt: Options{Skills: []string{"a"}},
			want: map[string]string{"a": "install: not installed", "b": "keep: unchanged", "c": "skip: not selected"}},
		{name: "no digest published: downloaded to compare", lock: []planSkill{{name: "a", version: "1", kind: verify.DigestUnpublished}}, served: []planSkill{{name: "a", version: "1", kind: verify.DigestUnpublished}},
			want: map[string]string{"a": "keep: unchanged, downloaded to compare: no digest"}},
		{name: "locked over MCP, read from the index", lock: []planSkill{{name: "a", version: "1", kind: verify.DigestManifest}}, served: []planSkill{v1("a")},
			want: map[string]string{"a": "keep: the same files under another digest"}},
		{name: "frozen: only what the lock locks", lock: []planSkill{with(v1("a"), folder(gone))}, served: []planSkill{v1("a"), v1("b")}, opt: Options{Frozen: true},
			want: map[string]string{"a": "update: its folder is missing", "b": "skip: not in skills.lock (--frozen)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := planOf(t, c.lock, c.sel, c.served, c.opt)
			if (err != nil) != c.checkErr {
				t.Fatalf("Check: %v", err)
			}
			got := map[string]string{}
			for _, a := range p.Actions {
				got[a.Name] = string(a.Do) + ": " + string(a.Why)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("plan %v\nwant %v", got, c.want)
			}
		})
	}
}

// TestPlanEditedFiles: a refusal names the files edited; the Result of the plan says so.
func TestPlanEditedFiles(t *testing.T) {
	p, err := planOf(t, []planSkill{{name: "a", version: "1", folder: edited}, {name: "b", version: "1"}}, nil, []planSkill{{name: "a", version: "2"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := p.result()
	res.sort()
	if !reflect.DeepEqual(res.Edited, []Edited{{Name: "a", Files: []string{"SKILL.md"}}}) || len(res.Unchanged) != 0 {
		t.Fatalf("result %+v", res)
	}
	var verbs []string
	for _, a := range p.Actions {
		verbs = append(verbs, a.String())
	}
	sort.Strings(verbs)
	if want := []string{"refuse  a  edited locally: SKILL.md", "remove  b  no longer served"}; !reflect.DeepEqual(verbs, want) {
		t.Fatalf("actions %q\nwant %q", verbs, want)
	}
	if _, err := p.Apply(); err == nil {
		t.Error("a dry run's plan was applied")
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "b")); err != nil {
		t.Errorf("b: %v", err)
	}
}
