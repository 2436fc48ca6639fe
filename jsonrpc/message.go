package jsonrpc

import "github.com/tidwall/gjson"

// Kind is the kind of a JSON-RPC message. The zero Kind means the message was
// not recognised (Parse returned an error).
type Kind uint8

// Kinds of message. See https://www.jsonrpc.org/specification#request_object
// and https://www.jsonrpc.org/specification#response_object
const (
	// KindRequest is a message with a method and an id; it expects a response.
	KindRequest Kind = iota + 1
	// KindNotification is a message with a method and no id; it gets no response.
	KindNotification
	// KindResponse is a message with an id and a result or an error, and no method.
	KindResponse
)

// String returns "request", "notification", "response" or "invalid".
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Message is one decoded JSON-RPC message. All slices alias the input given to
// [Parse]; see the package documentation.
type Message struct {
	Kind Kind
	// ID is the raw JSON of the id exactly as sent: a number (as written, so
	// 1.0, -0 and 1e3 are kept), a string (quotes and escapes included) or
	// null. It is nil for a notification. Echo it unchanged in the response.
	ID []byte
	// Method is the decoded method name of a request or notification. It
	// aliases the input when the name has no escapes and is valid UTF-8;
	// otherwise it is a new string, decoded as encoding/json would decode it.
	Method string
	// Params is the raw JSON object or array of a request or notification, or
	// nil when absent.
	Params []byte
	// Result is the raw JSON result of a successful response, or nil.
	Result []byte
	// Error is the raw JSON error object of a failed response, or nil.
	Error []byte
}

// fields holds the raw value of the first occurrence of each member Parse looks at; nil
// means the member is absent.
type fields struct {
	jsonrpc, id, method, params, result, error []byte
}

// slot returns where the value of the member whose raw (still escaped) key is key goes:
// nil for members Parse does not read, and for repeats, so that the first occurrence
// wins as with gjson.Get.
func (f *fields) slot(key []byte) *[]byte {
	name := decodeBody(key)
	var dst *[]byte
	switch name {
	case "jsonrpc":
		dst = &f.jsonrpc
	case "id":
		dst = &f.id
	case "method":
		dst = &f.method
	case "params":
		dst = &f.params
	case "result":
		dst = &f.result
	case "error":
		dst = &f.error
	default:
		return nil
	}
	if *dst != nil {
		return nil
	}
	return dst
}

// Parse decodes one JSON-RPC 2.0 message. It does not accept a batch: use
// [IsBatch] first and [SplitBatch] for arrays, then Parse each element.
//
// Parse validates b once (one pass, depth included) and then reads the top-level
// object in a single pass. When a member name repeats, the first occurrence
// wins, as with gjson.Get; member names are matched by their decoded value,
// so "\u0069d" is "id". Parse does not allocate unless a top-level member
// name or string value contains escapes (see TestParseAllocs).
//
// The message is classified as:
//   - a request: "method" is present and "id" is present (null included;
//     JSON-RPC allows a null id even though MCP forbids it);
//   - a notification: "method" is present and "id" is absent;
//   - a response: "method" is absent, exactly one of "result" and "error" is
//     present, and "id" is present.
//
// Errors:
//   - b is not valid JSON: code -32700 and a zero Message.
//   - b is valid JSON but not a JSON-RPC 2.0 message: code -32600, with the
//     reason as a JSON string in the error's Data. This covers a top level that
//     is not an object (arrays included), "jsonrpc" not the string "2.0", an
//     id that is not a number, string or null, a method that is not a string,
//     params that are not an object or array, a request carrying result or
//     error, a response without an id or with both result and error, an error
//     member that is not an object with an integer code and a string message,
//     and an object with none of method, result or error. When the id itself
//     was valid, the returned Message carries it in ID (and nothing else) so
//     the caller can echo it in the error response.
//
// A message nested deeper than MaxDepth is -32600 before it is validated.
//
// Each error is freshly allocated and owned by the caller; its Data must not
// be modified.
func Parse(b []byte) (Message, *Error) {
	var f fields
	if err := checkJSONTop(b, &f); err != nil {
		return Message{}, err
	}
	// Valid JSON has a value after any leading whitespace.
	if b[skipSpace(b)] != '{' {
		return Message{}, invalidRequest(reasonNotObject)
	}

	var m Message
	if f.id != nil {
		switch c := f.id[0]; {
		case c == '"', c == '-', '0' <= c && c <= '9', c == 'n': // string, number, null
			m.ID = f.id
		default:
			return Message{}, invalidRequest(reasonID)
		}
	}
	if v, ok := Str(f.jsonrpc); !ok || v != "2.0" {
		return Message{ID: m.ID}, invalidRequest(reasonVersion)
	}

	if f.method != nil {
		switch {
		case f.method[0] != '"':
			return Message{ID: m.ID}, invalidRequest(reasonMethod)
		case f.result != nil || f.error != nil:
			return Message{ID: m.ID}, invalidRequest(reasonRequestResult)
		case f.params != nil && f.params[0] != '{' && f.params[0] != '[':
			return Message{ID: m.ID}, invalidRequest(reasonParams)
		}
		m.Kind = KindNotification
		if f.id != nil {
			m.Kind = KindRequest
		}
		m.Method = decodeBody(f.method[1 : len(f.method)-1])
		m.Params = f.params
		return m, nil
	}

	if f.result == nil && f.error == nil {
		return Message{ID: m.ID}, invalidRequest(reasonNoMethod)
	}
	switch {
	case f.id == nil:
		return Message{}, invalidRequest(reasonResponseID)
	case f.result != nil && f.error != nil:
		return Message{ID: m.ID}, invalidRequest(reasonResultAndError)
	case f.error != nil && !isErrorObject(f.error):
		return Message{ID: m.ID}, invalidRequest(reasonErrorObject)
	}
	m.Kind = KindResponse
	m.Result, m.Error = f.result, f.error
	return m, nil
}

// isErrorObject reports whether raw is an object with an integer "code" and a
// string "message". See https://www.jsonrpc.org/specification#error_object
func isErrorObject(raw []byte) bool {
	if raw[0] != '{' {
		return false
	}
	code := gjson.Get(aliasString(raw), "code")
	if code.Type != gjson.Number || !isInteger(code.Raw) {
		return false
	}
	return gjson.Get(aliasString(raw), "message").Type == gjson.String
}

// isInteger reports whether the valid JSON number raw has neither a fraction
// nor an exponent.
func isInteger(raw string) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '.', 'e', 'E':
			return false
		}
	}
	return true
}

// rawOf returns the bytes of v, a value found by walking aliasString(b) from
// its start, as a sub-slice of b whose capacity ends with the value.
func rawOf(b []byte, v gjson.Result) []byte {
	end := v.Index + len(v.Raw)
	return b[v.Index:end:end]
}

// skipSpace returns the index of the first byte of b that is not JSON
// whitespace, or len(b).
func skipSpace(b []byte) int { return skipSpaceFrom(b, 0) }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
