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
)

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
// Why does `pull` verify every selected skill before writing any? Because a hostile or
// broken entry late in the index would otherwise leave the folder half updated: some
// skills new, one refused. So MakePlan fails on a skill that does not verify, and on a
// frozen pull the source cannot hold to its lock; Plan.Check then refuses what the folder
// does not allow (a folder the lock does not name, a local edit); only Plan.Apply swaps a
// skill into place. Rejected: swapping each skill into place as it verifies. Cost: disk
// for the selected skills at once, in their temporary folders (one skill's files in memory
// at a time), bounded by Options.MaxTotal (1 GiB by default).
//
// Why is the whole plan made before any write? Because a plan that is a value can be
// printed (pull --dry-run), read (outdated) and checked whole as well as applied.
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
	p := &Plan{Source: s.source, Dir: dir, Via: r.via, DryRun: opt.DryRun, Actions: s.plan(r), Skipped: r.skipped,
		scope: s, stage: stage, progress: opt.Progress}
	if sourceKind(s.source) == "" { // a deployment: held to its signed root, if it has one
		if err := p.holdToRoot(ctx, opt); err != nil {
			stage.cleanup()
			return nil, err
		}
	}
	return p, nil
}
