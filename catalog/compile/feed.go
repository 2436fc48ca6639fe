package compile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog"
)

// The change feed (PROTOCOL.md#versions): the latest changes a caller may see, newest
// first, as JSON (catalog.ChangesJSON, and the resource catalog.ChangesURI) and as an Atom
// 1.0 feed (catalog.ChangesAtom, RFC 4287) for people and feed readers. Both are rendered
// from changes already filtered for one view and cut to MaxChanges; they hold nothing
// else of the catalog, so a change a caller may not see leaves no trace in either. In a
// private catalog neither carries a change's commit or subject: a subject is author text
// that may name any skill, and a commit's name covers the whole tree.

// changesJSON renders the JSON change feed, without a trailing newline (as every JSON
// document of the catalog):
//
//	{"changes":[{"skill":{"path","name"},"source"?,"movedFrom"?,"from"?:{"version","digest"},
//	 "to"?:{"version","digest"},"date","commit"?,"subject"?,
//	 "files":{"added":[…],"changed":[…],"removed":[…]}}…]}
//
// "source" names the source (its path) whose history the change is of, absent for the
// folder's own; "from" is absent for an added skill and "to" for a removed one; "movedFrom" only for a
// move; "date" is RFC 3339 in UTC; "commit" and "subject" only when not private and not
// empty. The file arrays are always present.
func changesJSON(changes []*Change, private bool) []byte {
	b := []byte(`{"changes":[`)
	for i, c := range changes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"skill":{"path":`...)
		b = append(b, jsonString(c.Path)...)
		b = append(b, `,"name":`...)
		b = append(b, jsonString(c.Name)...)
		b = append(b, '}')
		if c.Source != "" {
			b = append(b, `,"source":`...)
			b = append(b, jsonString(c.Source)...)
		}
		if c.Moved != "" {
			b = append(b, `,"movedFrom":`...)
			b = append(b, jsonString(c.Moved)...)
		}
		b = appendChangeVersion(b, "from", c.From)
		b = appendChangeVersion(b, "to", c.To)
		b = append(b, `,"date":`...)
		b = append(b, jsonString(feedTime(c.Date))...)
		if !private && c.Commit != "" {
			b = append(b, `,"commit":`...)
			b = append(b, jsonString(c.Commit)...)
		}
		if !private && c.Subject != "" {
			b = append(b, `,"subject":`...)
			b = append(b, jsonString(c.Subject)...)
		}
		b = append(b, `,"files":{"added":`...)
		b = appendJSONStrings(b, c.Added)
		b = append(b, `,"changed":`...)
		b = appendJSONStrings(b, c.Changed)
		b = append(b, `,"removed":`...)
		b = appendJSONStrings(b, c.Removed)
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

// appendChangeVersion appends `,"KEY":{"version":…,"digest":…}`, or nothing for nil.
func appendChangeVersion(b []byte, key string, v *ChangeVersion) []byte {
	if v == nil {
		return b
	}
	b = append(b, `,"`+key+`":{"version":`...)
	b = append(b, jsonString(v.Version)...)
	b = append(b, `,"digest":`...)
	b = append(b, jsonString(v.Digest)...)
	return append(b, '}')
}

// appendJSONStrings appends a JSON array of strings; nil is [].
func appendJSONStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, jsonString(s)...)
	}
	return append(b, ']')
}

// atomNamespace is the namespace of Atom 1.0 (RFC 4287).
const atomNamespace = "http://www.w3.org/2005/Atom"

// changesAtom renders the Atom change feed, ending in a newline:
//
//	<?xml version="1.0" encoding="utf-8"?>
//	<feed xmlns="http://www.w3.org/2005/Atom">
//	<id>urn:uuid:…</id><title>…</title><updated>…</updated><author><name>…</name></author>
//	<generator>…</generator><link rel="self" …/><link rel="alternate" …/>
//	<entry><id>urn:uuid:…</id><title>…</title><updated>…</updated>
//	 <content type="text">…</content></entry>…
//	</feed>
//
// Why are the Atom feed's ids `urn:uuid`s made from a hash, and its `updated` the newest
// change's date? Atom ids must be permanent, unique IRIs, and a build knows no host name,
// so every id is a name-based UUID made from a hash (atomID says of what, and why not a
// tag: or http IRI): the same change has the same id in every build and every view, and a
// private catalog's commit does not show through it. The feed's updated is the newest
// change's date, or the epoch when there is none, never the time of the build: builds stay
// reproducible, and a change a caller cannot see dates nothing. The links are relative
// references, resolved against the feed's own URL (RFC 4287 section 4.2.7.1 allows an IRI
// reference), since the host name is known only at request time.
//
// trustRoot, when set, is the feed's author; the feed has one author, so no entry needs its
// own.
func changesAtom(changes []*Change, private bool, trustRoot string) []byte {
	newest := time.Unix(0, 0)
	for i, c := range changes {
		if i == 0 || c.Date.After(newest) {
			newest = c.Date
		}
	}
	author := "<name>Agent Skills catalog</name>"
	if trustRoot != "" {
		author = "<name>" + xmlText(trustRoot) + "</name><uri>" + xmlText(trustRoot) + "</uri>"
	}
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"" + atomNamespace + "\">\n")
	b.WriteString("<id>" + atomID("feed", trustRoot) + "</id>\n")
	b.WriteString("<title>Agent Skills: changes</title>\n")
	b.WriteString("<updated>" + feedTime(newest) + "</updated>\n")
	b.WriteString("<author>" + author + "</author>\n")
	b.WriteString("<generator>" + xmlText(Generator) + "</generator>\n")
	b.WriteString("<link rel=\"self\" type=\"application/atom+xml\" href=\"" + catalog.ChangesAtom + "\"/>\n")
	b.WriteString("<link rel=\"alternate\" type=\"application/json\" href=\"" + catalog.ChangesJSON + "\"/>\n")
	for _, c := range changes {
		b.WriteString(atomEntry(c, private))
	}
	b.WriteString("</feed>\n")
	return []byte(b.String())
}

// atomEntry is one change's <entry> in the Atom feed.
func atomEntry(c *Change, private bool) string {
	return "<entry>\n<id>" + atomID("change", c.Commit, feedTime(c.Date), c.Path) + "</id>\n" +
		"<title>" + xmlText(changeTitle(c)) + "</title>\n" +
		"<updated>" + feedTime(c.Date) + "</updated>\n" +
		"<content type=\"text\">" + xmlText(changeText(c, private)) + "</content>\n</entry>\n"
}

// changeTitle is an entry's title: "NAME FROM → TO", "NAME added (TO)", "NAME removed",
// "NAME moved from OLD" (and ", FROM → TO" when the move changed the version too).
func changeTitle(c *Change) string {
	switch {
	case c.From == nil && c.To == nil:
		return c.Name
	case c.From == nil:
		return c.Name + " added (" + c.To.Version + ")"
	case c.To == nil:
		return c.Name + " removed"
	}
	t := c.Name
	if c.Moved != "" {
		t += " moved from " + c.Moved
		if c.From.Version != c.To.Version {
			t += ", " + c.From.Version + " → " + c.To.Version
		}
		return t
	}
	if c.From.Version == c.To.Version {
		return t + " " + c.To.Version + " changed"
	}
	return t + " " + c.From.Version + " → " + c.To.Version
}

// changeText is an entry's content: one "Label: value" line per fact of the change.
func changeText(c *Change, private bool) string {
	var b strings.Builder
	line := func(label, value string) { b.WriteString(label + ": " + value + "\n") }
	line("Skill", c.Name+" at "+c.Path)
	if c.Source != "" {
		line("Source", c.Source)
	}
	if c.Moved != "" {
		line("Moved from", c.Moved)
	}
	side := func(v *ChangeVersion) string { return v.Version + " (" + v.Digest + ")" }
	switch {
	case c.From != nil && c.To != nil:
		line("Version", side(c.From)+" → "+side(c.To))
	case c.To != nil:
		line("Added", side(c.To))
	case c.From != nil:
		line("Removed", side(c.From))
	}
	for _, f := range []struct {
		label string
		files []string
	}{{"Files added", c.Added}, {"Files changed", c.Changed}, {"Files removed", c.Removed}} {
		if len(f.files) > 0 {
			line(f.label, strings.Join(f.files, ", "))
		}
	}
	line("Date", feedTime(c.Date))
	if !private && c.Commit != "" {
		line("Commit", c.Commit)
	}
	if !private && c.Subject != "" {
		line("Subject", c.Subject)
	}
	return b.String()
}

// atomID is a permanent atom:id for what parts name: "urn:uuid:" and a UUID of version 8
// (RFC 9562 section 5.8, the form for name-based UUIDs from SHA-256) made of the first
// 128 bits of the SHA-256 of kind and parts, each length-prefixed. A tag: URI (RFC 4151)
// would need a domain the publisher owned at a date, and a build knows neither (the trust
// root is optional and may change); an http IRI would need the host name. A change's id
// hashes its commit, date and path, which that commit fixes forever; its versions are left
// out, since a deeper or shallower read of the same history may see a different From.
// The hash keeps a private catalog's commit out of sight.
func atomID(kind string, parts ...string) string {
	h := sha256.New()
	for _, p := range append([]string{"skilledge atom " + kind}, parts...) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x80 // version 8
	u[8] = u[8]&0x3f | 0x80 // variant 10
	x := hex.EncodeToString(u)
	return "urn:uuid:" + x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// feedTime writes t as an RFC 3339 date-time in UTC, to the second, within the four-digit
// years RFC 3339 can write (a commit date outside them is clamped).
func feedTime(t time.Time) string {
	t = t.UTC()
	if lo := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC); t.Before(lo) {
		t = lo
	}
	if hi := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC); t.After(hi) {
		t = hi
	}
	return t.Format(time.RFC3339)
}

// xmlText escapes s for XML 1.0 character data or an attribute value: & < > " ' as
// references, carriage return as &#xD; (so that it survives end-of-line handling), and
// every character XML 1.0 forbids (the C0 controls but tab, newline and carriage return;
// U+FFFE, U+FFFF; invalid UTF-8), or discourages (DEL and the C1 controls), as U+FFFD.
func xmlText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&#34;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\r':
			b.WriteString("&#xD;")
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0xfffe, r == 0xffff, r == utf8.RuneError && w == 1:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
