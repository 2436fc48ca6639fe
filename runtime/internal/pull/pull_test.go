package pull

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

func testCatalog() map[string]map[string]string {
	return map[string]map[string]string{
		"alpha": {"SKILL.md": skillMD("alpha", "Alpha."), "scripts/run.sh": "echo alpha\n", "ref/a.md": "A\n"},
		"beta":  {"SKILL.md": "---\nname: beta\ndescription: Beta.\nversion: 1.2.0\n---\nBeta.\n"},
	}
}

// sha256sumDigest is the manifest digest of files as PROTOCOL.md#versions defines it,
// written out here apart from verify.ManifestDigest: the SHA-256 of the output of
// `sha256sum` over the files, SKILL.md first, then by path.
func sha256sumDigest(files map[string]string) string {
	var paths []string
	for p := range files {
		if p != "SKILL.md" {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out strings.Builder
	for _, p := range append([]string{"SKILL.md"}, paths...) {
		sum := sha256.Sum256([]byte(files[p]))
		out.WriteString(hex.EncodeToString(sum[:]) + "  " + p + "\n")
	}
	sum := sha256.Sum256([]byte(out.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func loopback() Options { return Options{Verify: verify.Options{AllowHTTPLoopback: true}} }

// tree reads every file under dir, "/"-separated paths relative to it.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

// skillsOf is the tree the catalog should give, without the lock.
func skillsOf(cat map[string]map[string]string) map[string]string {
	out := map[string]string{}
	for n, files := range cat {
		for p, c := range files {
			out[n+"/"+p] = c
		}
	}
	return out
}

func withoutLock(m map[string]string) map[string]string {
	delete(m, LockName)
	return m
}

func TestPullInstallsVerifiesAndLocks(t *testing.T) {
	cat := testCatalog()
	srv := newCatalogServer(t, cat)
	dir := filepath.Join(t.TempDir(), "skills")
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Installed, []string{"alpha", "beta"}) {
		t.Errorf("installed %v", res.Installed)
	}
	if got := withoutLock(tree(t, dir)); !reflect.DeepEqual(got, skillsOf(cat)) {
		t.Errorf("pulled tree %v\nwant %v", got, skillsOf(cat))
	}
	lock, err := ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Skills) != 2 || lock.Skills[0].Name != "alpha" || lock.Skills[1].Version != "1.2.0" {
		t.Fatalf("lock %+v", lock)
	}
	a := lock.Skills[0]
	if a.Source != srv.URL || a.Files[0].Path != "SKILL.md" || a.Files[1].Path != "ref/a.md" || a.Manifest != sha256sumDigest(cat["alpha"]) {
		t.Errorf("alpha's lock entry %+v", a)
	}
	// The lock renders stably.
	b, _ := os.ReadFile(filepath.Join(dir, LockName))
	if string(b) != string(lock.Marshal()) {
		t.Errorf("skills.lock is not in its stable form:\n%s", b)
	}
	// A second pull downloads nothing.
	srv.requests.Store(0)
	res, err = Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.requests.Load(); n != 0 {
		t.Errorf("an up-to-date pull made %d requests besides the index", n)
	}
	if len(res.Installed)+len(res.Updated) != 0 || len(res.Unchanged) != 2 || res.Bytes != 0 {
		t.Errorf("second pull %+v", res)
	}
}

func TestPullUpdatesOnlyWhatChanged(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	srv.set("alpha", map[string]string{"SKILL.md": skillMD("alpha", "Alpha, edited.")})
	out, err := CheckOutdated(context.Background(), dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Name != "alpha" || out[0].ToDigest == "" || out[0].FromDigest == out[0].ToDigest {
		t.Fatalf("outdated %+v", out)
	}
	srv.requests.Store(0)
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Updated, []string{"alpha"}) || !reflect.DeepEqual(res.Unchanged, []string{"beta"}) || srv.requests.Load() != 1 {
		t.Errorf("pull after an edit: %+v, %d requests", res, srv.requests.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, "alpha", "scripts")); !os.IsNotExist(err) {
		t.Errorf("a file removed at the source is still installed: %v", err)
	}
	if out, _ := CheckOutdated(context.Background(), dir, loopback()); len(out) != 0 {
		t.Errorf("outdated after the update: %+v", out)
	}
	// A skill no longer served is removed.
	srv.mu.Lock()
	delete(srv.skills, "beta")
	srv.mu.Unlock()
	res, err = Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil || !reflect.DeepEqual(res.Removed, []string{"beta"}) {
		t.Fatalf("pull after a removal: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "beta")); !os.IsNotExist(err) {
		t.Errorf("beta is still there: %v", err)
	}
}

func TestPullFrozen(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	// Frozen restores a deleted skill at its locked digest.
	os.RemoveAll(filepath.Join(dir, "beta"))
	opt := loopback()
	opt.Frozen = true
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	srv.set("alpha", map[string]string{"SKILL.md": skillMD("alpha", "Changed.")})
	_, err := Pull(context.Background(), srv.URL, dir, opt)
	if err == nil || !strings.Contains(err.Error(), "--frozen") || !strings.Contains(err.Error(), "alpha") {
		t.Fatalf("frozen pull after a change: %v", err)
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("a failed frozen pull changed the folder")
	}
}

func TestPullRespectsTheFolder(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	dir := t.TempDir()
	// A folder pull did not install is never touched.
	os.MkdirAll(filepath.Join(dir, "beta"), 0o755)
	os.WriteFile(filepath.Join(dir, "beta", "mine.md"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes"), 0o644)
	_, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "beta")) {
		t.Fatalf("pull over an unmanaged folder: %v", err)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, map[string]string{"beta/mine.md": "mine", "notes.txt": "notes"}) {
		t.Fatalf("the folder was touched: %v", got)
	}
	os.RemoveAll(filepath.Join(dir, "beta"))
	opt := loopback()
	opt.Skills = []string{"alpha"}
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "beta")); !os.IsNotExist(err) {
		t.Errorf("--skill alpha installed beta")
	}
	// A local edit leaves its skill as it is, named with the file; an unchanged source
	// keeps it anyway.
	edited := filepath.Join(dir, "alpha", "ref", "a.md")
	os.WriteFile(edited, []byte("my notes\n"), 0o644)
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err != nil {
		t.Fatalf("pull with an edit and no change at the source: %v", err)
	}
	if b, _ := os.ReadFile(edited); string(b) != "my notes\n" {
		t.Errorf("the edit was overwritten")
	}
	srv.set("alpha", map[string]string{"SKILL.md": skillMD("alpha", "New.")})
	res, err := Pull(context.Background(), srv.URL, dir, opt)
	if err != nil || !reflect.DeepEqual(res.Edited, []Edited{{"alpha", []string{"ref/a.md"}}}) || len(res.Updated) != 0 {
		t.Fatalf("update over an edit: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(edited); string(b) != "my notes\n" {
		t.Errorf("the edit was overwritten")
	}
	opt.Force = true
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, filepath.Join(dir, "alpha")); !reflect.DeepEqual(got, map[string]string{"SKILL.md": skillMD("alpha", "New.")}) {
		t.Errorf("--force left %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "notes" {
		t.Errorf("notes.txt was touched")
	}
	// A skill the lock has from another source is left alone, and said to be.
	other := newCatalogServer(t, map[string]map[string]string{"alpha": {"SKILL.md": skillMD("alpha", "Another alpha.")}})
	res, err = Pull(context.Background(), other.URL, dir, loopback())
	if err != nil || !reflect.DeepEqual(res.Elsewhere, []string{"alpha"}) || len(res.Installed)+len(res.Updated) != 0 {
		t.Fatalf("pull from another source: %+v %v", res, err)
	}
	// An unknown --skill is an error.
	opt.Skills = []string{"gamma"}
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err == nil || !strings.Contains(err.Error(), "gamma") {
		t.Errorf("--skill gamma: %v", err)
	}
}

func TestPullTokenOnlyToTheOrigin(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	other := newCatalogServer(t, map[string]map[string]string{})
	srv.url["beta"] = other.URL + "/.well-known/agent-skills/beta.tar.gz"
	opt := loopback()
	opt.Verify.Tokens = verify.Credentials{}
	opt.Verify.Tokens.Add(srv.URL, "s3cret-token")
	dir := t.TempDir()
	_, err := Pull(context.Background(), srv.URL, dir, opt)
	if err == nil || !strings.Contains(err.Error(), "trust root") {
		t.Fatalf("a skill on another origin: %v", err)
	}
	for _, a := range other.auth {
		if a != "" {
			t.Errorf("the token went to another origin: %q", a)
		}
	}
	delete(srv.url, "beta")
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err != nil {
		t.Fatal(err)
	}
	if srv.auth[len(srv.auth)-1] != "Bearer s3cret-token" {
		t.Errorf("the origin got %q", srv.auth[len(srv.auth)-1])
	}
	b, _ := os.ReadFile(filepath.Join(dir, LockName))
	if strings.Contains(string(b), "s3cret") {
		t.Errorf("the token is in the lock")
	}
}

// TestPullProgress: with a Progress writer, a line per skill as it is verified and one as
// it is written; an up-to-date pull downloads and says nothing.
func TestPullProgress(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	dir := t.TempDir()
	var b strings.Builder
	opt := loopback()
	opt.Progress = &b
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"verified alpha (3 files,", "verified beta (1 files,", "installed alpha (3 files,", "installed beta (1 files,"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("progress %q has no %q", b.String(), want)
		}
	}
	b.Reset()
	if _, err := Pull(context.Background(), srv.URL, dir, opt); err != nil || b.Len() != 0 {
		t.Errorf("an up-to-date pull: %v, progress %q", err, b.String())
	}
}

// TestOutdatedVersions: outdated shows the version from -> to where the source says it:
// the v0.2.0 index entry's frontmatter, the skills/list entry's version, the SKILL.md
// downloaded from a v0.1.0 index; the digests stay.
func TestOutdatedVersions(t *testing.T) {
	v1 := "---\nname: beta\ndescription: Beta.\nversion: 1.2.0\n---\nBeta.\n"
	v2 := "---\nname: beta\ndescription: Beta.\nversion: 1.3.0\n---\nBeta, better.\n"
	v02 := newCatalogServer(t, map[string]map[string]string{"beta": {"SKILL.md": v1}})
	v01 := newV01Server(t, map[string]map[string]string{"beta": {"SKILL.md": v1}})
	mcp := map[string][]mcpFile{"skill://team/beta/SKILL.md": {same("skill://team/beta/SKILL.md", v1)}}
	sources := map[string]struct {
		url    string
		update func()
	}{
		"v0.2 index": {v02.URL, func() { v02.set("beta", map[string]string{"SKILL.md": v2}) }},
		"v0.1 index": {v01.URL, func() { v01.set("beta", map[string]string{"SKILL.md": v2}) }},
		"mcp":        {newMCPServer(t, mcp), func() { mcp["skill://team/beta/SKILL.md"] = []mcpFile{same("skill://team/beta/SKILL.md", v2)} }},
	}
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Pull(context.Background(), src.url, dir, loopback()); err != nil {
				t.Fatal(err)
			}
			src.update()
			out, err := CheckOutdated(context.Background(), dir, loopback())
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || out[0].FromVersion != "1.2.0" || out[0].ToVersion != "1.3.0" || !validDigest(out[0].FromDigest) || !validDigest(out[0].ToDigest) {
				t.Fatalf("outdated %+v", out)
			}
			if s := out[0].String(); !strings.Contains(s, "1.2.0 sha256:") || !strings.Contains(s, "-> 1.3.0 sha256:") {
				t.Errorf("outdated line %q", s)
			}
		})
	}
}

// TestOutdatedReadsOnce: from an index that names no versions, outdated reads the index
// once, downloading (and verifying) only the changed skill to read its version.
func TestOutdatedReadsOnce(t *testing.T) {
	v1 := "---\nname: beta\ndescription: Beta.\nversion: 1.2.0\n---\nBeta.\n"
	srv := newCatalogServer(t, map[string]map[string]string{"beta": {"SKILL.md": v1}, "gamma": {"SKILL.md": skillMD("gamma", "Gamma.")}})
	srv.noVersions = true
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	srv.set("beta", map[string]string{"SKILL.md": "---\nname: beta\ndescription: Beta.\nversion: 1.3.0\n---\nBeta, better.\n"})
	reads, requests := srv.indexReads.Load(), srv.requests.Load()
	out, err := CheckOutdated(context.Background(), dir, loopback())
	if err != nil || len(out) != 1 || out[0].Name != "beta" || out[0].ToVersion != "1.3.0" {
		t.Fatalf("outdated %+v %v", out, err)
	}
	if n, m := srv.indexReads.Load()-reads, srv.requests.Load()-requests; n != 1 || m != 1 {
		t.Errorf("outdated read the index %d times and %d artifacts, want 1 and 1 (beta's)", n, m)
	}
}

// TestPullKeepsSelection: a pull asked for some skills records the selection in the lock;
// a later pull that names none keeps to it, updating the selected skills and reporting the
// others the catalog serves as new, never installing them; naming one adds it. A source
// pulled whole keeps being pulled whole.
func TestPullKeepsSelection(t *testing.T) {
	cat := map[string]map[string]string{}
	for _, n := range []string{"docx", "pdf", "pptx", "xlsx"} {
		cat[n] = map[string]string{"SKILL.md": skillMD(n, "The "+n+" skill.")}
	}
	srv := newCatalogServer(t, cat)
	dir := t.TempDir()
	opt := loopback()
	opt.Skills = []string{"pdf", "docx"}
	if res, err := Pull(context.Background(), srv.URL, dir, opt); err != nil || !reflect.DeepEqual(res.Installed, []string{"docx", "pdf"}) {
		t.Fatalf("pull --skill pdf --skill docx: %+v %v", res, err)
	}
	lock, err := ReadLock(dir)
	if err != nil || !reflect.DeepEqual(lock.Selections, []Selection{{Source: srv.URL, Skills: []string{"docx", "pdf"}}}) {
		t.Fatalf("the lock's selections: %+v %v", lock, err)
	}
	srv.set("pdf", map[string]string{"SKILL.md": skillMD("pdf", "The pdf skill, better.")})
	srv.set("csv", map[string]string{"SKILL.md": skillMD("csv", "New.")})
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil || !reflect.DeepEqual(res.Updated, []string{"pdf"}) || len(res.Installed) != 0 || !reflect.DeepEqual(res.New, []string{"csv", "pptx", "xlsx"}) {
		t.Fatalf("an update: %+v %v", res, err)
	}
	if got := tree(t, dir); got["pptx/SKILL.md"] != "" || got["csv/SKILL.md"] != "" {
		t.Fatalf("an update installed skills nobody chose: %v", got)
	}
	opt.Skills = []string{"csv"}
	if res, err = Pull(context.Background(), srv.URL, dir, opt); err != nil || !reflect.DeepEqual(res.Installed, []string{"csv"}) {
		t.Fatalf("pull --skill csv: %+v %v", res, err)
	}
	if res, err = Pull(context.Background(), srv.URL, dir, loopback()); err != nil || !reflect.DeepEqual(res.New, []string{"pptx", "xlsx"}) || len(res.Unchanged) != 3 {
		t.Fatalf("after adding csv: %+v %v", res, err)
	}
	// A selected skill the catalog no longer serves is removed, as any.
	srv.mu.Lock()
	delete(srv.skills, "docx")
	srv.mu.Unlock()
	if res, err = Pull(context.Background(), srv.URL, dir, loopback()); err != nil || !reflect.DeepEqual(res.Removed, []string{"docx"}) {
		t.Fatalf("docx withdrawn: %+v %v", res, err)
	}
	// Pulled whole: no selection, and a new skill is installed.
	whole := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, whole, loopback()); err != nil {
		t.Fatal(err)
	}
	opt.Skills = []string{"pdf"}
	if _, err := Pull(context.Background(), srv.URL, whole, opt); err != nil {
		t.Fatal(err)
	}
	srv.set("md", map[string]string{"SKILL.md": skillMD("md", "Newer.")})
	if res, err = Pull(context.Background(), srv.URL, whole, loopback()); err != nil || !reflect.DeepEqual(res.Installed, []string{"md"}) || len(res.New) != 0 {
		t.Fatalf("a source pulled whole: %+v %v", res, err)
	}
}
