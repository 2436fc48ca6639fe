package compile

import "strings"

// A line diff, for the catalog page's history of a skill's SKILL.md: Myers' O((N+M)D)
// algorithm in linear space ("An O(ND) Difference Algorithm and Its Variations", 1986,
// section 4b: the middle snake, then the two halves), so that two files of N and M lines
// cost O(N+M) memory whatever their difference, and the time is bounded by a budget
// rather than by the files' product.
//
// Why does the page's diff use Myers' algorithm with a budget, and `<del>`/`<ins>` without
// colours? Its time grows with the difference, so a small edit to a large SKILL.md is
// cheap, where an LCS table costs N·M for every pair; a budget of 4e6 steps (maxDiffWork,
// about 12 ms at worst) and 64 KiB a file (maxDiffBytes) bound the page, and past them it
// says the file changed and by how many lines. Lines are marked with <del> and <ins> and a
// "+" or "-", which browsers show struck through and underlined, so the stylesheet, whose
// hash the page's Content-Security-Policy carries, stays as it is. Rejected: colour rules
// (a new stylesheet hash for a nicety).

// diffOp is what one line of a diff does.
type diffOp byte

const (
	diffSame diffOp = ' ' // in both files
	diffDel  diffOp = '-' // in the old file only
	diffAdd  diffOp = '+' // in the new file only
	diffSkip diffOp = '~' // unchanged lines left out (unified only); Text is ""
)

// diffLine is one line of a diff. Text is the line with its "\n", and without one for a
// file's last line that has none, so that the texts of a diff's lines rebuild the files.
type diffLine struct {
	Op   diffOp
	Text string
}

// The bounds of lineDiff: the larger of two files, in bytes, and the steps of the search.
// Within them a diff takes a few milliseconds.
const (
	maxDiffBytes = 64 << 10
	maxDiffWork  = 4_000_000
)

// lineDiff returns a shortest edit script from a to b, line by line (lines end after
// "\n"; "\r\n" is a line's end like any text before "\n", so that a change of line ends
// is a change): the diffSame and diffDel lines' texts, in order, are a; the diffSame and
// diffAdd lines', b. Within a change, deleted lines come before added ones. ok is false
// (and lines nil) when a or b is longer than maxDiffBytes, or finding the script takes
// more than maxDiffWork steps.
func lineDiff(a, b []byte) (lines []diffLine, ok bool) {
	if len(a) > maxDiffBytes || len(b) > maxDiffBytes {
		return nil, false
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	ids := map[string]int{}
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, seen := ids[l]
			if !seen {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d := &differ{a: intern(al), b: intern(bl), work: maxDiffWork}
	size := 2*((len(al)+len(bl)+1)/2) + 2
	d.v1, d.v2 = make([]int, size), make([]int, size)
	if !d.diff(0, len(al), 0, len(bl)) {
		return nil, false
	}
	// Each run of edits is written as its deletions, then its additions.
	lines = make([]diffLine, 0, len(d.ops))
	i, j, del, add := 0, 0, 0, 0
	flush := func() {
		for ; del > 0; del, i = del-1, i+1 {
			lines = append(lines, diffLine{diffDel, al[i]})
		}
		for ; add > 0; add, j = add-1, j+1 {
			lines = append(lines, diffLine{diffAdd, bl[j]})
		}
	}
	for _, op := range d.ops {
		switch op {
		case diffSame:
			flush()
			lines = append(lines, diffLine{op, al[i]})
			i, j = i+1, j+1
		case diffDel:
			del++
		case diffAdd:
			add++
		}
	}
	flush()
	return lines, true
}

// splitLines cuts s after each "\n"; the last line has none when s does not end in one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// differ finds an edit script from a to b, lines named by number.
type differ struct {
	a, b   []int
	ops    []diffOp // the script so far, in order
	work   int      // the steps left
	v1, v2 []int    // bisect's furthest reaches, forward and backward, reused
}

// diff appends the script from a[a0:a1] to b[b0:b1]. It is false when the work ran out.
func (d *differ) diff(a0, a1, b0, b1 int) bool {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		d.ops = append(d.ops, diffSame)
		a0, b0 = a0+1, b0+1
	}
	suffix := 0
	for a0 < a1 && b0 < b1 && d.a[a1-1] == d.b[b1-1] {
		a1, b1, suffix = a1-1, b1-1, suffix+1
	}
	if a0 == a1 || b0 == b1 {
		d.edits(a1-a0, b1-b0)
	} else {
		x, y, split := d.bisect(a0, a1, b0, b1)
		switch {
		case d.work < 0:
			return false
		case !split:
			d.edits(a1-a0, b1-b0)
		case !d.diff(a0, x, b0, y) || !d.diff(x, a1, y, b1):
			return false
		}
	}
	for ; suffix > 0; suffix-- {
		d.ops = append(d.ops, diffSame)
	}
	return true
}

// edits appends del deletions, then add additions.
func (d *differ) edits(del, add int) {
	for ; del > 0; del-- {
		d.ops = append(d.ops, diffDel)
	}
	for ; add > 0; add-- {
		d.ops = append(d.ops, diffAdd)
	}
}

// bisect finds where a shortest path from (a0, b0) to (a1, b1) crosses the middle of its
// edits (Myers' middle snake), searching forward from the start and backward from the
// end until the two meet: the script is then the scripts of the two parts, each shorter
// than the whole. split is false when the parts have no line in common (the script is
// every deletion and addition) or the work ran out (d.work < 0). Both ranges are
// non-empty, and differ in their first lines and in their last.
func (d *differ) bisect(a0, a1, b0, b1 int) (x, y int, split bool) {
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	off := maxD
	v1, v2 := d.v1[:2*maxD+2], d.v2[:2*maxD+2]
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0 // the forward search meets the backward one (else the reverse)
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for e := 0; e < maxD; e++ {
		// One edit more forward: v1[off+k] is the furthest x reached on diagonal k = x-y.
		for k1 := -e + k1start; k1 <= e-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -e || k1 != e && v1[i-1] < v1[i+1] {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && d.a[a0+x1] == d.b[b0+y1] {
				x1, y1 = x1+1, y1+1
				d.work--
			}
			if d.work--; d.work < 0 {
				return 0, 0, false
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2 // off the right of the grid
			case y1 > m:
				k1start += 2 // off the bottom
			case front:
				if j := off + delta - k1; j >= 0 && j < len(v2) && v2[j] != -1 && x1 >= n-v2[j] {
					return a0 + x1, b0 + y1, true
				}
			}
		}
		// One edit more backward, from the end: v2 holds distances from (a1, b1).
		for k2 := -e + k2start; k2 <= e-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -e || k2 != e && v2[i-1] < v2[i+1] {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && d.a[a1-1-x2] == d.b[b1-1-y2] {
				x2, y2 = x2+1, y2+1
				d.work--
			}
			if d.work--; d.work < 0 {
				return 0, 0, false
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2 // off the left
			case y2 > m:
				k2start += 2 // off the top
			case !front:
				if j := off + delta - k2; j >= 0 && j < len(v1) && v1[j] != -1 {
					x1 := v1[j]
					if y1 := x1 - (j - off); x1 >= n-x2 {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}

// unified keeps of a diff its changes and up to context unchanged lines before and after
// each, as a unified diff does; each run of two or more unchanged lines left out becomes
// one diffSkip line. A diff without changes gives nil.
func unified(lines []diffLine, context int) []diffLine {
	keep := make([]bool, len(lines))
	changed := false
	last := -1 << 31 // the index of the last change seen
	for i, l := range lines {
		if l.Op != diffSame {
			changed, last = true, i
		}
		keep[i] = i-last <= context
	}
	if !changed {
		return nil
	}
	last = 1 << 30
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Op != diffSame {
			last = i
		}
		keep[i] = keep[i] || last-i <= context
	}
	// A single unchanged line between two kept ones is kept: "…" would be no shorter.
	for i := range keep {
		if !keep[i] && (i == 0 || keep[i-1]) && (i == len(keep)-1 || keep[i+1]) {
			keep[i] = true
		}
	}
	var out []diffLine
	for i, l := range lines {
		switch {
		case keep[i]:
			out = append(out, l)
		case i == 0 || keep[i-1]:
			out = append(out, diffLine{Op: diffSkip})
		}
	}
	return out
}
