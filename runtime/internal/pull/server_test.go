package pull

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/skilledge/skilledge/catalog/archive"
)

// catalogServer serves a well-known v0.2.0 index of skills, each as a .tar.gz built by
// catalog/archive, or as raw artifacts a test sets to play a hostile server.
type catalogServer struct {
	*httptest.Server
	mu     sync.Mutex
	skills map[string]map[string]string // name -> path -> content
	// raw, when set for a name, is served as that skill's archive instead (its digest
	// in the index is raw's unless digest overrides it).
	raw    map[string][]byte
	digest map[string]string
	// url overrides a skill's url in the index.
	url      map[string]string
	requests atomic.Int64 // requests other than the index
	// indexReads counts the requests for the index; noVersions leaves every version out
	// of it, as an index that names none.
	indexReads atomic.Int64
	noVersions bool
	auth       []string // the Authorization headers received
	// token, when set, is the bearer token every request must carry (else 401).
	token string
	// root, when set, is served as the catalog's signed root; rootStatus, when set, is
	// the status its path answers with instead.
	root       []byte
	rootStatus int
}

func newCatalogServer(t *testing.T, skills map[string]map[string]string) *catalogServer {
	s := &catalogServer{skills: skills, raw: map[string][]byte{}, digest: map[string]string{}, url: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func skillMD(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n" + body + "\n"
}

// set replaces a skill's files.
func (s *catalogServer) set(name string, files map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skills[name] = files
}

func (s *catalogServer) artifact(name string) []byte {
	if b, ok := s.raw[name]; ok {
		return b
	}
	var entries []archive.Entry
	for p, c := range s.skills[name] {
		entries = append(entries, archive.Entry{Name: p, Data: []byte(c), Exec: strings.HasSuffix(p, ".sh")}) // a script
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	b, err := archive.TarGz(entries)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *catalogServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
		http.Error(w, "a credential is wanted", http.StatusUnauthorized)
		return
	}
	const prefix = "/.well-known/agent-skills/"
	if r.URL.Path == prefix+"index.json" {
		s.indexReads.Add(1)
		var names []string
		for n := range s.skills {
			names = append(names, n)
		}
		for n := range s.raw {
			if _, ok := s.skills[n]; !ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		var list []map[string]any
		for _, n := range names {
			d := digestOf(s.artifact(n))
			if o, ok := s.digest[n]; ok {
				d = o
			}
			u := n + ".tar.gz"
			if o, ok := s.url[n]; ok {
				u = o
			}
			entry := map[string]any{"name": n, "type": "archive", "description": "The " + n + " skill.", "url": u, "digest": d}
			if v := frontmatterVersion([]byte(s.skills[n]["SKILL.md"])); v != "" && !s.noVersions {
				entry["frontmatter"] = map[string]any{"name": n, "version": v} // as skilledge's index gives it
			}
			list = append(list, entry)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": list})
		return
	}
	s.requests.Add(1)
	if r.URL.Path == prefix+"root.json" && s.rootStatus != 0 {
		http.Error(w, "failing", s.rootStatus)
		return
	}
	if r.URL.Path == prefix+"root.json" && s.root != nil {
		w.Header().Set("Content-Type", "application/json")
		w.Write(s.root)
		return
	}
	name, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, prefix), ".tar.gz")
	if _, known := s.skills[name]; !ok || (!known && s.raw[name] == nil) {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/gzip")
	w.Write(s.artifact(name))
}

// rawTarGz builds a .tar.gz with no check at all: entries' names as given.
func rawTarGz(entries ...tarEntry) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.data)), Typeflag: tar.TypeReg}
		if e.mode != 0 {
			h.Mode = e.mode
		}
		if e.link != "" {
			h = &tar.Header{Name: e.name, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: e.link}
		}
		tw.WriteHeader(h)
		tw.Write(e.data)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

type tarEntry struct {
	name string
	data []byte
	link string
	mode int64 // 0: 0644
}
