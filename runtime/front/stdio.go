package front

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// MaxLine is the longest stdio message ServeStdio accepts, newline excluded.
const MaxLine = 16 << 20

var maxLine = MaxLine // tests lower it

// stdioConn is the writing side of one stdio connection. Replies and notifications
// (Server.Notify) are written whole, one line each, under mu, so they never interleave.
type stdioConn struct {
	mu sync.Mutex
	bw *bufio.Writer
	// answered is set once a reply has been written: the client has started talking, so
	// notifications may follow. done is set when ServeStdio returns: nothing more is
	// written.
	answered, done bool
}

// writeLine writes msg (spliced with the objects refs names) and "\n", and flushes.
func (c *stdioConn) writeLine(msg []byte, refs []wire.Ref, objs [][]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	wire.WriteResolved(c.bw, msg, refs, objs)
	c.bw.WriteByte('\n')
	c.answered = true
	return c.bw.Flush()
}

// Notify writes each message, a line of its own, to every stdio connection that has been
// answered at least once (a client that has not spoken yet is still starting), between
// replies, never inside one. It never waits for a connection that is busy writing (a
// client that stops reading would hold it forever): such a connection gets the messages
// from a goroutine of its own once the reply it is writing is out. It returns how many
// connections it wrote or queued them to; a connection whose write fails is left to its
// ServeStdio, which fails on its next write.
func (s *Server) Notify(msgs ...[]byte) int {
	s.connsMu.Lock()
	conns := make([]*stdioConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.connsMu.Unlock()
	n := 0
	for _, c := range conns {
		if !c.mu.TryLock() {
			n++ // writing a reply: answered, or about to be
			go func() {
				c.mu.Lock()
				defer c.mu.Unlock()
				c.notify(msgs)
			}()
			continue
		}
		if c.notify(msgs) {
			n++
		}
		c.mu.Unlock()
	}
	return n
}

// notify writes msgs to c if it has been answered and is not done, under c.mu, and
// reports whether it did.
func (c *stdioConn) notify(msgs [][]byte) bool {
	if !c.answered || c.done {
		return false
	}
	for _, m := range msgs {
		c.bw.Write(m)
		c.bw.WriteByte('\n')
	}
	return c.bw.Flush() == nil
}

// ServeStdio serves newline-delimited JSON-RPC (the MCP stdio transport): it reads one
// message per line from r and writes each reply followed by "\n" to w, in order. It
// remembers the protocol version negotiated on this connection. Empty lines are skipped;
// a line longer than MaxLine is answered with a -32600 error and skipped; a failed
// instance is answered with -32603 echoing the request id (nothing for a notification).
// Nothing but replies, and the notifications of Notify, is written to w: logs go to the
// Server's log. It returns nil at EOF, or the first read or write error, or ctx.Err()
// (checked between messages).
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	conn := &stdioConn{bw: bufio.NewWriterSize(w, 64<<10)}
	s.connsMu.Lock()
	if s.conns == nil {
		s.conns = map[*stdioConn]struct{}{}
	}
	s.conns[conn] = struct{}{}
	s.connsMu.Unlock()
	defer func() {
		s.connsMu.Lock()
		delete(s.conns, conn)
		s.connsMu.Unlock()
		conn.mu.Lock()
		conn.done = true
		conn.mu.Unlock()
	}()
	var version string
	var long []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, tooLong, err := readLine(br, &long, maxLine)
		if err != nil && len(line) == 0 && !tooLong {
			if err == io.EOF {
				return nil
			}
			return err
		}
		var reply []byte
		var refs []wire.Ref
		var objs [][]byte
		switch msg := bytes.TrimSpace(line); {
		case tooLong:
			s.logf("skilledge: stdio: dropped a message longer than %d bytes", maxLine)
			reply = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message longer than %d bytes"}}`, maxLine)
		case len(msg) == 0:
		default:
			rerr := s.call(func(sv *served) error {
				out, err := sv.pool.RPC(ctx, version, msg)
				if err != nil {
					return err
				}
				version, reply, refs = out.Version, out.Message, out.Refs
				if objs, err = wire.Objects(refs, sv.pool.Store()); err != nil {
					return err
				}
				return nil
			})
			if rerr != nil {
				s.logf("skilledge: stdio: %v", rerr)
				reply, refs, objs = stdioFailure(msg, rerr), nil, nil
			}
		}
		if reply != nil {
			if werr := conn.writeLine(reply, refs, objs); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// readLine returns the next line without its "\n". A line longer than maxLine bytes is
// consumed and reported as tooLong. long is scratch space for lines longer than br's
// buffer. At EOF the final unterminated line is returned with io.EOF.
func readLine(br *bufio.Reader, long *[]byte, maxLine int) (line []byte, tooLong bool, err error) {
	line, err = br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > maxLine {
			return nil, true, err
		}
		return line, false, err
	}
	*long = append((*long)[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = br.ReadSlice('\n')
		if !tooLong {
			*long = append(*long, line...)
			if len(*long) > maxLine+1 {
				tooLong, *long = true, (*long)[:0]
			}
		}
	}
	if tooLong {
		return nil, true, err
	}
	b := bytes.TrimSuffix(*long, []byte("\n"))
	if len(b) > maxLine {
		return nil, true, err
	}
	return b, false, err
}

// stdioFailure is the reply to msg when it could not be answered: -32603 with msg's id
// if it has a string or number id, null if it has none or another kind, and no reply at
// all for a notification.
func stdioFailure(msg []byte, err error) []byte {
	id := gjson.GetBytes(msg, "id")
	switch {
	case id.Type == gjson.String || id.Type == gjson.Number:
		return failureOf(err).Reply([]byte(id.Raw))
	case !id.Exists() && gjson.GetBytes(msg, "method").Exists():
		return nil // a notification gets no reply, not even an error
	}
	return failureOf(err).Reply(nil)
}
