package wire

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/jsonrpc"
)

// Options configure the server: the object a host passes to the plugin's configure
// export (the Worker's SKILLEDGE_OPTIONS, serve's flags), decoded by ParseOptions and
// written by Options.JSON. The zero value is the safe local default.
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
	//
	// Why does the plugin answer only loopback hosts until `configure` says otherwise? An
	// Extism embedder calls the plugin with whatever Host its own server received, and the
	// README once called configure optional: a request with "Host: x" then got a bare 403.
	// Defaulting to any host would make every embedder that forgets the option a server
	// open to DNS rebinding, the one attack a static, read-only catalog still has to care
	// about when it runs on someone's machine; the Worker and serve set their lists
	// explicitly. So the default stays loopback-only, DEPLOY.md's step says what configure
	// is for and when it is needed, and the 403 names the option that allows a name
	// (allowHosts, allowOrigins). tests/extism runs the steps as written, both ways.
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
	// Tools and Prompts offer the catalog to hosts that speak MCP tools or prompts but not
	// the skills extension (PROTOCOL.md#fallbacks): the tools list_skills, load_skill and
	// read_skill_file, and one prompt per skill. Off by default: a client that speaks the
	// extension sees nothing new, and the capabilities are declared only when on.
	//
	// Why are the tools and prompts fallbacks off by default? A host that speaks the
	// skills extension already lists every skill; with the fallbacks on it would also see
	// four tools and a prompt per skill that say the same thing, and tool descriptions
	// are sent to the model on every turn (load_skill's names every skill, up to 8 KiB).
	// The fallbacks are for hosts that do not speak the extension, which the operator
	// knows and the server cannot tell (a client's capabilities do not say which server
	// features it uses). Without them tools/* and prompts/* are -32601.
	Tools, Prompts bool
	// ListChanged says that the host sends notifications/skills/list_changed and
	// notifications/resources/list_changed when the catalog changes (skilledge stdio
	// --watch): the capabilities then declare listChanged: true, and the modern era's
	// cacheable results carry ttlMs 0. Default false: a built catalog never changes.
	ListChanged bool
	// Auth is the auth option as it was given, a JSON object (edge/auth.ParseConfig reads
	// it): how the server tells callers apart over HTTP. Nil serves every caller alike.
	Auth []byte
}

// DefaultPageSize is Options.PageSize when unset.
//
// Why pages of 2000, bounded at 4 MiB? A stock client lists with its SDK's helpers, which
// stop after a number of pages: the TypeScript SDK v2's listResources() throws
// LIST_PAGINATION_EXCEEDED after 64 pages by default. With pages of 100 a 1,000-skill,
// 10,000-file catalog needed 101 pages and no stock client could list it. A Worker's
// assets hold at most 100,000 files (about two per distinct file), so no Worker catalog
// has more than 100,000 resources: pages of 2000 list the largest in 50 pages. A
// resources/list entry is 150 to 400 bytes (1.3 KB with a long description), so a page is
// about 0.5 MB and never 3 MB. skills/list entries vary far more (one holds every file's
// URI and digest), so every listing also ends a page before its items pass 4 MiB (edge's
// pageBudget), with at least one item per page: the offset cursor is unchanged, only where
// a page ends. Rejected: pages cut by size alone (a small catalog would come in several
// pages for no reason) and a larger count (a 100,000-file page is a 30 MB answer).
const DefaultPageSize = 2000

// Version is the skilledge release reported in serverInfo by default.
const Version = "0.1.0"

// Loopback, in Options.AllowOrigins or AllowHosts, stands for every loopback origin or
// name: what an empty list allows. It lets a list add to the local default.
const Loopback = "loopback"

// ParseOptions decodes Options from a JSON object, the form hosts pass them in (the
// plugin's configure export, the worker's environment):
//
//	{"endpoint":"/mcp", "allowOrigins":["*"], "allowHosts":["*"], "maxBody":1048576,
//	 "pageSize":2000, "instructions":"...", "name":"skilledge", "version":"0.1.0",
//	 "tools":true, "prompts":true, "listChanged":false, "auth":{…}}
//
// Every key is optional; an unknown key, a wrongly typed value or bytes that are not UTF-8
// are an error. Empty input
// gives the zero Options (edge's defaults). It uses gjson rather than encoding/json, which
// would add reflection-heavy code to the plugin for one small object.
func ParseOptions(b []byte) (Options, error) {
	var o Options
	if len(b) == 0 {
		return o, nil
	}
	if jsonrpc.TooDeep(b, jsonrpc.MaxDepth) || !gjson.ValidBytes(b) {
		return o, errors.New("options are not valid JSON")
	}
	if !utf8.Valid(b) {
		return o, errors.New("options are not valid JSON: not UTF-8")
	}
	root := gjson.ParseBytes(b)
	if !root.IsObject() {
		return o, errors.New("options must be a JSON object")
	}
	var err error
	root.ForEach(func(k, v gjson.Result) bool {
		switch key := k.String(); key {
		case "endpoint":
			o.Endpoint, err = optString(key, v)
		case "instructions":
			o.Instructions, err = optString(key, v)
		case "name":
			o.Name, err = optString(key, v)
		case "version":
			o.Version, err = optString(key, v)
		case "maxBody":
			o.MaxBody, err = optCount(key, v)
		case "pageSize":
			o.PageSize, err = optCount(key, v)
		case "allowOrigins":
			o.AllowOrigins, err = optStrings(key, v)
		case "allowHosts":
			o.AllowHosts, err = optStrings(key, v)
		case "tools":
			o.Tools, err = optBool(key, v)
		case "prompts":
			o.Prompts, err = optBool(key, v)
		case "listChanged":
			o.ListChanged, err = optBool(key, v)
		case "auth":
			if !v.IsObject() {
				err = errors.New("option auth must be an object")
			} else {
				o.Auth = []byte(v.Raw)
			}
		default:
			err = errors.New("unknown option " + k.Raw)
		}
		return err == nil
	})
	return o, err
}

func optString(key string, v gjson.Result) (string, error) {
	if v.Type != gjson.String {
		return "", errors.New("option " + key + " must be a string")
	}
	return v.Str, nil
}

func optBool(key string, v gjson.Result) (bool, error) {
	if v.Type != gjson.True && v.Type != gjson.False {
		return false, errors.New("option " + key + " must be true or false")
	}
	return v.Type == gjson.True, nil
}

func optStrings(key string, v gjson.Result) ([]string, error) {
	bad := errors.New("option " + key + " must be an array of strings")
	if !v.IsArray() {
		return nil, bad
	}
	out := []string{}
	ok := true
	v.ForEach(func(_, e gjson.Result) bool {
		ok = e.Type == gjson.String
		out = append(out, e.Str)
		return ok
	})
	if !ok {
		return nil, bad
	}
	return out, nil
}

func optCount(key string, v gjson.Result) (int, error) {
	f := v.Float()
	if v.Type != gjson.Number || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, errors.New("option " + key + " must be a non-negative integer")
	}
	return int(f), nil
}

// JSON renders o as the object ParseOptions reads, with every non-zero field (zero fields
// take the defaults), so hosts that configure a plugin never spell the keys themselves.
// ParseOptions(o.JSON()) equals o.
func (o Options) JSON() []byte {
	b := []byte{'{'}
	field := func(key string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"`+key+`":`...)
	}
	str := func(key, v string) {
		if v != "" {
			field(key)
			b = jsonrpc.AppendString(b, v)
		}
	}
	num := func(key string, v int) {
		if v != 0 {
			field(key)
			b = strconv.AppendInt(b, int64(v), 10)
		}
	}
	list := func(key string, v []string) {
		if v != nil {
			field(key)
			b = jsonrpc.AppendStrings(b, v)
		}
	}
	str("endpoint", o.Endpoint)
	list("allowOrigins", o.AllowOrigins)
	list("allowHosts", o.AllowHosts)
	num("maxBody", o.MaxBody)
	num("pageSize", o.PageSize)
	str("instructions", o.Instructions)
	str("name", o.Name)
	str("version", o.Version)
	flag := func(key string, v bool) {
		if v {
			field(key)
			b = append(b, "true"...)
		}
	}
	flag("tools", o.Tools)
	flag("prompts", o.Prompts)
	flag("listChanged", o.ListChanged)
	if o.Auth != nil {
		field("auth")
		b = append(b, o.Auth...)
	}
	return append(b, '}')
}
