// Package edge is the skills server, independent of any host: it turns an HTTP request
// (wire.Request) or one stdio JSON-RPC message into a response, answering from a
// catalog.Pack. Every protocol decision lives here: routing, Streamable HTTP rules, both MCP
// eras, errors, Origin and Host checks, and the caching hints of the modern era. Hosts only
// move bytes (DESIGN.md).
package edge

import (
	"strconv"

	"github.com/skilledge/skilledge/catalog"
)

// Options configure a Server. The zero value is the safe local default.
type Options struct {
	// Endpoint is the MCP endpoint path. Default "/mcp".
	Endpoint string
	// AllowOrigins lists the exact origins ("https://app.example") whose browser requests
	// are accepted; "*" accepts any origin and answers CORS preflights; Loopback accepts
	// loopback origins (http://localhost, http://127.0.0.1, http://[::1], any port). Empty
	// means Loopback only.
	// Requests without an Origin header are always accepted.
	AllowOrigins []string
	// AllowHosts lists the Host header values (with or without port) this server answers
	// to; "*" accepts any; Loopback accepts loopback names. Empty means Loopback only, which
	// defeats DNS rebinding of a local server; a public deployment sets "*" or its own names.
	AllowHosts []string
	// MaxBody is the largest request body accepted, in bytes; larger gets 413. Hosts
	// pass at most MaxBody+1 bytes. Default 1 MiB.
	MaxBody int
	// PageSize is the most items per page of skills/list, resources/list,
	// resources/directory/read and prompts/list. Default DefaultPageSize. A page also
	// ends before its items pass pageBudget bytes (at least one item per page).
	PageSize int
	// Name and Version are reported as serverInfo. Defaults "skilledge" and the build version.
	Name, Version string
	// Instructions, if set, is returned as the server instructions.
	Instructions string
	// Tools and Prompts offer the catalog to hosts that speak MCP tools or prompts but
	// not the skills extension (SPEC §8): the tools list_skills, load_skill and
	// read_skill_file, and one prompt per skill. Off by default: a client that speaks the
	// extension sees nothing new, and the capabilities are declared only when on.
	Tools, Prompts bool
	// ListChanged says that the host sends notifications/skills/list_changed and
	// notifications/resources/list_changed when the catalog changes (skilledge stdio
	// --watch): the capabilities then declare listChanged: true, and the modern era's
	// cacheable results carry ttlMs 0. Default false: a built catalog never changes.
	ListChanged bool
}

// Server answers MCP and HTTP requests from one pack. It holds no per-session state and is
// safe for concurrent use.
type Server struct {
	pack *catalog.Pack
	opt  Options
	caps []byte // the capabilities object, by the options
}

// New returns a Server for pack p. p must stay valid for the Server's lifetime.
func New(p *catalog.Pack, opt Options) *Server {
	if opt.Endpoint == "" {
		opt.Endpoint = "/mcp"
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = DefaultMaxBody
	}
	if opt.PageSize <= 0 {
		opt.PageSize = DefaultPageSize
	}
	if opt.Name == "" {
		opt.Name = "skilledge"
	}
	if opt.Version == "" {
		opt.Version = Version
	}
	if opt.Instructions == "" {
		opt.Instructions = defaultInstructions(p)
	}
	return &Server{pack: p, opt: opt, caps: capabilities(opt)}
}

// DefaultPageSize is Options.PageSize when unset. A stock client stops after a number of
// pages (64 for the TypeScript SDK's list calls by default): 2000 lets it list the 100,000
// files a Worker's assets can hold in 50 pages, and keeps a page of resources/list under
// about a megabyte (RATIONALE: "Why pages of 2000?").
const DefaultPageSize = 2000

// DefaultMaxBody is Options.MaxBody when unset: 1 MiB. Hosts that cap the body they read
// before the options reach the plugin (the worker shim) use it too.
const DefaultMaxBody = 1 << 20

// Version is the skilledge release reported in serverInfo by default.
const Version = "0.1.0"

// defaultInstructions tells a client what this server is and how to use it.
func defaultInstructions(p *catalog.Pack) string {
	return "This server publishes " + strconv.Itoa(p.NumSkills()) + " Agent Skills through the MCP Skills extension (" +
		SkillsExtension + "). Call skills/list to see them, skills/get with a SKILL.md URI for one skill, " +
		"and resources/read to fetch its files; verify each file against the sha256 digest in the skill entry." +
		trustRootSentence(p.TrustRoot())
}

func trustRootSentence(root string) string {
	if root == "" {
		return ""
	}
	return " These skills are published under the trust root " + root +
		" (Domain-Verified Skills): trust only skill URLs under it."
}
