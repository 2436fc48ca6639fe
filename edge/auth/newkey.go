package auth

import (
	"encoding/json"
	"fmt"
	"strings"
)

// NewKey makes a static key for the tokens list of the configuration, for `skilledge key`:
// it returns the key (NewStaticKey), which is shown once and kept nowhere, and its entry,
// the JSON object {"name", "sha256", "scopes"} the list holds and Config reads back. The
// entry is named name, or "key-" and the first 8 hex digits of its SHA-256 when name is
// "", and grants scopes (sorted, distinct; [] for none). The plugin never calls it.
func NewKey(name string, scopes []string) (key string, entry []byte, err error) {
	k, key := NewStaticKey(name, scopes)
	e := struct {
		Name   string   `json:"name"`
		SHA256 string   `json:"sha256"`
		Scopes []string `json:"scopes"`
	}{Name: k.Name, SHA256: k.Hex(), Scopes: strings.Fields(string(k.Scopes))}
	if e.Name == "" {
		e.Name = "key-" + e.SHA256[:8]
	}
	if e.Scopes == nil {
		e.Scopes = []string{}
	}
	entry, err = json.Marshal(e)
	return key, entry, err
}

// Summary says what credentials c accepts, for a host's start-up line: "access tokens
// from ISSUER", "Cloudflare Access assertions of ISSUER" and "N static keys", those it
// accepts, joined by ", ".
func (c *Config) Summary() string {
	var kinds []string
	if c.JWT != nil {
		kinds = append(kinds, "access tokens from "+c.JWT.Issuer)
	}
	if c.Access != nil {
		kinds = append(kinds, "Cloudflare Access assertions of "+c.Access.Issuer)
	}
	switch n := len(c.Tokens); {
	case n == 1:
		kinds = append(kinds, "1 static key")
	case n > 1:
		kinds = append(kinds, fmt.Sprintf("%d static keys", n))
	}
	return strings.Join(kinds, ", ")
}
