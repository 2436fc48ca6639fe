// Package compile turns a skills folder into a catalog: it walks the folder, validates
// every skill against the Agent Skills format (PROTOCOL.md#skill-format), renders each
// frontmatter as verbatim JSON, digests every file, and encodes the result as an index
// (catalog.Writer) and a content store (Store). It runs at build time only and is never
// linked into the plugin (it imports yaml.v3).
//
// It is two halves over one model (model.go: Catalog, Skill, File, Versions). The load
// half makes a Catalog of a folder: load.go drives the loader (loader.go) over the rules
// of a folder (names.go, frontmatter.go, validate.go, sep2076.go, entry.go, access.go).
// The encode half makes an index and a store of a Catalog: encode.go lays out the index,
// the encoder (encoder.go) puts objects in the store, and the renderers below them make
// the bytes (skills.go, resources.go, surfaces.go, fallbacks.go, page.go, versions.go,
// feed.go). Each file uses only files below it: none uses a file that uses it.
//
// Why one package in two halves, and not a load package and an encode package? The
// halves share the model's unexported insides: the loader gives a File the way to read
// it again (reopen), and the encoder reads it so; the tests of each half build their
// catalogs with the other. Two packages would export those insides, or need a third
// package for the model.
//
// Why `catalog/compile`? It was catalog/build: to people and to tools that draw the code, a
// folder named build reads as generated output, and the repository had two packages called
// build. It compiles a folder into a catalog, so it is catalog/compile. What it shares with
// the server (tool names, well-known prefixes, the resources/read content object) is
// defined once, in package catalog, which the plugin links.
package compile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/internal/mediatype"
)

// Catalog is a validated skills folder, ready to encode. Everything in it is a pure
// function of the folder's relative paths and file bytes: no absolute paths, mtimes,
// modes or directory-listing order leak in.
//
// Why does a loaded catalog hold only valid skills, with errors reported beside it? The
// catalog is what could be served and the problems say whether serving is allowed, so
// validate and build --skip-invalid share one code path. Returning no catalog on error
// would give less information and no extra safety: callers must check HasErrors anyway.
type Catalog struct {
	// Skills in listing order: sorted by Path, byte-wise.
	Skills []*Skill
	// TrustRoot is the deployment's DVS trust root ("https://skills.example.com/"), set by
	// the caller before Encode (see catalog/trust.ParseRoot); "" publishes none.
	TrustRoot string
	// Access is the folder's access policy (PolicyFile), nil for a public catalog. Each
	// skill's Scopes and Unlisted are what it says of that skill.
	Access *Access
	// Keep is the policy's versions.keep, 0 when the folder asks for no history. Package
	// catalog/versions reads it and fills Versions; nil serves the latest skills only.
	Keep int
	// Declassify are the policy's versions.declassify: skill path prefixes (whole
	// segments) whose earlier versions are published to whoever may see the skill today,
	// even those published where fewer callers could see them. Package catalog/versions
	// reads it; by default such a version is served only to callers who could see it
	// where it was published too.
	Declassify []string
	Versions   *Versions
	// Sources are the policy's sources (sources.go), in the order written: package
	// catalog/sources mounts their skills (Mount). Nil when the folder is the catalog.
	Sources []Source
	// whole is set on the run of skills of one shard (shards.go): the catalog they belong
	// to, which names their prompts and says which are published.
	whole *Catalog
	// names are the skills' index names (indexName), made when first asked for while
	// encoding (EncodeWith clears them).
	names map[*Skill]string
	// entryNames, set on an older versions' catalog (olderNames), are the names its
	// entries give each version: its latest's index name (entryName).
	entryNames map[*Skill]string
}

// Skill is one directory holding a SKILL.md.
type Skill struct {
	// Path is the directory relative to the catalog root, "/"-separated
	// ("acme/billing/refunds"). Its last segment equals Name.
	Path string
	// Name and Description are the frontmatter values, Description as every listing
	// carries it: cut to the Agent Skills limit of 1024 characters.
	Name, Description string
	// Frontmatter is the YAML frontmatter rendered as a JSON object: the author's keys in
	// the author's order, each scalar with its YAML type (PROTOCOL.md#skill-entries),
	// verbatim but for the fields entries carry in the shape strict clients accept
	// (entry.go).
	Frontmatter []byte
	// Arguments and Dependencies are the frontmatter's SEP-2076 fields as JSON, when it
	// declares them in SEP-2076's shape (PROTOCOL.md#sep-2076); nil otherwise.
	Arguments, Dependencies []byte
	// Body is SKILL.md after the closing "---" line, exactly as in the file.
	Body []byte
	// Scopes are the scopes a caller needs to see the skill (Access.Scopes), sorted and
	// distinct; nil in a public catalog. Unlisted leaves it out of every listing.
	Scopes   []string
	Unlisted bool
	// Files are every file under the skill directory, nested skills' files included,
	// SKILL.md first and then sorted by Path byte-wise. A nested skill's files are the same
	// *File values as in the nested Skill.
	Files []*File
	// Version is the skill's version when the catalog keeps history: the one it was
	// published as (or, not yet committed, will be). Kept lists, for a latest skill, its
	// kept versions newest first, its own first; it is nil for an older version.
	Version string
	Kept    []Kept
	// Source is where the skill came from when a source's (Mount), nil for the folder's.
	Source *Provenance
}

// File is one served file.
type File struct {
	// Path is relative to the catalog root, "/"-separated, so its URI is "skill://"+Path.
	Path string
	// Data is the file's bytes exactly as read, when Load kept them: for every SKILL.md
	// and every file of at most KeepBytes. A larger file's bytes are read again, by Open,
	// when they are needed, so that a catalog never holds its large files in memory.
	Data []byte
	// Exec says the file is executable (a script: mode 0755 in the folder or in git): its
	// archives carry mode 0755 for it, and pull installs it so. No other bit is kept.
	Exec bool
	// Size is the length of the file's bytes.
	Size int64
	// MIME is the content type without parameters ("text/markdown", "image/png").
	MIME string
	// Text reports whether the bytes are served as "text" (valid UTF-8 without NUL or
	// other C0 controls than tab, newline, carriage return and form feed) rather than as
	// a base64 "blob".
	Text bool
	// Digest is the SHA-256 of the bytes.
	Digest [32]byte

	// reopen opens the file again, when Data was not kept.
	reopen func() (fs.File, error)
}

// KeepBytes is the largest file (other than SKILL.md) whose bytes Load keeps in memory.
//
// Why does the build read large files twice instead of holding them? --allow-oversize
// serves skills of any size, and the build held every file, its resources/read form and
// both archives with theirs in memory until the end: build and serve took many times the
// size of the large files in RSS (BENCHMARKS.md, "Why the build reads large files twice").
// Now a larger file is hashed and checked for text as Load reads it, and read again when
// the catalog is encoded, through File.Open, which fails (ErrChanged) unless it reads the
// same size and SHA-256: a file edited during the build is an error naming it, never an
// object that contradicts its digest. EncodeWith with a directory writes each object as it
// is made, through a temporary file renamed to the object's name, and the resources/read
// forms and archives are made from readers (writeJSONString renders text in pieces cut at
// rune boundaries, byte for byte what the whole would give; archive.WriteTarGz and WriteZip
// read each file as they write it). A zip states each file's CRC-32 and compressed size
// before its data, and ours must (no data descriptors: the bytes, and so every published
// digest, must not change), so an entry over 4 MiB is read and compressed twice, once to
// count, once to write. build stages the objects beside OUT and moves them in once the
// catalog is accepted, so a refused catalog still leaves nothing. TestBuildMemory holds the
// build of four 18 MiB files under twice the largest file plus 64 MiB (it measured well
// under that); TestEncodeDirSameBytes holds the streamed index and objects to the in-memory
// ones. The costs: a large file is read up to four times (loading, its object, each
// archive), from the page cache in practice, and its zip entry is compressed twice.
// Rejected: holding the large files but writing objects as they are made (still the whole
// catalog at load); temporary files for compressed zip entries (on a tmpfs they are memory
// again).
const KeepBytes = 64 << 10

// ErrChanged is wrapped by the error of reading a file again (File.Open)
// whose bytes are no longer those Load read: it changed while the catalog was built. The
// error names the file: "compile: PATH: the file changed while the catalog was being
// built".
var ErrChanged = errors.New("the file changed while the catalog was being built")

// NewFile returns the file at path (relative to the catalog root) with bytes data, typed
// and digested as Load does.
func NewFile(path string, data []byte) *File {
	text := mediatype.IsText(data)
	return &File{Path: path, Data: data, Size: int64(len(data)), MIME: mimeType(path, text), Text: text, Digest: sha256.Sum256(data)}
}

// mimeType is the content type served for the file at p: SKILL.md is always
// catalog.SkillMDType, any other file what mediatype.Of says.
func mimeType(p string, text bool) string {
	if path.Base(p) == catalog.SkillMD {
		return catalog.SkillMDType
	}
	return mediatype.Of(p, text)
}

// Open returns a reader of f's bytes: Data, or the file read again. The reader fails with
// an error wrapping ErrChanged, at the latest when it reaches the end, unless it read
// exactly the Size bytes whose SHA-256 is Digest.
func (f *File) Open() (io.ReadCloser, error) {
	if f.reopen == nil {
		return io.NopCloser(bytes.NewReader(f.Data)), nil
	}
	file, err := f.reopen()
	if err != nil {
		return nil, fmt.Errorf("compile: %s: %w", f.Path, err)
	}
	return &checkedReader{f: f, r: io.LimitReader(file, f.Size+1), c: file, h: sha256.New()}, nil
}

// checkedReader reads a file again and checks, at its end, that it is the file Load read.
type checkedReader struct {
	f *File
	r io.Reader
	c io.Closer
	h hash.Hash
	n int64
}

func (c *checkedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if c.n > c.f.Size {
		return n, fmt.Errorf("compile: %s: %w (it is now longer)", c.f.Path, ErrChanged)
	}
	if err == io.EOF {
		var sum [32]byte
		if c.h.Sum(sum[:0]); c.n != c.f.Size || sum != c.f.Digest {
			return n, fmt.Errorf("compile: %s: %w", c.f.Path, ErrChanged)
		}
	}
	return n, err
}

func (c *checkedReader) Close() error { return c.c.Close() }

// Size returns how many distinct files c serves and their bytes together (a nested
// skill's files count once).
func (c *Catalog) Size() (files int, bytes int64) {
	seen := map[*File]bool{}
	for _, s := range c.Skills {
		for _, f := range s.Files {
			if !seen[f] {
				seen[f] = true
				files++
				bytes += f.Size
			}
		}
	}
	return files, bytes
}

// Fingerprint identifies what Encode would make of c: the SHA-256 of the trust root, of
// the path and digest of every file, in order, and of each mounted skill's provenance. Everything else in the encoded catalog
// (which directories are skills, frontmatter, MIME types, archives) is derived from those
// paths and bytes by Load and Encode, so two catalogs with equal fingerprints encode to
// equal bytes under the same code. It reads no file contents: Load has hashed them.
func (c *Catalog) Fingerprint() [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "trust root %q\n", c.TrustRoot)
	if c.Access != nil {
		fmt.Fprintf(h, "access %q\n", c.Access.Default)
	}
	seen := map[*File]bool{}
	for _, s := range c.Skills {
		fmt.Fprintf(h, "skill %q\n", s.Path)
		if p := s.Source; p != nil {
			fmt.Fprintf(h, "source %q %q %q %q %q %q\n", p.Source, p.Repository, p.Commit, p.Catalog, p.Digest, p.Path)
		}
		if c.Access != nil {
			fmt.Fprintf(h, "scopes %q unlisted %t\n", s.Scopes, s.Unlisted)
		}
		for _, f := range s.Files {
			if !seen[f] {
				seen[f] = true
				fmt.Fprintf(h, "file %q %x\n", f.Path, f.Digest)
			}
		}
	}
	if c.Versions != nil {
		c.Versions.fingerprint(h)
		for _, s := range c.Skills {
			for _, k := range s.Kept {
				fmt.Fprintf(h, "kept %q %q %q %d\n", s.Path, k.Version, k.Skill.Path, k.Published.Unix())
			}
		}
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// Versions is what a folder's git history adds to its catalog (versions.go tells how it
// is served). It is here, with Kept, Change and ChangeVersion, because Catalog and Skill
// hold them and they hold Skills: the model is one file, below both halves.
type Versions struct {
	// Keep is the policy's versions.keep: the versions kept per skill, the latest
	// included.
	Keep int
	// Versions are the older kept versions, each a skill at its version path, sorted by
	// Path. A skill nested in a version is a skill here too, as in the folder.
	Older []*Skill
	// Changes are the latest changes, newest first, at most MaxChanges.
	Changes []*Change
	// Commits is the number of commits read; Shallow and Cut say the history was cut
	// short (a shallow clone, or more than the commits read).
	Commits        int
	Shallow, Cut   bool
	Objects, Bytes int // the content-store objects and bytes the versions add (Encode)

	// private and visible are set for the catalog of one caller's view (views.go): the
	// feed leaves out what the view may not see, and, under an access policy, commit
	// names and subjects. Without them every listed skill's changes are shown.
	private bool
	visible func(scopes []string, unlisted bool) bool
}

// fingerprint writes into w everything of h that Encode renders (Catalog.Fingerprint).
func (h *Versions) fingerprint(w io.Writer) {
	fmt.Fprintf(w, "history %d %d %t %t\n", h.Keep, h.Commits, h.Shallow, h.Cut)
	for _, s := range h.Older {
		fmt.Fprintf(w, "version %q %q %q\n", s.Path, s.Version, s.Scopes)
		for _, f := range s.Files {
			fmt.Fprintf(w, "file %q %x\n", f.Path, f.Digest)
		}
	}
	for _, ch := range h.Changes {
		fmt.Fprintf(w, "change %q %q %q %q %q %d %q %q %q %q %q %q %q %q\n", ch.Path, ch.Name, ch.Moved, ch.From, ch.To, ch.Date.Unix(),
			ch.Commit, ch.Subject, ch.Added, ch.Changed, ch.Removed, ch.MovedName, ch.MovedFiles, ch.Source)
	}
}

// Kept is one entry of a latest skill's list of versions (catalog.MetaVersions).
type Kept struct {
	Version string
	// Skill is the version as served: the latest skill itself, or an older version at
	// its version path.
	Skill *Skill
	// Published is when the version was first committed; zero for a latest skill whose
	// content is not committed.
	Published time.Time
}

// Change is what one commit did to one skill: the change feed's entry.
type Change struct {
	// Path and Name are the skill's after the commit (before it, for a removal).
	Path, Name string
	// Moved is the skill's path before the commit, when the commit moved it.
	Moved string
	// From is nil for a skill the commit added, To for one it removed.
	From, To *ChangeVersion
	Date     time.Time
	// Commit is the commit's full name, Subject the first line of its message.
	Commit, Subject string
	// Added, Changed and Removed are files, relative to the skill's directory; Files
	// are every file of To (for a caller who sees the skill arrive rather than move).
	Added, Changed, Removed, Files []string
	// MovedName and MovedFiles are, for a move, the skill's name and files before it:
	// for a caller who may see the old path but not the new one, the skill left, and the
	// feed shows the move as the removal a deletion would be.
	MovedName  string
	MovedFiles []string
	// Scopes and Unlisted are what the access policy says of Path (Access.Scopes), and
	// MovedScopes and MovedUnlisted of Moved: a caller sees the change at Path only if it
	// may see the skill there, and its old path only if it may see that too.
	Scopes, MovedScopes     []string
	Unlisted, MovedUnlisted bool
	// Source is the path of the source whose history the change is of (MergeVersions),
	// "" for the folder's own.
	Source string
}

// ChangeVersion names one side of a change.
type ChangeVersion struct {
	Version string
	Digest  string // the version's manifest digest (ManifestDigest)
}
