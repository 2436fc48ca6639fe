package jsonrpc

// MaxDepth is the deepest nesting of arrays and objects a message may have. gjson
// validates by recursion, and inside the wasm plugin a million nested brackets overflow
// the stack after seconds of work; no MCP message comes near this depth.
const MaxDepth = 128

// TooDeep reports whether b nests arrays and objects deeper than max. It is a single
// pass that skips strings (escapes included) and looks at nothing else, so it is cheap to
// run before full validation; on invalid JSON its answer is only about bracket depth.
func TooDeep(b []byte, max int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > max {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}
