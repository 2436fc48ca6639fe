package pull

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog/signing"
)

// signedRoot is the root of catalog skills (name → files), each as skill://NAME/SKILL.md
// with its manifest digest, sequence seq, signed with key; edit, when not nil, changes it
// before it is signed.
func signedRoot(key ed25519.PrivateKey, skills map[string]map[string]string, seq uint64, edit func(*signing.Root)) []byte {
	now := time.Now().UTC().Truncate(time.Second)
	r := &signing.Root{Catalog: "https://skills.example.com/", Sequence: seq, Issued: now.Add(-time.Minute), Expires: now.Add(time.Hour)}
	for _, name := range slices.Sorted(maps.Keys(skills)) {
		r.Subjects = append(r.Subjects, signing.Subject{Name: "skill://" + name + "/SKILL.md",
			Digest: map[string]string{"sha256": strings.TrimPrefix(sha256sumDigest(skills[name]), "sha256:")}})
	}
	if edit != nil {
		edit(r)
	}
	env, _ := r.Sign(key)
	return env
}

// TestPullRoot: a pull from a signed deployment trusts the root's key on first use and
// locks it with the root; every later pull is held to that key and root, and a pinned key
// (--trust-key) to its own: a root signed by another key, an older root replayed, an
// expired root, one that breaks the chain, one that omits a skill served, a skill served
// with files the root does not name (an older version's among them), and a deployment that
// stops serving a root are each
// refused, naming the check, with nothing written; the next root that follows is taken.
func TestPullRoot(t *testing.T) {
	keyA := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, ed25519.SeedSize))
	keyB := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{6}, ed25519.SeedSize))
	cat := testCatalog()
	srv := newCatalogServer(t, cat)
	srv.root = signedRoot(keyA, cat, 3, nil)
	dir := filepath.Join(t.TempDir(), "skills")
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if !res.FirstUse || res.Root == nil || res.Root.Key != signing.FormatPublic(keyA.Public().(ed25519.PublicKey)) || res.Root.Sequence != 3 {
		t.Fatalf("the first pull's root: %+v (first use %v)", res.Root, res.FirstUse)
	}
	lock, _ := ReadLock(dir)
	if len(lock.Roots) != 1 || *res.Root != lock.Roots[0] {
		t.Fatalf("the lock's roots: %+v", lock.Roots)
	}
	first := lock.Roots[0]

	changed := testCatalog()
	changed["beta"] = map[string]string{"SKILL.md": "---\nname: beta\ndescription: Beta.\nversion: 1.3.0\n---\nBeta, better.\n"}
	follows := func(r *signing.Root) { r.Previous = first.Payload }
	for _, c := range []struct {
		name  string
		serve map[string]map[string]string // the skills served
		root  []byte                       // nil: none served
		pin   *ed25519.PrivateKey          // --trust-key, the public half of this
		want  string
	}{
		{"another key", cat, signedRoot(keyB, cat, 4, follows), nil, "not signed by the key skills.lock records"},
		{"pinned another key", cat, signedRoot(keyA, cat, 4, follows), &keyB, "not signed by the key --trust-key gives"},
		{"older replayed", cat, signedRoot(keyA, cat, 2, nil), nil, "older than one seen before"},
		{"same sequence, other contents", changed, signedRoot(keyA, changed, 3, nil), nil, "sequence 3 again, with other contents"},
		{"expired", cat, signedRoot(keyA, cat, 4, func(r *signing.Root) { follows(r); r.Expires = r.Issued.Add(time.Second) }), nil, "has expired"},
		{"chain broken", changed, signedRoot(keyA, changed, 4, func(r *signing.Root) { r.Previous = strings.Repeat("0", 64) }), nil, "does not follow the one seen before"},
		{"omits a skill", changed, signedRoot(keyA, changed, 4, func(r *signing.Root) { follows(r); r.Subjects = r.Subjects[:1] }), nil, "does not name beta"},
		{"files not signed", changed, signedRoot(keyA, cat, 4, follows), nil, "does not name beta with the manifest"},
		{"an older version served as the latest", testCatalog(), signedRoot(keyA, changed, 4, func(r *signing.Root) {
			follows(r)
			r.Subjects = append(r.Subjects, signing.Subject{Name: "skill://beta/@1.2.0/beta/SKILL.md",
				Digest: map[string]string{"sha256": strings.TrimPrefix(sha256sumDigest(testCatalog()["beta"]), "sha256:")}})
		}), nil, "does not name beta with the manifest"},
		{"no root any more", changed, nil, nil, "serves no signed root, where skills.lock records the key it was signed with"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for name, files := range c.serve {
				srv.set(name, files)
			}
			srv.mu.Lock()
			srv.root = c.root
			srv.mu.Unlock()
			before, lockBefore := tree(t, dir), lockBytes(t, dir)
			opt := loopback()
			if c.pin != nil {
				opt.TrustKey = c.pin.Public().(ed25519.PublicKey)
			}
			_, err := Pull(context.Background(), srv.URL, dir, opt)
			if !errors.Is(err, ErrRoot) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a refusal %q, got %v", c.want, err)
			}
			if after := tree(t, dir); !maps.Equal(after, before) || !bytes.Equal(lockBytes(t, dir), lockBefore) {
				t.Fatal("a refused pull wrote to the folder")
			}
		})
	}

	srv.set("beta", changed["beta"])
	srv.mu.Lock()
	srv.root = signedRoot(keyA, changed, 4, follows)
	srv.mu.Unlock()
	res, err = Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if res.FirstUse || !slices.Equal(res.Updated, []string{"beta"}) || res.Root.Sequence != 4 {
		t.Fatalf("the pull of the next root: %+v", res)
	}
	if lock, _ := ReadLock(dir); lock.Roots[0].Sequence != 4 {
		t.Fatalf("the lock's root after: %+v", lock.Roots)
	}
}

// lockBytes is dir's skills.lock as it is on disk.
func lockBytes(t *testing.T, dir string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, LockName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSubjectNameOf: a subject is a kept version only where the root also names the
// latest skill it is a version of; a folder named "@acme" of a catalog without history is
// a folder.
func TestSubjectNameOf(t *testing.T) {
	latest := map[string]bool{"skill://pdf/SKILL.md": true, "skill://org/@acme/tool/SKILL.md": true}
	for uri, want := range map[string]subjectName{
		"skill://pdf/SKILL.md":              {name: "pdf"},
		"skill://pdf/@1.0.0/pdf/SKILL.md":   {name: "pdf", version: "1.0.0"},
		"skill://pdf/@2.0.0/pdfx/SKILL.md":  {name: "pdfx", version: "2.0.0"}, // renamed in that version
		"skill://org/@acme/tool/SKILL.md":   {name: "tool"},
		"skill://gone/@1.0.0/gone/SKILL.md": {name: "gone"}, // no latest named: not read as a version
	} {
		if got := subjectNameOf(uri, latest); got != want {
			t.Errorf("%s: %+v, want %+v", uri, got, want)
		}
	}
}

// TestPullRootFirstUseFailing: a first pull from a deployment whose root path fails (a 500,
// not a 404) is refused, writing nothing: taken for a catalog without a root, the source
// would never be asked for one again. A page where the root should be is no root.
func TestPullRootFirstUseFailing(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	srv.rootStatus = http.StatusInternalServerError
	dir := filepath.Join(t.TempDir(), "skills")
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("a first pull whose root fails: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused pull wrote the folder")
	}
	srv.rootStatus, srv.root = 0, []byte("<!doctype html><p>a page for every path")
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil || res.Root != nil || len(res.Installed) != 2 {
		t.Fatalf("a page where the root should be: %+v %v", res, err)
	}
}

// TestPullRootSharedNames: skills that share a name, published under qualified index
// names, are held to the subjects the root annotates with those names: a pull installs
// them, a pull again finds them unchanged, and a server that swaps their files between the
// two names (each signed, under the other's name) is refused, with nothing written.
func TestPullRootSharedNames(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	a := map[string]string{"SKILL.md": skillMD("twin", "The first.")}
	b := map[string]string{"SKILL.md": skillMD("twin", "The second.")}
	now := time.Now().UTC().Truncate(time.Second)
	r := &signing.Root{Catalog: "https://skills.example.com/", Sequence: 1, Issued: now.Add(-time.Minute), Expires: now.Add(time.Hour)}
	for _, s := range []struct {
		path, index string
		files       map[string]string
	}{{"a/twin", "a-twin", a}, {"b/twin", "b-twin", b}} {
		r.Subjects = append(r.Subjects, signing.Subject{Name: "skill://" + s.path + "/SKILL.md",
			Digest:      map[string]string{"sha256": strings.TrimPrefix(sha256sumDigest(s.files), "sha256:")},
			Annotations: map[string]string{signing.AnnotationName: s.index}})
	}
	root, _ := r.Sign(key)
	srv := newCatalogServer(t, map[string]map[string]string{"a-twin": a, "b-twin": b})
	srv.root = root
	dir := filepath.Join(t.TempDir(), "skills")
	if res, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil || len(res.Installed) != 2 {
		t.Fatalf("pull: %+v %v", res, err)
	}
	if res, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil || len(res.Unchanged) != 2 {
		t.Fatalf("pull again: %+v %v", res, err)
	}
	before := tree(t, dir)
	srv.set("a-twin", b)
	srv.set("b-twin", a)
	other := filepath.Join(t.TempDir(), "skills")
	for _, d := range []string{dir, other} {
		if _, err := Pull(context.Background(), srv.URL, d, loopback()); err == nil || !strings.Contains(err.Error(), "does not name a-twin") {
			t.Fatalf("a pull of swapped files into %s: %v", d, err)
		}
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused pull changed the folder")
	}
	if _, err := os.Stat(other); err == nil {
		if entries, _ := os.ReadDir(other); len(entries) > 0 {
			t.Fatalf("a refused pull wrote %v", entries)
		}
	}
}
