// Package mediatype says what a skill file is: its content type, from a fixed table of
// extensions, and whether its bytes are text. Both are pure functions of the name and the
// bytes, never of the machine the catalog is built on, so that two builds of one folder
// give the same catalog.
//
// Why a fixed MIME table rather than `mime.TypeByExtension`? The standard function reads
// /etc/mime.types and friends, so two build machines would produce different catalogs and
// different digests. The cost is a table of about 100 extensions; anything else is
// text/plain when its bytes are text and application/octet-stream otherwise.
package mediatype

import (
	"path"
	"strings"
	"unicode/utf8"
)

// mimeTypes maps a lowercased extension to a content type. It is fixed here, never taken
// from mime.TypeByExtension, which reads the machine's /etc/mime.types and so would make
// the catalog depend on where it was built.
var mimeTypes = map[string]string{
	// text and documents
	".md":       "text/markdown",
	".markdown": "text/markdown",
	".txt":      "text/plain",
	".text":     "text/plain",
	".rst":      "text/x-rst",
	".adoc":     "text/asciidoc",
	".csv":      "text/csv",
	".tsv":      "text/tab-separated-values",
	".html":     "text/html",
	".htm":      "text/html",
	".css":      "text/css",
	".xml":      "application/xml",
	".xsd":      "application/xml",
	".svg":      "image/svg+xml",
	".pdf":      "application/pdf",
	".ics":      "text/calendar",
	".tex":      "text/x-tex",
	// data and configuration
	".json":    "application/json",
	".jsonl":   "application/jsonl",
	".ndjson":  "application/x-ndjson",
	".yaml":    "application/yaml",
	".yml":     "application/yaml",
	".toml":    "application/toml",
	".ini":     "text/plain",
	".cfg":     "text/plain",
	".conf":    "text/plain",
	".env":     "text/plain",
	".sql":     "application/sql",
	".graphql": "application/graphql",
	".proto":   "text/plain",
	// code
	".py":    "text/x-python",
	".sh":    "text/x-shellscript",
	".bash":  "text/x-shellscript",
	".zsh":   "text/x-shellscript",
	".ps1":   "text/plain",
	".bat":   "text/plain",
	".js":    "text/javascript",
	".mjs":   "text/javascript",
	".cjs":   "text/javascript",
	".jsx":   "text/javascript",
	".ts":    "text/x-typescript",
	".mts":   "text/x-typescript",
	".cts":   "text/x-typescript",
	".tsx":   "text/x-typescript",
	".go":    "text/x-go",
	".rs":    "text/x-rust",
	".rb":    "text/x-ruby",
	".java":  "text/x-java",
	".kt":    "text/x-kotlin",
	".swift": "text/x-swift",
	".c":     "text/x-c",
	".h":     "text/x-c",
	".cc":    "text/x-c++",
	".cpp":   "text/x-c++",
	".hpp":   "text/x-c++",
	".cs":    "text/x-csharp",
	".php":   "application/x-httpd-php",
	".pl":    "text/x-perl",
	".lua":   "text/x-lua",
	".r":     "text/x-r",
	".jl":    "text/x-julia",
	".scala": "text/x-scala",
	".hs":    "text/x-haskell",
	".ex":    "text/x-elixir",
	".exs":   "text/x-elixir",
	".erl":   "text/x-erlang",
	".clj":   "text/x-clojure",
	".vue":   "text/plain",
	".dart":  "text/x-dart",
	// images, audio, video, fonts
	".png":   "image/png",
	".jpg":   "image/jpeg",
	".jpeg":  "image/jpeg",
	".gif":   "image/gif",
	".webp":  "image/webp",
	".avif":  "image/avif",
	".ico":   "image/vnd.microsoft.icon",
	".bmp":   "image/bmp",
	".tif":   "image/tiff",
	".tiff":  "image/tiff",
	".mp3":   "audio/mpeg",
	".wav":   "audio/wav",
	".ogg":   "audio/ogg",
	".mp4":   "video/mp4",
	".webm":  "video/webm",
	".woff":  "font/woff",
	".woff2": "font/woff2",
	".ttf":   "font/ttf",
	".otf":   "font/otf",
	// archives and binaries
	".zip":   "application/zip",
	".gz":    "application/gzip",
	".tgz":   "application/gzip",
	".tar":   "application/x-tar",
	".bz2":   "application/x-bzip2",
	".xz":    "application/x-xz",
	".zst":   "application/zstd",
	".7z":    "application/x-7z-compressed",
	".wasm":  "application/wasm",
	".docx":  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx":  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx":  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".ipynb": "application/x-ipynb+json",
}

// Of is the content type of the file at the slash-separated path p, whose bytes are text
// when text is true (as IsText decides): the type the table gives the extension, compared
// without regard to case, else text/plain for text and application/octet-stream for the
// rest. It never fails and never looks at the machine's own tables.
func Of(p string, text bool) string {
	if t, ok := mimeTypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	if text {
		return "text/plain"
	}
	return "application/octet-stream"
}

// IsText reports whether data can be served as a "text" resource: valid UTF-8 with no NUL
// and no C0 control character other than tab, newline, form feed and carriage return.
func IsText(data []byte) bool {
	var s TextScan
	s.Write(data)
	return s.Text()
}

// TextScan decides IsText over bytes written to it in pieces, holding none but a rune cut
// by a piece's end, so that a file of any size can be decided as it is read. The zero
// value is ready.
type TextScan struct {
	notText bool
	carry   []byte // the start of a rune the last piece cut
}

// Write takes the next piece. It never fails: once the bytes are known not to be text, it
// only counts them.
func (s *TextScan) Write(p []byte) (int, error) {
	n := len(p)
	if s.notText {
		return n, nil
	}
	if len(s.carry) > 0 {
		// Complete the cut rune with the first bytes of p, then go on after it.
		k := min(len(p), utf8.UTFMax-len(s.carry))
		buf := append(s.carry, p[:k]...)
		if !utf8.FullRune(buf) {
			s.carry = buf
			return n, nil
		}
		_, size := utf8.DecodeRune(buf)
		if !utf8.Valid(buf[:size]) {
			s.notText = true
			return n, nil
		}
		p = p[size-len(s.carry):]
		s.carry = s.carry[:0]
	}
	for _, b := range p {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\f' && b != '\r' {
			s.notText = true
			return n, nil
		}
	}
	end := WholeRunes(p) // hold back a rune the end of p cuts
	if !utf8.Valid(p[:end]) {
		s.notText = true
		return n, nil
	}
	s.carry = append(s.carry[:0], p[end:]...)
	return n, nil
}

// Text reports whether everything written is text: nothing but text and no rune left cut.
func (s *TextScan) Text() bool { return !s.notText && len(s.carry) == 0 }

// WholeRunes returns the length of p without a rune its end cuts: len(p), or the start of
// an incomplete last rune. It is where TextScan, or a writer that cuts text into pieces,
// holds back the rest for the next piece.
func WholeRunes(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			break
		}
	}
	return len(p)
}
