package compile

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"

	"github.com/skilledge/skilledge/catalog/internal/dirfs"
	"github.com/skilledge/skilledge/catalog/internal/mediatype"
)

// Reading one file of the folder: kept in memory when small, hashed as it streams past
// when not, and never more than a skill may hold.

var errTooLarge = errors.New("file too large")

// content is what reading a file found: its bytes when kept, its size, digest and
// whether it is text.
type content struct {
	data   []byte // nil when not kept
	size   int64
	digest [32]byte
	text   bool
	links  uint64 // hard links, 0 when the file system does not say
	exec   bool   // an execute bit is set
}

// readFile reads the regular file name. It keeps the bytes when keep says so for the
// size the file has when opened; otherwise it hashes them and decides whether they are
// text as they come, holding none, so that a large file costs no memory. It fails with
// errTooLarge as soon as it has more than limit bytes (limit < 0: no limit), and with a
// *dirfs.NotRegularError when the opened file is not a regular file (whatever the listing said).
func readFile(fsys fs.FS, name string, limit int64, keep func(size int64) bool) (content, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return content{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return content{}, err
	}
	if !fi.Mode().IsRegular() {
		return content{}, &fs.PathError{Op: "open", Path: name, Err: &dirfs.NotRegularError{Mode: fi.Mode()}}
	}
	r := io.Reader(f)
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	c := content{links: dirfs.LinkCount(fi), exec: fi.Mode()&0o111 != 0}
	if !keep(fi.Size()) {
		h := sha256.New()
		var scan mediatype.TextScan
		n, err := io.CopyBuffer(io.MultiWriter(h, &scan), r, make([]byte, 256<<10))
		if err != nil {
			return content{}, err
		}
		if limit >= 0 && n > limit {
			return content{}, errTooLarge
		}
		c.size, c.text = n, scan.Text()
		h.Sum(c.digest[:0])
		return c, nil
	}
	// Room for the size the file has now and one byte more, so that reading it does not
	// grow (and copy) the buffer.
	want := fi.Size() + 1
	if limit >= 0 {
		want = min(want, limit+1)
	}
	data := make([]byte, 0, max(want, 512))
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return content{}, err
		}
	}
	if limit >= 0 && int64(len(data)) > limit {
		return content{}, errTooLarge
	}
	c.data, c.size, c.digest, c.text = data, int64(len(data)), sha256.Sum256(data), mediatype.IsText(data)
	return c, nil
}
