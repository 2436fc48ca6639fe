package serving

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/versions"
	"github.com/skilledge/skilledge/runtime/internal/words"
)

// attachVersions reads the git history of the skills folder dir for c, whose policy file
// asks for versions (compile.Catalog.Keep), and gives c what it keeps
// (versions.Attach). A folder in no git work tree, or a machine without git, is served
// without history, with a warning saying so.
func attachVersions(c *compile.Catalog, dir string, strict bool) ([]compile.Problem, error) {
	ctx := context.Background()
	src, err := versions.Git(ctx, dir)
	if errors.Is(err, versions.ErrNotRepo) {
		return []compile.Problem{{Path: filepath.ToSlash(filepath.Join(dir, compile.PolicyFile)), Severity: compile.Warning,
			Msg: "versions: the folder is in no git work tree (or git is not installed), so it has no history to keep: the latest skills are served alone"}}, nil
	}
	if err != nil {
		return nil, err
	}
	problems, err := versions.Attach(ctx, c, src, dir, strict)
	if err != nil {
		return nil, fmt.Errorf("reading the history of %s: %w", dir, err)
	}
	return problems, nil
}

// VersionsLine says what a catalog's history added: versions and the commits they came
// from, and, once it is encoded, objects and bytes; and, for a history cut short, how many
// commits could be seen and why. Nothing without history.
func VersionsLine(w io.Writer, c *compile.Catalog, encoded bool) {
	h := c.Versions
	if h == nil {
		return
	}
	skills, older := 0, 0
	for _, s := range c.Skills {
		if len(s.Kept) > 1 {
			skills++
			older += len(s.Kept) - 1
		}
	}
	fmt.Fprintf(w, "skilledge: history: %s of %s kept (at most %d a skill) from %s",
		words.Plural(older, "older version"), words.Plural(skills, "skill"), h.Keep, words.Plural(h.Commits, "commit"))
	if encoded {
		fmt.Fprintf(w, "; +%s, +%s", words.Plural(h.Objects, "object"), size(h.Bytes))
	}
	fmt.Fprintln(w)
	switch {
	case h.Shallow:
		fmt.Fprintf(w, "skilledge: history: the clone is shallow (%s of its history could be read): fetch the whole history (git fetch --unshallow, or fetch-depth: 0 in a workflow) to keep older versions\n", words.Plural(h.Commits, "commit"))
	case h.Cut:
		fmt.Fprintf(w, "skilledge: history: read the newest %s only; older versions are not kept\n", words.Plural(h.Commits, "commit"))
	}
}
