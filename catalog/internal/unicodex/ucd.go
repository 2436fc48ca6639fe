package unicodex

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// UCD is what the table generators read of the Unicode Character Database's
// UnicodeData.txt: gen_unicode.go here, and catalog/search's gen_fold.go (nothing else calls
// it, so no binary links it).
type UCD struct {
	// Class holds the runes of non-zero canonical combining class.
	Class map[rune]uint8
	// Decomp holds one level of each rune's decomposition, its tag (<compat>, <font>,
	// <wide>, …) dropped; Compat the runes whose decomposition had a tag (compatibility
	// decompositions, which NFD leaves and NFKD follows).
	Decomp map[rune][]rune
	Compat map[rune]bool
}

// ReadUCD reads the UnicodeData.txt at path. The lines of a range ("<CJK Ideograph,
// First>" … "Last>") have class 0 and no decomposition, and give nothing.
func ReadUCD(path string) (*UCD, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	u := &UCD{Class: map[rune]uint8{}, Decomp: map[rune][]rune{}, Compat: map[rune]bool{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), ";")
		if len(fields) < 6 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 15", path, line, len(fields))
		}
		cp, err := strconv.ParseUint(fields[0], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: code point: %v", path, line, err)
		}
		r := rune(cp)
		if c, err := strconv.ParseUint(fields[3], 10, 8); err == nil && c != 0 {
			u.Class[r] = uint8(c)
		}
		d := fields[5]
		if i := strings.IndexByte(d, '>'); strings.HasPrefix(d, "<") && i > 0 {
			d, u.Compat[r] = d[i+1:], true
		}
		for _, h := range strings.Fields(d) {
			v, err := strconv.ParseUint(h, 16, 32)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: decomposition: %v", path, line, err)
			}
			u.Decomp[r] = append(u.Decomp[r], rune(v))
		}
	}
	return u, sc.Err()
}

// Full returns the full decomposition of r, each rune of it decomposed again until none
// is left: canonical decompositions only (NFD's), or with compat the compatibility ones
// too (NFKD's). Marks stay in the order the database gives (no canonical ordering).
func (u *UCD) Full(r rune, compat bool) []rune {
	d, ok := u.Decomp[r]
	if !ok || u.Compat[r] && !compat {
		return []rune{r}
	}
	var out []rune
	for _, x := range d {
		out = append(out, u.Full(x, compat)...)
	}
	return out
}
