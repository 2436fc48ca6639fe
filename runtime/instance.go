package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

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
)

// instance is one module instance with a pack loaded. It serves one call at a time.
type instance struct {
	mod                               api.Module
	mem                               api.Memory
	alloc, load, configure, http, rpc api.Function
	lastErr                           api.Function
	stack                             [2]uint64
	host                              *hostState
}

// newInstance instantiates the plugin, applies the options JSON config and loads pack.
func (p *Plugin) newInstance(ctx context.Context, pack, config []byte, logMu *sync.Mutex) (*instance, error) {
	in, err := p.bareInstance(ctx, logMu)
	if err != nil {
		return nil, err
	}
	if err := in.callStatus(ctx, in.configure, config); err != nil {
		in.close()
		return nil, fmt.Errorf("runtime: configuring the plugin: %w", err)
	}
	if err := in.callStatus(ctx, in.load, pack); err != nil {
		in.close()
		return nil, fmt.Errorf("runtime: loading the pack into the plugin: %w", err)
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
		host:      newHostState(p.cfg.Stderr, logMu),
	}
	if in.mem == nil {
		in.close()
		return nil, fmt.Errorf("%w: plugin.wasm exports no memory", ErrInstance)
	}
	return in, nil
}

func (in *instance) close() { _ = in.mod.Close(context.Background()) }

// write copies b into a buffer from skilledge_alloc and returns its address.
func (in *instance) write(ctx context.Context, b []byte) (uint32, error) {
	in.stack[0] = uint64(len(b))
	if err := in.alloc.CallWithStack(ctx, in.stack[:]); err != nil {
		return 0, instanceError(err)
	}
	ptr := uint32(in.stack[0])
	if !in.mem.Write(ptr, b) {
		return 0, fmt.Errorf("%w: %s returned a buffer outside memory", ErrInstance, rawAlloc)
	}
	return ptr, nil
}

// callStatus passes b to fn (skilledge_load or skilledge_configure). A non-nil error
// wraps ErrInstance if the instance broke; otherwise it is the plugin's message.
func (in *instance) callStatus(ctx context.Context, fn api.Function, b []byte) error {
	ptr, err := in.write(ctx, b)
	if err != nil {
		return err
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
	out, ok := in.mem.Read(uint32(in.stack[0]>>32), uint32(in.stack[0]))
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
	msg, ok := in.mem.Read(uint32(in.stack[0]>>32), uint32(in.stack[0]))
	if !ok {
		return fmt.Errorf("%w: error message outside memory", ErrInstance)
	}
	if len(msg) == 0 {
		return errors.New("skilledge: plugin reported an error without a message")
	}
	return errors.New(string(msg))
}

// callExtism calls an export of the Extism ABI (load, configure, http, rpc) with input
// and returns its output. Errors are as for callStatus.
func (in *instance) callExtism(ctx context.Context, name string, input []byte) ([]byte, error) {
	fn := in.mod.ExportedFunction(name)
	if fn == nil {
		return nil, fmt.Errorf("runtime: plugin.wasm does not export %s", name)
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
		return nil, fmt.Errorf("skilledge: %s failed without an error message", name)
	}
	return in.host.output, nil
}

// instanceError wraps an error from a call into the module, which is now unusable. The
// result wraps both ErrInstance and err, and its message is one line.
func instanceError(err error) error {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // drop wazero's wasm stack trace
	}
	var exit *sys.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
		msg = "request timed out"
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeContextCanceled:
		msg = "request canceled"
	case errors.As(err, &exit):
		msg = fmt.Sprintf("plugin exited with code %d", exit.ExitCode())
	case msg == "wasm error: unreachable":
		// How the Go runtime aborts: a panic or a fatal error such as running out of
		// memory, whose message it has written to stderr.
		msg = "plugin crashed (a Go panic or fatal error, reported on stderr)"
	}
	return &instanceFailure{msg: ErrInstance.Error() + ": " + msg, err: err}
}

type instanceFailure struct {
	msg string
	err error
}

func (e *instanceFailure) Error() string   { return e.msg }
func (e *instanceFailure) Unwrap() []error { return []error{ErrInstance, e.err} }

// reason is the short cause of a failed request, for the client.
func reason(err error) string {
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded {
		return "request timed out"
	}
	if errors.Is(err, ErrInstance) {
		return "the server instance failed"
	}
	if errors.Is(err, wire.ErrObject) {
		return "the server's content store is incomplete or damaged"
	}
	return "the server could not handle the request"
}
