package compile

import (
	"encoding/base64"
	"io"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/internal/mediatype"
)

// encoder is an encoding under way: the store its objects go to, and the first error
// (reading a file again, writing an object), after which it adds nothing.
type encoder struct {
	st  *Store
	err error
	// archived holds each skill's archives once made: a private catalog's views encode a
	// skill again, and its archives are the same bytes.
	archived map[*Skill][]*blob
}

// fail records err, the first one only.
func (en *encoder) fail(err error) {
	if en.err == nil {
		en.err = err
	}
}

// add puts data in the store (see Store.add).
func (en *encoder) add(data []byte, what string) catalog.Ref {
	if en.err != nil {
		return catalog.Ref{}
	}
	ref, err := en.st.add(data, what)
	en.err = err
	return ref
}

// stream puts in the store the bytes write writes (see Store.addStream).
func (en *encoder) stream(what string, write func(w io.Writer) error) catalog.Ref {
	if en.err != nil {
		return catalog.Ref{}
	}
	ref, err := en.st.addStream(what, write)
	en.err = err
	return ref
}

// file puts f's bytes and their resources/read form in the store and returns both
// references. A file not held in memory is read again once, its bytes copied into the
// store as they come, and its form made from the stored object: it is never held whole.
func (en *encoder) file(f *File) (raw, read catalog.Ref) {
	if f.reopen == nil {
		return en.add(f.Data, f.Path), en.add(readValue(f.Data, f.Text), f.Path+readForm(f.Text))
	}
	raw = en.stream(f.Path, func(w io.Writer) error {
		r, err := f.Open()
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.Copy(w, r)
		return err
	})
	return raw, en.form(raw, f.Text, f.Path+readForm(f.Text))
}

// form puts in the store the resources/read form of the stored object ref (readValue:
// the text as a JSON string, or base64), made as the object is read.
func (en *encoder) form(ref catalog.Ref, text bool, what string) catalog.Ref {
	if en.err != nil {
		return catalog.Ref{}
	}
	return en.stream(what, func(w io.Writer) error {
		r, err := en.st.open(ref.Name)
		if err != nil {
			return err
		}
		defer r.Close()
		if text {
			return writeJSONString(w, r, 64<<10)
		}
		return writeBase64(w, r)
	})
}

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
