package auth

import (
	"strings"
	"testing"
)

// TestNewKey: the entry NewKey prints is one Config reads back, which accepts the key with
// its scopes; without a name it is named by its SHA-256; Summary counts it.
func TestNewKey(t *testing.T) {
	for _, tt := range []struct {
		name, wantName string
		scopes         []string
		wantScopes     string
	}{
		{"ci", "ci", []string{"skills:write", "skills:read", "skills:read"}, "skills:read skills:write"},
		{"", "key-", nil, ""},
	} {
		key, entry, err := NewKey(tt.name, tt.scopes)
		if err != nil || !strings.HasPrefix(key, StaticPrefix) || len(key) != len(StaticPrefix)+43 {
			t.Fatalf("NewKey(%q) = %q, %v", tt.name, key, err)
		}
		cfg, err := ParseConfig([]byte(`{"tokens": [` + string(entry) + `]}`))
		if err != nil {
			t.Fatalf("%s: %v", entry, err)
		}
		g, err := CheckStatic(cfg.Tokens, key)
		if err != nil || !strings.HasPrefix(g.Subject, tt.wantName) || string(g.Scopes) != tt.wantScopes {
			t.Errorf("%s: grant %+v, %v", entry, g, err)
		}
		if s := cfg.Summary(); s != "1 static key" {
			t.Errorf("Summary() = %q", s)
		}
	}
}
