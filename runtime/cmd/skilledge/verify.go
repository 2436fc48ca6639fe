package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// verifyUsage is verify's help text, after its synopsis.
const verifyUsage = `Verifies the skills deployment at URL the way a DVS (Domain-Verified Skills,
draft-zzn-dvs) client would. A DVS skill is identified by its https URL and trusted only
under a trust root, an https URL prefix such as https://skills.example.com/ or
https://github.com/ORG/: the host must match exactly and the root's path must be a
prefix of the skill's path segment by segment. A bare user-generated-content domain
(https://github.com/) is never a trust root.

verify reads URL/.well-known/agent-skills/index.json (well-known discovery v0.2.0),
refuses every skill URL outside the trust root without fetching it, downloads each
skill and checks its SHA-256 digest, unpacks archives in memory (refusing traversal,
links and bombs; the .zip served beside a .tar.gz, when there is one, must hold the same
files with the same execute bits), and checks that the files are exactly those of the MCP manifest
(skills/list at URL/mcp) and of the v0.1.0 index at URL/.well-known/skills/index.json,
if there is one. A catalog that keeps versions lists each skill's kept versions in
resources/list: verify downloads every one's archive and checks its files against the
version's manifest digest. Nothing is written to disk or run.

Plain http is refused, but to a loopback address (127.0.0.0/8, ::1, localhost), whose
traffic never leaves the machine: http://127.0.0.1:8787, a local serve, needs no flag.
--allow-http-loopback also lets an https deployment name loopback http URLs, for tests.

A private deployment (served with an auth option) answers only callers with a
credential: --token TOKEN sends "Authorization: Bearer TOKEN" with every request to
URL's origin, as an agent would (a static key from "skilledge key", or an access
token), and never to another origin; --token ORIGIN=TOKEN binds a token to ORIGIN
instead. $` + tokenEnv + ` holds the same forms, when no --token is given.

With --trust-key KEY (the public key "skilledge key --signing" printed), verify also
holds the deployment to its signed root (/.well-known/agent-skills/root.json): signed by
that key, not expired, and naming every skill verified with the manifest digest of the
files that verified. A root that fails a check fails the deployment, saying which check.

It prints one line per skill and a summary. The exit status is 1 if anything failed to
verify, 2 on bad usage.`

func cmdVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("verify", "skilledge verify URL [flags]", verifyUsage)
	root, loopback := addTrustFlags(c)
	var tokens stringList
	c.fs.Var(&tokens, "token", tokenUsage)
	trustKey := c.fs.String("trust-key", "", "hold the deployment to its signed root: the publisher's public key, `KEY` (its printed form, ed25519:…, or a file holding it)")
	pos, code, ok := c.parse(args, 1, 1, stdout, stderr)
	if !ok {
		return code
	}
	creds, err := credentials(tokens, pos[0])
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	opt := verify.Options{TrustRoot: *root, AllowHTTPLoopback: *loopback, Tokens: creds}
	if *trustKey != "" {
		if opt.TrustKey, err = signing.ReadPublic(*trustKey); err != nil {
			return c.usageError(stderr, "--trust-key: "+err.Error())
		}
	}
	rep, err := verify.Verify(ctx, pos[0], opt)
	if errors.Is(err, verify.ErrUsage) {
		fmt.Fprintf(stderr, "skilledge verify: %v\n", err)
		return 2
	}
	if rep != nil {
		rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge verify: %v\n", err)
		return 1
	}
	if !rep.OK() {
		if !creds.Has(pos[0]) && strings.Contains(strings.Join(rep.Problems, "\n"), "HTTP 401") {
			fmt.Fprint(stderr, "skilledge verify: the deployment asks for a credential: pass --token\n")
		}
		return 1
	}
	return 0
}
