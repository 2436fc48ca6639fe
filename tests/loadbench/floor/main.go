// Command floor is the baseline of the load benchmark (tests/load_bench_test.go): a plain
// net/http handler that answers each MCP request with the bytes skilledge answers it with,
// read from files beforehand, with the request's id in place, doing nothing else but
// reading the request body. What any Go HTTP server pays for these requests, and nothing
// of the protocol.
//
//	floor ADDR DIR
//
// DIR holds one file per request, named by the request's Mcp-Method and Mcp-Name headers
// (answerName), each an answer that starts {"jsonrpc":"2.0","id":N, as the request bodies
// do; the floor answers with the request's digits in place of N. It prints "listening on
// http://ADDR" once it listens.
package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floor ADDR DIR")
		os.Exit(2)
	}
	answers := map[string][2][]byte{} // each answer before and after the id
	ents, err := os.ReadDir(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(os.Args[2], e.Name()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if !bytes.HasPrefix(b, []byte(idPrefix)) {
			fmt.Fprintf(os.Stderr, "%s does not start with %s\n", e.Name(), idPrefix)
			os.Exit(1)
		}
		answers[e.Name()] = [2][]byte{b[:len(idPrefix)], b[len(idPrefix)+digits(b[len(idPrefix):]):]}
	}
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	bodies := sync.Pool{New: func() any { return new(bytes.Buffer) }}
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := bodies.Get().(*bytes.Buffer)
		defer bodies.Put(body)
		body.Reset()
		body.ReadFrom(r.Body)
		a, ok := answers[AnswerName(r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name"))]
		b := body.Bytes()
		if !ok || !bytes.HasPrefix(b, []byte(idPrefix)) {
			http.NotFound(w, r)
			return
		}
		id := b[len(idPrefix):][:digits(b[len(idPrefix):])]
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(a[0])+len(id)+len(a[1])))
		w.Write(a[0])
		w.Write(id)
		w.Write(a[1])
	}))
}

// idPrefix starts every request body and answer; the id follows it.
const idPrefix = `{"jsonrpc":"2.0","id":`

// digits is the number of ASCII digits b starts with.
func digits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

// AnswerName is the file name of the answer to a request with these headers.
func AnswerName(method, name string) string { return fileSafe.Replace(method + "__" + name) }

// fileSafe is made once: the floor does no work per request that a server need not do.
var fileSafe = strings.NewReplacer("/", "_", ":", "_")
