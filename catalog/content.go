package catalog

import "bytes"

// The resources/read content object of a resource (MCP TextResourceContents or
// BlobResourceContents) is the one shape the builder renders and the server takes apart.
// It is split between the index and the content store:
//
//	{"uri":URI,"mimeType":MIME,"text":VALUE}   a UTF-8 text file
//	{"uri":URI,"mimeType":MIME,"blob":VALUE}   anything else
//
//   - The head, from the opening brace up to and including the "text": or "blob": key, is
//     the field ResReadHead. catalog/compile renders it with AppendReadHead. URI is the
//     resource's canonical URI (ResURI), none of whose characters JSON escapes, so every
//     head begins with exactly the bytes ReadHeadURIKey, '"', URI, '"'.
//   - VALUE is the store object that ResReadValue names, which catalog/compile writes and
//     the host splices in: a JSON string literal holding the text, or the raw bytes in
//     standard base64.
//   - The closing brace is in neither: whoever writes the object writes it after VALUE.
//
// The server (edge) never parses a head; it reads it in two ways only. resources/read
// sends the head, VALUE and "}", and echoes the URI in the client's own spelling when that
// is not the canonical one: it writes ReadHeadURIKey and that spelling as a JSON string in
// place of what CutReadHeadURI cuts off. Where only text or only a resource fits
// (the tools and prompts fallbacks send text as a text content block and anything else as
// an embedded resource; well-known HTTP gives text a charset), IsTextHead tells the two
// apart.
// See https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources

// ReadHeadURIKey opens every ResReadHead: the brace and the key of its first member.
const ReadHeadURIKey = `{"uri":`

// The keys that end a ResReadHead.
const (
	readHeadText = `"text":`
	readHeadBlob = `"blob":`
)

// AppendReadHead appends to b the head of a resources/read content object, as ResReadHead
// holds it: uri and mime are JSON string literals, quotes included, of the resource's
// canonical URI and of its MIME type; text picks the "text" key (VALUE is the text) or the
// "blob" key (VALUE is base64). It is deterministic and checks nothing.
func AppendReadHead(b, uri, mime []byte, text bool) []byte {
	b = append(b, ReadHeadURIKey...)
	b = append(b, uri...)
	b = append(b, `,"mimeType":`...)
	b = append(b, mime...)
	b = append(b, ',')
	if text {
		return append(b, readHeadText...)
	}
	return append(b, readHeadBlob...)
}

// IsTextHead reports whether head, a ResReadHead, opens a text content object, whose VALUE
// is the text as a JSON string; otherwise it opens a blob's, whose VALUE is base64.
func IsTextHead(head []byte) bool { return bytes.HasSuffix(head, []byte(readHeadText)) }

// CutReadHeadURI returns what follows the URI member of head, a ResReadHead, when head
// opens with ReadHeadURIKey and uri as a JSON string, that is when uri is the URI the head
// was rendered for: rest then begins with `,"mimeType":`. Otherwise it returns head and
// false. It does not allocate.
func CutReadHeadURI(head []byte, uri string) (rest []byte, ok bool) {
	n := len(ReadHeadURIKey) + 1 + len(uri) + 1
	if len(head) < n ||
		string(head[:len(ReadHeadURIKey)]) != ReadHeadURIKey ||
		head[len(ReadHeadURIKey)] != '"' ||
		string(head[len(ReadHeadURIKey)+1:n-1]) != uri ||
		head[n-1] != '"' {
		return head, false
	}
	return head[n:], true
}
