package wasm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/skilledge/skilledge/edge/wire"
)

// Raw ABI exports of plugin.wasm; the contract is in edge/plugin/main.go.
const (
	rawAlloc     = "skilledge_alloc"
	rawLoad      = "skilledge_load"
	rawConfigure = "skilledge_configure"
	rawHTTP      = "skilledge_http"
	rawRPC       = "skilledge_rpc"
	rawError     = "skilledge_error"
	rawFields    = "skilledge_fields"
	rawReplay    = "skilledge_replay"
	rawFacts     = "skilledge_facts"
)

// instance is one module instance with a pack loaded. It serves one call at a time.
type instance struct {
	mod                               api.Module
	mem                               api.Memory
	alloc, load, configure, http, rpc api.Function
	lastErr                           api.Function
	replay                            api.Function // nil in a plugin older than the export
	facts                             api.Function // nil in a plugin older than the export
	keys, wanted                      api.Function // nil in a plugin older than the exports
	give                              api.Function // nil in a plugin older than sharded indexes
	stack                             [2]uint64
	host                              *hostState
	// inPtr and inCap are the input buffer of the last skilledge_alloc, which stays valid
	// until the next one (or a load, which keeps it): most calls need no alloc call.
	inPtr, inCap uint32
	// keyVersions are the versions of the pool's key sets (Pool.KeyURLs) the instance
	// has, and keyFrame the room their keys inputs are framed in.
	keyVersions []uint64
	keyFrame    []byte
	// memSize is the size of the linear memory when the instance last went back to its
	// pool (Pool.Instances).
	memSize uint32

	// The deadline (deadline.go): stop is the instrumented global a timer sets when a
	// call's time is up, nil where the module could not be instrumented (wazero's own
	// context checks stop calls then). calling says a call is under way; mu orders the
	// timer's setting of stop with the end of the call.
	stop    api.MutableGlobal
	timer   *time.Timer
	mu      sync.Mutex
	calling bool
}

// bounded runs f, a call into the instance, stopping it once it has run for d: with the
// instrumented global, by trapping it at its next loop header; else through ctx, which
// wazero then checks. A call stopped so fails with an error wrapping ErrInstance and
// ErrTimeout. The caller's cancellation of ctx does not stop a call: stopping an instance
// costs a new one, and a call that is not stuck ends in microseconds.
func (in *instance) bounded(ctx context.Context, d time.Duration, f func(ctx context.Context) error) error {
	if in.stop == nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
		defer cancel()
		return f(cctx)
	}
	in.mu.Lock()
	in.calling = true
	in.mu.Unlock()
	in.timer.Reset(d)
	// The flag stops the call, never a context: the call gets one that no client's going
	// away cancels and that holds no values (wazero looks a few up on every call; a
	// request's context made that a chain of lookups, and wrapping it an allocation).
	err := f(context.Background())
	in.timer.Stop()
	in.mu.Lock()
	in.calling = false
	expired := in.stop.Get() != 0
	if expired && err == nil {
		in.stop.Set(0) // the time ran out as the call ended: the instance is fine
	}
	in.mu.Unlock()
	if expired && err != nil {
		return &instanceFailure{msg: ErrInstance.Error() + ": " + ErrTimeout.Error(), wraps: []error{ErrInstance, ErrTimeout}}
	}
	return err
}

// expire is the timer's function: it stops the call under way, if any.
func (in *instance) expire() {
	in.mu.Lock()
	if in.calling {
		in.stop.Set(1)
	}
	in.mu.Unlock()
}

// newInstance instantiates the plugin, applies the options JSON config and loads pack,
// each call bounded by d.
func (p *Plugin) newInstance(ctx context.Context, pack, config []byte, logMu *sync.Mutex, d time.Duration) (*instance, error) {
	in, err := p.bareInstance(ctx, logMu)
	if err != nil {
		return nil, err
	}
	if err := in.bounded(ctx, d, func(ctx context.Context) error { return in.callStatus(ctx, in.configure, config) }); err != nil {
		in.close()
		return nil, fmt.Errorf("wasm: configuring the plugin: %w", err)
	}
	if err := in.bounded(ctx, d, func(ctx context.Context) error { return in.callStatus(ctx, in.load, pack) }); err != nil {
		in.close()
		return nil, fmt.Errorf("wasm: loading the catalog index into the plugin: %w", err)
	}
	return in, nil
}

// bareInstance instantiates the plugin without loading anything.
func (p *Plugin) bareInstance(ctx context.Context, logMu *sync.Mutex) (*instance, error) {
	mod, err := p.instantiate(ctx)
	if err != nil {
		return nil, instanceError(err)
	}
	in := &instance{
		mod:       mod,
		mem:       mod.Memory(),
		alloc:     mod.ExportedFunction(rawAlloc),
		load:      mod.ExportedFunction(rawLoad),
		configure: mod.ExportedFunction(rawConfigure),
		http:      mod.ExportedFunction(rawHTTP),
		rpc:       mod.ExportedFunction(rawRPC),
		lastErr:   mod.ExportedFunction(rawError),
		replay:    mod.ExportedFunction(rawReplay),
		facts:     mod.ExportedFunction(rawFacts),
		keys:      mod.ExportedFunction(rawKeys),
		give:      mod.ExportedFunction(rawGive),
		wanted:    mod.ExportedFunction(rawKeysWanted),
		host:      newHostState(p.cfg.Stderr, logMu),
	}
	if in.mem == nil {
		in.close()
		return nil, fmt.Errorf("%w: plugin.wasm exports no memory", ErrInstance)
	}
	if p.instrumented {
		g, ok := mod.ExportedGlobal(deadlineGlobal).(api.MutableGlobal)
		if !ok {
			in.close()
			return nil, fmt.Errorf("%w: the instrumented plugin has no %s global", ErrInstance, deadlineGlobal)
		}
		in.stop = g
		in.timer = time.AfterFunc(time.Hour, in.expire)
		in.timer.Stop()
	}
	return in, nil
}

// fields returns the names of the request header fields the plugin reads
// (skilledge_fields), or nil when it does not say (a plugin older than that export):
// then a request frame must carry every field.
func (in *instance) fields(ctx context.Context) ([]string, error) {
	fn := in.mod.ExportedFunction(rawFields)
	if fn == nil {
		return nil, nil
	}
	if err := fn.CallWithStack(ctx, in.stack[:]); err != nil {
		return nil, instanceError(err)
	}
	b, ok := in.packed()
	if !ok || len(b) == 0 {
		return nil, fmt.Errorf("%w: %s gave no names", ErrInstance, rawFields)
	}
	return strings.Split(string(b), "\n"), nil
}

// replayHint asks the instance how its last skilledge_http answer may be replayed; the
// zero Hint when it may not, or when the plugin does not say (a plugin older than
// skilledge_replay). An error wraps ErrInstance.
func (in *instance) replayHint(ctx context.Context) (wire.Hint, error) {
	if in.replay == nil {
		return wire.Hint{}, nil
	}
	if err := in.replay.CallWithStack(ctx, in.stack[:]); err != nil {
		return wire.Hint{}, instanceError(err)
	}
	if in.stack[0] == 0 {
		return wire.Hint{}, nil
	}
	b, ok := in.packed()
	h, parsed := wire.ParseHint(b)
	if !ok || !parsed {
		return wire.Hint{}, fmt.Errorf("%w: %s gave %d bytes, not %d or %d", ErrInstance, rawReplay, len(b), wire.HintSize, wire.HintSizeExpiring)
	}
	return h, nil
}

// answerFacts asks the instance what its last skilledge_http answer was (wire.Facts), read
// through cache; the zero Facts when it says nothing (a plugin older than skilledge_facts)
// or gives facts that do not parse, which a host counts as none. An error wraps
// ErrInstance.
func (in *instance) answerFacts(ctx context.Context, cache *factsCache) (wire.Facts, error) {
	if in.facts == nil {
		return wire.Facts{}, nil
	}
	if err := in.facts.CallWithStack(ctx, in.stack[:]); err != nil {
		return wire.Facts{}, instanceError(err)
	}
	if in.stack[0] == 0 {
		return wire.Facts{}, nil
	}
	b, ok := in.packed()
	if !ok {
		return wire.Facts{}, fmt.Errorf("%w: %s gave a result outside memory", ErrInstance, rawFacts)
	}
	return cache.parse(b), nil
}

// factsCache holds facts parsed, by their encoding: answers repeat (the same skills read
// by the same callers), and a lookup by the bytes costs a hash where a parse copies the
// skill and the URI. It holds at most factsCached, emptied when full. Safe for
// concurrent use.
type factsCache struct {
	mu sync.RWMutex
	m  map[string]wire.Facts
}

const factsCached = 4096

func (c *factsCache) parse(b []byte) wire.Facts {
	c.mu.RLock()
	f, ok := c.m[string(b)]
	c.mu.RUnlock()
	if ok {
		return f
	}
	f, _ = wire.ParseFacts(b)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= factsCached {
		c.m = make(map[string]wire.Facts, 64)
	}
	c.m[string(b)] = f
	c.mu.Unlock()
	return f
}

// packed reads the packed result (ptr<<32 | len) of the last raw call from the module's
// memory; false when it lies outside it.
func (in *instance) packed() ([]byte, bool) {
	return in.mem.Read(uint32(in.stack[0]>>32), uint32(in.stack[0]))
}

func (in *instance) close() {
	if in.timer != nil {
		in.timer.Stop()
	}
	_ = in.mod.Close(context.Background())
}

// write copies b into a buffer from skilledge_alloc and returns its address.
// write copies b into the instance's input buffer, asking skilledge_alloc for a larger
// one (with room to spare, so that it is rarely asked again) when b does not fit, and
// returns its address.
func (in *instance) write(ctx context.Context, b []byte) (uint32, error) {
	if uint64(len(b)) > uint64(in.inCap) || in.inCap == 0 {
		size := max(uint64(len(b)), 2*uint64(in.inCap), 16<<10)
		if size > 1<<31 {
			size = uint64(len(b))
		}
		in.stack[0] = size
		if err := in.alloc.CallWithStack(ctx, in.stack[:]); err != nil {
			return 0, instanceError(err)
		}
		in.inPtr, in.inCap = uint32(in.stack[0]), uint32(size)
	}
	if !in.mem.Write(in.inPtr, b) {
		return 0, fmt.Errorf("%w: %s returned a buffer outside memory", ErrInstance, rawAlloc)
	}
	return in.inPtr, nil
}

// callStatus passes b to fn (skilledge_load or skilledge_configure). A non-nil error
// wraps ErrInstance if the instance broke; otherwise it is the plugin's message.
func (in *instance) callStatus(ctx context.Context, fn api.Function, b []byte) error {
	ptr, err := in.write(ctx, b)
	if err != nil {
		return err
	}
	if fn == in.load || fn == in.give {
		in.inCap = 0 // the plugin keeps that buffer as the index: the next input needs another
	}
	in.stack[0], in.stack[1] = uint64(ptr), uint64(len(b))
	if err := fn.CallWithStack(ctx, in.stack[:]); err != nil {
		return instanceError(err)
	}
	if uint32(in.stack[0]) != 0 {
		return in.pluginError(ctx)
	}
	return nil
}

// callOutput passes b to fn (skilledge_http or skilledge_rpc) and appends the output to
// dst. Errors are as for callStatus.
func (in *instance) callOutput(ctx context.Context, fn api.Function, b, dst []byte) ([]byte, error) {
	ptr, err := in.write(ctx, b)
	if err != nil {
		return dst, err
	}
	in.stack[0], in.stack[1] = uint64(ptr), uint64(len(b))
	if err := fn.CallWithStack(ctx, in.stack[:]); err != nil {
		return dst, instanceError(err)
	}
	if in.stack[0] == 0 {
		return dst, in.pluginError(ctx)
	}
	out, ok := in.packed()
	if !ok {
		return dst, fmt.Errorf("%w: output outside memory", ErrInstance)
	}
	return append(dst, out...), nil
}

// pluginError reads the message of the plugin's last error.
func (in *instance) pluginError(ctx context.Context) error {
	if err := in.lastErr.CallWithStack(ctx, in.stack[:]); err != nil {
		return instanceError(err)
	}
	msg, ok := in.packed()
	if !ok {
		return fmt.Errorf("%w: error message outside memory", ErrInstance)
	}
	if len(msg) == 0 {
		return errors.New("wasm: the plugin reported an error without a message")
	}
	return errors.New(string(msg))
}

// callExtism calls an export of the Extism ABI (load, configure, http, rpc) with input
// and returns its output. Errors are as for callStatus.
func (in *instance) callExtism(ctx context.Context, name string, input []byte) ([]byte, error) {
	fn := in.mod.ExportedFunction(name)
	if fn == nil {
		return nil, fmt.Errorf("%w: plugin.wasm does not export %s", ErrNotPlugin, name)
	}
	in.host.reset(input)
	defer in.host.reset(nil)
	in.stack[0] = 0
	if err := fn.CallWithStack(context.WithValue(ctx, hostKey{}, in.host), in.stack[:]); err != nil {
		return nil, instanceError(err)
	}
	if uint32(in.stack[0]) != 0 {
		if in.host.errSet {
			return nil, errors.New(string(in.host.err))
		}
		return nil, fmt.Errorf("wasm: %s failed without an error message", name)
	}
	return in.host.output, nil
}

// instanceError wraps an error from a call into the module, which is now unusable. The
// result wraps both ErrInstance and err (and ErrTimeout when wazero stopped the call at
// its deadline), and its message is one line.
func instanceError(err error) error {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // drop wazero's wasm stack trace
	}
	wraps := []error{ErrInstance, err}
	var exit *sys.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
		msg = ErrTimeout.Error()
		wraps = []error{ErrInstance, ErrTimeout, err}
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeContextCanceled:
		msg = "request canceled"
	case errors.As(err, &exit):
		msg = fmt.Sprintf("plugin exited with code %d", exit.ExitCode())
	case msg == "wasm error: unreachable":
		// How the Go runtime aborts: a panic or a fatal error such as running out of
		// memory, whose message it has written to stderr.
		msg = "plugin crashed (a Go panic or fatal error, reported on stderr)"
	}
	return &instanceFailure{msg: ErrInstance.Error() + ": " + msg, wraps: wraps}
}

// instanceFailure is the error of an instance that failed: ErrInstance first in wraps.
type instanceFailure struct {
	msg   string
	wraps []error
}

func (e *instanceFailure) Error() string   { return e.msg }
func (e *instanceFailure) Unwrap() []error { return e.wraps }
