package edge

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/jsonrpc"
)

func TestEra(t *testing.T) {
	const (
		pv   = `"io.modelcontextprotocol/protocolVersion"`
		caps = `"io.modelcontextprotocol/clientCapabilities"`
	)
	meta := func(members string) string { return `{"_meta":{` + members + `}}` }
	for _, tc := range []struct {
		name        string
		params      string // "" for no params
		legacy      string
		forceModern bool
		version     string
		modern      bool
		wantErr     string // substring of the -32602 message
	}{
		// Legacy: no protocol version in _meta and no modern header.
		{"no params", "", V20250326, false, V20250326, false, ""},
		{"legacy version passes through", "", V20241105, false, V20241105, false, ""},
		{"empty params", `{}`, V20251125, false, V20251125, false, ""},
		{"array params", `["_meta"]`, V20251125, false, V20251125, false, ""},
		{"params without _meta", `{"uri":"skill://a/SKILL.md"}`, V20251125, false, V20251125, false, ""},
		{"_meta with progressToken only", meta(`"progressToken":1`), V20251125, false, V20251125, false, ""},
		{"_meta with capabilities only", meta(caps + `:{}`), V20251125, false, V20251125, false, ""},
		{"empty _meta", meta(``), V20251125, false, V20251125, false, ""},
		{"_meta a string", `{"_meta":"x"}`, V20251125, false, V20251125, false, ""},
		{"_meta an array", `{"_meta":[` + pv + `]}`, V20251125, false, V20251125, false, ""},
		{"_meta null", `{"_meta":null}`, V20251125, false, V20251125, false, ""},
		{"version key outside _meta", `{` + pv + `:"2026-07-28"}`, V20251125, false, V20251125, false, ""},
		{"version key nested deeper", meta(`"x":{` + pv + `:"2026-07-28"}`), V20251125, false, V20251125, false, ""},

		// Modern: a protocol version in _meta.
		{"modern", meta(pv + `:"2026-07-28",` + caps + `:{}`), V20251125, false, V20260728, true, ""},
		{"modern, capabilities first", meta(caps + `:{"x":1},` + pv + `:"2026-07-28"`), V20250326, false, V20260728, true, ""},
		{"modern with forceModern", meta(pv + `:"2026-07-28",` + caps + `:{}`), V20250326, true, V20260728, true, ""},
		{"unsupported version is not era's business", meta(pv + `:"2099-01-01",` + caps + `:{}`), V20251125, false, "2099-01-01", true, ""},
		{"legacy version in _meta is still modern", meta(pv + `:"2025-11-25",` + caps + `:{}`), V20251125, false, V20251125, true, ""},
		{"empty version string", meta(pv + `:"",` + caps + `:{}`), V20251125, false, "", true, ""},
		{"duplicate key: first wins", meta(pv + `:"2026-07-28",` + pv + `:"x",` + caps + `:{}`), V20251125, false, V20260728, true, ""},

		// Modern requests with a malformed _meta.
		{"forceModern without params", "", V20250326, true, "", true, "params._meta is required"},
		{"forceModern with empty params", `{}`, V20250326, true, "", true, "params._meta is required"},
		{"forceModern with array params", `[]`, V20250326, true, "", true, "params._meta is required"},
		{"forceModern, _meta a string", `{"_meta":"x"}`, V20250326, true, "", true, "params._meta is required"},
		{"forceModern, _meta an array", `{"_meta":[]}`, V20250326, true, "", true, "params._meta is required"},
		{"forceModern, _meta null", `{"_meta":null}`, V20250326, true, "", true, "params._meta is required"},
		{"forceModern, _meta without version", meta(`"progressToken":1`), V20250326, true, "", true, `protocolVersion"] must be a string`},
		{"forceModern, empty _meta", meta(``), V20250326, true, "", true, `protocolVersion"] must be a string`},
		{"version a number", meta(pv + `:20260728,` + caps + `:{}`), V20251125, false, "", true, `protocolVersion"] must be a string`},
		{"version null", meta(pv + `:null,` + caps + `:{}`), V20251125, false, "", true, `protocolVersion"] must be a string`},
		{"version an object", meta(pv + `:{},` + caps + `:{}`), V20251125, false, "", true, `protocolVersion"] must be a string`},
		{"version an array", meta(pv + `:["2026-07-28"],` + caps + `:{}`), V20251125, false, "", true, `protocolVersion"] must be a string`},
		{"version true", meta(pv + `:true,` + caps + `:{}`), V20251125, false, "", true, `protocolVersion"] must be a string`},
		{"capabilities missing", meta(pv + `:"2026-07-28"`), V20251125, false, "", true, `clientCapabilities"] must be an object`},
		{"capabilities null", meta(pv + `:"2026-07-28",` + caps + `:null`), V20251125, false, "", true, `clientCapabilities"] must be an object`},
		{"capabilities an array", meta(pv + `:"2026-07-28",` + caps + `:[]`), V20251125, false, "", true, `clientCapabilities"] must be an object`},
		{"capabilities a string", meta(pv + `:"2026-07-28",` + caps + `:"{}"`), V20251125, false, "", true, `clientCapabilities"] must be an object`},
		{"capabilities true", meta(pv + `:"2026-07-28",` + caps + `:true`), V20251125, false, "", true, `clientCapabilities"] must be an object`},
		{"capabilities missing, forceModern", meta(pv + `:"2026-07-28"`), V20250326, true, "", true, `clientCapabilities"] must be an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parseMsg(t, request(1, "skills/list", tc.params))
			var c call
			c.read(&m, nil)
			version, modern, err := era(&c, tc.legacy, tc.forceModern)
			if modern != tc.modern {
				t.Errorf("modern = %v, want %v", modern, tc.modern)
			}
			if tc.wantErr != "" {
				if err == nil || err.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Message, tc.wantErr) {
					t.Fatalf("err = %v, want -32602 containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if version != tc.version {
				t.Errorf("version = %q, want %q", version, tc.version)
			}
		})
	}
}

func TestSupported(t *testing.T) {
	if err := supported(V20260728); err != nil {
		t.Fatalf("supported(%q) = %v", V20260728, err)
	}
	for _, v := range []string{"", V20241105, V20250326, V20250618, V20251125, "2026-07-29", "2026-07-28 ", "2026-7-28", `a"b\c` + "\n\x00é"} {
		err := supported(v)
		if err == nil {
			t.Errorf("supported(%q) = nil, want -32022", v)
			continue
		}
		if err.Code != codeUnsupportedVersion {
			t.Errorf("supported(%q) code %d, want %d", v, err.Code, codeUnsupportedVersion)
		}
		if !gjson.ValidBytes(err.Data) {
			t.Errorf("supported(%q) data is not valid JSON: %s", v, err.Data)
			continue
		}
		d := gjson.ParseBytes(err.Data)
		if got := d.Get("supported").Raw; got != `["2026-07-28"]` {
			t.Errorf("supported(%q) data.supported = %s", v, got)
		}
		if got := d.Get("requested"); got.Type != gjson.String || got.Str != v {
			t.Errorf("supported(%q) data.requested = %s", v, got.Raw)
		}
	}
}

// TestVersionSets checks the version predicates against the constants.
func TestVersionSets(t *testing.T) {
	for _, tc := range []struct {
		v              string
		legacy, modern bool
	}{
		{V20241105, true, false},
		{V20250326, true, false},
		{V20250618, true, false},
		{V20251125, true, false},
		{V20260728, false, true},
		{"", false, false},
		{"2025-11-26", false, false},
		{"2026-07-28\x00", false, false},
	} {
		if isLegacy(tc.v) != tc.legacy || isModern(tc.v) != tc.modern {
			t.Errorf("%q: isLegacy %v isModern %v, want %v %v", tc.v, isLegacy(tc.v), isModern(tc.v), tc.legacy, tc.modern)
		}
	}
	if !isLegacy(newestLegacy) || !isLegacy(defaultHTTPVersion) {
		t.Error("newestLegacy and defaultHTTPVersion must be legacy revisions")
	}
	if !strings.Contains(supportedModernJSON, `"`+V20260728+`"`) {
		t.Errorf("supportedModernJSON %s", supportedModernJSON)
	}
}
