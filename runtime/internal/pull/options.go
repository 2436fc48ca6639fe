package pull

import (
	"crypto/ed25519"
	"fmt"
	"io"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// ErrUsage is wrapped by errors that are the caller's (a bad URL, a bad selection).
var ErrUsage = verify.ErrUsage

// Options configure Pull.
type Options struct {
	// Verify are the options of the reads: trust root, loopback, token, limits.
	Verify verify.Options
	// Skills, when not empty, selects the skills of these names only.
	Skills []string
	// Frozen installs exactly what the lock says: only locked skills, only at their
	// locked artifact digest; a source that no longer serves it is an error, and DIR is
	// not touched.
	Frozen bool
	// Force overwrites a locally edited installed skill instead of stopping.
	Force bool
	// Paths, when not empty, selects the skills whose catalog path is one of these or
	// under one, segment by segment ("acme/billing" holds "acme/billing/refunds"); the
	// catalog is then read over MCP, which gives skills' paths.
	Paths []string
	// Era, when set, reads the catalog over MCP in that era (verify.EraModern or
	// verify.EraLegacy) at source, the MCP endpoint, rather than from its well-known index.
	Era string
	// Index, when set, reads only that well-known index: IndexV02 or IndexV01 (by
	// default the v0.2.0 index, else the v0.1.0 one, else MCP).
	Index string
	// Progress, when not nil, gets one line per skill as it is downloaded and verified,
	// and one as it is written.
	Progress io.Writer
	// MaxTotal bounds the bytes of files a pull downloads and writes, its skills
	// together (0: DefaultMaxTotal). A pull over it fails with ErrTooLarge, having
	// swapped nothing into place.
	MaxTotal int64
	// DryRun makes a plan that writes nothing: each skill downloaded is verified and
	// counted, then let go (MakePlan); Apply refuses it.
	DryRun bool
	// LoadFolder reads a source that is a skills folder or a git repository as
	// `skilledge build` does (FolderLoader); without it such a source is an error.
	LoadFolder FolderLoader
	// TrustKey, when set, pins the key a deployment's signed root must verify with
	// (holdToRoot); without it, the key skills.lock recorded for the source, else the one
	// the first root names (trust on first use).
	TrustKey ed25519.PublicKey
	// commit is, for a frozen pull of a git repository, the commit the lock records:
	// the repository is read at it, not at its head.
	commit string
}

// The values of Options.Index.
const (
	IndexV02 = "v0.2"
	IndexV01 = "v0.1"
)

// ParseEra maps a protocol era as --era names it (modern, legacy, or the revision) to the
// revision Options.Era takes.
func ParseEra(s string) (string, error) {
	switch s {
	case "":
		return "", nil
	case "modern", verify.EraModern:
		return verify.EraModern, nil
	case "legacy", verify.EraLegacy:
		return verify.EraLegacy, nil
	}
	return "", fmt.Errorf("--era %q is neither modern nor legacy", s)
}

// ParseIndex checks an index version as --index names it, for Options.Index.
func ParseIndex(s string) (string, error) {
	switch s {
	case "", IndexV02, IndexV01:
		return s, nil
	}
	return "", fmt.Errorf("--index %q is neither v0.2 nor v0.1", s)
}

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...)
}
