package edge

import (
	"html"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
)

// The catalog page's search box without a script: GET /?q=WORDS is the page with the
// skills a search for WORDS finds in place of the list of every skill, as the page's
// script shows them as you type (catalog/compile/page.go). The hits are those of the HTTP
// search (PROTOCOL.md#search), best first, from the caller's view, the first
// DefaultSearchLimit of them (or a page's worth when that is fewer).

// pageQuery is the words of a request for the catalog page (its q parameter), "" when it
// asks for no search (no q, or only white space), and false when the query string is
// malformed.
func pageQuery(target string) (string, bool) {
	q := ""
	ok := queryParams(target, func(key, val string) bool {
		if key == "q" {
			q = val
		}
		return true
	})
	if strings.TrimSpace(q) == "" {
		q = ""
	}
	return q, ok
}

// appendPageResults appends to b what the catalog page shows for a search of words: a line
// saying what was found, and the hits, each linked to its SKILL.md; or why the search was
// refused, with status 400.
func (s *Server) appendPageResults(b []byte, words string, malformed bool) ([]byte, int) {
	refused := func(why string) ([]byte, int) {
		b = append(b, `<p id="found" class="muted">The search was refused: `...)
		b = appendHTMLText(b, why)
		return append(b, ". <a href=\"/\">Every skill</a></p>\n"...), 400
	}
	if malformed {
		return refused("the query string is malformed (a bad %-escape or not UTF-8)")
	}
	run, fail := s.runSearch(words, gjson.Result{}, min(DefaultSearchLimit, s.opt.PageSize), true)
	switch {
	case fail == nil:
	case fail.query != nil:
		return refused(fail.query.Error())
	default:
		return refused(fail.index)
	}
	defer run.done()
	b = append(b, `<p id="found" class="muted">`...)
	switch total, shown := len(run.hits), run.to-run.from; {
	case total == 0:
		b = append(b, "No skill found for “"...)
		b = appendHTMLText(b, clip(words))
		b = append(b, "”."...)
	default:
		b = append(b, plural(total, "skill")+" found for “"...)
		b = appendHTMLText(b, clip(words))
		b = append(b, "”, best first"...)
		if shown < total {
			b = append(b, ", the first "+strconv.Itoa(shown)+" shown: more words narrow them"...)
		}
		b = append(b, '.')
	}
	b = append(b, " <a href=\"/\">Every skill</a></p>\n"...)
	if run.to == run.from {
		return b, 200
	}
	b = append(b, "<ol id=\"found-skills\" class=\"results\">\n"...)
	for i := run.from; i < run.to; i++ {
		e := run.ix.Entry(run.hits[i].Skill)
		name := gjson.GetBytes(e, "name").Str
		b = append(b, `<li><a class="name" href="`...)
		b = appendHTMLText(b, catalog.SkillsPrefix+name+"/"+catalog.SkillMD)
		b = append(b, `">`...)
		b = appendHTMLText(b, name)
		b = append(b, `</a> <code class="path">`...)
		b = appendHTMLText(b, gjson.GetBytes(e, "path").Str)
		b = append(b, `</code><p class="description">`...)
		b = appendHTMLText(b, gjson.GetBytes(e, "description").Str)
		b = append(b, "</p></li>\n"...)
	}
	return append(b, "</ol>\n"...), 200
}

// appendHTMLText appends s escaped for HTML text or an attribute value, each control
// character but tab, line feed and carriage return (which HTML forbids) as U+FFFD, as the
// build writes skill text into the page.
func appendHTMLText(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f:
			b = append(b, "\uFFFD"...)
		case r == '<' || r == '>' || r == '&' || r == '\'' || r == '"':
			b = append(b, html.EscapeString(s[i:i+n])...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}
