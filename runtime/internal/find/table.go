package find

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// WriteTable writes r's hits to w, a line each under a heading: name (what `skilledge
// pull --skill` takes), path in the catalog, score and description. Every string is made
// Printable (a catalog's text never moves the cursor); the description is cut, with "…",
// so that a line fits width columns, and is whole when width is 0 (not a terminal).
func WriteTable(w io.Writer, r *Result, width int) {
	rows := [][3]string{{"NAME", "PATH", "SCORE"}}
	for _, h := range r.Hits {
		rows = append(rows, [3]string{verify.Printable(h.Name), verify.Printable(h.Path), strconv.FormatFloat(h.Score, 'f', 3, 64)})
	}
	var wide [3]int
	for _, row := range rows {
		for i, cell := range row {
			wide[i] = max(wide[i], utf8.RuneCountInString(cell))
		}
	}
	for k, row := range rows {
		desc := "DESCRIPTION"
		if k > 0 {
			desc = oneLine(r.Hits[k-1].Description)
		}
		line := pad(row[0], wide[0]) + "  " + pad(row[1], wide[1]) + "  " + strings.Repeat(" ", wide[2]-len(row[2])) + row[2] + "  "
		if width > 0 {
			desc = cut(desc, width-utf8.RuneCountInString(line))
		}
		fmt.Fprintln(w, strings.TrimRight(line+desc, " "))
	}
}

// oneLine is s Printable, its runs of white space (line breaks included) one space.
func oneLine(s string) string {
	return verify.Printable(strings.Join(strings.Fields(s), " "))
}

func pad(s string, n int) string {
	return s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
}

// cut is s in at most n characters, its end replaced by "…" when it is longer; "" when n
// is under 2.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 2 {
		return ""
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}
