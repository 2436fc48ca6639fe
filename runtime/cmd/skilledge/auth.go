package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/edge/auth"
)

// authHelp is the help of serve's and stdio's --auth.
const authHelp = `require a credential over HTTP, as the JSON object in ` + "`FILE`" + ` says (the auth option):
{"resource": "https://skills.example.com/mcp",
 "jwt": {"issuer": "https://auth.example.com", "jwksUri": "https://auth.example.com/jwks"},
 "access": {"teamDomain": "https://TEAM.cloudflareaccess.com", "aud": "AUD tag", "scopes": ["skills:read"]},
 "tokens": [entries that "skilledge key" prints]}
(one of jwt, access, tokens; resource, the audience of jwt's tokens, with jwt; key sets named by URL are fetched
and kept fresh by the server)`

// readAuth reads the auth option from the file path for command name; ok is false after
// saying what is wrong, naming the file.
func readAuth(name, path string, stderr io.Writer) (b []byte, cfg *auth.Config, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge %s: --auth: %v\n", name, err)
		return nil, nil, false
	}
	if cfg, err = auth.ParseConfig(b); err != nil {
		fmt.Fprintf(stderr, "skilledge %s: %s: %v\n", name, path, err)
		return nil, nil, false
	}
	return b, cfg, true
}

// cmdKey makes a static API key and prints it, and its entry of the auth option.
//
// Why does `skilledge key` print the key, and the entry, on stdout? The server never holds
// a static key, only its SHA-256 (the auth option's tokens), so the moment the key is made
// is the only one it exists in clear: it goes to stdout once, the first line, for a person
// to copy or a script to read (head -1), and the entry to add to the auth file, holding
// the digest, is the second. What to do with each goes to stderr. Rejected: writing the
// auth file (the CLI would edit a configuration it did not write, and the Worker's lives
// in wrangler.toml) and a key file (a secret left on disk).
func cmdKey(args []string, stdout, stderr io.Writer) int {
	c := newCommand("key", "skilledge key [--name NAME] [--scope SCOPE ...]\n       skilledge key --signing --out FILE",
		`Makes a new static API key for a private deployment, for CI and agents without OAuth.
It prints two lines on stdout: the key ("ske_" and 43 random characters), which is shown
this once and kept nowhere, and the entry to add to the "tokens" list of the auth file
(serve --auth FILE; on Cloudflare the SKILLEDGE_AUTH secret or SKILLEDGE_OPTIONS's auth),
which holds only the key's SHA-256, with its name and scopes. The agent sends the key as
"Authorization: Bearer KEY".

With --signing it makes an Ed25519 key pair that signs a catalog's root (build --sign
FILE): the private key goes to FILE (mode 0600, never printed), the public key to
FILE.pub, and the public key's printed form ("ed25519:" and base64) to stdout, for the
consumers' verify --trust-key and pull --trust-key. Neither file is ever replaced.`)
	name := c.fs.String("name", "", "the key's `NAME`, which names the caller in logs (default: \"key-\" and the start of its SHA-256)")
	var scopes stringList
	c.fs.Var(&scopes, "scope", "grant `SCOPE` (repeatable, or several separated by spaces), such as the scopes the catalog's access policy names")
	signingKey := c.fs.Bool("signing", false, "make a key pair that signs a catalog's root instead (with --out)")
	out := c.fs.String("out", "", "with --signing, write the private key to `FILE` (mode 0600) and the public key to FILE.pub")
	if _, code, ok := c.parse(args, 0, 0, stdout, stderr); !ok {
		return code
	}
	switch {
	case *signingKey && (*name != "" || len(scopes) > 0):
		fmt.Fprintln(stderr, "skilledge key: --name and --scope are an API key's; a signing key (--signing) has neither")
		return 2
	case *signingKey && *out == "":
		fmt.Fprintln(stderr, "skilledge key: --signing needs --out FILE: the private key is written to a file (mode 0600), never printed")
		return 2
	case !*signingKey && *out != "":
		fmt.Fprintln(stderr, "skilledge key: --out is for a signing key (--signing); an API key is printed, and kept nowhere")
		return 2
	case *signingKey:
		return keySigning(*out, stdout, stderr)
	}
	var list []string
	for _, s := range scopes {
		for _, f := range strings.Fields(s) {
			if !catalog.ValidScope(f) {
				fmt.Fprintf(stderr, "skilledge key: --scope %q is not an OAuth scope (printable ASCII, no spaces, quotes or backslashes)\n", f)
				return 2
			}
			list = append(list, f)
		}
	}
	key, b, err := auth.NewKey(*name, list)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge key: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n%s\n", key, b)
	fmt.Fprint(stderr, "skilledge: the first line is the key: give it to the agent now, it is not shown again.\n"+
		"skilledge: the second is its entry: add it to the \"tokens\" list of the auth file.\n")
	return 0
}

// keySigning makes a signing key pair: the private key to path (0600), the public key to
// path.pub, and its printed form to stdout.
func keySigning(path string, stdout, stderr io.Writer) int {
	key, err := signing.NewKey()
	if err == nil {
		err = signing.WriteKey(path, key)
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge key: %v\n", err)
		if errors.Is(err, fs.ErrExist) {
			fmt.Fprintln(stderr, "skilledge key: a key file is never replaced: choose another --out, or remove the old key once nothing signs with it")
		}
		return 1
	}
	fmt.Fprintln(stdout, signing.FormatPublic(key.Public().(ed25519.PublicKey)))
	fmt.Fprintf(stderr, "skilledge: the private key is in %s (mode 0600): keep it secret, in CI as a secret (DEPLOY.md), and sign with build --sign %s.\n"+
		"skilledge: the line above is the public key, also in %s.pub: give it to the catalog's consumers (verify --trust-key, pull --trust-key).\n", path, path, path)
	return 0
}

// registerAuth adds --auth to fs.
func registerAuth(fs *flag.FlagSet, path *string, stdio bool) {
	help := authHelp
	if stdio {
		help = "the auth option in `FILE`, as serve takes it (checked, nothing fetched): stdio asks no credential and serves a private catalog's every skill to the local process, with or without it"
	}
	fs.StringVar(path, "auth", "", help)
}
