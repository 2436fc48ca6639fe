package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/runtime/internal/agents"
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
	root, era, index *string
	token            *stringList
	loopback, json   *bool
	timeout          *time.Duration
}

func addReadFlags(c *command) readFlags {
	root, loopback := addTrustFlags(c)
	token := &stringList{}
	c.fs.Var(token, "token", tokenUsage)
	return readFlags{root: root, loopback: loopback, token: token,
		timeout: c.fs.Duration("timeout", defaultTimeout, "give up after `DURATION` (e.g. 30m): a server can hold a read open"),
		json:    c.fs.Bool("json", false, "print a JSON report on stdout instead of lines"),
		index:   c.fs.String("index", "", "read only the well-known index `VERSION`: v0.2 (digests checked) or v0.1 (no digests published: nothing verified); default: v0.2, else v0.1, else MCP"),
		era:     c.fs.String("era", "", "read URL as an MCP endpoint in the protocol era `ERA`: modern (2026-07-28) or legacy (2025, initialize first); default: the well-known index, or MCP when URL ends in /mcp or has no index"),
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

// pullOptions are the options both pull and outdated read a catalog with: verify's, the
// era and the index, and the compiler to read a folder or git repository with; an error
// says which flag is wrong. target is the URL the command was given, to which a bare
// --token is bound ("" for outdated, which refuses one).
func (f readFlags) pullOptions(target string) (pull.Options, error) {
	era, err := pull.ParseEra(*f.era)
	if err != nil {
		return pull.Options{}, err
	}
	index, err := pull.ParseIndex(*f.index)
	if err != nil {
		return pull.Options{}, err
	}
	creds, err := credentials(*f.token, target)
	if err != nil {
		return pull.Options{}, err
	}
	return pull.Options{Verify: verify.Options{TrustRoot: *f.root, AllowHTTPLoopback: *f.loopback, Tokens: creds}, Era: era, Index: index, LoadFolder: loaddir.Load}, nil
}

// pullUsage is pull's help text, after its synopsis.
var pullUsage = `Installs the skills of the catalog at URL into DIR, each in DIR/NAME, and records them in
DIR/skills.lock. URL is what "skilledge verify" takes: the deployment's origin (or its
path prefix). It may also be a skills folder on this machine (a path), or a git
repository (git+URL, a URL ending in .git, or an https URL on github.com, gitlab.com,
codeberg.org or bitbucket.org; URL#REF for a branch or tag): read as "skilledge build"
reads a folder (its skills/ folder, else its root), a skill it refuses left out and
named; the lock records the commit, which pull --frozen reads again.

Without DIR, --agent NAME (repeatable) installs into that agent's skills folder: ` + agents.Names() + `
(README, "Install skills into an agent", lists each folder). With neither, pull looks
for the agents the project uses (.claude/, .cursor/, .gemini/, … in the working
directory; --user: in your home directory), installs into their folders (.agents/skills
for every agent that reads it) or, finding none, into ` + defaultSkillsDir + `, and says which it
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
name is not its folder's (nor, for a qualified one, the name it ends in). Skills that share
a name are installed in folders of the names the catalog gives them (platform-deploy:
PROTOCOL.md#index-names), skills.lock recording
each one's own name ("named"); a skill whose SKILL.md would take the name of one installed
from another source, or of a folder pull does not manage, is refused. Each skill is written to a temporary folder in DIR as it
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

A deployment that serves a signed root (PROTOCOL.md#signed-root) holds the pull to it:
signed by the key --trust-key gives, else by the key skills.lock recorded for the URL,
else (trust on first use, at the URL's first pull) by the key the root names, which is
printed and recorded; not expired; not older than the root recorded (rollback), and
naming it when it is the next; and naming every skill installed with the manifest digest
of its files. A root that fails a check refuses the pull, saying which, with nothing
written; so does a URL whose recorded key no longer signs a root.

--dry-run prints the plan instead, writing nothing: what pull would do to each skill
(install, update, keep, remove, refuse, skip) and why, having downloaded and verified
what it would; --json prints it as JSON. Its exit status is the pull's: 1 when a skill
would be refused (left as it is, or not pull's to write).

It prints a line per skill written on a terminal, then a summary naming what it
installed, updated and removed; --json prints a report instead. The exit status is 1 on
failure or when an edited skill was left as it is, 2 on bad usage.`

func cmdPull(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("pull", "skilledge pull URL [DIR] [flags], or pull --frozen [DIR]", pullUsage)
	rf := addReadFlags(c)
	var skills, paths stringList
	c.fs.Var(&skills, "skill", "pull only the skill `NAME` (an unlisted one too, looked up by name over MCP), or pin it with NAME@VERSION (a version the catalog keeps); repeatable")
	c.fs.Var(&paths, "path", "pull only the skills whose catalog path is `PREFIX` or under it, segment by segment (read over MCP); repeatable")
	frozen := c.fs.Bool("frozen", false, "install exactly what skills.lock says; fail if the catalog no longer serves it")
	maxTotal := c.fs.Int64("max-total", pull.DefaultMaxTotal>>20, "refuse, writing nothing, a pull whose selected skills hold more than `MIB` mebibytes of files")
	force := c.fs.Bool("force", false, "overwrite skills edited locally since they were pulled")
	dryRun := c.fs.Bool("dry-run", false, "print what pull would do to each skill, and why, writing nothing")
	trustKey := c.fs.String("trust-key", "", "hold the catalog to its signed root, signed by `KEY` (the publisher's public key: ed25519:… or a file holding it); default: the key skills.lock recorded, else the one the first root names")
	named, user := addAgentFlags(c, "install into")
	pos, code, ok := c.parse(args, 0, 2, stdout, stderr)
	if !ok {
		return code
	}
	source, dir, err := pullArgs(pos, *frozen)
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	ts, err := agents.Targets(dir, *named, *user, source == "")
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	opt, err := rf.pullOptions(source)
	if err == nil && *maxTotal < 1 {
		err = errors.New("--max-total must be at least 1 (MiB)")
	}
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	opt.Skills, opt.Paths, opt.Frozen, opt.Force, opt.MaxTotal, opt.DryRun = skills, paths, *frozen, *force, *maxTotal<<20, *dryRun
	if *trustKey != "" {
		if opt.TrustKey, err = signing.ReadPublic(*trustKey); err != nil {
			return c.usageError(stderr, "--trust-key: "+err.Error())
		}
	}
	if !*rf.json && verify.IsTerminal(stderr) {
		opt.Progress = stderr
	}
	sayTargets(stderr, "pull", ts)
	ctx, cancel, deadline := rf.withDeadline(ctx)
	defer cancel()
	reports, code := pullEach(ctx, source, ts, opt, deadline, stdout, stderr, *rf.json)
	if *rf.json && reports != nil {
		writeJSON(stdout, oneOrAll(reports))
	}
	return code
}

// pullEach pulls source (without one, each source its lock names) into each folder of
// ts, and returns what --json prints and the exit status: 1 when a skill was left as it
// was, or, having stopped, that of the failure.
func pullEach(ctx context.Context, source string, ts []agents.Target, opt pull.Options, deadline func(error) error, stdout, stderr io.Writer, asJSON bool) ([]any, int) {
	var reports []any
	code := 0
	for _, t := range ts {
		sources, err := pull.Sources(source, t.Dir)
		if err != nil {
			fmt.Fprintf(stderr, "skilledge pull: %v\n", err)
			return nil, 1
		}
		for _, src := range sources {
			report, refused, failed := pullInto(ctx, src, t.Dir, opt, deadline, stdout, stderr, asJSON)
			if report == nil {
				return nil, failed
			}
			if refused {
				code = 1 // the others are updated; these are not, and a script must know it
			}
			reports = append(reports, report)
		}
	}
	return reports, code
}

// pullArgs are the URL and DIR of pull URL [DIR]; with --frozen, pull [DIR] takes the
// URLs from DIR's skills.lock.
func pullArgs(pos []string, frozen bool) (source, dir string, err error) {
	switch {
	case len(pos) == 2:
		return pos[0], pos[1], nil
	case len(pos) == 1 && (strings.Contains(pos[0], "://") || !frozen):
		return pos[0], "", nil
	case len(pos) == 1 && frozen:
		return "", pos[0], nil
	case len(pos) == 0 && frozen:
		return "", "", nil
	}
	return "", "", errors.New("missing argument URL (pull --frozen [DIR] takes the URLs from DIR's skills.lock)")
}

// pullInto pulls source into dir (with opt.DryRun, plans the pull) and, unless asJSON,
// prints what it did (the plan). It returns what --json prints, and whether a skill was
// refused (left as it was); or nil and the exit status of the failure, said on stderr.
//
// Why does a dry run whose plan refuses a skill exit 1, and one the pull would fail on
// (a folder skills.lock does not name) print its plan and exit 1 too? Because a dry run
// answers what the pull would do: a script reads the status the pull would give, and a
// person the plan that explains it. Rejected: 0 for any plan made, which says nothing.
func pullInto(ctx context.Context, source, dir string, opt pull.Options, deadline func(error) error, stdout, stderr io.Writer, asJSON bool) (any, bool, int) {
	if asJSON {
		stdout = nil // the report is printed whole, after
	}
	report, refused, err := pull.Into(ctx, source, dir, opt, stdout, stderr, "skilledge pull: ")
	if err != nil {
		return nil, false, failed("pull", deadline(err), opt, source, stderr)
	}
	return report, refused, 0
}

// outdatedUsage is outdated's help text, after its synopsis.
const outdatedUsage = `Lists the skills installed in DIR by "skilledge pull" whose source now serves other bytes, or serves them no more: name, locked version and digest ->
the version and digest served now. It reads each source's index, and downloads only what
that cannot tell: a skill that changed, when the index names no versions, to read its
version; and a source read through its v0.1 index, which publishes no digests, has its
skills downloaded to compare. A skill pinned to a version (pull --skill NAME@VERSION) is
listed when the source's latest version is another, marked pinned and wanted where it is;
it alone does not make the exit status 1. Nothing is written. Without DIR, it looks at the folders of
--agent NAME, or of the agents the project uses that hold a skills.lock (as pull finds
them), else ` + defaultSkillsDir + `.
The exit status is 1 when any skill is outdated or on failure, 2 on bad usage.`

func cmdOutdated(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("outdated", "skilledge outdated [DIR] [flags]", outdatedUsage)
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
	out := []pull.Outdated{}
	for _, t := range ts {
		o, err := pull.CheckOutdated(ctx, t.Dir, opt)
		if err = deadline(err); err != nil {
			return failed("outdated", err, opt, "", stderr)
		}
		if !*rf.json {
			pull.WriteOutdated(stdout, t.Dir, o)
		}
		out = append(out, o...)
	}
	if *rf.json {
		writeJSON(stdout, map[string]any{"outdated": out})
	}
	if pull.Behind(out) {
		return 1
	}
	return 0
}

// failed says on stderr why cmd failed, and that a source asks for a credential when it
// answered 401 to a read without one, and returns the exit status: 2 on bad usage, else
// 1. source is the URL pull was given ("" for outdated, whose error names its source).
func failed(cmd string, err error, opt pull.Options, source string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "skilledge %s: %v\n", cmd, err)
	if errors.Is(err, verify.ErrUsage) {
		return 2
	}
	var se *pull.SourceError
	if errors.As(err, &se) {
		source = se.Source
	}
	switch {
	case opt.Verify.Tokens.Has(source) || !strings.Contains(err.Error(), "HTTP 401"):
	case se != nil:
		fmt.Fprintf(stderr, "skilledge %s: %s asks for a credential: pass --token %s=TOKEN or set %s to it\n", cmd, se.Origin(), se.Origin(), tokenEnv)
	default:
		fmt.Fprint(stderr, "skilledge "+cmd+": the catalog asks for a credential: pass --token or set "+tokenEnv+"\n")
	}
	return 1
}

func writeJSON(w io.Writer, v any) {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.Encode(v)
}

// oneOrAll is what --json prints of reports: the one, or the list of them.
func oneOrAll(reports []any) any {
	if len(reports) == 1 {
		return reports[0]
	}
	return reports
}
