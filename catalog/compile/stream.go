package compile

import (
	"encoding/base64"
	"io"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog/internal/mediatype"
)

// writeJSONString writes the UTF-8 text r reads to w as one JSON string, exactly as
// jsonString renders it whole: it reads chunk bytes at a time and renders each up to its
// last whole rune (encoding/json escapes rune by rune, so the pieces join to the whole).
func writeJSONString(w io.Writer, r io.Reader, chunk int) error {
	if _, err := w.Write([]byte{'"'}); err != nil {
		return err
	}
	buf := make([]byte, chunk+utf8.UTFMax)
	carry := 0
	for {
		n, err := io.ReadFull(r, buf[carry:carry+chunk])
		end := carry + n
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return err
		}
		cut := end
		if !eof {
			cut = mediatype.WholeRunes(buf[:end]) // leave a rune split by the chunk's end for the next piece
		}
		if cut > 0 {
			piece := jsonString(string(buf[:cut]))
			if _, err := w.Write(piece[1 : len(piece)-1]); err != nil {
				return err
			}
		}
		carry = copy(buf, buf[cut:end])
		if eof {
			_, err := w.Write([]byte{'"'})
			return err
		}
	}
}

// writeBase64 writes the bytes r reads to w in standard base64 between quotes: readValue's
// form of a blob.
func writeBase64(w io.Writer, r io.Reader) error {
	if _, err := w.Write([]byte{'"'}); err != nil {
		return err
	}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	if _, err := io.Copy(enc, r); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := w.Write([]byte{'"'})
	return err
}
