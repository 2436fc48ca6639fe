package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/runtime/serving"
)

// TestBuildSign: build --sign writes a root the key verifies, at its issue time from
// $SOURCE_DATE_EPOCH (two builds, the same root), records it in OUT/roots.json, and the
// next build given that file signs sequence 2 naming it; every way the flags are wrong is
// refused, saying what to do, with nothing built.
func TestBuildSign(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "catalog.key")
	code, pubLine, stderr := call(t, "", "key", "--signing", "--out", key)
	expect(t, code, pubLine, stderr, 0, "ed25519:", "")
	pub, err := signing.ParsePublic(pubLine)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1780000000") // 2026-05-28
	issued := time.Unix(1780000000, 0)
	build := func(out string, args ...string) *signing.Root {
		t.Helper()
		code, stdout, stderr := call(t, "", append([]string{"build", "-o", out, "--sign", key, "--sign-expires", "8760h"}, args...)...)
		expect(t, code, stdout, stderr, 0, "1 root signed for \"https://skills.example.com/\"", "")
		env := readStoreDoc(t, out, catalog.RootJSON)
		r, err := signing.OpenRoot(env, pub)
		if err != nil {
			t.Fatal(err)
		}
		if r.Catalog != "https://skills.example.com/" || !r.Issued.Equal(issued) || !r.Expires.Equal(issued.Add(8760*time.Hour)) || len(r.Subjects) != 6 {
			t.Fatalf("the root: %+v", r)
		}
		return r
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	first := build(a, "--trust-root", "https://skills.example.com/")
	again := build(b, "--sign-catalog", "https://skills.example.com/")
	if first.Payload != again.Payload || first.Sequence != 1 {
		t.Fatalf("two builds of one catalog: %s and %s, sequence %d", first.Payload, again.Payload, first.Sequence)
	}
	var roots serving.Roots
	if data, err := os.ReadFile(filepath.Join(a, serving.RootsFile)); err != nil || json.Unmarshal(data, &roots) != nil ||
		len(roots.Roots) != 1 || roots.Roots[0].Payload != first.Payload {
		t.Fatalf("%s: %+v %v", serving.RootsFile, roots, err)
	}
	next := build(filepath.Join(dir, "c"), "--trust-root", "https://skills.example.com/", "--sign-previous", filepath.Join(a, serving.RootsFile))
	if next.Sequence != 2 || next.Previous != first.Payload {
		t.Fatalf("the next root: sequence %d, previous %s", next.Sequence, next.Previous)
	}
	if err := next.Check(issued, &signing.Seen{Catalog: first.Catalog, Sequence: 1, Payload: first.Payload}); err != nil {
		t.Fatal(err)
	}

	t.Setenv("SOURCE_DATE_EPOCH", "") // the refusals are of builds issued now
	damaged := filepath.Join(dir, "damaged.json")
	os.WriteFile(damaged, []byte(`{"catalog":"x","roots":[{"view":"catalog","sequence":1,"payload":"zz"}]}`), 0o644)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"catalog":"https://elsewhere.example/","roots":[{"view":"catalog","sequence":4,"payload":"`+first.Payload+`"}]}`), 0o644)
	loose := filepath.Join(dir, "loose.key")
	data, _ := os.ReadFile(key)
	os.WriteFile(loose, data, 0o644)
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--sign", key}, 2, "pass --trust-root URL (the deployment's origin) or --sign-catalog ID"},
		{[]string{"--sign-catalog", "x"}, 2, "go with --sign KEY"},
		{[]string{"--sign", key, "--sign-catalog", "x", "--sign-expires", "-1h"}, 2, "not after now: give a longer --sign-expires"},
		{[]string{"--sign", loose, "--sign-catalog", "x"}, 1, "chmod 600 " + loose},
		{[]string{"--sign", key + ".pub", "--sign-catalog", "x"}, 1, "chmod 600"},
		{[]string{"--sign", key, "--trust-root", "https://skills.example.com/", "--sign-previous", other}, 1, `the roots of "https://elsewhere.example/", not of "https://skills.example.com/"`},
		{[]string{"--sign", key, "--sign-catalog", "x", "--sign-previous", filepath.Join(dir, "none.json")}, 1, "give the roots.json an earlier build wrote"},
		{[]string{"--sign", key, "--sign-catalog", "x", "--sign-previous", damaged}, 1, `payload "zz": not what a build writes`},
	} {
		out := filepath.Join(dir, "refused")
		code, stdout, stderr := call(t, "", append([]string{"build", "-o", out}, c.args...)...)
		expect(t, code, stdout, stderr, c.code, "", c.err)
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v: refused, but %s was written", c.args, out)
		}
		if strings.Contains(stderr, strings.Split(string(data), "\n")[1]) {
			t.Fatalf("%v: the private key is printed", c.args)
		}
	}
}

// readStoreDoc returns the document a built OUT serves at path over HTTP, from its index
// and store.
func readStoreDoc(t *testing.T, out, path string) []byte {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(out, serving.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	cell, ok := p.HTTPDoc(path, catalog.HTTPObject)
	if !ok {
		t.Fatalf("%s serves nothing at %s", out, path)
	}
	var b []byte
	catalog.EachRef(cell, func(r catalog.Ref) {
		o, err := os.ReadFile(filepath.Join(out, serving.AssetsDir, catalog.StoreDir, r.Name))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, o...)
	})
	return b
}
