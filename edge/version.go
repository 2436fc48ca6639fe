package edge

// Protocol revisions. See https://modelcontextprotocol.io/specification (one page per
// revision). The legacy era negotiates with initialize; the modern era (2026-07-28) carries
// the version in every request's _meta and has no initialize.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25"
	V20260728 = "2026-07-28"
)

// legacyVersions are the initialize-era revisions, oldest first.
var legacyVersions = [...]string{V20241105, V20250326, V20250618, V20251125}

// modernVersions are the stateless revisions, oldest first.
var modernVersions = [...]string{V20260728}

// newestLegacy is answered to an initialize whose version we do not speak.
const newestLegacy = V20251125

// defaultHTTPVersion is assumed for legacy HTTP requests without MCP-Protocol-Version,
// as the 2025-06-18 transport rules require for backwards compatibility.
const defaultHTTPVersion = V20250326

func isLegacy(v string) bool {
	for _, l := range legacyVersions {
		if v == l {
			return true
		}
	}
	return false
}

func isModern(v string) bool {
	for _, m := range modernVersions {
		if v == m {
			return true
		}
	}
	return false
}

// Meta keys of the modern era.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// SkillsExtension is the extension id of the MCP Skills extension (stable v1).
const SkillsExtension = "io.modelcontextprotocol/skills"
