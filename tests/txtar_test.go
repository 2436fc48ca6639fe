package tests

import (
	"bytes"
	"strings"
)

// A minimal reader and writer of the txtar format (golang.org/x/tools/txtar): a comment,
// then sections each opened by a line "-- name --". Sections may repeat, in order.
type archive struct {
	comment  []byte
	sections []section
}

type section struct {
	name string
	data []byte
}

func parseTxtar(data []byte) *archive {
	a := &archive{}
	cur := &a.comment
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		if name, ok := sectionName(string(line)); ok {
			a.sections = append(a.sections, section{name: name, data: []byte{}})
			cur = &a.sections[len(a.sections)-1].data
			continue
		}
		*cur = append(append(*cur, line...), '\n')
	}
	return a
}

func sectionName(line string) (string, bool) {
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 7 {
		return "", false
	}
	return strings.TrimSpace(line[3 : len(line)-3]), true
}

func (a *archive) get(name string) *section {
	for i := range a.sections {
		if a.sections[i].name == name {
			return &a.sections[i]
		}
	}
	return nil
}

func (a *archive) format() []byte {
	var b bytes.Buffer
	b.Write(a.comment)
	for _, s := range a.sections {
		b.WriteString("-- " + s.name + " --\n")
		b.Write(s.data)
		if len(s.data) > 0 && s.data[len(s.data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
