package main

import (
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
// each to its origin (verify.ParseCredentials); target is the URL the command was given,
// "" for outdated.
func credentials(flags []string, target string) (verify.Credentials, error) {
	if len(flags) == 0 {
		return verify.ParseCredentials(strings.Fields(os.Getenv(tokenEnv)), "$"+tokenEnv, target)
	}
	return verify.ParseCredentials(flags, "--token", target)
}
