package wire

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"time"
)

// Replays: a host may give an answer again without asking the plugin.
//
// An answer to a JSON-RPC request depends on the request frame alone (the server keeps no
// state between requests), and on the request's id only where the answer echoes it. So
// the plugin says, of some answers, how a request that differs only in its id may be
// answered from them (Replay, in the plugin's terms; Hint, in the frames' terms), and a
// host that keeps such answers (runtime's HTTP front, the JavaScript host) answers a
// repeat without a call into the plugin.
//
// The promise, for an answer with Hint h (h.IDLen > 0) to request frame F: a request frame
// G that equals F except that the id token (h.IDLen bytes at h.IDAt of F) is replaced by
// a token t with ReplayableID(t) == ReplayableID of the original, and with
// len(G) <= h.MaxFrame, gets the same response frame except that t stands at h.AnswerAt
// in place of the original token, so that every reference after it moves by
// len(t) - h.IDLen. Hosts that replay must therefore frame the same request as the same
// bytes every time (AppendRequestHead does).
//
// Only answers to one JSON-RPC request with a result carry a hint: errors, batches,
// notifications and every other route do not, so that nothing an error quotes from the
// request is ever replayed. A host keeps at most ReplayEntryMax bytes for one answer,
// ReplayShapesMax framings and ReplayBudget bytes in all (limits.go).
//
// A promise may expire (h.Expires, unix seconds; 0 for none): a host keeps nothing when,
// by its clock, the expiry has come already, and never answers from an entry at or after
// it (it drops the entry). The server gives an expiry to an answer to a caller the auth
// option let in: the answer depends on the caller, whose credential is in F verbatim (the
// Authorization and access fields are among those framed), so a repeat is answered only
// for the same credential, never for another caller; and the expiry is the credential's
// (a token's exp, whole seconds down), so the answer is never given after the credential
// that earned it stops holding, and earlier by as long as the answer says it may be kept
// (its ttlMs), so that a caller given it at the last moment keeps it no longer than the
// credential holds either; and never more than a minute after the answer (a static key's
// too), so that the plugin checks the credential again at least that often.

// Replay is the promise as the server states it for one answer (edge.Server.AppendHTTP):
// IDAt and IDLen place the id token in the request body, AnswerAt places the echoed id in
// the response frame (from its first byte), and MaxBody is the longest request body for
// which the promise holds (Options.MaxBody: a longer one is refused with 413). Expires is
// when the promise stops holding, in unix seconds (0: never). The zero Replay promises
// nothing.
type Replay struct {
	IDAt, IDLen, AnswerAt, MaxBody int
	Expires                        int64
}

// Hint is the promise in the frames' terms, as the raw ABI's skilledge_replay gives it:
// IDAt and IDLen place the id token in the request frame, AnswerAt places its echo in the
// response frame, MaxFrame is the longest request frame the promise holds for, and
// Expires is when it stops holding, in unix seconds (0: never).
type Hint struct {
	IDAt, IDLen, AnswerAt, MaxFrame int
	Expires                         int64
}

// HintSize is the length of an encoded Hint without an expiry: four u32, little-endian;
// HintSizeExpiring that of one with an expiry, a fifth u32 after them.
const (
	HintSize         = 16
	HintSizeExpiring = 20
)

// Hint returns r for a request frame whose body starts at head: the one conversion from
// the server's terms to the frames'. The zero Replay gives the zero Hint.
func (r Replay) Hint(head int) Hint {
	if r.IDLen <= 0 {
		return Hint{}
	}
	return Hint{IDAt: r.IDAt + head, IDLen: r.IDLen, AnswerAt: r.AnswerAt, MaxFrame: r.MaxBody + head, Expires: r.Expires}
}

// AppendHint appends h as skilledge_replay gives it: nothing for the zero Hint (no
// promise), else IDAt, IDLen, AnswerAt and MaxFrame as u32 little-endian (MaxFrame capped
// at the largest u32), HintSize bytes, and for a hint with an expiry (Expires > 0) Expires
// as a fifth u32 (capped at the largest u32, which is earlier), HintSizeExpiring bytes.
func AppendHint(dst []byte, h Hint) []byte {
	if h.IDLen <= 0 {
		return dst
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.IDAt))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.IDLen))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.AnswerAt))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(min(h.MaxFrame, math.MaxUint32)))
	if h.Expires > 0 {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(min(h.Expires, math.MaxUint32)))
	}
	return dst
}

// ParseHint decodes what skilledge_replay gave: the zero Hint and true for no bytes (no
// promise), false for bytes that are neither HintSize nor HintSizeExpiring long.
func ParseHint(b []byte) (Hint, bool) {
	if len(b) == 0 {
		return Hint{}, true
	}
	if len(b) != HintSize && len(b) != HintSizeExpiring {
		return Hint{}, false
	}
	u := func(i int) int { return int(binary.LittleEndian.Uint32(b[4*i:])) }
	h := Hint{IDAt: u(0), IDLen: u(1), AnswerAt: u(2), MaxFrame: u(3)}
	if len(b) == HintSizeExpiring {
		h.Expires = int64(binary.LittleEndian.Uint32(b[16:]))
	}
	return h, true
}

// Kinds of replayable ids (ReplayableID).
const (
	IDNumber = 'n'
	IDString = 's'
)

// maxReplayID is the longest id token an answer may be replayed for.
const maxReplayID = 64

// ReplayableID reports the kind of the id token t when an answer may be replayed for it:
// IDNumber for an integer of at most 15 digits without sign of zero or leading zeros
// (0, 7, -42), IDString for a string of at most 62 printable ASCII characters without
// '"' or '\' (no escapes), and 0 for any other token. Every such token is a valid
// JSON-RPC id that parses alone, so one may stand for another.
func ReplayableID(t []byte) byte {
	switch {
	case len(t) == 0 || len(t) > maxReplayID:
		return 0
	case t[0] == '"':
		if len(t) < 2 || t[len(t)-1] != '"' {
			return 0
		}
		for _, c := range t[1 : len(t)-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return 0
			}
		}
		return IDString
	}
	digits := t
	if t[0] == '-' {
		digits = t[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || digits[0] == '0' && (len(digits) > 1 || len(t) > 1) {
		return 0
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0
		}
	}
	return IDNumber
}

// ReplayEntry is an answer a host keeps to replay: the request frame around the id token
// (Head and Tail), and the answer around its echo. Its fields never change once made.
type ReplayEntry struct {
	Head, Tail    []byte // the request frame before and after the id token
	Kind          byte   // ReplayableID of the token
	MaxFrame      int
	Expires       int64 // unix seconds from which it answers nothing (0: never)
	Status        int
	Header        Header // the response's fields
	Before, After []byte // the response body before and after the echoed id
	Refs          []Ref  // At counted from the start of After
	// Facts are the answer's facts (skilledge_facts), which a host that records answers
	// keeps with the entry and counts every replay with (the facts never depend on the
	// id). NewReplayEntry leaves them to the host; Size does not count them.
	Facts Facts
}

// NewReplayEntry makes the entry for the answer resp, parsed from the response frame
// out, to the request frame frame, as h says, at now by the host's clock; false when h
// promises nothing, has expired by now, or is not what the plugin may promise for these
// frames (the id lies in the body, and the answer echoes it where h says) (the host then
// answers, but keeps nothing). The entry copies what it keeps; Header aliases resp's,
// which the caller replaces with its own copy when out is reused.
func NewReplayEntry(frame []byte, h Hint, out []byte, resp *Response, now time.Time) (ReplayEntry, bool) {
	bodyAt := len(out) - len(resp.Body) // the body ends the frame
	at := h.AnswerAt - bodyAt
	end := h.IDAt + h.IDLen
	head := bytes.Index(frame, []byte("\n\n")) + 2 // where the request's body starts
	if h.IDLen <= 0 || expired(h.Expires, now) || head < 2 || h.IDAt < head || end > len(frame) || len(frame) > h.MaxFrame ||
		at < 0 || at+h.IDLen > len(resp.Body) || !bytes.Equal(frame[h.IDAt:end], resp.Body[at:at+h.IDLen]) {
		return ReplayEntry{}, false
	}
	kind := ReplayableID(frame[h.IDAt:end])
	if kind == 0 {
		return ReplayEntry{}, false
	}
	e := ReplayEntry{
		Head: bytes.Clone(frame[:h.IDAt]), Tail: bytes.Clone(frame[end:]),
		Kind: kind, MaxFrame: h.MaxFrame, Expires: h.Expires, Status: resp.Status, Header: resp.Header,
		Before: bytes.Clone(resp.Body[:at]), After: bytes.Clone(resp.Body[at+h.IDLen:]),
	}
	for _, r := range resp.Refs {
		if r.At < at+h.IDLen {
			return ReplayEntry{}, false // the echo would move a reference before it
		}
		r.At -= at + h.IDLen
		r.Name, r.Pack = strings.Clone(r.Name), strings.Clone(r.Pack) // they alias out
		e.Refs = append(e.Refs, r)
	}
	return e, true
}

// Size is what e holds, in bytes, as a host counts it against ReplayEntryMax and
// ReplayBudget: its bytes, its fields, and 64 a reference.
func (e *ReplayEntry) Size() int {
	n := len(e.Head) + len(e.Tail) + len(e.Before) + len(e.After) + 64*len(e.Refs)
	for _, f := range e.Header {
		n += len(f.Name) + len(f.Value)
	}
	return n
}

// Expired reports whether e answers nothing any more at now, by the host's clock: it has
// an expiry, and now is at or after it. A host drops such an entry.
func (e *ReplayEntry) Expired(now time.Time) bool { return expired(e.Expires, now) }

func expired(expires int64, now time.Time) bool {
	return expires > 0 && !now.Before(time.Unix(expires, 0))
}

// Match returns the id token of frame when e answers it at now, by the host's clock: e
// has not expired, and frame is e's request with another id of the same kind, and no
// longer than the promise holds for.
func (e *ReplayEntry) Match(frame []byte, now time.Time) ([]byte, bool) {
	n := len(frame) - len(e.Head) - len(e.Tail)
	if n <= 0 || e.Expired(now) || len(frame) > e.MaxFrame || !bytes.HasPrefix(frame, e.Head) || !bytes.HasSuffix(frame, e.Tail) {
		return nil, false
	}
	id := frame[len(e.Head) : len(e.Head)+n]
	return id, ReplayableID(id) == e.Kind
}

// Answer appends e's body with id in place to dst and e's references, moved after it, to
// refs, and returns the response they make (its Header is e's).
func (e *ReplayEntry) Answer(dst, id []byte, refs []Ref) Response {
	dst = append(append(append(dst, e.Before...), id...), e.After...)
	shift := len(e.Before) + len(id)
	for _, r := range e.Refs {
		r.At += shift
		refs = append(refs, r)
	}
	return Response{Status: e.Status, Header: e.Header, Refs: refs, Body: dst}
}
