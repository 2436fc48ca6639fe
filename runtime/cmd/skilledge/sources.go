package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/sources"
	"github.com/skilledge/skilledge/runtime/internal/cachedir"
	"github.com/skilledge/skilledge/runtime/serving"
)

const sourcesAbout = `A catalog can mount skills from other git repositories and remote catalogs: the
sources section of the folder's skilledge.yaml names each, at a path of its own,

  sources:
    - path: platform           # its skills are served as skill://platform/…
      git: https://git.example.com/platform/skills.git
      ref: v2.1.0              # a tag, branch or commit (default: the default branch)
      dir: skills              # the folder of the repository that holds them
    - path: public             # a deployment, or any skills server, read as pull reads it
      catalog: https://skills.example.org
      skills: [pdf]            # default: every skill it serves

The first build resolves each source to a commit (a catalog: the digest of what it read)
and writes it to DIR/sources.lock; later
builds serve those commits, so that a build of one commit of the folder is the same
catalog byte for byte. "sources update" resolves the sources named (every source when
none is) to their ref's newest commit and writes the lock; "build --frozen" refuses a lock
that does not hold the sources as configured. Credentials for a private repository come
from git's own configuration (a credential helper, an SSH key) or --source-token, never
from the URL.`

// cmdSources runs "skilledge sources update [NAME…] [--dir DIR]".
func cmdSources(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("sources", "skilledge sources update [NAME…] [--dir DIR]", sourcesAbout)
	dir := c.fs.String("dir", "skills", "the skills folder whose skilledge.yaml names the sources, `DIR`")
	var tokenFlags stringList
	c.fs.Var(&tokenFlags, "source-token", sourceTokenUsage)
	pos, code, ok := c.parse(args, 1, 1<<16, stdout, stderr)
	if !ok {
		return code
	}
	if pos[0] != "update" {
		return c.usageError(stderr, fmt.Sprintf("unknown subcommand %q: sources has update", pos[0]))
	}
	tokens, err := sourceTokens(tokenFlags)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge sources: %v\n", err)
		return 2
	}
	cat, problems, err := compile.LoadDir(*dir, compile.Options{SkipInvalid: true})
	if err != nil {
		fmt.Fprintf(stderr, "skilledge sources: %v\n", err)
		return 1
	}
	if cat.Access != nil && cat.Access.Broken {
		for _, p := range problems {
			if p.Severity == compile.Error {
				fmt.Fprintln(stderr, p)
			}
		}
		fmt.Fprintf(stderr, "skilledge sources: %s has errors: fix them first\n", compile.PolicyFile)
		return 1
	}
	if len(cat.Sources) == 0 {
		fmt.Fprintf(stderr, "skilledge sources: %s/%s mounts no sources (sources: [{path, git, ref, dir}])\n", *dir, compile.PolicyFile)
		return 1
	}
	before, err := sources.ReadLock(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge sources: %v\n", err)
		return 1
	}
	opt := sources.Options{CacheDir: cachedir.Dir("sources"), Update: pos[1:], All: len(pos) == 1, Tokens: tokens, Catalogs: serving.CatalogReader(tokens), Log: stderr}
	rs, err := sources.Resolve(ctx, *dir, cat.Sources, opt)
	if err == nil {
		err = sources.WriteLock(*dir, rs, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge sources: %v\n", err)
		return 1
	}
	for _, r := range rs {
		l, ok := before.Locked(r.Path)
		switch {
		case !ok:
			fmt.Fprintf(stdout, "%s: new -> %s\n", r.Path, r.At())
		case l.At() == r.At():
			fmt.Fprintf(stdout, "%s: %s (unchanged)\n", r.Path, r.At())
		default:
			fmt.Fprintf(stdout, "%s: %s -> %s\n", r.Path, l.At(), r.At())
		}
	}
	return 0
}
