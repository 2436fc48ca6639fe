package pull

import (
	"strings"
	"testing"
)

// FuzzParseLock: ParseLock never panics, and what it accepts renders by Marshal to a lock
// it accepts again, equal after one more round (the stable form is a fixed point).
func FuzzParseLock(f *testing.F) {
	good := (&Lock{Skills: []LockedSkill{{Name: "a", Source: "https://x/", Path: "a", URL: "https://x/a.tar.gz",
		Artifact: "sha256:" + strings.Repeat("a", 64), Manifest: "sha256:" + strings.Repeat("b", 64),
		Files: []LockedFile{{Path: "SKILL.md", Digest: "sha256:" + strings.Repeat("c", 64), Size: 3}}}}}).Marshal()
	f.Add(good)
	f.Add([]byte(`{"lockVersion":1,"skills":[]}`))
	f.Add([]byte(`{"lockVersion":1,"skills":[{"name":"a","files":[{"path":"../x"}]}]}`))
	f.Add([]byte(`{"lockVersion":2}`))
	f.Add([]byte(`{"lockVersion":2,"skills":[],"selections":[{"source":"https://x/","skills":["b","a"],"paths":["acme/billing"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLock(b)
		if err != nil {
			return
		}
		once := l.Marshal()
		l2, err := ParseLock(once)
		if err != nil {
			t.Fatalf("Marshal gave a lock ParseLock refuses: %v\n%s", err, once)
		}
		if twice := l2.Marshal(); string(twice) != string(once) {
			t.Fatalf("Marshal is not stable:\n%s\n%s", once, twice)
		}
		for _, s := range l.Skills {
			for _, f := range s.Files {
				if pathProblem(f.Path) != "" {
					t.Fatalf("accepted the unsafe path %q", f.Path)
				}
			}
		}
	})
}

// FuzzPathProblem: a path pathProblem accepts has no segment that leaves its folder,
// nothing a file system reads as a separator or a drive, and no segment Windows cannot
// hold (a device name, a trailing dot or space).
func FuzzPathProblem(f *testing.F) {
	for _, s := range []string{"SKILL.md", "a/b.md", "../x", "/abs", `a\b`, "C:x", "a//b", "./a", "a/.", "\x00",
		"CON", "scripts/nul", "aux.txt", "a/COM1.md", "lpt9", "com¹", "notes.", "notes ", "a/b./c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if pathProblem(p) != "" {
			return
		}
		if strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\:\x00") {
			t.Fatalf("accepted %q", p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
				t.Fatalf("accepted %q", p)
			}
			stem, _, _ := strings.Cut(strings.ToUpper(seg), ".")
			if stem = strings.TrimRight(stem, " "); stem == "CON" || stem == "NUL" || stem == "AUX" || stem == "PRN" {
				t.Fatalf("accepted %q, a Windows device name", p)
			}
		}
	})
}

func TestPathProblem(t *testing.T) {
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{"SKILL.md", true}, {"scripts/run.sh", true}, {"caf\u00e9.md", true},
		{"", false}, {"/etc/passwd", false}, {"../x", false}, {"a/../b", false}, {"a/./b", false},
		{`a\b`, false}, {"C:evil", false}, {"a//b", false}, {"a/", false}, {"a\x01", false}, {"\xff", false},
		// Names Windows cannot hold.
		{"CON", false}, {"scripts/nul", false}, {"aux.txt", false}, {"a/COM1.md", false}, {"LPT9", false}, {"com\u00b9.md", false},
		{"notes.", false}, {"notes ", false}, {"a/b./c", false}, {"console.md", true}, {"com10", true}, {"a/.env", true},
	} {
		if got := pathProblem(c.path) == ""; got != c.ok {
			t.Errorf("pathProblem(%q) ok = %v, want %v", c.path, got, c.ok)
		}
	}
}

func TestParseLockRefuses(t *testing.T) {
	d := "sha256:" + strings.Repeat("a", 64)
	for _, c := range []struct{ name, lock, want string }{
		{"unknown version", `{"lockVersion":3,"skills":[]}`, "lockVersion"},
		{"selections in a lock of version 1", `{"lockVersion":1,"skills":[],"selections":[{"source":"s","skills":["a"]}]}`, "no selections"},
		{"a selection of no source", `{"lockVersion":2,"skills":[],"selections":[{"skills":["a"]}]}`, "no source"},
		{"a source selected twice", `{"lockVersion":2,"skills":[],"selections":[{"source":"s","skills":["a"]},{"source":"s","paths":["x"]}]}`, "twice"},
		{"a selection of nothing", `{"lockVersion":2,"skills":[],"selections":[{"source":"s"}]}`, "selects nothing"},
		{"a selected name", `{"lockVersion":2,"skills":[],"selections":[{"source":"s","skills":["../a"]}]}`, "not a valid skill name"},
		{"a selected path", `{"lockVersion":2,"skills":[],"selections":[{"source":"s","paths":["../a"]}]}`, "segment"},
		{"unknown member", `{"lockVersion":1,"skills":[],"token":"x"}`, "unknown field"},
		{"bad name", `{"lockVersion":1,"skills":[{"name":"../a","source":"s","artifact":"` + d + `","manifest":"` + d + `","files":[]}]}`, "not a valid skill name"},
		{"a named that is no skill name", `{"lockVersion":1,"skills":[{"name":"a-b","named":"../b","source":"s","artifact":"` + d + `","manifest":"` + d + `","files":[{"path":"x","digest":"` + d + `"}]}]}`, "not a valid skill name other than"},
		{"named as the folder", `{"lockVersion":1,"skills":[{"name":"a","named":"a","source":"s","artifact":"` + d + `","manifest":"` + d + `","files":[{"path":"x","digest":"` + d + `"}]}]}`, "not a valid skill name other than"},
		{"traversal", `{"lockVersion":1,"skills":[{"name":"a","source":"s","artifact":"` + d + `","manifest":"` + d + `","files":[{"path":"../x","digest":"` + d + `"}]}]}`, "segment"},
		{"twice", `{"lockVersion":1,"skills":[{"name":"a","source":"s","artifact":"` + d + `","manifest":"` + d + `","files":[{"path":"x","digest":"` + d + `"}]},{"name":"a","source":"s","artifact":"` + d + `","manifest":"` + d + `","files":[{"path":"x","digest":"` + d + `"}]}]}`, "twice"},
		{"bad digest", `{"lockVersion":1,"skills":[{"name":"a","source":"s","artifact":"sha256:x","manifest":"` + d + `","files":[{"path":"x","digest":"` + d + `"}]}]}`, "digest"},
		{"no artifact digest, not unverified", `{"lockVersion":1,"skills":[{"name":"a","source":"s","artifact":"","manifest":"` + d + `","files":[{"path":"x","digest":"` + d + `"}]}]}`, "digest"},
		{"unverified without a manifest digest", `{"lockVersion":1,"skills":[{"name":"a","source":"s","artifact":"","unverified":true,"manifest":"","files":[{"path":"x","digest":"` + d + `"}]}]}`, "digest"},
		{"an etag not fit to send back", `{"lockVersion":1,"skills":[{"name":"a","source":"s","artifact":"","unverified":true,"manifest":"` + d + `","files":[{"path":"x","digest":"` + d + `","etag":"\"a\\r\\nX: y\""}]}]}`, "etag"},
		{"trailing data", `{"lockVersion":1,"skills":[]} {}`, "after"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseLock([]byte(c.lock))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ParseLock: %v, want %q", err, c.want)
			}
		})
	}
}

func TestUnderPaths(t *testing.T) {
	for _, c := range []struct {
		path     string
		prefixes []string
		want     bool
	}{
		{"acme/billing/refunds", nil, true},
		{"acme/billing/refunds", []string{"acme"}, true},
		{"acme/billing/refunds", []string{"acme/billing/refunds"}, true},
		{"acme/billing/refunds", []string{"acme/bill"}, false},
		{"acmex/refunds", []string{"acme"}, false},
		{"refunds", []string{"acme", "refunds"}, true},
	} {
		if got := underPaths(c.path, c.prefixes); got != c.want {
			t.Errorf("underPaths(%q, %q) = %v, want %v", c.path, c.prefixes, got, c.want)
		}
	}
	if got, err := cleanPaths([]string{"acme/", "a/b"}); err != nil || len(got) != 2 || got[0] != "acme" {
		t.Errorf("cleanPaths: %q %v", got, err)
	}
	for _, bad := range []string{"../x", "/abs", "a//b", `a\b`, ""} {
		if _, err := cleanPaths([]string{bad}); err == nil {
			t.Errorf("cleanPaths(%q) accepted", bad)
		}
	}
}
