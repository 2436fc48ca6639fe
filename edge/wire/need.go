package wire

import (
	"bytes"
	"strconv"

	"github.com/skilledge/skilledge/catalog"
)

// Need is how the plugin says it cannot answer yet: its index is sharded (catalog's
// shards.go) and the request reads shards it does not hold. Instead of an answer,
// skilledge_http and skilledge_rpc then output
//
//	NEED LF 1*(SIZE SP NAME LF)
//
// naming store objects (as REF lines do, without the offset). The host reads each from its
// store, checks that its bytes hash to NAME (a SHA-256: it never gives bytes that do not),
// and gives it with skilledge_give, whose input is
//
//	NAME LF BYTES
//
// (AppendGive), which the plugin keeps while its budget allows; then it calls the same
// export again with the same input: the plugin answers, or needs more (a lookup's chunk
// first, then the shard it names). A host gives up after MaxNeedRounds rounds, or when an
// object cannot be read, does not match its name, or is refused, and answers as for a
// failed instance (500, -32603), which it may make again. A NEED output is never replayed,
// and has no facts: the host asks for them after the answer.
//
// Why does the plugin ask for shards, rather than read them through a host function? A
// wasm call is synchronous, and the JavaScript hosts read their store with fetch, which
// returns a promise a host function cannot wait for (workerd has no JavaScript Promise
// Integration); an Extism host must need no function of ours. So the plugin says what it
// lacks, the host fetches it as it fetches key sets, and asks again. A request read again
// costs its lookups once more (microseconds); the fetches are the cost of a cold shard on
// any design.
//
// Why does each host check a shard against its name, and not the plugin? See
// catalog.Pack.Give: in the plugin, as WebAssembly, the check was most of what a
// cache-cold read of a large catalog cost.
const NeedLine = "NEED"

// ShardBudget is how many bytes of shards a plugin instance keeps: past it, the least
// recently read go (and are asked for again when read). A host sizes an instance's memory
// for the root and this much.
//
// Why 16 MiB of shards an instance? A Worker's isolate has 128 MiB, which the plugin shares
// with the host and the objects it keeps; 16 MiB is 64 shards of 256 KiB, a few thousand
// skills. The first budget, 8 MiB, was less than the 9.9 MiB of shards of the cache-cold
// benchmark's catalog (1,000 skills of ten files): reads spread over it evicted and fetched
// shards again all the time, and fell to 0.28× the plain Worker (0.09× the floor in serve)
// from 0.61× whole. A catalog read all over, with more shards than this, still does.
const ShardBudget = 16 << 20

// MaxNeedRounds bounds the rounds of giving a host goes through for one request (so it
// calls the export at most MaxNeedRounds+1 times): the longest chain of reads a request
// makes is a key chunk, then the shards of the skills it names.
const MaxNeedRounds = 8

// AppendNeed appends the NEED output naming refs.
func AppendNeed(dst []byte, refs []catalog.Ref) []byte {
	dst = append(dst, NeedLine+"\n"...)
	for _, r := range refs {
		dst = strconv.AppendInt(dst, r.Size, 10)
		dst = append(dst, ' ')
		dst = append(dst, r.Name...)
		dst = append(dst, '\n')
	}
	return dst
}

// ParseNeed reports whether out is a NEED output, and the objects it names. A NEED output
// whose lines do not parse, or that names nothing, is malformed: ok is true and err is
// ErrFrame.
func ParseNeed(out []byte) (refs []catalog.Ref, ok bool, err error) {
	rest, found := bytes.CutPrefix(out, []byte(NeedLine+"\n"))
	if !found {
		return nil, false, nil
	}
	for len(rest) > 0 {
		line, more, ok := bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return nil, true, ErrFrame
		}
		r, err := catalog.ParseRef(line)
		if err != nil {
			return nil, true, ErrFrame
		}
		refs, rest = append(refs, r), more
	}
	if len(refs) == 0 {
		return nil, true, ErrFrame
	}
	return refs, true, nil
}

// AppendGive appends the input of skilledge_give that gives the object name, whose bytes
// are b (and which the host has checked hash to name).
func AppendGive(dst []byte, name string, b []byte) []byte {
	dst = append(dst, name...)
	dst = append(dst, '\n')
	return append(dst, b...)
}

// ParseGive splits the input of skilledge_give into the object's name and its bytes (an
// alias of in); ok is false when in does not start with a name and LF.
func ParseGive(in []byte) (name string, b []byte, ok bool) {
	if len(in) < 65 || in[64] != '\n' || !catalog.IsObjectName(string(in[:64])) {
		return "", nil, false
	}
	return string(in[:64]), in[65:], true
}
