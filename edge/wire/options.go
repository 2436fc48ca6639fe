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

// DefaultPageSize is Options.PageSize when unset. A stock client stops after a number of
// pages (64 for the TypeScript SDK's list calls by default): 2000 lets it list the 100,000
// files a Worker's assets can hold in 50 pages, and keeps a page of resources/list under
// about a megabyte (RATIONALE: "Why pages of 2000, bounded at 4 MiB?").
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
