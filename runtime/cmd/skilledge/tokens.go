package main

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// tokenEnv names the environment variable read when no --token is given: one or more
// credentials in --token's forms, separated by white space.
const tokenEnv = "SKILLEDGE_TOKEN"

// tokenUsage is --token's help, for pull, outdated and verify.
const tokenUsage = "send \"Authorization: Bearer TOKEN\" to one origin only: `TOKEN` alone to URL's origin, or ORIGIN=TOKEN to ORIGIN (repeatable; default: $" + tokenEnv + "); never written to skills.lock"

// credentials binds the tokens given by --token (or, when none is, by $SKILLEDGE_TOKEN)
// each to its origin: "ORIGIN=TOKEN" to ORIGIN, a bare TOKEN to the origin of target, the
// URL the command was given. A command given none (outdated reads every source its lock
// names) refuses a bare token: it would go to whatever origin the lock says, and a lock
// is a file anyone can add a line to.
func credentials(flags []string, target string) (verify.Credentials, error) {
	from := "--token"
	values := flags
	if len(values) == 0 {
		from, values = "$"+tokenEnv, strings.Fields(os.Getenv(tokenEnv))
	}
	creds := verify.Credentials{}
	for _, v := range values {
		origin, token := verify.SplitCredential(v)
		if origin == "" {
			if target == "" {
				return nil, fmt.Errorf("%s gives a token with no origin, and outdated reads every source %s names: bind it to one, ORIGIN=TOKEN (for example https://skills.example.com=TOKEN)", from, "skills.lock")
			}
			origin = target
		}
		if err := creds.Add(origin, token); err != nil {
			return nil, fmt.Errorf("%s: %v", from, err)
		}
	}
	return creds, nil
}

// hasToken reports whether creds holds a token for the origin of the URL u.
func hasToken(creds verify.Credentials, u string) bool {
	p, err := url.Parse(u)
	return err == nil && creds.For(p) != ""
}
