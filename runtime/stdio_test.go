package runtime

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestServeStdio(t *testing.T) {
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 4096
	srv := NewServer(testPool(t, Options{Size: 1}), &bytes.Buffer{})
	in := strings.Join([]string{
		initialize,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"",
		"   \r",
		`{"jsonrpc":"2.0","id":"long","method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"skills/list"}` + "\r",
		`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`, // no final newline
	}, "\n")
	var out bytes.Buffer
	requireNoError(t, srv.ServeStdio(context.Background(), strings.NewReader(in), &out))
	lines := strings.Split(out.String(), "\n")
	requireEqual(t, 5, len(lines), out.String())
	requireEqual(t, "", lines[4], "every reply ends with a newline")
	requireInitialized(t, []byte(lines[0]))
	requireEqual(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message longer than 4096 bytes"}}`, lines[1])
	for i, id := range []int64{2, 3} {
		l := lines[2+i]
		if !gjson.Valid(l) || gjson.Get(l, "id").Int() != id || !gjson.Get(l, "result").Exists() {
			t.Fatalf("reply %d: %s", id, l)
		}
	}
}

func TestServeStdioLongLines(t *testing.T) {
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 200 << 10 // beyond the 64 KiB read buffer
	srv := NewServer(testPool(t, Options{Size: 1}), &bytes.Buffer{})
	long := `{"jsonrpc":"2.0","id":7,"method":"skills/list","params":{"pad":"` + strings.Repeat("y", 150<<10) + `"}}`
	var out bytes.Buffer
	requireNoError(t, srv.ServeStdio(context.Background(), strings.NewReader(long+"\n"+long+strings.Repeat(" ", 100<<10)+"\n"), &out))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	requireEqual(t, 2, len(lines))
	requireEqual(t, int64(7), gjson.Get(lines[0], "id").Int())
	requireContains(t, lines[1], `"code":-32600`)
}

func TestStdioFailure(t *testing.T) {
	err := instanceError(errors.New("wasm error: unreachable\nwasm stack trace: ..."))
	for _, tc := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"x"}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error: the server instance failed"}}`},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"x"}`, `{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32603,"message":"Internal error: the server instance failed"}}`},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, ``},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server instance failed"}}`},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server instance failed"}}`},
	} {
		requireEqual(t, tc.want, string(stdioFailure([]byte(tc.msg), err)), tc.msg)
	}
}

// FuzzReadLine: stdio input is anything a client writes; readLine splits it into the
// lines between newlines, each whole or, when longer than MaxLine, reported as too long
// and skipped, whatever the reader's buffer size.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"a\nbb\n", "", "\n\n", "toolongline\nok", "x", "\r\n{}\n"} {
		f.Add([]byte(s), uint8(4), uint8(16))
	}
	f.Fuzz(func(t *testing.T, input []byte, max, size uint8) {
		defer func(m int) { maxLine = m }(maxLine)
		maxLine = int(max%32) + 1
		br := bufio.NewReaderSize(bytes.NewReader(input), int(size%64)+16)
		var long []byte
		var got []string
		for {
			line, tooLong, err := readLine(br, &long)
			if tooLong {
				got = append(got, "<too long>")
			} else {
				got = append(got, string(line))
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		var want []string
		for _, l := range bytes.Split(input, []byte("\n")) {
			if len(l) > maxLine {
				want = append(want, "<too long>")
			} else {
				want = append(want, string(l))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q, max %d: %q, want %q", input, maxLine, got, want)
		}
	})
}
