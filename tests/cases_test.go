package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge/wire"
)

// Protocol cases are data files under testdata/cases: each is a txtar archive whose
// comment says what it checks and whose sections are exchanges, in order:
//
//	-- options --            optional: JSON options for the server (plugin "configure")
//	-- skills/PATH --        optional, repeatable: a file of the case's own skills folder
//	                         (PATH relative to it, for example skills/x/SKILL.md); a case
//	                         with such sections is served from that folder, built as
//	                         skilledge build would, instead of the example catalog
//	-- http --               a request in the wire frame format (edge/wire), then
//	-- want --               the expected response frame, byte for byte
//	-- stdio --              client lines ("> …") and expected server lines ("< …"),
//	                         sent over one connection; "< " alone expects no reply
//
// A request may say $CURSOR for the nextCursor of the latest response that had one (in its
// result, or in the structuredContent of a tool result), and
// $ETAG for the latest ETag.
// The same files run against every target (in-process edge, the plugin in the wazero
// harness, …), so a new case is a data file, not new Go. `go test ./tests -update`
// rewrites the want sections from the in-process target.
var update = flag.Bool("update", false, "rewrite expected output in testdata/cases from the in-process target")

// target is a server under test.
type target interface {
	// HTTP sends one request frame and returns the response frame.
	HTTP(t *testing.T, frame []byte) []byte
	// Message sends one stdio line on a connection that negotiated version.
	Message(t *testing.T, version string, line []byte) (reply []byte, negotiated string)
}

// A target that answers over a real HTTP connection implements normalizer: got and want
// are compared in the form an HTTP round trip preserves (see workerTarget.normalize).
type normalizer interface{ normalize(frame []byte) []byte }

// A target that cannot take some exchanges implements limited: unsupported says why it
// cannot take the section (an "http" request frame, or a whole "stdio" section), or "" if
// it can. Such exchanges are reported and not run, and a case with none left is skipped.
type limited interface {
	unsupported(section string, data []byte) string
}

// caseSkills is the skills folder a case file carries in its skills/ sections.
type caseSkills struct {
	fs  fstest.MapFS
	key string // hex SHA-256 of the files' paths and contents: equal folders, equal keys
}

// skillsOf returns the skills folder of the case ar, or nil when it has none.
func skillsOf(ar *archive) *caseSkills {
	var cs *caseSkills
	h := sha256.New()
	for _, sec := range ar.sections {
		rel, ok := strings.CutPrefix(sec.name, "skills/")
		if !ok {
			continue
		}
		if cs == nil {
			cs = &caseSkills{fs: fstest.MapFS{}}
		}
		cs.fs[rel] = &fstest.MapFile{Data: sec.data}
		fmt.Fprintf(h, "%q %d\n", rel, len(sec.data))
		h.Write(sec.data)
	}
	if cs != nil {
		cs.key = hex.EncodeToString(h.Sum(nil))
	}
	return cs
}

// caseBuilds holds the build of each case folder, by key, once per test binary.
var caseBuilds sync.Map // key -> func() (*compile.Encoded, error)

// buildCase returns the encoded catalog of cs (the example catalog when cs is nil). Its
// skills must load without errors; warnings are allowed.
func buildCase(cs *caseSkills) (*compile.Encoded, error) {
	if cs == nil {
		return exampleBuild()
	}
	f, _ := caseBuilds.LoadOrStore(cs.key, sync.OnceValues(func() (*compile.Encoded, error) {
		c, problems, err := compile.Load(cs.fs, "skills", compile.Options{})
		if err != nil {
			return nil, err
		}
		if compile.HasErrors(problems) {
			return nil, fmtProblems(problems)
		}
		return compile.Encode(c)
	}))
	return f.(func() (*compile.Encoded, error))()
}

// runCases runs every case file against the target made by newTarget(options, skills),
// skills being the case's own folder or nil for the example catalog.
func runCases(t *testing.T, newTarget func(t *testing.T, options []byte, skills *caseSkills) target, canUpdate bool) {
	files, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no protocol cases found: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ar := parseTxtar(data)
			var options []byte
			if s := ar.get("options"); s != nil {
				options = s.data
			}
			tg := newTarget(t, options, skillsOf(ar))
			changed := false
			cursor := "" // the last nextCursor seen, substituted for $CURSOR in requests
			etag := ""   // the last ETag seen, substituted for $ETAG
			ran := 0     // exchanges run
			same := bytes.Equal
			if n, ok := tg.(normalizer); ok {
				same = func(got, want []byte) bool { return bytes.Equal(n.normalize(got), n.normalize(want)) }
			}
			for i := 0; i < len(ar.sections); i++ {
				sec := &ar.sections[i]
				if strings.HasPrefix(sec.name, "skills/") {
					continue // the case's skills folder, read by skillsOf
				}
				switch sec.name {
				case "options", "want":
				case "http":
					if i+1 >= len(ar.sections) || ar.sections[i+1].name != "want" {
						t.Fatalf("%s: http section %d has no want section after it", file, i)
					}
					if why := unsupported(tg, sec); why != "" {
						t.Logf("%s: http exchange %d not run: %s", file, i, why)
						continue
					}
					want := &ar.sections[i+1]
					got := tg.HTTP(t, requestFrame(sec.data, cursor, etag))
					checkFrame(t, got)
					for _, path := range []string{"result.nextCursor", "result.structuredContent.nextCursor"} {
						if c := gjson.GetBytes(responseBody(got), path); c.Exists() {
							cursor = c.Str
						}
					}
					if r, err := wire.ParseResponse(got); err == nil {
						if e, ok := r.Header.Get("ETag"); ok {
							etag = e
						}
					}
					ran++
					if !same(got, trimLF(want.data)) {
						if *update && canUpdate {
							want.data, changed = append(got, '\n'), true
							continue
						}
						t.Errorf("%s: http exchange %d:\nrequest:\n%s\ngot:\n%s\nwant:\n%s", file, i, sec.data, got, want.data)
					}
				case "stdio":
					if why := unsupported(tg, sec); why != "" {
						t.Logf("%s: stdio exchange %d not run: %s", file, i, why)
						continue
					}
					ran++
					got := runStdio(t, tg, sec.data)
					if !bytes.Equal(got, sec.data) {
						if *update && canUpdate {
							sec.data, changed = got, true
							continue
						}
						t.Errorf("%s: stdio exchange %d:\ngot:\n%s\nwant:\n%s", file, i, got, sec.data)
					}
				default:
					t.Fatalf("%s: unknown section %q", file, sec.name)
				}
			}
			if ran == 0 {
				t.Skip("no exchange of this case applies to the target")
			}
			if changed {
				if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// unsupported is why tg cannot take sec, or "".
func unsupported(tg target, sec *section) string {
	if l, ok := tg.(limited); ok {
		return l.unsupported(sec.name, sec.data)
	}
	return ""
}

// trimLF drops the one LF that ends every txtar section, turning a section into a frame.
// A frame whose body ends in LF is stored with two.
func trimLF(sec []byte) []byte { return bytes.TrimSuffix(sec, []byte("\n")) }

// runStdio replays the client lines of a stdio section and returns the section as the
// target answered it: each "> " line followed by the "< " lines of its reply.
func runStdio(t *testing.T, tg target, sec []byte) []byte {
	var out bytes.Buffer
	version := ""
	for _, line := range strings.SplitAfter(string(sec), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "> ") {
			if strings.HasPrefix(line, "<") {
				continue // expected output: regenerated below
			}
			t.Fatalf("stdio line neither \"> \" nor \"< \": %q", line)
		}
		out.WriteString(line)
		var reply []byte
		reply, version = tg.Message(t, version, []byte(strings.TrimSuffix(line[2:], "\n")))
		if reply == nil {
			out.WriteString("<\n")
		} else {
			fmt.Fprintf(&out, "< %s\n", reply)
		}
	}
	return out.Bytes()
}

// requestFrame turns an http section into a request frame: the section's last LF is
// dropped, a request without a body may omit the blank line that ends its header, and
// $CURSOR and $ETAG are replaced by cursor and etag.
func requestFrame(sec []byte, cursor, etag string) []byte {
	frame := trimLF(sec)
	for !bytes.Contains(frame, []byte("\n\n")) {
		frame = append(frame, '\n')
	}
	return []byte(strings.NewReplacer("$CURSOR", cursor, "$ETAG", etag).Replace(string(frame)))
}

// responseBody returns the body of a response frame, or nil.
func responseBody(frame []byte) []byte {
	r, err := wire.ParseResponse(frame)
	if err != nil {
		return nil
	}
	return r.Body
}

// checkFrame fails t unless frame is a well-formed response frame.
func checkFrame(t *testing.T, frame []byte) {
	t.Helper()
	if _, err := wire.ParseResponse(frame); err != nil {
		t.Fatalf("malformed response frame %q: %v", frame, err)
	}
}
