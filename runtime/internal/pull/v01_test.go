package pull

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// v01Server publishes only the well-known discovery v0.1.0 index (the cloudflare
// agent-skills-discovery RFC v0.1.0): /.well-known/skills/index.json, {skills: [{name,
// description, files}]}, each file at /.well-known/skills/NAME/FILE; no v0.2.0 index and
// no MCP endpoint (both 404).
type v01Server struct {
	*httptest.Server
	mu     sync.Mutex
	skills map[string]map[string]string // name -> path -> content
	// list, when set for a name, is the entry's files member as served.
	list map[string][]any
	// body, when set for "NAME/FILE", is served as that file instead.
	body     map[string][]byte
	requests atomic.Int64 // requests for files
	bodies   atomic.Int64 // files answered with their body (not 304)
	// etag, when set, makes a file's ETag from its content; "" sends none.
	etag func(content []byte) string
}

// digestETag is the ETag skilledge serve sends: the file's digest, quoted.
func digestETag(b []byte) string { return `"` + strings.Replace(digestOf(b), ":", "-", 1) + `"` }

func newV01Server(t *testing.T, skills map[string]map[string]string) *v01Server {
	s := &v01Server{skills: skills, list: map[string][]any{}, body: map[string][]byte{}, etag: digestETag}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *v01Server) set(name string, files map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skills[name] = files
}

func (s *v01Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	const prefix = "/.well-known/skills/"
	if r.URL.Path == prefix+"index.json" {
		var names []string
		for n := range s.skills {
			names = append(names, n)
		}
		sort.Strings(names)
		var entries []map[string]any
		for _, n := range names {
			files, ok := s.list[n]
			if !ok {
				for p := range s.skills[n] {
					files = append(files, p)
				}
				sort.Slice(files, func(i, j int) bool { return files[i].(string) < files[j].(string) })
			}
			entries = append(entries, map[string]any{"name": n, "description": "The " + n + " skill.", "files": files})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"skills": entries})
		return
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.requests.Add(1)
	b, ok := s.body[rest]
	if !ok {
		name, file, _ := strings.Cut(r.URL.Path[len(prefix):], "/")
		c, found := s.skills[name][file]
		if !found {
			http.NotFound(w, r)
			return
		}
		b = []byte(c)
	}
	if tag := s.etag(b); tag != "" {
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header()["ETag"] = []string{tag}
	}
	s.bodies.Add(1)
	w.Write(b)
}

// TestPullV01 pulls from a server that publishes only the v0.1.0 index: the tree is the
// source's byte for byte, the lock claims no published digest (artifact "", unverified,
// the manifest and files of what was downloaded), the result says unverified; a second
// pull writes nothing; an edit at the source is outdated and then updated, alone.
func TestPullV01(t *testing.T) {
	cat := testCatalog()
	srv := newV01Server(t, cat)
	dir := filepath.Join(t.TempDir(), "skills")
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if res.Via != ViaWellKnownV01 || !reflect.DeepEqual(res.Installed, []string{"alpha", "beta"}) || !reflect.DeepEqual(res.Unverified, []string{"alpha", "beta"}) {
		t.Errorf("result %+v", res)
	}
	if got := withoutLock(tree(t, dir)); !reflect.DeepEqual(got, skillsOf(cat)) {
		t.Errorf("pulled tree %v\nwant %v", got, skillsOf(cat))
	}
	lock, err := ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := lock.Skills[0]
	if a.Artifact != "" || !a.Unverified || a.Manifest != sha256sumDigest(cat["alpha"]) || a.URL != srv.URL+"/.well-known/skills/alpha/" || lock.Skills[1].Version != "1.2.0" {
		t.Errorf("alpha's lock entry %+v", a)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LockName))
	if !strings.Contains(string(b), `"unverified": true`) || string(b) != string(lock.Marshal()) {
		t.Errorf("skills.lock:\n%s", b)
	}
	if _, err := ParseLock(b); err != nil {
		t.Errorf("the lock does not parse back: %v", err)
	}
	if a.Files[0].ETag != digestETag([]byte(cat["alpha"]["SKILL.md"])) {
		t.Errorf("alpha's SKILL.md is locked with the ETag %q", a.Files[0].ETag)
	}
	// A second pull writes nothing and downloads nothing: each file is asked for with
	// its ETag, and answered 304.
	before := tree(t, dir)
	srv.bodies.Store(0)
	res, err = Pull(context.Background(), srv.URL, dir, loopback())
	if n := srv.bodies.Load(); n != 0 {
		t.Errorf("an up-to-date pull downloaded %d files", n)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Installed)+len(res.Updated)+len(res.Unverified)+len(res.Compared) != 0 || len(res.Unchanged) != 2 || res.Bytes != 0 {
		t.Errorf("second pull %+v", res)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("the second pull changed the folder")
	}
	if out, err := CheckOutdated(context.Background(), dir, loopback()); err != nil || len(out) != 0 || srv.bodies.Load() != 0 {
		t.Errorf("outdated of an up-to-date folder: %+v %v, %d files downloaded", out, err, srv.bodies.Load())
	}
	// An edit at the source: outdated names it, pull updates only it.
	srv.set("beta", map[string]string{"SKILL.md": "---\nname: beta\ndescription: Beta.\nversion: 1.3.0\n---\nBeta, better.\n"})
	out, err := CheckOutdated(context.Background(), dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Name != "beta" || out[0].FromVersion != "1.2.0" || out[0].ToDigest == "" {
		t.Errorf("outdated %+v", out)
	}
	res, err = Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Updated, []string{"beta"}) || !reflect.DeepEqual(res.Unchanged, []string{"alpha"}) {
		t.Errorf("update %+v", res)
	}
	// --frozen holds to what the lock says.
	srv.set("beta", map[string]string{"SKILL.md": "---\nname: beta\ndescription: Beta.\n---\nBeta, again.\n"})
	before = tree(t, dir)
	opt := loopback()
	opt.Frozen = true
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err == nil || !strings.Contains(err.Error(), "--frozen") {
		t.Errorf("frozen pull of a changed v0.1 source: %v", err)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("the frozen pull changed the folder")
	}
	// A skill no longer served is outdated as removed, from the digest the lock holds
	// (an unverified skill's manifest digest: it has no artifact digest).
	srv.mu.Lock()
	delete(srv.skills, "beta")
	srv.mu.Unlock()
	lock, err = ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err = CheckOutdated(context.Background(), dir, loopback())
	if err != nil || len(out) != 1 || !out[0].Removed || out[0].FromDigest == "" || out[0].FromDigest != lock.find("beta").Manifest {
		t.Errorf("outdated after beta's removal: %+v %v", out, err)
	}
}

// TestPullIndexFlag: Index forces one well-known index.
func TestPullIndexFlag(t *testing.T) {
	srv := newV01Server(t, testCatalog())
	opt := loopback()
	opt.Index = IndexV02
	dir := filepath.Join(t.TempDir(), "skills")
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err == nil || !strings.Contains(err.Error(), "no v0.2.0 skills index") {
		t.Errorf("--index v0.2 from a v0.1-only server: %v", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the failed pull created DIR")
	}
	opt.Index = IndexV01
	if res, err := Pull(context.Background(), srv.URL, dir, opt); err != nil || res.Via != ViaWellKnownV01 {
		t.Errorf("--index v0.1: %+v %v", res, err)
	}
	opt.Era = verify.EraModern
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err == nil {
		t.Error("--index with --era was accepted")
	}
}

// TestHostileV01Server serves each hostile case of issue 30 item 7 that a v0.1.0 index
// can carry, as the skill "evil" beside a good "alpha": refused naming the case, nothing
// written outside DIR, DIR as it was.
func TestHostileV01Server(t *testing.T) {
	md := skillMD("evil", "Evil.")
	cases := []struct {
		name  string
		setup func(s *v01Server)
		want  string
	}{
		{"dot-dot in a file", func(s *v01Server) { s.list["evil"] = []any{"SKILL.md", "../../escaped"} }, `".." segment`},
		{"absolute path", func(s *v01Server) { s.list["evil"] = []any{"SKILL.md", "/etc/passwd"} }, "absolute"},
		{"backslash", func(s *v01Server) { s.list["evil"] = []any{"SKILL.md", `..\..\escaped`} }, "backslash"},
		{"encoded separators", func(s *v01Server) { s.list["evil"] = []any{"SKILL.md", "..%2F..%2Fescaped"} }, "encoded separator"},
		{"encoded backslash", func(s *v01Server) { s.list["evil"] = []any{"SKILL.md", "a%5cb"} }, "encoded separator"},
		{"names that collide when case is folded", func(s *v01Server) {
			s.skills["evil"] = map[string]string{"SKILL.md": md, "README.md": "a", "readme.md": "b"}
		}, "Windows, macOS"},
		{"names that collide when normalized (NFC/NFD)", func(s *v01Server) {
			s.skills["evil"] = map[string]string{"SKILL.md": md, "caf\u00e9.md": "a", "cafe\u0301.md": "b"}
		}, "Windows, macOS"},
		{"huge body", func(s *v01Server) {
			s.skills["evil"] = map[string]string{"SKILL.md": md, "big": ""}
			s.body["evil/big"] = make([]byte, 4<<20)
		}, "more than"},
		{"too many files", func(s *v01Server) {
			files := map[string]string{"SKILL.md": md}
			for i := range 65 {
				files[strings.Repeat("f", i+1)] = "x"
			}
			s.skills["evil"] = files
		}, "over the limit"},
		{"a skill named otherwise than its entry, not as a qualified name", func(s *v01Server) {
			s.skills["evil"] = map[string]string{"SKILL.md": skillMD("alpha", "I am alpha.")}
		}, "not the index's"},
		{"a SKILL.md whose name is no skill name", func(s *v01Server) {
			s.skills["evil"] = map[string]string{"SKILL.md": skillMD("Alpha Skill", "I am alpha.")}
		}, "is not a valid skill name"},
		{"no SKILL.md", func(s *v01Server) { s.skills["evil"] = map[string]string{"README.md": "x"} }, "SKILL.md"},
		{"a listed file not served", func(s *v01Server) { s.list["evil"] = []any{"SKILL.md", "gone.md"} }, "404"},
		{"a file that is also a folder", func(s *v01Server) {
			s.skills["evil"] = map[string]string{"SKILL.md": md, "a": "a", "a/b": "b"}
		}, "both a file and a folder"},
		{"a name that is not a skill name", func(s *v01Server) {
			s.skills["../evil"] = map[string]string{"SKILL.md": md}
		}, "not a valid skill name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newV01Server(t, map[string]map[string]string{"alpha": {"SKILL.md": skillMD("alpha", "Alpha.")}, "evil": {"SKILL.md": md}})
			c.setup(srv)
			pullRefused(t, srv.URL, c.want)
		})
	}
}

// TestPullV01Progress: the progress of a v0.1 pull says downloaded, unverified, never
// verified.
func TestPullV01Progress(t *testing.T) {
	srv := newV01Server(t, testCatalog())
	var b strings.Builder
	opt := loopback()
	opt.Progress = &b
	if _, err := Pull(context.Background(), srv.URL, t.TempDir(), opt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"downloaded alpha (3 files,", "unverified: the v0.1 index publishes no digests", "installed alpha (3 files, ", " bytes, unverified)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("progress %q has no %q", b.String(), want)
		}
	}
	if strings.Contains(b.String(), "verified alpha") {
		t.Errorf("progress %q says verified", b.String())
	}
}

// TestPullV01LocalEdit: a skill read from a v0.1 index and edited locally is kept while
// the source does not change (as on the other paths), and when it does it is left as it
// is, named with the file, while the other skills are updated; --force takes the
// source's; a deleted folder is restored.
func TestPullV01LocalEdit(t *testing.T) {
	srv := newV01Server(t, testCatalog())
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, "alpha", "ref", "a.md")
	os.WriteFile(edited, []byte("mine\n"), 0o644)
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil || len(res.Unchanged) != 2 {
		t.Fatalf("pull with an edit, source unchanged: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(edited); string(b) != "mine\n" {
		t.Errorf("the edit was overwritten: %q", b)
	}
	srv.set("alpha", map[string]string{"SKILL.md": skillMD("alpha", "Alpha, new."), "ref/a.md": "A\n"})
	srv.set("beta", map[string]string{"SKILL.md": skillMD("beta", "Beta, new.")})
	res, err = Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil || !reflect.DeepEqual(res.Edited, []Edited{{"alpha", []string{"ref/a.md"}}}) || !reflect.DeepEqual(res.Updated, []string{"beta"}) {
		t.Errorf("pull over an edit: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(edited); string(b) != "mine\n" {
		t.Errorf("the edit was overwritten: %q", b)
	}
	opt := loopback()
	opt.Force = true
	if res, err := Pull(context.Background(), srv.URL, dir, opt); err != nil || !reflect.DeepEqual(res.Updated, []string{"alpha"}) {
		t.Errorf("--force: %+v %v", res, err)
	}
	os.RemoveAll(filepath.Join(dir, "beta"))
	if res, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil || !reflect.DeepEqual(res.Updated, []string{"beta"}) {
		t.Errorf("pull after beta's folder was deleted: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "beta", "SKILL.md")); err != nil {
		t.Error(err)
	}
}

// TestPullV01ETags: without ETags (or with ones not fit to send back) every pull
// downloads the files to compare, and still writes nothing when they are unchanged; a
// server answering 304 to an ETag the lock does not hold is never asked with one.
func TestPullV01ETags(t *testing.T) {
	for name, etag := range map[string]func([]byte) string{
		"none":           func([]byte) string { return "" },
		"unquoted":       func(b []byte) string { return digestOf(b) },
		"a space inside": func([]byte) string { return `"a b"` },
	} {
		t.Run(name, func(t *testing.T) {
			srv := newV01Server(t, testCatalog())
			srv.etag = etag
			dir := t.TempDir()
			if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, LockName)); strings.Contains(string(b), `"etag"`) {
				t.Errorf("skills.lock keeps an etag:\n%s", b)
			}
			srv.bodies.Store(0)
			res, err := Pull(context.Background(), srv.URL, dir, loopback())
			if err != nil || len(res.Unchanged) != 2 || len(res.Compared) != 2 || res.Bytes != 0 {
				t.Errorf("second pull %+v %v", res, err)
			}
			if n := srv.bodies.Load(); n != 4 {
				t.Errorf("the second pull downloaded %d files, not the 4 to compare", n)
			}
		})
	}
}

// TestPullV01ListingTwice: a v0.1.0 listing that names a file twice, in place of another
// (as many names as the lock's ETags, each answered 304), is not taken as unchanged: it
// is refused as it is without ETags, and nothing is written.
func TestPullV01ListingTwice(t *testing.T) {
	srv := newV01Server(t, testCatalog())
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	srv.mu.Lock()
	srv.list["alpha"] = []any{"SKILL.md", "SKILL.md", "scripts/run.sh"}
	srv.mu.Unlock()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err == nil || !strings.Contains(err.Error(), `lists the file "SKILL.md" twice`) {
		t.Errorf("pull of a listing naming SKILL.md twice: %v", err)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("the refused pull changed the folder")
	}
}

// TestOutdatedV01Unchanged: skills read from a v0.1.0 index that sends no ETags are
// downloaded to compare (one at a time, verify.Options.Take) and, unchanged, are not
// outdated.
func TestOutdatedV01Unchanged(t *testing.T) {
	srv := newV01Server(t, testCatalog())
	srv.etag = func([]byte) string { return "" }
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	out, err := CheckOutdated(context.Background(), dir, loopback())
	if err != nil || len(out) != 0 {
		t.Fatalf("outdated of an unchanged v0.1 source: %+v %v", out, err)
	}
	srv.set("beta", map[string]string{"SKILL.md": skillMD("beta", "Beta, changed.")})
	if out, err = CheckOutdated(context.Background(), dir, loopback()); err != nil || len(out) != 1 || out[0].Name != "beta" {
		t.Fatalf("outdated of a changed v0.1 source: %+v %v", out, err)
	}
}

// TestPullTotalBound: a pull whose selected skills hold more than MaxTotal bytes is
// refused with ErrTooLarge, having written nothing: no skill, no temporary folder, and a
// DIR it had to create is gone again. Under the bound it installs.
func TestPullTotalBound(t *testing.T) {
	big := strings.Repeat("x", 400<<10)
	cat := map[string]map[string]string{}
	for _, n := range []string{"a", "b", "c"} {
		cat[n] = map[string]string{"SKILL.md": skillMD(n, "Big."), "data.txt": big}
	}
	srv := newCatalogServer(t, cat)
	dir := filepath.Join(t.TempDir(), "skills")
	opt := loopback()
	opt.MaxTotal = 1 << 20
	_, err := Pull(context.Background(), srv.URL, dir, opt)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "--max-total") {
		t.Fatalf("a pull over the bound: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused pull left DIR: %v (%v)", err, tree(t, filepath.Dir(dir)))
	}
	opt.MaxTotal = 2 << 20
	res, err := Pull(context.Background(), srv.URL, dir, opt)
	if err != nil || len(res.Installed) != 3 {
		t.Fatalf("a pull under the bound: %+v %v", res, err)
	}
}
