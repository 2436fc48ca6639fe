package front

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/wasm"
)

func TestServeStdio(t *testing.T) {
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 4096
	srv := NewServer(testPool(t, wasm.Options{Size: 1}), &bytes.Buffer{}, Options{})
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
	require.NoError(t, srv.ServeStdio(context.Background(), strings.NewReader(in), &out))
	lines := strings.Split(out.String(), "\n")
	require.Equal(t, 5, len(lines), out.String())
	require.Equal(t, "", lines[4], "every reply ends with a newline")
	requireInitialized(t, []byte(lines[0]))
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message longer than 4096 bytes"}}`, lines[1])
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
	srv := NewServer(testPool(t, wasm.Options{Size: 1}), &bytes.Buffer{}, Options{})
	long := `{"jsonrpc":"2.0","id":7,"method":"skills/list","params":{"pad":"` + strings.Repeat("y", 150<<10) + `"}}`
	var out bytes.Buffer
	require.NoError(t, srv.ServeStdio(context.Background(), strings.NewReader(long+"\n"+long+strings.Repeat(" ", 100<<10)+"\n"), &out))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Equal(t, 2, len(lines))
	require.Equal(t, int64(7), gjson.Get(lines[0], "id").Int())
	require.Contains(t, lines[1], `"code":-32600`)
}

func TestStdioFailure(t *testing.T) {
	err := fmt.Errorf("%w: plugin crashed", wasm.ErrInstance)
	for _, tc := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"x"}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error: the server instance failed","data":{"failure":"instance"}}}`},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"x"}`, `{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32603,"message":"Internal error: the server instance failed","data":{"failure":"instance"}}}`},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, ``},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server instance failed","data":{"failure":"instance"}}}`},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server instance failed","data":{"failure":"instance"}}}`},
	} {
		require.Equal(t, tc.want, string(stdioFailure([]byte(tc.msg), err)), tc.msg)
	}
}

// TestStdioNotify sends notifications while a stdio connection is busy answering: every
// line written is one whole message (a reply or a notification), replies stay in order,
// and nothing is sent to a connection that has not been answered yet.
func TestStdioNotify(t *testing.T) {
	srv := NewServer(testPool(t, wasm.Options{Size: 1}), &bytes.Buffer{}, Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)

	// Not answered yet: not notified (ServeStdio may not even have registered).
	require.Equal(t, 0, srv.Notify([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)))
	fmt.Fprintln(inW, initialize)
	require.Equal(t, true, lines.Scan())
	requireInitialized(t, lines.Bytes())

	// The connection stays open (its input is not closed) until every Notify has returned
	// and a notification has been read: otherwise the replies can all be out before the
	// notifying goroutine first runs, and the test would check nothing.
	const n = 200
	notified, seen := make(chan int, 1), make(chan struct{})
	go func() {
		for i := range n {
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"resources/list"}`+"\n", i)
		}
		<-notified
		select {
		case <-seen:
		case <-time.After(10 * time.Second): // the check below fails
		}
		inW.Close()
	}()
	sentc := make(chan int, 1)
	go func() {
		sent := 0
		for range 50 {
			sent += srv.Notify(wire.ListChangedNotifications(wire.Options{})...)
		}
		notified <- sent
		sentc <- sent
	}()
	next, notes := int64(0), 0
	for lines.Scan() {
		l := lines.Text()
		if !gjson.Valid(l) {
			t.Fatalf("not one whole message: %q", l)
		}
		switch m := gjson.Get(l, "method").Str; {
		case m == "notifications/skills/list_changed" || m == "notifications/resources/list_changed":
			if notes++; notes == 1 {
				close(seen)
			}
		case gjson.Get(l, "id").Int() == next && gjson.Get(l, "result").Exists():
			next++
		default:
			t.Fatalf("unexpected line %q (reply %d expected)", l, next)
		}
	}
	require.NoError(t, <-done)
	require.Equal(t, int64(n), next)
	sent := <-sentc
	// Every Notify reached the open connection. Whole pairs, at most two per Notify (a
	// queued pair finds the connection done if it comes after the last reply), and some
	// arrived.
	require.Equal(t, 50, sent)
	if notes%2 != 0 || notes > 2*sent || notes == 0 {
		t.Fatalf("%d notifications for %d Notify calls that reached the connection", notes, sent)
	}
}

// TestNotifyBackPressure: a client that stops reading blocks its connection's writes, but
// never Notify (the watcher calls it, and shutdown waits for the watcher).
func TestNotifyBackPressure(t *testing.T) {
	srv := NewServer(testPool(t, wasm.Options{Size: 1}), io.Discard, Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := writeStarts{outW, make(chan struct{}, 1)}
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), inR, out) }()
	fmt.Fprintln(inW, initialize)
	first := bufio.NewReader(outR)
	if _, err := first.ReadString('\n'); err != nil { // answered: notifications may follow
		t.Fatal(err)
	}
	<-out.started // the initialize reply's write
	// The client sends another request and stops reading: the reply's write blocks.
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)
	<-out.started // the reply is being written, and nobody reads it
	returned := make(chan int, 1)
	go func() { returned <- srv.Notify(wire.ListChangedNotifications(wire.Options{})...) }()
	select {
	case n := <-returned:
		require.Equal(t, 1, n)
	case <-time.After(10 * time.Second):
		t.Fatal("Notify waited for a connection whose client does not read")
	}
	// Once the client reads again, the reply comes and the notifications (the connection
	// stays open: a connection that has ended drops what was queued for it).
	var got []string
	for range 3 {
		line, err := first.ReadString('\n')
		require.NoError(t, err)
		got = append(got, gjson.Get(line, "method").Str+gjson.Get(line, "id").Raw)
	}
	inW.Close()
	require.Equal(t, "2 notifications/skills/list_changed notifications/resources/list_changed", strings.Join(got, " "))
	// The connection ends with its input, before the test does: a connection left running
	// would race with later tests (FuzzReadLine once changed maxLine under it).
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after its input ended")
	}
}

// writeStarts tells on started each time a Write begins, so that a test knows a write is
// under way (and, on an io.Pipe nobody reads, blocked) without guessing from a sleep.
type writeStarts struct {
	io.Writer
	started chan struct{}
}

func (w writeStarts) Write(p []byte) (int, error) {
	w.started <- struct{}{}
	return w.Writer.Write(p)
}

// FuzzReadLine: stdio input is anything a client writes; readLine splits it into the
// lines between newlines, each whole or, when longer than MaxLine, reported as too long
// and skipped, whatever the reader's buffer size.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"a\nbb\n", "", "\n\n", "toolongline\nok", "x", "\r\n{}\n"} {
		f.Add([]byte(s), uint8(4), uint8(16))
	}
	f.Fuzz(func(t *testing.T, input []byte, max, size uint8) {
		maxLine := int(max%32) + 1
		br := bufio.NewReaderSize(bytes.NewReader(input), int(size%64)+16)
		var long []byte
		var got []string
		for {
			line, tooLong, err := readLine(br, &long, maxLine)
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
