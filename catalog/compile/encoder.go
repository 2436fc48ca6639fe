package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/archive"
)

// encoder is an encoding under way: the store its objects go to, and the first error
// (reading a file again, writing an object), after which it adds nothing. Its methods are
// in two files: here, those that put objects in the store (a file, its resources/read
// form, a document, an archive, a generated resource's row); in encode.go, those that lay
// out the index (index, views, feed), which call these and are called by none of them.
//
// Why not the methods in the files of the surfaces they make, as the archives' were in
// surfaces.go? Then each such file calls the store's methods here and is called from the
// index, so the files call each other round; the surfaces' files hold only what renders
// bytes, and the encoder alone writes the store.
type encoder struct {
	st  *Store
	err error
	// archived holds each skill's archives once made: a private catalog's views encode a
	// skill again, and its archives are the same bytes.
	archived map[*Skill][]*blob
	// older is set while the index of the older versions is encoded, which has no search
	// table: a search finds the latest skills only.
	older bool
	// shard is set while a shard of a sharded index is encoded (shards.go): its skills'
	// rows only, without what the root holds (the documents, skill://index.json, the page,
	// the search table).
	shard bool
	// page is, while a sharded index is encoded, the reference field of the catalog page's
	// skills, which every shard's site names too (a reference field is never empty).
	page []byte
	// maxPart is the largest part of a document (addLarge).
	maxPart int
	// shardBytes is, when the index is sharded, about how large its shards are: the
	// indexes nested in it (views, older versions) are sharded roots too (sub).
	shardBytes int
	// depth is how deep in nested indexes the encoding is: 0 for the catalog's own.
	depth int
	// entries are, while a shard is encoded, its skills' well-known entries, which its
	// search table holds (the root's has the terms).
	entries [][]byte
	// sign signs each index's root, if not nil; view names the view whose index is under
	// way ("" for the catalog's own), unsigned is set while one that has no root is (a
	// view's unlisted skills), and roots records what was signed (root.go).
	sign     *Signer
	view     string
	unsigned bool
	roots    []RootInfo
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
	return en.placed(ref)
}

// addPart puts data, a part of a sharded index (a shard, a chunk), in the store: never
// packed, as a host reads it whole by name.
func (en *encoder) addPart(data []byte, what string) catalog.Ref {
	if en.err != nil {
		return catalog.Ref{}
	}
	ref, err := en.st.add(data, what)
	en.err = err
	en.st.whole[ref.Name] = true
	return ref
}

// placed is ref laid out in a pack, when the store packs (packs.go).
func (en *encoder) placed(ref catalog.Ref) catalog.Ref {
	if en.err != nil || en.st.packMax == 0 {
		return ref
	}
	return en.st.place(ref)
}

// packTable adds TablePacks to w, the index under way, once every object it names is in
// the store: the packs are written now. Without packing it adds nothing.
func (en *encoder) packTable(w *catalog.Writer) {
	if en.err != nil || en.st.packMax == 0 {
		return
	}
	rows, err := en.st.closePacks()
	if err != nil {
		en.fail(err)
		return
	}
	w.Table(catalog.TablePacks, catalog.PackFields, rows)
}

// stream puts in the store the bytes write writes (see Store.addStream).
func (en *encoder) stream(what string, write func(w io.Writer) error) catalog.Ref {
	if en.err != nil {
		return catalog.Ref{}
	}
	ref, err := en.st.addStream(what, write)
	en.err = err
	return en.placed(ref)
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

// doc puts the document data in the store as a blob, in parts when it is larger than
// catalog.MaxPart (addLarge).
func (en *encoder) doc(uri, mime string, data []byte) *blob {
	cell := en.addLarge(data, uri)
	sum := sha256.Sum256(data)
	return &blob{uri: uri, mime: mime, ref: catalog.Ref{Name: hex.EncodeToString(sum[:]), Size: int64(len(data))}, cell: cell, digest: "sha256:" + hex.EncodeToString(sum[:]), data: data}
}

// addLarge puts data in the store and returns the reference field naming it: one object,
// or, past catalog.MaxPart, parts of at most that size, each an object, which a host
// splices one after another. A catalog of 50,000 skills has documents of 50 MiB (its
// skill://index.json, its page), and a Workers static asset may be 25 MiB.
func (en *encoder) addLarge(data []byte, what string) []byte {
	if len(data) <= en.maxPart {
		return en.add(data, what).Cell()
	}
	var cell []byte
	for k := 0; len(data) > 0; k++ {
		n := min(len(data), en.maxPart)
		if k > 0 {
			cell = append(cell, '\n')
		}
		cell = append(cell, en.add(data[:n], fmt.Sprintf("%s (part %d)", what, k+1)).Cell()...)
		data = data[n:]
	}
	return cell
}

// cellOf returns the reference field naming b.
func (b *blob) cellOf() []byte {
	if b.cell != nil {
		return b.cell
	}
	return b.ref.Cell()
}

// blobRow renders a generated artifact as an unlisted (or, for the index, listed)
// resource, its resources/read form put in the store.
func (en *encoder) blobRow(b *blob, name, description string) [][]byte {
	row := make([][]byte, catalog.ResFields)
	row[catalog.ResURI] = []byte(b.uri)
	list := append([]byte(`{"uri":`), jsonString(b.uri)...)
	list = append(list, `,"name":`...)
	list = append(list, jsonString(name)...)
	if description != "" {
		list = append(list, `,"description":`...)
		list = append(list, jsonString(description)...)
	}
	list = append(list, `,"mimeType":`...)
	list = append(list, jsonString(b.mime)...)
	list = append(list, `,"size":`...)
	list = strconv.AppendInt(list, b.ref.Size, 10)
	row[catalog.ResList] = append(list, `,"annotations":{"audience":["assistant"],"priority":0.5}}`...)
	text := strings.HasPrefix(b.mime, "application/json")
	row[catalog.ResReadHead] = readHead(b.uri, b.mime, text)
	if b.data != nil {
		row[catalog.ResReadValue] = en.addLarge(readValue(b.data, text), b.uri+readForm(text))
	} else {
		row[catalog.ResReadValue] = en.form(b.ref, text, b.uri+readForm(text)).Cell()
	}
	row[catalog.ResMIME] = []byte(b.mime)
	row[catalog.ResDigest] = []byte(b.digest)
	row[catalog.ResSize] = strconv.AppendInt(nil, b.ref.Size, 10)
	row[catalog.ResObject] = b.cellOf()
	return row
}

// archives puts the .tar.gz and .zip of s in the store and returns them, or nil when their
// URIs would collide with a file the catalog serves (a file named like a nested skill's
// archive). Each is written as its files are read: large files are read again, never held.
func (en *encoder) archives(s *Skill, served map[string]int) []*blob {
	base := catalog.Scheme + catalog.EscapePath(s.Path)
	_, tgzTaken := served[base+catalog.ArchiveTarGz]
	_, zipTaken := served[base+catalog.ArchiveZip]
	if tgzTaken || zipTaken {
		return nil
	}
	if a, ok := en.archived[s]; ok {
		return a
	}
	entries := make([]archive.Entry, len(s.Files))
	for i, f := range s.Files {
		entries[i] = archive.Entry{Name: strings.TrimPrefix(f.Path, s.Path+"/"), Data: f.Data, Exec: f.Exec}
		if f.reopen != nil {
			entries[i].Size, entries[i].Open = f.Size, f.Open
		}
	}
	var out []*blob
	for _, a := range []struct {
		ext, mime string
		write     func(io.Writer, []archive.Entry) error
	}{{catalog.ArchiveTarGz, "application/gzip", archive.WriteTarGz}, {catalog.ArchiveZip, "application/zip", archive.WriteZip}} {
		ref := en.stream(base+a.ext, func(w io.Writer) error { return a.write(w, entries) })
		out = append(out, &blob{uri: base + a.ext, mime: a.mime, ref: ref, digest: "sha256:" + ref.Name})
	}
	en.archived[s] = out
	return out
}
