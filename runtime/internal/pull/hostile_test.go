package pull

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// TestHostileServer serves each case of a hostile catalog (issue 30, item 7) as the
// skill "evil" beside a good "alpha", and checks that the pull is refused with a message
// naming the case, that nothing is written outside DIR, and that DIR holds what it held
// before: no partial skill, not even the good one, and no temporary folder.
func TestHostileServer(t *testing.T) {
	md := []byte(skillMD("evil", "Evil."))
	zeros := make([]byte, 4<<20)
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(zeros)
	w.Close()
	cases := []struct {
		name  string
		setup func(s *catalogServer)
		want  string // in the error
	}{
		{"dot-dot path", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "../../escaped", data: []byte("x")})
		}, "unsafe archive"},
		{"absolute path", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "/tmp/escaped", data: []byte("x")})
		}, "unsafe archive"},
		{"backslash path", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: `..\..\escaped`, data: []byte("x")})
		}, "backslash"},
		{"symlink out of the root", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "link", link: "/etc/passwd"})
		}, "unsafe archive"},
		{"names that collide when case is folded", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "README.md", data: []byte("a")}, tarEntry{name: "readme.md", data: []byte("b")})
		}, "Windows, macOS"},
		{"names that collide when normalized (NFC/NFD)", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "caf\u00e9.md", data: []byte("a")}, tarEntry{name: "cafe\u0301.md", data: []byte("b")})
		}, "Windows, macOS"},
		{"a Windows device name", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "scripts/aux.txt", data: []byte("x")})
		}, "device name reserved on Windows"},
		{"a name Windows drops a dot from", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "notes.", data: []byte("x")})
		}, "ends in a dot or a space"},
		{"a file that is also a folder", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "a", data: []byte("a")}, tarEntry{name: "a/b", data: []byte("b")})
		}, "is a file, not a directory"},
		{"digest mismatch", func(s *catalogServer) {
			s.skills["evil"] = map[string]string{"SKILL.md": string(md)}
			s.digest["evil"] = "sha256:" + strings.Repeat("0", 64)
		}, "does not match"},
		{"huge body", func(s *catalogServer) {
			s.raw["evil"] = append(rawTarGz(tarEntry{name: "SKILL.md", data: md}), make([]byte, 40<<20)...)
		}, "too large"},
		{"archive that unpacks to 1000x its size", func(s *catalogServer) {
			s.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "zeros", data: zeros})
		}, "uncompressed"},
		{"endless body: a gzip stream of zeros that is no tar", func(s *catalogServer) {
			s.raw["evil"] = gz.Bytes()
		}, "uncompressed"},
		{"a skill named otherwise than its entry, not as a qualified name", func(s *catalogServer) {
			s.skills["evil"] = map[string]string{"SKILL.md": skillMD("alpha", "I am alpha.")}
		}, `SKILL.md frontmatter name is "alpha", not the index's "evil"`},
		{"a SKILL.md whose name is no skill name (the index's may differ)", func(s *catalogServer) {
			s.skills["evil"] = map[string]string{"SKILL.md": skillMD("../alpha", "I am alpha.")}
		}, `SKILL.md frontmatter name "../alpha" is not a valid skill name`},
		{"skill URL outside the trust root", func(s *catalogServer) {
			s.skills["evil"] = map[string]string{"SKILL.md": string(md)}
			s.url["evil"] = "https://elsewhere.example/evil.tar.gz"
		}, "trust root"},
		{"encoded separators in the skill URL", func(s *catalogServer) {
			s.skills["evil"] = map[string]string{"SKILL.md": string(md)}
			s.url["evil"] = "..%2F..%2Fevil.tar.gz"
		}, "encoded"},
		{"a name that is not a skill name", func(s *catalogServer) {
			s.skills["../evil"] = map[string]string{"SKILL.md": string(md)}
		}, "not a valid skill name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newCatalogServer(t, map[string]map[string]string{"alpha": {"SKILL.md": skillMD("alpha", "Alpha.")}})
			c.setup(srv)
			pullRefused(t, srv.URL, c.want)
		})
	}

	// A git source is hostile input too: its URL and ref are refused before git runs
	// when they would pass for options, and git runs no transport that runs a command. (A
	// skill that links out of itself is left out, and skills that share a name are
	// installed under their index names: TestPullFromGit; a skill named as another
	// source's is refused: TestPullShadowing.)
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	pwned := filepath.Join(t.TempDir(), "pwned")
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, "skills", "evil"), 0o755)
	os.WriteFile(filepath.Join(repo, "skills", "evil", "SKILL.md"), md, 0o644)
	gitInit(t, repo)
	for name, c := range map[string]struct{ source, want string }{
		"git: the ext transport, which runs a command": {"git+ext::sh -c touch% " + pwned, "transport 'ext' not allowed"},
		"git: a URL that passes for an option":         {"git+--upload-pack=touch " + pwned, `cannot begin with "-"`},
		"git: a ref that passes for an option":         {"git+file://" + repo + "#--upload-pack=touch " + pwned, `cannot begin with "-"`},
	} {
		t.Run(name, func(t *testing.T) { pullRefused(t, c.source, c.want) })
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("a git source ran a command")
	}
}

// gitInit makes dir a git repository with one commit of everything in it.
func gitInit(t *testing.T, dir string) string {
	t.Helper()
	var head string
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "skills"}, {"rev-parse", "HEAD"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		head = strings.TrimSpace(string(out))
	}
	return head
}

// pullRefused pulls from the hostile source into a DIR holding a file of its own, with
// limits of 64 files and 1 MiB a skill, and checks that the pull is refused with an error
// saying want, that nothing is written outside DIR, and that DIR holds what it held
// before: no partial skill, not even the good one, and no temporary folder.
func pullRefused(t *testing.T, source, want string) {
	t.Helper()
	parent := t.TempDir()
	dir := filepath.Join(parent, "skills")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644)
	opt := loopback()
	opt.Verify.Limits = archive.Limits{MaxEntries: 64, MaxBytes: 1 << 20}
	_, err := Pull(context.Background(), source, dir, opt)
	if err == nil {
		t.Fatal("pulled from a hostile server")
	}
	t.Logf("refused: %v", err)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if got := tree(t, parent); !reflect.DeepEqual(got, map[string]string{"skills/keep.txt": "mine"}) {
		t.Errorf("the pull left %v", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("DIR holds %d entries (an empty folder left?)", len(ents))
	}
}

// TestHostileLockLure: a lock that names a private catalog and a lure (an
// entry anyone can add to a committed skills.lock) is checked with the private catalog's
// token: the token goes to the private catalog's origin and the lure, on another port of
// the same host, gets no Authorization at all. Without the token, the private source's
// 401 is an error that names it.
func TestHostileLockLure(t *testing.T) {
	private := newCatalogServer(t, testCatalog())
	private.token = "s3cret-token"
	lure := newCatalogServer(t, map[string]map[string]string{"lure": {"SKILL.md": skillMD("lure", "Lure.")}})
	dir := t.TempDir()
	opt := loopback()
	opt.Verify.Tokens = verify.Credentials{}
	opt.Verify.Tokens.Add(private.URL, "s3cret-token")
	if _, err := Pull(context.Background(), private.URL, dir, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(context.Background(), lure.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	lure.auth, private.auth = nil, nil
	out, err := CheckOutdated(context.Background(), dir, opt)
	if err != nil || len(out) != 0 {
		t.Fatalf("outdated: %v %v", out, err)
	}
	if len(lure.auth) == 0 || len(private.auth) == 0 {
		t.Fatalf("outdated read the lure %d times and the catalog %d times", len(lure.auth), len(private.auth))
	}
	for _, a := range lure.auth {
		if a != "" {
			t.Errorf("the lure got Authorization %q", a)
		}
	}
	for _, a := range private.auth {
		if a != "Bearer s3cret-token" {
			t.Errorf("the private catalog got Authorization %q", a)
		}
	}
	_, err = CheckOutdated(context.Background(), dir, loopback())
	var se *SourceError
	if !errors.As(err, &se) || se.Source != private.URL || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("outdated without the token: %v", err)
	}
}
