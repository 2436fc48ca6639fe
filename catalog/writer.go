package catalog

import (
	"encoding/binary"
	"sort"
)

// Writer assembles a pack from tables. It is used at build time only. Output is
// deterministic: tables are written in kind order and cells in row-major order, so equal
// input gives equal bytes. Identical cell contents are stored once.
type Writer struct {
	tables map[uint32]wtable
	// Private writes MagicPrivate instead of Magic: the pack holds the access tables of a
	// catalog with an access policy (access.go), which every reader must enforce.
	Private bool
}

type wtable struct {
	fields int
	rows   [][][]byte
}

// Table adds (or replaces) table kind with fields fields per row. Every row must have
// exactly that many; an empty table still records its field count, so that readers
// requiring the fields accept it.
func (w *Writer) Table(kind uint32, fields int, rows [][][]byte) {
	if w.tables == nil {
		w.tables = map[uint32]wtable{}
	}
	w.tables[kind] = wtable{fields, rows}
}

// Bytes encodes the pack.
func (w *Writer) Bytes() []byte {
	kinds := make([]uint32, 0, len(w.tables))
	for k := range w.tables {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })

	header := 12 + 16*len(kinds)
	cellsAt := make([]int, len(kinds))
	size := header
	for i, k := range kinds {
		cellsAt[i] = size
		size += 8 * w.tables[k].fields * len(w.tables[k].rows)
	}
	out := make([]byte, size)
	copy(out, Magic)
	if w.Private {
		copy(out, MagicPrivate)
	}
	le := binary.LittleEndian
	le.PutUint32(out[8:], uint32(len(kinds)))
	seen := map[string]uint32{}
	for i, k := range kinds {
		rows, fields := w.tables[k].rows, w.tables[k].fields
		h := 12 + 16*i
		le.PutUint32(out[h:], k)
		le.PutUint32(out[h+4:], uint32(len(rows)))
		le.PutUint32(out[h+8:], uint32(fields))
		le.PutUint32(out[h+12:], uint32(cellsAt[i]))
		c := cellsAt[i]
		for _, r := range rows {
			if len(r) != fields {
				panic("catalog: a row's field count differs from its table's")
			}
			for _, v := range r {
				off, ok := seen[string(v)]
				if !ok {
					off = uint32(len(out))
					out = append(out, v...)
					seen[string(v)] = off
				}
				le.PutUint32(out[c:], off)
				le.PutUint32(out[c+4:], uint32(len(v)))
				c += 8
			}
		}
	}
	return out
}

// U32s encodes a list of row numbers as a cell value.
func U32s(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
