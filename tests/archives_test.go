package tests

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestArchivesMatchManifest reads skill://index.json on every target, fetches each
// skill's archives by URI, unpacks them with the standard library, and requires exactly
// the files of the skill's v1 manifest, each with its digest and size, and the archive
// bytes to hash to the digest the index gives.
func TestArchivesMatchManifest(t *testing.T) {
	for name, newTarget := range map[string]func(*testing.T, []byte) target{"in-process": newInProcess, "wasm": newWasm} {
		t.Run(name, func(t *testing.T) {
			tg := newTarget(t, nil)
			call := func(method, params string) gjson.Result {
				reply, _ := tg.Message(t, "2025-11-25", []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
				r := gjson.ParseBytes(reply)
				if r.Get("error").Exists() {
					t.Fatalf("%s %s: %s", method, params, reply)
				}
				return r.Get("result")
			}
			read := func(uri string) []byte {
				c := call("resources/read", `{"uri":"`+uri+`"}`).Get("contents.0")
				if c.Get("text").Exists() {
					return []byte(c.Get("text").Str)
				}
				b, err := base64.StdEncoding.DecodeString(c.Get("blob").Str)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			index := gjson.ParseBytes(read("skill://index.json"))
			skills := index.Get("skills").Array()
			if len(skills) < 5 {
				t.Fatalf("index lists %d skills", len(skills))
			}
			for _, s := range skills {
				entry := call("skills/get", `{"uri":"`+s.Get("url").Str+`"}`).Get("skill")
				root := strings.TrimSuffix(entry.Get("uri").Str, "SKILL.md")
				want := map[string]string{}
				for _, r := range entry.Get("resources").Array() {
					want[strings.TrimPrefix(r.Get("uri").Str, root)] = fmt.Sprintf("%s %d", r.Get("digest").Str, r.Get("size").Int())
				}
				if got := digestOf(read(s.Get("url").Str)); got != s.Get("digest").Str {
					t.Errorf("%s: index digest %s, SKILL.md hashes to %s", s.Get("name").Str, s.Get("digest").Str, got)
				}
				archives := s.Get("archives").Array()
				if len(archives) != 2 {
					t.Fatalf("%s: %d archives", s.Get("name").Str, len(archives))
				}
				for _, a := range archives {
					b := read(a.Get("url").Str)
					if got := digestOf(b); got != a.Get("digest").Str {
						t.Errorf("%s: archive hashes to %s, index says %s", a.Get("url").Str, got, a.Get("digest").Str)
					}
					got := unpack(t, a.Get("mimeType").Str, b)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s unpacks to\n%v\nbut the manifest lists\n%v", a.Get("url").Str, got, want)
					}
				}
			}
		})
	}
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// unpack lists an archive's regular files as path -> "digest size", with the standard
// library only, failing on anything but regular files and directories.
func unpack(t *testing.T, mime string, b []byte) map[string]string {
	files := map[string]string{}
	add := func(name string, r io.Reader) {
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = fmt.Sprintf("%s %d", digestOf(data), len(data))
	}
	switch mime {
	case "application/gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			switch h.Typeflag {
			case tar.TypeDir:
			case tar.TypeReg:
				add(h.Name, tr)
			default:
				t.Fatalf("tar entry %s has type %c", h.Name, h.Typeflag)
			}
		}
	case "application/zip":
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if strings.HasSuffix(f.Name, "/") {
				continue
			}
			if !f.Mode().IsRegular() {
				t.Fatalf("zip entry %s has mode %v", f.Name, f.Mode())
			}
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			add(f.Name, r)
			r.Close()
		}
	default:
		t.Fatalf("archive type %q", mime)
	}
	return files
}
