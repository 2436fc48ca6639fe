package catalog

import "testing"

func TestAppendReadHead(t *testing.T) {
	tests := []struct {
		uri, mime string
		text      bool
		want      string
	}{
		{`"skill://a/SKILL.md"`, `"text/markdown"`, true, `{"uri":"skill://a/SKILL.md","mimeType":"text/markdown","text":`},
		{`"skill://a/x.png"`, `"image/png"`, false, `{"uri":"skill://a/x.png","mimeType":"image/png","blob":`},
		{`"skill://a.tar.gz"`, `"application/gzip"`, false, `{"uri":"skill://a.tar.gz","mimeType":"application/gzip","blob":`},
	}
	for _, tt := range tests {
		got := AppendReadHead([]byte("["), []byte(tt.uri), []byte(tt.mime), tt.text)
		if string(got) != "["+tt.want {
			t.Errorf("AppendReadHead(%s, %s, %v) = %s; want %s", tt.uri, tt.mime, tt.text, got[1:], tt.want)
		}
		if IsTextHead(got[1:]) != tt.text {
			t.Errorf("IsTextHead(%s) = %v; want %v", got[1:], !tt.text, tt.text)
		}
	}
}

func TestCutReadHeadURI(t *testing.T) {
	head := string(AppendReadHead(nil, []byte(`"skill://a/b.md"`), []byte(`"text/markdown"`), true))
	tests := []struct {
		head, uri string
		rest      string
		ok        bool
	}{
		{head, "skill://a/b.md", `,"mimeType":"text/markdown","text":`, true},
		{head, "skill://a/b", head, false},     // a prefix of the URI
		{head, "skill://a/b.mdx", head, false}, // longer than the URI
		{head, "SKILL://a/b.md", head, false},  // another spelling
		{head, "", head, false},                // none
		{`{"uri":"skill://a/b.md"`, "skill://a/b.md", "", true},
		{`{"uri":"skill://a/b.md`, "skill://a/b.md", `{"uri":"skill://a/b.md`, false},
		{`{"url":"skill://a/b.md"`, "skill://a/b.md", `{"url":"skill://a/b.md"`, false},
		{``, "skill://a/b.md", ``, false},
	}
	for _, tt := range tests {
		rest, ok := CutReadHeadURI([]byte(tt.head), tt.uri)
		if string(rest) != tt.rest || ok != tt.ok {
			t.Errorf("CutReadHeadURI(%s, %q) = %s, %v; want %s, %v", tt.head, tt.uri, rest, ok, tt.rest, tt.ok)
		}
		if ok && ReadHeadURIKey+`"`+tt.uri+`"`+string(rest) != tt.head {
			t.Errorf("CutReadHeadURI(%s, %q): the parts do not make the head again", tt.head, tt.uri)
		}
	}
	h := []byte(head)
	if n := testing.AllocsPerRun(100, func() { CutReadHeadURI(h, "skill://a/b.md") }); n != 0 {
		t.Errorf("CutReadHeadURI allocates %v times", n)
	}
}
