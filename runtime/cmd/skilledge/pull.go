package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skilledge/skilledge/runtime/internal/pull"
	"github.com/skilledge/skilledge/runtime/internal/pull/loaddir"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// defaultSkillsDir is where pull installs when no DIR is given: the project folder many
// agents read (README, "Install skills into an agent").
const defaultSkillsDir = ".agents/skills"

// readFlags are the flags pull and outdated share (the first two, addTrustFlags, with
// verify too).
type readFlags struct {
	root, era *string
	index     *string
	token     *stringList
	loopback  *bool
	json      *bool
	timeout   *time.Duration
}

func addReadFlags(c *command) readFlags {
	root, loopback := addTrustFlags(c)
	token := &stringList{}
	c.fs.Var(token, "token", tokenUsage)
	return readFlags{
		root:     root,
		loopback: loopback,
		token:    token,
		timeout:  c.fs.Duration("timeout", defaultTimeout, "give up after `DURATION` (e.g. 30m): a server can hold a read open"),
		json:     c.fs.Bool("json", false, "print a JSON report on stdout instead of lines"),
		index:    c.fs.String("index", "", "read only the well-known index `VERSION`: v0.2 (digests checked) or v0.1 (no digests published: nothing verified); default: v0.2, else v0.1, else MCP"),
		era:      c.fs.String("era", "", "read URL as an MCP endpoint in the protocol era `ERA`: modern (2026-07-28) or legacy (2025, initialize first); default: the well-known index, or MCP when URL ends in /mcp or has no index"),
	}
}

// defaultTimeout bounds a pull or an outdated as a whole: each request has 30 s, and a
// server can answer many pages slowly.
const defaultTimeout = 10 * time.Minute

// withDeadline is ctx bounded by --timeout, and the error to print in place of one that
// the deadline caused.
func (f readFlags) withDeadline(ctx context.Context) (context.Context, context.CancelFunc, func(error) error) {
	ctx, cancel := context.WithTimeout(ctx, *f.timeout)
	return ctx, cancel, func(err error) error {
		if err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded) {
			return fmt.Errorf("gave up after %v (--timeout): %w", *f.timeout, err)
		}
		return err
	}
}

// addTrustFlags adds --trust-root and --allow-http-loopback, the rules every read of a
// deployment holds to (verify.Options).
func addTrustFlags(c *command) (root *string, loopback *bool) {
	root = c.fs.String("trust-root", "", "check every skill URL against `ROOT`, an https URL prefix ending in \"/\" (default: the root the index declares, else the origin of URL)")
	loopback = c.fs.Bool("allow-http-loopback", false, "allow plain http to a loopback address (127.0.0.0/8, ::1, localhost) beside an https URL;\na URL that is itself on a loopback address needs no flag")
	return root, loopback
}

// eraOf maps --era to the protocol revision, or says why it cannot.
func eraOf(s string) (string, error) {
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

// indexOf checks --index.
func indexOf(s string) (string, error) {
	switch s {
	case "", pull.IndexV02, pull.IndexV01:
		return s, nil
	}
	return "", fmt.Errorf("--index %q is neither v0.2 nor v0.1", s)
}

// pullOptions are the options both pull and outdated read a catalog with: verify's, the
// era and the index; an error says which flag is wrong. target is the URL the command was
// given, to which a bare --token is bound ("" for outdated, which refuses one).
func (f readFlags) pullOptions(target string) (pull.Options, error) {
	era, err := eraOf(*f.era)
	if err != nil {
		return pull.Options{}, err
	}
	index, err := indexOf(*f.index)
	if err != nil {
		return pull.Options{}, err
	}
	creds, err := credentials(*f.token, target)
	if err != nil {
		return pull.Options{}, err
	}
	return pull.Options{Verify: verify.Options{TrustRoot: *f.root, AllowHTTPLoopback: *f.loopback, Tokens: creds}, Era: era, Index: index, LoadFolder: loaddir.Load}, nil
}

func cmdPull(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("pull", "skilledge pull URL [DIR] [flags], or pull --frozen [DIR]",
		`Installs the skills of the catalog at URL into DIR, each in DIR/NAME, and records them in
DIR/skills.lock. URL is what "skilledge verify" takes: the deployment's origin (or its
path prefix). It may also be a skills folder on this machine (a path), or a git
repository (git+URL, a URL ending in .git, or an https URL on github.com, gitlab.com,
codeberg.org or bitbucket.org; URL#REF for a branch or tag): read as "skilledge build"
reads a folder (its skills/ folder, else its root), a skill it refuses left out and
named; the lock records the commit, which pull --frozen reads again.

Without DIR, --agent NAME (repeatable) installs into that agent's skills folder: `+agentNames()+`
(README, "Install skills into an agent", lists each folder). With neither, pull looks
for the agents the project uses (.claude/, .cursor/, .gemini/, … in the working
directory; --user: in your home directory), installs into their folders (.agents/skills
for every agent that reads it) or, finding none, into `+defaultSkillsDir+`, and says which it
chose. A folder so chosen that is a symbolic link out of the project (or home) is refused.

pull reads URL/.well-known/agent-skills/index.json (well-known discovery v0.2.0) and
downloads each skill's archive (one request per skill), under the trust root as verify
does. A deployment with no v0.2.0 index is read through its v0.1.0 index
(URL/.well-known/skills/index.json, each file at /.well-known/skills/NAME/FILE), which
publishes no digests: nothing checks a skill's bytes against the publisher's, and
skills.lock records the SHA-256 of what was downloaded with "unverified": true; pull and
its summary say so. A later pull asks for each file with the ETag it was served with and
downloads nothing when the server answers 304; otherwise it downloads to compare. --index v0.1 or v0.2 reads only that
index. A URL ending in /mcp, or with no index at all, or --era, is read over MCP instead:
skills/list, then resources/read of each file (8 at a time), each checked against the
digest and size the listing gives. Either way: every artifact is checked against its SHA-256 digest and unpacked in memory,
refusing traversal, links, bombs, unsafe or colliding file names and a SKILL.md whose
name is not its folder's. Each skill is written to a temporary folder in DIR as it
verifies (one skill in memory at a time), and the folders are renamed into place only
once every selected skill has verified. A pull whose skills hold more than --max-total
MiB of files is refused, writing nothing; --timeout bounds the whole pull.

--path PREFIX takes the skills whose path in the catalog is PREFIX or under it (the
well-known index names skills by name only, so the catalog is then read over MCP).
skills.lock remembers what --skill and --path asked of a URL: a later pull of it that
names neither keeps to them, and names the catalog's other skills as new, installing
none; --skill NAME adds one. A URL first pulled whole stays whole.
--skill NAME@VERSION installs a version the catalog keeps (PROTOCOL.md#versions), read
from its archive and checked against the manifest digest the MCP listing gives; a pull
leaves a pinned skill at its version until it is named again.

A second pull downloads only the skills whose digest changed, and says so. pull touches
only the skills skills.lock names: a folder it did not install is never touched, and a
skill with a file edited since the pull is left as it is (named, with the file) unless
--force, while the others are updated. A skill no longer served is removed, unless
edited. --frozen installs exactly what skills.lock says and fails, writing nothing, if
the catalog no longer serves it (for CI): a skill its source has changed since is read
from the version path of the version locked, where a catalog that keeps versions still
publishes it. pull --frozen DIR, without URL, pulls from every source skills.lock names.

It prints a line per skill written on a terminal, then a summary naming what it
installed, updated and removed; --json prints a report instead. The exit status is 1 on
failure or when an edited skill was left as it is, 2 on bad usage.`)
	rf := addReadFlags(c)
	var skills stringList
	c.fs.Var(&skills, "skill", "pull only the skill `NAME` (an unlisted one too, looked up by name over MCP), or pin it with NAME@VERSION (a version the catalog keeps); repeatable")
	var paths stringList
	c.fs.Var(&paths, "path", "pull only the skills whose catalog path is `PREFIX` or under it, segment by segment (read over MCP); repeatable")
	frozen := c.fs.Bool("frozen", false, "install exactly what skills.lock says; fail if the catalog no longer serves it")
	maxTotal := c.fs.Int64("max-total", pull.DefaultMaxTotal>>20, "refuse, writing nothing, a pull whose selected skills hold more than `MIB` mebibytes of files")
	force := c.fs.Bool("force", false, "overwrite skills edited locally since they were pulled")
	named, user := addAgentFlags(c, "install into")
	pos, code, ok := c.parse(args, 0, 2, stdout, stderr)
	if !ok {
		return code
	}
	// pull URL [DIR]; with --frozen, pull [DIR] takes the URLs from DIR's skills.lock.
	var source, dir string
	switch {
	case len(pos) == 2:
		source, dir = pos[0], pos[1]
	case len(pos) == 1 && (strings.Contains(pos[0], "://") || !*frozen):
		source = pos[0]
	case len(pos) == 1 && *frozen:
		dir = pos[0]
	case len(pos) == 0 && *frozen:
	default:
		return c.usageError(stderr, "missing argument URL (pull --frozen [DIR] takes the URLs from DIR's skills.lock)")
	}
	ts, err := targets(dir, *named, *user, source == "")
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	opt, err := rf.pullOptions(source)
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	if *maxTotal < 1 {
		return c.usageError(stderr, "--max-total must be at least 1 (MiB)")
	}
	opt.Skills, opt.Paths, opt.Frozen, opt.Force, opt.MaxTotal = skills, paths, *frozen, *force, *maxTotal<<20
	if !*rf.json && isTerminal(stderr) {
		opt.Progress = stderr
	}
	sayTargets(stderr, "pull", ts)
	ctx, cancel, deadline := rf.withDeadline(ctx)
	defer cancel()
	var results []*pull.Result
	for _, t := range ts {
		sources := []string{source}
		if source == "" {
			if sources, err = lockSources(t.dir); err != nil {
				fmt.Fprintf(stderr, "skilledge pull: %v\n", err)
				return 1
			}
		}
		for _, src := range sources {
			res, code := pullInto(ctx, src, t.dir, opt, deadline, stdout, stderr, *rf.json)
			if res == nil {
				return code
			}
			results = append(results, res)
		}
	}
	code = 0
	for _, res := range results {
		if len(res.Edited) > 0 {
			code = 1 // the others are updated; these are not, and a script must know it
		}
	}
	if *rf.json {
		if len(results) == 1 {
			writeJSON(stdout, results[0])
		} else {
			writeJSON(stdout, results)
		}
	}
	return code
}

// lockSources returns the sources dir's skills.lock names, each once, in order.
func lockSources(dir string) ([]string, error) {
	lock, err := pull.ReadLock(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range lock.Skills {
		if !slices.Contains(out, s.Source) {
			out = append(out, s.Source)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no %s naming a source: give the URL (pull URL %s)", dir, pull.LockName, dir)
	}
	return out, nil
}

// pullInto pulls source into dir and, unless asJSON, prints its summary and the skills
// left as they were; a nil Result comes with the exit status of the failure, said on
// stderr.
func pullInto(ctx context.Context, source, dir string, opt pull.Options, deadline func(error) error, stdout, stderr io.Writer, asJSON bool) (*pull.Result, int) {
	res, err := pull.Pull(ctx, source, dir, opt)
	err = deadline(err)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge pull: %v\n", err)
		if errors.Is(err, verify.ErrUsage) {
			return nil, 2
		}
		if !hasToken(opt.Verify.Tokens, source) && strings.Contains(err.Error(), "HTTP 401") {
			fmt.Fprint(stderr, "skilledge pull: the catalog asks for a credential: pass --token or set "+tokenEnv+"\n")
		}
		return nil, 1
	}
	if asJSON {
		return res, 0
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(stderr, "skilledge pull: %s\n", s)
	}
	fmt.Fprintln(stdout, pullSummary(res, dir))
	for _, e := range res.Edited {
		files := make([]string, len(e.Files))
		for i, f := range e.Files {
			files[i] = filepath.Join(dir, e.Name, filepath.FromSlash(f))
		}
		fmt.Fprintf(stderr, "skilledge pull: %s was changed locally since it was pulled (%s): left as it is; pass --force to overwrite it\n", e.Name, strings.Join(files, ", "))
	}
	return res, 0
}

// sizeOf says n bytes in the unit a person reads: bytes, KiB or MiB.
func sizeOf(n int64) string {
	switch {
	case n < 1<<10:
		return plural(int(n), "byte")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// counted is "N VERB (a, b)", or "N VERB" when names is empty.
func counted(verb string, names []string) string {
	if len(names) == 0 {
		return "0 " + verb
	}
	return fmt.Sprintf("%d %s (%s)", len(names), verb, strings.Join(names, ", "))
}

// pullSummary is the last line of a pull.
func pullSummary(r *pull.Result, dir string) string {
	elsewhere := ""
	if len(r.Elsewhere) > 0 {
		elsewhere = fmt.Sprintf("; left alone, installed from another source: %s", strings.Join(r.Elsewhere, ", "))
	}
	unverified := ""
	if r.Via == pull.ViaWellKnownV01 {
		unverified = "; the source's v0.1 index publishes no digests: nothing was verified"
		if len(r.Unverified) > 0 {
			unverified += fmt.Sprintf(" (%s, locked as downloaded, unverified)", strings.Join(r.Unverified, ", "))
		}
	}
	switch r.Via {
	case pull.ViaFolder, pull.ViaGit:
		unverified = "; read as skilledge build reads a folder: a folder or repository publishes no digests to check, so skills.lock records those of what was read"
	}
	if len(r.Edited) > 0 {
		names := make([]string, len(r.Edited))
		for i, e := range r.Edited {
			names[i] = e.Name
		}
		elsewhere += fmt.Sprintf("; %s changed locally, left as %s (%s): pull --force to overwrite", plural(len(r.Edited), "skill"), map[bool]string{true: "it is", false: "they are"}[len(r.Edited) == 1], strings.Join(names, ", "))
	}
	if len(r.New) > 0 {
		elsewhere += fmt.Sprintf("; %s in the catalog, not in this folder's selection (%s): pull --skill NAME to add one", plural(len(r.New), "new skill"), strings.Join(r.New, ", "))
	}
	if len(r.Installed)+len(r.Updated)+len(r.Removed) == 0 {
		nothing := "nothing downloaded"
		if len(r.Compared) > 0 {
			nothing = fmt.Sprintf("nothing written (%s downloaded to compare: the server answered no ETag with 304)", plural(len(r.Compared), "skill"))
		}
		return fmt.Sprintf("%s up to date in %s: %s unchanged, %s%s%s", r.Source, dir, plural(len(r.Unchanged), "skill"), nothing, elsewhere, unverified)
	}
	return fmt.Sprintf("%s into %s: %s, %s, %d unchanged, %s; %s written%s%s",
		r.Source, dir, counted("installed", r.Installed), counted("updated", r.Updated), len(r.Unchanged), counted("removed", r.Removed), sizeOf(r.Bytes), elsewhere, unverified)
}

func cmdOutdated(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("outdated", "skilledge outdated [DIR] [flags]",
		`Lists the skills installed in DIR by "skilledge pull" whose source now serves other bytes, or serves them no more: name, locked version and digest ->
the version and digest served now. It reads each source's index, and downloads only what
that cannot tell: a skill that changed, when the index names no versions, to read its
version; and a source read through its v0.1 index, which publishes no digests, has its
skills downloaded to compare. A skill pinned to a version (pull --skill NAME@VERSION) is
listed when the source's latest version is another, marked pinned and wanted where it is;
it alone does not make the exit status 1. Nothing is written. Without DIR, it looks at the folders of
--agent NAME, or of the agents the project uses that hold a skills.lock (as pull finds
them), else `+defaultSkillsDir+`.
The exit status is 1 when any skill is outdated or on failure, 2 on bad usage.`)
	rf := addReadFlags(c)
	named, user := addAgentFlags(c, "look in")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	ts, err := installedTargets(pos, named, user)
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	opt, err := rf.pullOptions("")
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	sayTargets(stderr, "outdated", ts)
	ctx, cancel, deadline := rf.withDeadline(ctx)
	defer cancel()
	var out []pull.Outdated
	for _, t := range ts {
		o, err := pull.CheckOutdated(ctx, t.dir, opt)
		if err = deadline(err); err != nil {
			return outdatedFailed(err, opt, stderr)
		}
		if !*rf.json {
			for _, o := range o {
				fmt.Fprintln(stdout, o)
			}
			if len(o) == 0 {
				fmt.Fprintf(stdout, "every skill in %s is up to date\n", t.dir)
			}
		}
		out = append(out, o...)
	}
	if *rf.json {
		if out == nil {
			out = []pull.Outdated{}
		}
		writeJSON(stdout, map[string]any{"outdated": out})
	}
	for _, o := range out {
		if !o.Pinned { // a pin behind the latest is shown, and wanted where it is
			return 1
		}
	}
	return 0
}

// outdatedFailed says why outdated failed and returns its exit status.
func outdatedFailed(err error, opt pull.Options, stderr io.Writer) int {
	fmt.Fprintf(stderr, "skilledge outdated: %v\n", err)
	if errors.Is(err, verify.ErrUsage) {
		return 2
	}
	var se *pull.SourceError
	if errors.As(err, &se) && !hasToken(opt.Verify.Tokens, se.Source) && strings.Contains(err.Error(), "HTTP 401") {
		fmt.Fprintf(stderr, "skilledge outdated: %s asks for a credential: pass --token %s=TOKEN or set %s to it\n", se.Origin(), se.Origin(), tokenEnv)
	}
	return 1
}

func writeJSON(w io.Writer, v any) {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.Encode(v)
}

// isTerminal reports whether w is a character device (a terminal), through escaping.
func isTerminal(w io.Writer) bool {
	if e, ok := w.(escaping); ok {
		w = e.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
