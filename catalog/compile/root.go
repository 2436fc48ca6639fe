package compile

import (
	"crypto/ed25519"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/signing"
)

// A signed root (PROTOCOL.md#signed-root): an in-toto Statement in a DSSE envelope, signed
// with the catalog's Ed25519 key, whose subjects are the skills an index serves (each
// latest skill and each kept older version, by URI, with its ManifestDigest) and whose
// predicate says which catalog, in which sequence, issued and expiring when, after which
// root. Every index a caller may be listed from has its own: a private catalog's views
// each name only the skills they list, so that a root reveals no hidden skill, nor an
// unlisted one (read by URI, and checked against its digests only). It is served
// as the resource catalog.RootURI and at catalog.RootJSON, bytes the build prepared: the
// plugin never signs nor checks one.

// Why a root per view, naming the skills the view lists, rather than one root of the
// catalog? A root served to a caller is an answer like any other: one naming every skill
// would give each caller the URIs and digests of the skills it may not see, and one naming
// only the public skills would leave a view's own skills unsigned. A view's root is what a
// catalog built of that view's skills alone would sign, so the leak suites' rule holds of it
// (a caller's bytes are those of a catalog without what it may not see). Unlisted skills are
// in no root: naming them would list them.
//
// Why does the sequence count the roots of a view, from the roots.json of the build before,
// rather than take the time or the count of commits? A consumer checks the chain only where
// it can: the root after the one it holds must name it, which it knows only when sequences
// are consecutive; the time is not, and a count of commits skips the commits never built.
// Nothing else the build can read knows the roots served last: it cannot fetch a private
// view's root without that view's credentials, and a CI build starts from a fresh clone.
// So the publisher keeps OUT/roots.json, as it keeps the key, or, for a public catalog,
// whose one root its deployment serves, has the build read it there (--sign-previous URL,
// checked against the key); a build without either starts again at 1, which consumers that
// hold a later root refuse, as they should refuse a publisher that lost its state.
//
// Why is the issue time the build's, or $SOURCE_DATE_EPOCH, rather than the commit's? The
// expiry counts from it: a catalog signed again daily from an unchanged commit must get a
// later expiry, or freeze protection would expire every catalog that stops changing.
// $SOURCE_DATE_EPOCH, the reproducible-builds convention, makes two builds of one commit
// the same bytes where that is wanted.

// Signer signs the roots of an encoding (EncodeOptions.Sign).
type Signer struct {
	Key ed25519.PrivateKey
	// Catalog identifies the catalog (its deployment's origin, as a rule): a consumer
	// refuses a root of another catalog signed by the same key.
	Catalog string
	// Issued and Expires bound when the roots are current: a consumer refuses an expired
	// one, so that a server cannot go on serving a catalog the publisher stopped signing.
	Issued, Expires time.Time
	// Previous are the roots the build before signed (Encoded.Roots), by view: each view's
	// new root follows its previous one, one sequence on, and names its payload, so that
	// the roots of a view form a chain. A view without one starts at sequence 1.
	Previous map[string]RootInfo
}

// RootInfo is what an encoding signed of one view (Encoded.Roots), which the publisher
// keeps for the next build's Signer.Previous.
type RootInfo struct {
	// View names the index among the catalog's: "catalog" for a public catalog's, else
	// "listed" and the scope sets the view shows, each as its scopes joined by "+" ("-"
	// for none), space-separated; a private catalog's own index is named as the view of
	// every set, so that a view keeps its name, and its chain, whichever index serves it.
	View     string `json:"view"`
	Sequence uint64 `json:"sequence"`
	Payload  string `json:"payload"` // hex SHA-256 of the root's payload
}

// rootDescription describes the root's resource (catalog.RootURI).
const rootDescription = "The catalog's signed root: every skill listed here, by URI and manifest digest, signed by the publisher."

// signedRoot renders and signs the root of c, the index under way, whose change feed is
// feed (nil without history), and records it; nil when the encoding signs nothing, or c is
// a shard, the older versions (whose lookups the latest index answers first) or a view's
// unlisted skills (unsigned). The feed is a subject too, by its URI (catalog.ChangesURI)
// and the SHA-256 of its document, so that what it says of the changes is the
// publisher's word as the skills are.
func (en *encoder) signedRoot(c *Catalog, feed *feedDocs) *rootDocs {
	sg := en.sign
	if sg == nil || en.shard || en.older || en.unsigned {
		return nil
	}
	view := en.view
	switch {
	case view == "" && c.Access != nil && en.depth == 0:
		// A private catalog's own index, served to callers who see every skill: named as
		// the view of every scope set is, so that its chain goes on when a new set makes
		// that view an index of its own.
		sets := scopeSets(withOlder(c))
		view = viewKey("listed", sets, uint32(1)<<len(sets)-1)
	case view == "":
		view = "catalog"
	}
	prev := sg.Previous[view]
	r := &signing.Root{Catalog: sg.Catalog, Sequence: prev.Sequence + 1, Issued: sg.Issued, Expires: sg.Expires, Previous: prev.Payload}
	annotated := subjectNames(c)
	for _, s := range withOlder(c) {
		if s.Unlisted { // nor its versions: a root is a listing
			continue
		}
		sub := signing.Subject{
			Name:   skillURI(s),
			Digest: map[string]string{"sha256": strings.TrimPrefix(ManifestDigest(s), "sha256:")},
		}
		if n, ok := annotated[s]; ok {
			sub.Annotations = map[string]string{signing.AnnotationName: n}
		}
		r.Subjects = append(r.Subjects, sub)
	}
	if feed != nil {
		r.Subjects = append(r.Subjects, signing.Subject{Name: catalog.ChangesURI, Digest: map[string]string{"sha256": strings.TrimPrefix(feed.resource.digest, "sha256:")}})
	}
	env, payload := r.Sign(sg.Key)
	en.roots = append(en.roots, RootInfo{View: view, Sequence: r.Sequence, Payload: payload})
	return &rootDocs{
		resource: en.doc(catalog.RootURI, "application/json", env),
		http:     en.doc(catalog.RootJSON, "application/json", env),
	}
}

// rootDocs are a signed root's documents: the resource RootURI and RootJSON over HTTP.
type rootDocs struct{ resource, http *blob }

// subjectNames gives the index name of each skill of c's root (and of each older version,
// its latest's) that a reader keyed by name could take for another: one whose index name
// is not its own name, or whose name another listed skill has (signing.AnnotationName).
func subjectNames(c *Catalog) map[*Skill]string {
	count := map[string]int{}
	for _, s := range c.Skills {
		if !s.Unlisted {
			count[s.Name]++
		}
	}
	out := map[*Skill]string{}
	for _, s := range c.Skills {
		if n := c.indexName(s); n != s.Name || count[s.Name] > 1 {
			out[s] = n
		}
	}
	if c.Versions != nil {
		for v, n := range olderNames(c) {
			if n != v.Name || count[v.Name] > 1 {
				out[v] = n
			}
		}
	}
	return out
}
