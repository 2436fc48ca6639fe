package compile

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// diffStrings writes a diff as its lines, each its op and its text.
func diffStrings(lines []diffLine) []string {
	out := []string{}
	for _, l := range lines {
		out = append(out, string(l.Op)+l.Text)
	}
	return out
}

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want []string
	}{
		{"both empty", "", "", []string{}},
		{"identical", "a\nb\n", "a\nb\n", []string{" a\n", " b\n"}},
		{"all added", "", "a\nb\n", []string{"+a\n", "+b\n"}},
		{"all removed", "a\nb", "", []string{"-a\n", "-b"}},
		{"all replaced", "a\nb\n", "c\nd\n", []string{"-a\n", "-b\n", "+c\n", "+d\n"}},
		{"one changed", "a\nb\nc\n", "a\nB\nc\n", []string{" a\n", "-b\n", "+B\n", " c\n"}},
		{"interleaved", "a\nb\nc\nd\ne\n", "a\nx\nc\ne\ny\n",
			[]string{" a\n", "-b\n", "+x\n", " c\n", "-d\n", " e\n", "+y\n"}},
		{"moved line", "a\nb\nc\n", "b\nc\na\n", []string{"-a\n", " b\n", " c\n", "+a\n"}},
		{"newline added at end", "a\nb", "a\nb\n", []string{" a\n", "-b", "+b\n"}},
		{"newline removed at end", "a\nb\n", "a\nb", []string{" a\n", "-b\n", "+b"}},
		{"line added after no newline", "a", "a\nb", []string{"-a", "+a\n", "+b"}},
		{"crlf to lf", "a\r\nb\r\n", "a\nb\r\n", []string{"-a\r\n", "+a\n", " b\r\n"}},
		{"crlf kept", "a\r\nb\r\n", "a\r\nc\r\n", []string{" a\r\n", "-b\r\n", "+c\r\n"}},
		{"lone cr is no line end", "a\rb\n", "a\rc\n", []string{"-a\rb\n", "+a\rc\n"}},
		{"blank lines", "\n\n\n", "\n\n", []string{" \n", " \n", "-\n"}},
		{"repeated lines", "x\nx\nx\ny\n", "x\ny\nx\nx\n", []string{" x\n", "+y\n", " x\n", " x\n", "-y\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, ok := lineDiff([]byte(tc.a), []byte(tc.b))
			if !ok {
				t.Fatal("no diff")
			}
			if got := diffStrings(lines); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			checkDiff(t, tc.a, tc.b, lines)
		})
	}
}

// checkDiff fails unless lines rebuild a and b, deletions come before additions in each
// run of edits, and the diff is as short as can be: its unchanged lines are a longest
// common subsequence (counted by dynamic programming, for small files).
func checkDiff(t testing.TB, a, b string, lines []diffLine) {
	t.Helper()
	var olda, newb strings.Builder
	same := 0
	for i, l := range lines {
		switch l.Op {
		case diffSame:
			olda.WriteString(l.Text)
			newb.WriteString(l.Text)
			same++
		case diffDel:
			olda.WriteString(l.Text)
			if i > 0 && lines[i-1].Op == diffAdd {
				t.Fatalf("a deletion after an addition: %q", diffStrings(lines))
			}
		case diffAdd:
			newb.WriteString(l.Text)
		default:
			t.Fatalf("op %q", l.Op)
		}
		if l.Text == "" || strings.Contains(strings.TrimSuffix(l.Text, "\n"), "\n") {
			t.Fatalf("line %q", l.Text)
		}
	}
	if olda.String() != a || newb.String() != b {
		t.Fatalf("the diff rebuilds %q → %q, not %q → %q", olda.String(), newb.String(), a, b)
	}
	al, bl := splitLines(a), splitLines(b)
	if len(al)*len(bl) > 1<<18 {
		return
	}
	lcs := make([][]int, len(al)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(bl)+1)
	}
	for i := len(al) - 1; i >= 0; i-- {
		for j := len(bl) - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	if same != lcs[0][0] {
		t.Fatalf("%d unchanged lines, the longest common subsequence has %d: %q", same, lcs[0][0], diffStrings(lines))
	}
}

// TestLineDiffBounds: files over maxDiffBytes, and files whose diff takes more than
// maxDiffWork steps, give no diff; a large file with a small change does.
func TestLineDiffBounds(t *testing.T) {
	numbered := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d\n", prefix, i)
		}
		return b.String()
	}
	big := numbered("line ", 5000) // 53 KiB
	changed := strings.Replace(big, "line 2500\n", "line two thousand five hundred\n", 1)
	for _, tc := range []struct {
		name string
		a, b string
		ok   bool
	}{
		{"large, one line changed", big, changed, true},
		{"large, one line added at the end", big, big + "more\n", true},
		{"over the byte bound", big + big, big + big + "x\n", false},
		{"over the byte bound, identical", big + big, big + big, false},
		{"every line different", numbered("a", 4000), numbered("b", 4000), false},
		{"small, every line different", numbered("a", 100), numbered("b", 100), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, ok := lineDiff([]byte(tc.a), []byte(tc.b))
			if ok != tc.ok || ok != (lines != nil) {
				t.Fatalf("ok %v with %d lines, want %v", ok, len(lines), tc.ok)
			}
			if ok {
				checkDiff(t, tc.a, tc.b, lines)
			}
		})
	}
}

// TestLineDiffRandom: files of up to 300 lines drawn from a few distinct lines, so that
// the search recurses deep and meets many ties, diff to a shortest script that rebuilds
// both (checkDiff).
func TestLineDiffRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	file := func() string {
		var b strings.Builder
		for range r.IntN(300) {
			b.WriteString([]string{"a\n", "b\n", "c\n", "d\r\n", "\n"}[r.IntN(5)])
		}
		if r.IntN(4) == 0 {
			b.WriteString("end")
		}
		return b.String()
	}
	for i := range 300 {
		a, b := file(), file()
		lines, ok := lineDiff([]byte(a), []byte(b))
		if !ok {
			t.Fatalf("case %d: no diff", i)
		}
		checkDiff(t, a, b, lines)
	}
}

func TestUnified(t *testing.T) {
	lines := func(spec string) []diffLine {
		var out []diffLine
		for i, op := range spec {
			out = append(out, diffLine{Op: diffOp(op), Text: fmt.Sprintf("%d\n", i)})
		}
		return out
	}
	ops := func(ls []diffLine) string {
		var b strings.Builder
		for _, l := range ls {
			b.WriteByte(byte(l.Op))
		}
		return b.String()
	}
	for _, tc := range []struct{ name, in, want string }{
		{"no change", "     ", ""},
		{"empty", "", ""},
		{"short", " - ", " - "},
		{"context before and after", "      +      ", "~   +   ~"},
		{"one line left out is shown", "    +    ", "    +    "},
		{"two hunks", "-        +", "-   ~   +"},
		{"hunks merge when close", "-      +", "-      +"},
		{"change at the ends", "+          -", "+   ~   -"},
		{"all changed", "--++", "--++"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := unified(lines(tc.in), 3)
			if ops(got) != tc.want {
				t.Fatalf("%q gives %q, want %q", tc.in, ops(got), tc.want)
			}
			for _, l := range got {
				if l.Op == diffSkip && l.Text != "" {
					t.Fatalf("a skip with text %q", l.Text)
				}
			}
		})
	}
}

// FuzzLineDiff: for any two files, the diff rebuilds both and is a shortest one; unified
// keeps every change of it.
func FuzzLineDiff(f *testing.F) {
	for _, s := range [][2]string{
		{"", ""},
		{"a\nb\nc\n", "a\nc\nd\n"},
		{"a\r\nb", "a\nb\n"},
		{"x\nx\nx\n", "x\nx\n"},
		{"---\nname: x\n---\nbody\n", "---\nname: x\nversion: 2\n---\nnew body\n"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		lines, ok := lineDiff([]byte(a), []byte(b))
		if !ok {
			if len(a) <= 4096 && len(b) <= 4096 {
				t.Fatalf("no diff of %d and %d bytes", len(a), len(b))
			}
			return
		}
		checkDiff(t, a, b, lines)
		changes := 0
		for _, l := range lines {
			if l.Op != diffSame {
				changes++
			}
		}
		for _, l := range unified(lines, 3) {
			if l.Op == diffDel || l.Op == diffAdd {
				changes--
			}
		}
		if changes != 0 {
			t.Fatalf("unified lost %d changes", changes)
		}
	})
}
