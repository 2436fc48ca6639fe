package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// tokenEnv names the environment variable read when no --token is given: one or more
// credentials in --token's forms, separated by white space.
const tokenEnv = "SKILLEDGE_TOKEN"

// tokenUsage is --token's help, for pull, outdated and verify.
const tokenUsage = "send \"Authorization: Bearer TOKEN\" to one origin only: `TOKEN` alone to URL's origin, or ORIGIN=TOKEN to ORIGIN (repeatable; default: $" + tokenEnv + "); never written to skills.lock"

// sourceTokenEnv holds the --source-token values when none is given, separated by spaces.
const sourceTokenEnv = "SKILLEDGE_SOURCE_TOKEN"

// sourceTokenUsage is --source-token's help, for the commands that build a catalog.
const sourceTokenUsage = "give git `ORIGIN=TOKEN` for the sources (sources: in skilledge.yaml) at ORIGIN, and to no other origin: it is the\npassword of git's HTTP authentication, never written to sources.lock, the catalog or a log (repeatable; default:\n$" + sourceTokenEnv + "; without one, git's own configuration: a credential helper, an SSH key)"

// sourceTokens binds the tokens given by --source-token (or, when none is, by
// $SKILLEDGE_SOURCE_TOKEN) each to its origin; a token without one is refused.
func sourceTokens(flags []string) (map[string]string, error) {
	from := "--source-token"
	if len(flags) == 0 {
		flags, from = strings.Fields(os.Getenv(sourceTokenEnv)), "$"+sourceTokenEnv
	}
	for _, v := range flags {
		if origin, _ := verify.SplitCredential(v); origin == "" {
			return nil, fmt.Errorf("%s gives a token with no origin: bind it to the origin of the sources it is for, ORIGIN=TOKEN (for example https://git.example.com=TOKEN)", from)
		}
	}
	creds, err := verify.ParseCredentials(flags, from, "")
	if err != nil {
		return nil, err
	}
	return creds, nil
}

// credentials binds the tokens given by --token (or, when none is, by $SKILLEDGE_TOKEN)
// each to its origin (verify.ParseCredentials); target is the URL the command was given,
// "" for outdated.
func credentials(flags []string, target string) (verify.Credentials, error) {
	if len(flags) == 0 {
		return verify.ParseCredentials(strings.Fields(os.Getenv(tokenEnv)), "$"+tokenEnv, target)
	}
	return verify.ParseCredentials(flags, "--token", target)
}
