package main

import (
	"errors"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/serving"
	"github.com/skilledge/skilledge/runtime/store"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// The packages the CLI is built on say what failed and where, never what to do about it:
// the commands and flags that would help are the CLI's (RATIONALE, "Why library errors
// carry no advice"). advised is how the CLI prints such an error: its text, then what to
// do when the CLI knows.
func advised(err error) string {
	if a := advice(err); a != "" {
		return err.Error() + "; " + a
	}
	return err.Error()
}

// advice is what to do about err, or "".
func advice(err error) string {
	switch {
	case errors.Is(err, wasm.ErrMemoryLimit):
		// The flag's range is checked when it is parsed: a limit the pool refuses is small.
		return "raise the memory limit (--memory-limit MIB)"
	case errors.Is(err, wasm.ErrNotPlugin):
		return "is it a skilledge plugin built with -buildmode=c-shared?"
	case errors.Is(err, pluginbuild.ErrSource):
		return "pass --plugin FILE or set " + pluginbuild.Env
	case errors.Is(err, store.ErrStore):
		return "build the catalog again"
	case errors.Is(err, compile.ErrChanged):
		return "build again"
	case errors.Is(err, serving.ErrInvalid):
		return "fix them, or pass --skip-invalid to serve the valid ones"
	case errors.Is(err, serving.ErrBrokenPolicy):
		return "--skip-invalid does not skip it"
	}
	return ""
}
