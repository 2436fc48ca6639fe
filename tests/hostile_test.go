//go:build e2e

package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// The hostile suite: requests an attacker would send, as data files under
// testdata/hostile (txtar), each with what it must get, sent as raw HTTP/1.1 over
// loopback to `skilledge serve`, the Worker in workerd and the Deno, Bun and Node entries,
// all serving the same catalog with the plugin's loopback defaults. After every request a health check reads a
// file and compares its bytes, so a request that breaks the server fails at once. A new
// case is a data file.
//
// Why is the hostile suite raw HTTP over a socket, with a health check after every
// request? The requests an attacker sends are the ones an HTTP client library refuses to
// make: two Host fields, bytes that are not UTF-8 in a header, a Content-Length beside
// Transfer-Encoding: chunked, a 100 KB header. Where the HTTP server in front of the
// plugin answers on its own (Go's net/http refuses two Host fields, workerd an unknown
// method) the case says so per target. The health check makes a request that breaks or
// wedges a server fail where it is sent, not somewhere later. Comparing whole answers byte
// for byte, as the protocol cases do, was rejected: for a 9 MB batch answer the
// interesting facts are its shape and its bound.
//
// Sections come in pairs:
//
//	-- request: NAME --   the request: "METHOD TARGET", header lines, a blank line, the
//	                      body. $HOST is the server's host:port. Content-Length is added
//	                      unless the request has one or a Transfer-Encoding. Anywhere,
//	                      {{"…"}} is a Go-quoted string (raw bytes: {{"\xff"}}) and
//	                      {{repeat N "…"}} that string N times.
//	-- want --            one expectation per line, all must hold; a line may start with
//	                      a target's name ("serve:", "workerd:", "deno:", "bun:",
//	                      "node:") to hold for that target only:
//	                        status N           the HTTP status
//	                        error CODE         the body is a JSON-RPC error with CODE
//	                        answers N          the body is a JSON array of N answers
//	                        errors CODE N      N of them are errors with CODE
//	                        results N          N of them are results
//	                        header NAME: TEXT  header NAME contains TEXT
//	                        contains TEXT      the body contains TEXT
//	                        max-body N         the body has at most N bytes
//	                        http-layer         the HTTP server in front answered, not the
//	                                           plugin: its own headers are not checked
//	                        closed             (with a target) the server closes the
//	                                           connection without an answer
//
// Every answer of the plugin must say nosniff, and every JSON body must be valid UTF-8
// JSON.

// hostileTargets are the names a want line may start with, to hold for that target only.
var hostileTargets = map[string]bool{"serve": true, "workerd": true, "deno": true, "bun": true, "node": true}

// hostileTarget is a server the suite attacks.
type hostileTarget struct {
	name string
	base string // http://host:port
}

// hostileCatalog writes the suite's catalog: the examples and a skill with a small text
// file (the health check's), a 3 MiB binary, an HTML page and an SVG image.
func hostileCatalog(t *testing.T) string {
	dir := loadCatalog(t)
	big := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{'h'}).Read(big)
	for rel, data := range map[string][]byte{
		"hostile/SKILL.md":  []byte("---\nname: hostile\ndescription: Files for the hostile suite.\n---\nRead them.\n"),
		"hostile/small.txt": []byte(healthText),
		"hostile/big.bin":   big,
		"hostile/page.html": []byte("<!doctype html><script>document.title = document.cookie</script>\n"),
		"hostile/x.svg":     []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>` + "\n"),
	} {
		if err := writeFile(filepath.Join(dir, rel), data); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const healthText = "the health check reads this file\n"

// TestHostile runs every hostile case against serve and the Worker.
func TestHostile(t *testing.T) {
	skills := hostileCatalog(t)
	d, err := deployFolder(skills)
	if err != nil {
		failOrSkip(t, err)
	}
	targets := []hostileTarget{
		{"serve", strings.TrimSuffix(serve(t, skills), "/mcp")},
		{"workerd", workerdFor(t, d, "")[0]}, // no options: the plugin's loopback defaults, as serve
	}
	for _, rt := range jsRuntimes { // the same build, served by each runtime's entry
		targets = append(targets, hostileTarget{rt.name, startRuntime(t, rt, withSDK(t, d), "")})
	}
	files, err := filepath.Glob("testdata/hostile/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile cases: %v", err)
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			health(t, tg) // the server is up before anything is sent
			n := 0
			for _, file := range files {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				ar := parseTxtar(data)
				for i := 0; i < len(ar.sections); i++ {
					sec := ar.sections[i]
					name, ok := strings.CutPrefix(sec.name, "request: ")
					if !ok || i+1 >= len(ar.sections) || ar.sections[i+1].name != "want" {
						t.Fatalf("%s: section %q is not a request followed by want", file, sec.name)
					}
					i++
					n++
					what := filepath.Base(file) + ": " + name
					req, err := hostileRequest(sec.data, tg)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					resp, body, err := rawExchange(tg, req)
					if err != nil {
						if !bytes.Contains(ar.sections[i].data, []byte(tg.name+": closed\n")) {
							t.Errorf("%s: %v", what, err)
						}
					} else {
						for _, problem := range checkWant(tg.name, ar.sections[i].data, resp, body) {
							t.Errorf("%s: %s\n%s %d, %d bytes: %.300s", what, problem, tg.name, resp.StatusCode, len(body), body)
						}
					}
					if err := healthErr(tg); err != nil {
						t.Fatalf("%s: the server is not healthy after it: %v", what, err)
					}
				}
			}
			t.Logf("%d hostile requests, each followed by a health check", n)
		})
	}
}

// hostileRequest renders a request section as the bytes to send.
func hostileRequest(sec []byte, tg hostileTarget) ([]byte, error) {
	u, err := url.Parse(tg.base)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(string(sec), "\n")
	head, body, hasBody := strings.Cut(text, "\n\n")
	expanded, err := expandBody(strings.ReplaceAll(head, "$HOST", u.Host))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(expanded), "\n"), "\n")
	var b bytes.Buffer
	b.WriteString(lines[0] + " HTTP/1.1\r\n")
	framed := false
	for _, l := range lines[1:] {
		name, _, _ := strings.Cut(l, ":")
		if strings.EqualFold(name, "Content-Length") || strings.EqualFold(name, "Transfer-Encoding") {
			framed = true
		}
		b.WriteString(l + "\r\n")
	}
	var payload []byte
	if hasBody {
		if payload, err = expandBody(body); err != nil {
			return nil, err
		}
	}
	if !framed {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(payload))
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.Write(payload)
	return b.Bytes(), nil
}

// expandBody expands the {{…}} of a body (see the suite's comment).
func expandBody(s string) ([]byte, error) {
	var out bytes.Buffer
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			out.WriteString(s)
			return out.Bytes(), nil
		}
		j := strings.Index(s[i:], "}}")
		for j >= 0 && strings.Count(s[i:i+j], `"`)%2 == 1 { // a "}}" inside the quoted string
			k := strings.Index(s[i+j+2:], "}}")
			if k < 0 {
				j = -1
				break
			}
			j += 2 + k
		}
		if j < 0 {
			return nil, fmt.Errorf("unclosed {{ in body")
		}
		out.WriteString(s[:i])
		expr := strings.TrimSpace(s[i+2 : i+j])
		n := 1
		if rest, ok := strings.CutPrefix(expr, "repeat "); ok {
			count, quoted, _ := strings.Cut(rest, " ")
			var err error
			if n, err = strconv.Atoi(count); err != nil {
				return nil, fmt.Errorf("{{%s}}: %v", expr, err)
			}
			expr = strings.TrimSpace(quoted)
		}
		text, err := strconv.Unquote(expr)
		if err != nil {
			return nil, fmt.Errorf("{{%s}}: %v", expr, err)
		}
		out.WriteString(strings.Repeat(text, n))
		s = s[i+j+2:]
	}
}

// rawExchange sends req on a new connection and reads the response.
func rawExchange(tg hostileTarget, req []byte) (*http.Response, []byte, error) {
	u, _ := url.Parse(tg.base)
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	// Write while reading: a server may answer (413, 431) before it has read everything.
	werr := make(chan error, 1)
	go func() { _, err := conn.Write(req); werr <- err }()
	method, _, _ := bytes.Cut(req, []byte(" ")) // a HEAD's answer has no body to read
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 64<<10), &http.Request{Method: string(method)})
	if err != nil {
		if w := <-werr; w != nil {
			err = fmt.Errorf("%v (writing: %v)", err, w)
		}
		return nil, nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, body, err
}

// checkWant returns what of want the response does not hold.
func checkWant(target string, want []byte, resp *http.Response, body []byte) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	httpLayer := false
	parsed := gjson.ParseBytes(body)
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		line = strings.TrimSpace(line)
		if only, rest, ok := strings.Cut(line, ": "); ok && hostileTargets[only] {
			if only != target {
				continue
			}
			line = rest
		}
		verb, arg, _ := strings.Cut(line, " ")
		num := func(s string) int {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				fail("bad number in %q", line)
			}
			return n
		}
		switch verb {
		case "":
		case "http-layer":
			httpLayer = true
		case "closed":
			fail("an answer where the connection was to be closed")
		case "status":
			if resp.StatusCode != num(arg) {
				fail("status %d, want %s", resp.StatusCode, arg)
			}
		case "error":
			if !parsed.IsObject() || parsed.Get("error.code").Int() != int64(num(arg)) {
				fail("not a JSON-RPC error %s", arg)
			}
		case "answers":
			if !parsed.IsArray() || len(parsed.Array()) != num(arg) {
				fail("not an array of %s answers", arg)
			}
		case "errors", "results":
			code, count, _ := strings.Cut(arg, " ")
			if verb == "results" {
				count = code
			}
			got := 0
			for _, a := range parsed.Array() {
				if verb == "results" && a.Get("result").Exists() || verb == "errors" && a.Get("error.code").Int() == int64(num(code)) {
					got++
				}
			}
			if got != num(count) {
				fail("%d %s %s, want %s", got, verb, code, count)
			}
		case "header":
			name, text, _ := strings.Cut(arg, ": ")
			if !strings.Contains(resp.Header.Get(name), text) {
				fail("header %s: %q, want it to contain %q", name, resp.Header.Get(name), text)
			}
		case "contains":
			if !bytes.Contains(body, []byte(arg)) {
				fail("the body lacks %q", arg)
			}
		case "max-body":
			if len(body) > num(arg) {
				fail("a body of %d bytes, over %s", len(body), arg)
			}
		default:
			fail("unknown expectation %q", line)
		}
	}
	if !httpLayer {
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			fail("no X-Content-Type-Options: nosniff")
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(body) > 0 &&
			(!json.Valid(body) || !utf8.Valid(body)) {
			fail("a JSON body that is not valid UTF-8 JSON")
		}
	}
	return problems
}

// health reads a small file through MCP and checks its bytes, failing t if it cannot.
func health(t *testing.T, tg hostileTarget) {
	t.Helper()
	if err := healthErr(tg); err != nil {
		t.Fatalf("%s is not healthy: %v", tg.name, err)
	}
}

var healthClient = &http.Client{Timeout: 10 * time.Second}

func healthErr(tg hostileTarget) error {
	body := `{"jsonrpc":"2.0","id":"health","method":"resources/read","params":{"uri":"skill://hostile/small.txt"}}`
	req, err := http.NewRequest("POST", tg.base+"/mcp", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := healthClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || gjson.GetBytes(b, "result.contents.0.text").Str != healthText {
		return fmt.Errorf("%d %.200s", resp.StatusCode, b)
	}
	return nil
}
