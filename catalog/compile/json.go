package compile

import (
	"bytes"
	"encoding/json"
)

// jsonString renders s as a JSON string. HTML characters are left as they are; s is valid
// UTF-8 (the loader guarantees it for names, paths and text files).
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // strings always encode
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
