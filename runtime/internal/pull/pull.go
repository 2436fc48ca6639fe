// Package pull installs a catalog's skills into a folder an agent reads (skilledge pull)
// and reports which installed skills differ from their source (skilledge outdated).
//
// It reads a deployment's well-known v0.2.0 index through verify.Fetch: the index, then
// one request per skill that changed (its archive or SKILL.md), every artifact checked
// against the index's SHA-256 under the deployment's trust root and unpacked in memory by
// catalog/archive. Without one it reads the v0.1.0 index (verify.FetchV01), which
// publishes no digests: those skills are installed unverified, and locked as downloaded;
// without either, MCP (verify.FetchMCP). Each skill is written to a temporary folder in
// DIR as it verifies (verify.Options.Take: one skill's files in memory at a time, their
// total bounded by Options.MaxTotal), and the folders are renamed into place only once
// every selected skill has verified; DIR/skills.lock records what was installed. pull
// manages only the skills its lock names.
//
// A pull is a plan, checked, then applied: MakePlan reads the lock, the folder and the
// source and says what each skill becomes (Plan: install, update, keep, remove, refuse or
// skip, and why); Plan.Check refuses what the folder does not allow; Plan.Apply does every
// write. pull --dry-run prints the plan, and CheckOutdated reads its rows from one.
package pull

import (
	"context"
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
	// commit is, for a frozen pull of a git repository, the commit the lock records:
	// the repository is read at it, not at its head.
	commit string
}

// Result is what Pull did. Each list holds skill names, sorted.
type Result struct {
	Source    string   `json:"source"`
	Installed []string `json:"installed"`
	Updated   []string `json:"updated"`
	Unchanged []string `json:"unchanged"`
	Removed   []string `json:"removed"`
	// Elsewhere are skills the source serves that the lock has from another source:
	// left alone (the lock says where each skill comes from).
	Elsewhere []string `json:"elsewhere"`
	Bytes     int64    `json:"bytes"` // bytes of the files written
	// Via is how the catalog was read: ViaWellKnown (the v0.2.0 index and archives),
	// ViaWellKnownV01 (the v0.1.0 index and files) or ViaMCP (skills/list and
	// resources/read).
	Via string `json:"via"`
	// Unverified are the skills written (installed or updated) from a source that
	// published no digest (the v0.1.0 index): nothing checked their bytes against the
	// publisher's; the lock records them as downloaded (LockedSkill.Unverified).
	Unverified []string `json:"unverified"`
	// Compared are the unchanged skills downloaded only to be compared: read from a
	// v0.1.0 index, which gives no digest, from a server that did not answer 304 to the
	// ETags the lock keeps (or gave none).
	Compared []string `json:"compared"`
	// New are the skills the source serves outside the selection earlier pulls of it
	// were asked for (Lock.Selections), which a pull that names none keeps to: not
	// installed; pull --skill NAME adds one.
	New []string `json:"new"`
	// Skipped are, for a folder or git source, the loader's reasons for each skill of it
	// left out (one line a skill, "path: warning: skipped, not served: …").
	Skipped []string `json:"skipped,omitempty"`
	// Edited are the installed skills changed locally since they were pulled that this
	// pull would have replaced or removed: without Force, each is left as it is (and its
	// lock entry too) while the others are updated; the caller is to say so and fail.
	Edited []Edited `json:"edited"`
}

// Edited is a skill left alone because it was changed locally: its name and the changed
// files, relative to its folder ("." when the folder is gone).
type Edited struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

// Pull installs the skills of the deployment at source into dir (created if missing).
// It fails, writing nothing, when the deployment does not verify (the report's problems
// are in the error), when a selected skill is not served, or when a skill's folder exists
// in dir but the lock does not name it. An installed skill changed locally since it was
// pulled, which the pull would replace or remove, is left as it is without Force, and
// named in Result.Edited, while the others are updated.
func Pull(ctx context.Context, source, dir string, opt Options) (*Result, error) {
	p, err := MakePlan(ctx, source, dir, opt)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.Check(); err != nil {
		return nil, err
	}
	return p.Apply()
}

// MakePlan reads the lock of dir and the catalog at source, and plans the pull: what each
// skill the source serves, the lock names or opt pins becomes, and why. Every skill to be
// written is downloaded and verified first, each into a temporary folder of dir (with
// opt.DryRun, nowhere: its files are counted and let go). The caller checks the plan, then
// applies it, and closes it in any case.
//
// Why is the whole plan made before any write? Because a hostile or broken entry late in
// the index would otherwise leave the folder half updated, and because a plan that is a
// value can be printed (pull --dry-run) and read (outdated) as well as applied.
func MakePlan(ctx context.Context, source, dir string, opt Options) (*Plan, error) {
	s, opt, err := newScope(source, dir, opt)
	if err != nil {
		return nil, err
	}
	if opt.Progress != nil && opt.Verify.Fetched == nil {
		opt.Verify.Fetched = func(name string, files int, bytes int64) {
			fmt.Fprintf(opt.Progress, "verified %s (%d files, %d bytes)\n", name, files, bytes)
		}
	}
	stage := newStager(dir, s.source, opt.MaxTotal, opt.DryRun)
	opt.Verify.Take = stage.take
	r, err := readSource(ctx, s, opt, stage)
	if err != nil {
		stage.cleanup()
		return nil, err
	}
	return &Plan{Source: s.source, Dir: dir, Via: r.via, DryRun: opt.DryRun, Actions: s.plan(r), Skipped: r.skipped,
		scope: s, stage: stage, progress: opt.Progress}, nil
}
