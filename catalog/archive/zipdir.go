package archive

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// This file reads a zip's structure independently of archive/zip, to check what
// archive/zip does not: that the end record ends the input, that every byte belongs to
// exactly one entry or to the central directory, and that each local header agrees with
// its central directory record. InspectZip then checks that archive/zip sees the same
// entries.

// zipEntry is one central directory record.
type zipEntry struct {
	name         string
	flags        uint16
	method       uint16
	crc          uint32
	csize, usize uint64
	off          uint64 // of the local header
	dataStart    uint64 // of the compressed data, after the local header
}

// Zip record signatures and fixed lengths.
const (
	sigLocal      = 0x04034b50
	sigCentral    = 0x02014b50
	sigEnd        = 0x06054b50
	sigEnd64      = 0x06064b50
	sigEnd64Loc   = 0x07064b50
	sigDescriptor = 0x08074b50

	localLen    = 30
	centralLen  = 46
	endLen      = 22
	end64LocLen = 20
	end64MinLen = 56

	zip64ExtraID = 0x0001
	max16        = 0xffff
	max32        = 0xffffffff
)

var le = binary.LittleEndian

var errNotZip = errors.New("archive: not a zip archive: no end of central directory record")

// readZipDirectory returns b's central directory records in their order, with dataStart
// set, after checking its layout.
func readZipDirectory(b []byte, maxEntries int) ([]zipEntry, error) {
	// The end record: the last signature whose comment fits must end b.
	p := -1
	for i := len(b) - endLen; i >= 0 && i >= len(b)-endLen-max16; i-- {
		if le.Uint32(b[i:]) == sigEnd && i+endLen+int(le.Uint16(b[i+20:])) <= len(b) {
			p = i
			break
		}
	}
	if p < 0 {
		return nil, errNotZip
	}
	end := b[p:]
	if extra := len(end) - endLen - int(le.Uint16(end[20:])); extra != 0 {
		return nil, fmt.Errorf("archive: %d bytes after the end of the zip archive", extra)
	}
	if le.Uint16(end[4:]) != 0 || le.Uint16(end[6:]) != 0 || le.Uint16(end[8:]) != le.Uint16(end[10:]) {
		return nil, errors.New("archive: multi-disk zip archives are not supported")
	}
	count, cdSize, cdOff := uint64(le.Uint16(end[10:])), uint64(le.Uint32(end[12:])), uint64(le.Uint32(end[16:]))
	cdEnd := uint64(p)
	// A zip64 end record and its locator come just before the end record: when the end
	// record's values are saturated, and also, with plain values, from writers that
	// always add them.
	hasLoc := p >= end64LocLen && le.Uint32(b[p-end64LocLen:]) == sigEnd64Loc
	if count == max16 || cdSize == max32 || cdOff == max32 || hasLoc {
		if !hasLoc {
			return nil, errors.New("archive: zip64 end of central directory locator missing")
		}
		loc := b[p-end64LocLen:]
		off64 := le.Uint64(loc[8:])
		if le.Uint32(loc[4:]) != 0 || le.Uint32(loc[16:]) != 1 || off64 > uint64(p-end64LocLen) ||
			uint64(p-end64LocLen)-off64 < end64MinLen {
			return nil, errors.New("archive: bad zip64 end of central directory locator")
		}
		e64 := b[off64 : p-end64LocLen]
		if le.Uint32(e64) != sigEnd64 || le.Uint64(e64[4:]) != uint64(len(e64))-12 {
			return nil, errors.New("archive: bad zip64 end of central directory record")
		}
		if le.Uint32(e64[16:]) != 0 || le.Uint32(e64[20:]) != 0 || le.Uint64(e64[24:]) != le.Uint64(e64[32:]) {
			return nil, errors.New("archive: multi-disk zip archives are not supported")
		}
		count64, cdSize64, cdOff64 := le.Uint64(e64[32:]), le.Uint64(e64[40:]), le.Uint64(e64[48:])
		if count != max16 && count != count64 || cdSize != max32 && cdSize != cdSize64 || cdOff != max32 && cdOff != cdOff64 {
			return nil, errors.New("archive: the zip end record and zip64 end record disagree")
		}
		count, cdSize, cdOff = count64, cdSize64, cdOff64
		cdEnd = off64
	}
	if count > uint64(maxEntries) {
		return nil, fmt.Errorf("%w: the archive declares %d entries, more than %d", ErrUnsafe, count, maxEntries)
	}
	if cdOff > cdEnd || cdEnd-cdOff != cdSize {
		return nil, errors.New("archive: the zip central directory does not end where the end record is")
	}
	if count > cdSize/centralLen {
		return nil, fmt.Errorf("archive: the zip end record declares %d entries, more than its central directory can hold", count)
	}

	// The central directory: count records that exactly fill it.
	dir := make([]zipEntry, 0, count)
	pos := cdOff
	for range count {
		if cdEnd-pos < centralLen || le.Uint32(b[pos:]) != sigCentral {
			return nil, errors.New("archive: the zip central directory is shorter than declared")
		}
		h := b[pos:cdEnd]
		n, m, k := uint64(le.Uint16(h[28:])), uint64(le.Uint16(h[30:])), uint64(le.Uint16(h[32:]))
		if uint64(len(h)) < centralLen+n+m+k {
			return nil, errors.New("archive: the zip central directory is shorter than declared")
		}
		e := zipEntry{
			name:   string(h[centralLen : centralLen+n]),
			flags:  le.Uint16(h[8:]),
			method: le.Uint16(h[10:]),
			crc:    le.Uint32(h[16:]),
			csize:  uint64(le.Uint32(h[20:])),
			usize:  uint64(le.Uint32(h[24:])),
			off:    uint64(le.Uint32(h[42:])),
		}
		if err := e.zip64(h[centralLen+n : centralLen+n+m]); err != nil {
			return nil, err
		}
		if disk := le.Uint16(h[34:]); disk != 0 && disk != max16 {
			return nil, errors.New("archive: multi-disk zip archives are not supported")
		}
		dir = append(dir, e)
		pos += centralLen + n + m + k
	}
	if pos != cdEnd {
		return nil, errors.New("archive: the zip central directory is longer than its records")
	}
	if err := checkZipLayout(b[:cdOff], dir); err != nil {
		return nil, err
	}
	return dir, nil
}

// zip64 replaces e's saturated sizes and offset with the values in the zip64 extra field,
// found in the central directory record's extra data.
func (e *zipEntry) zip64(extra []byte) error {
	needU, needC, needO := e.usize == max32, e.csize == max32, e.off == max32
	if !needU && !needC && !needO {
		return nil
	}
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if 4+n > len(extra) {
			break
		}
		field := extra[4 : 4+n]
		extra = extra[4+n:]
		if id != zip64ExtraID {
			continue
		}
		for _, v := range []struct {
			need bool
			p    *uint64
		}{{needU, &e.usize}, {needC, &e.csize}, {needO, &e.off}} {
			if !v.need {
				continue
			}
			if len(field) < 8 {
				return fmt.Errorf("archive: entry %q: short zip64 extra field", e.name)
			}
			*v.p, field = le.Uint64(field), field[8:]
		}
		return nil
	}
	return fmt.Errorf("archive: entry %q: zip64 extra field missing", e.name)
}

// checkZipLayout checks that the entries' local headers, data and data descriptors tile
// data (b up to its central directory) exactly, each local header agreeing with its
// record, and sets each entry's dataStart. An overlap wraps ErrUnsafe (it is how a zip
// bomb packs many entries into the same bytes), and so do bytes after an entry that belong
// to none (its declared compressed size is too small, or something hides there); bytes
// before the first entry (a self-extractor's stub) are a plain error.
func checkZipLayout(data []byte, dir []zipEntry) error {
	order := make([]int, len(dir))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(dir[i].off, dir[j].off) })
	limit := uint64(len(data))
	pos := uint64(0)
	for j, i := range order {
		e := &dir[i]
		switch {
		case e.off > limit:
			return fmt.Errorf("archive: entry %q: its local header offset is out of range", e.name)
		case e.off < pos:
			return unsafef(e.name, "it overlaps the entry before it")
		case e.off > pos && j == 0:
			return fmt.Errorf("archive: %d bytes before the first zip entry belong to no entry", e.off-pos)
		case e.off > pos:
			return unsafef(dir[order[j-1]].name, "the %d bytes after it belong to no entry", e.off-pos)
		case limit-e.off < localLen || le.Uint32(data[e.off:]) != sigLocal:
			return fmt.Errorf("archive: entry %q: no local header where the central directory says", e.name)
		}
		h := data[e.off:]
		n, m := uint64(le.Uint16(h[26:])), uint64(le.Uint16(h[28:]))
		if uint64(len(h)) < localLen+n+m {
			return unsafef(e.name, "its local header runs into the central directory")
		}
		if name := string(h[localLen : localLen+n]); name != e.name {
			return unsafef(e.name, "its local header names it %q", name)
		}
		flags := le.Uint16(h[6:])
		if le.Uint16(h[8:]) != e.method || flags&0x8 != e.flags&0x8 {
			return unsafef(e.name, "its local header and central directory record disagree")
		}
		e.dataStart = e.off + localLen + n + m
		if limit-e.dataStart < e.csize {
			return unsafef(e.name, "its declared compressed size %d runs past the archive's data", e.csize)
		}
		pos = e.dataStart + e.csize
		next := limit
		if j+1 < len(order) {
			next = min(dir[order[j+1]].off, limit) // out of range: refused at the next entry
		}
		if flags&0x8 == 0 {
			crc, cs, us := le.Uint32(h[14:]), le.Uint32(h[18:]), le.Uint32(h[22:])
			if crc != e.crc || (cs != max32 && uint64(cs) != e.csize) || (us != max32 && uint64(us) != e.usize) {
				return unsafef(e.name, "its local header and central directory record declare different sizes or CRC-32")
			}
			continue
		}
		// A data descriptor: CRC-32 and sizes (4 or 8 bytes each), with or without a
		// signature, exactly filling the space up to the next entry.
		if next < pos {
			return unsafef(dir[order[j+1]].name, "it overlaps the entry before it")
		}
		d := data[pos:next]
		if len(d) >= 4 && le.Uint32(d) == sigDescriptor && (len(d) == 16 || len(d) == 24) {
			d = d[4:]
		}
		var crc uint32
		var cs, us uint64
		switch len(d) {
		case 12:
			crc, cs, us = le.Uint32(d), uint64(le.Uint32(d[4:])), uint64(le.Uint32(d[8:]))
		case 20:
			crc, cs, us = le.Uint32(d), le.Uint64(d[4:]), le.Uint64(d[12:])
		default:
			return fmt.Errorf("archive: %d bytes after zip entry %q are not a data descriptor", len(d), e.name)
		}
		if crc != e.crc || cs != e.csize || us != e.usize {
			return unsafef(e.name, "its data descriptor and central directory record declare different sizes or CRC-32")
		}
		pos = next
	}
	switch {
	case pos == limit:
	case len(order) == 0:
		return fmt.Errorf("archive: %d bytes before the zip central directory belong to no entry", limit-pos)
	default:
		return unsafef(dir[order[len(order)-1]].name, "the %d bytes after it belong to no entry", limit-pos)
	}
	return nil
}
