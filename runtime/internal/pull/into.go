package pull

import (
	"context"
	"fmt"
	"io"
)

// Into pulls source into dir (with opt.DryRun, plans the pull) and returns what a report
// of it holds, the Plan or the Result, and whether a skill was refused (left as it was);
// or the error that stopped it, having written nothing. Unless out is nil, it writes on
// out what it did (the plan, or the summary), and on log, each line after prefix, the
// skills of a folder or repository left out and those left as they were because they
// were edited; a dry run's failed check (Plan.Check) is written on log, after prefix,
// even when out is nil, and the plan is returned all the same.
func Into(ctx context.Context, source, dir string, opt Options, out, log io.Writer, prefix string) (report any, refused bool, err error) {
	p, err := MakePlan(ctx, source, dir, opt)
	if err != nil {
		return nil, false, err
	}
	defer p.Close()
	checked := p.Check()
	if opt.DryRun {
		if out != nil {
			writeLines(log, prefix, p.Skipped)
			p.WriteText(out)
		}
		if checked != nil {
			fmt.Fprintf(log, "%s%v\n", prefix, checked)
		}
		return p, p.Refused(), nil
	}
	if checked != nil {
		return nil, false, checked
	}
	res, err := p.Apply()
	if err != nil {
		return nil, false, err
	}
	if out != nil {
		writeLines(log, prefix, res.Skipped)
		fmt.Fprintln(out, res.Summary(dir))
		if r := res.Root; r != nil {
			fmt.Fprintf(log, "%sheld to the signed root of %s, sequence %d, signed by %s\n", prefix, r.Catalog, r.Sequence, r.Key)
			for _, name := range res.Unsigned {
				fmt.Fprintf(log, "%s%s is named by no root (an unlisted skill: a root is a listing): checked against the digests served only\n", prefix, name)
			}
			if res.FirstUse {
				fmt.Fprintf(log, "%sthe key was trusted on first use and recorded in %s: pin it in scripts with --trust-key %s\n", prefix, LockName, r.Key)
			}
		}
		for _, e := range res.Edited {
			fmt.Fprintf(log, "%s%s\n", prefix, e.Says(dir))
		}
	}
	return res, len(res.Edited) > 0, nil
}

// writeLines writes each of lines on w, after prefix.
func writeLines(w io.Writer, prefix string, lines []string) {
	for _, s := range lines {
		fmt.Fprintf(w, "%s%s\n", prefix, s)
	}
}
