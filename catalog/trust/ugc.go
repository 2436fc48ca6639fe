package trust

import (
	"fmt"
	"strings"
)

// ugcHosts are user-generated-content platforms: hosts where anyone may publish under a
// path of their own. draft-zzn-dvs: "Agents MUST NOT accept a bare UGC platform domain
// (e.g., https://github.com/) as a Trust Root"; it names no platforms, so this list is
// ours, short on purpose, and covers the code forges, model hubs, package registries and
// static-hosting apexes a skill is likely to be published on. A root on one of these
// hosts (or its "www." form) must be scoped to a path below "/" and below the shared
// namespaces listed with the host, where one path segment is still every user
// ("https://huggingface.co/spaces/").
//
// Hosting apexes whose subdomains are per-user (github.io, pages.dev, …) are listed too:
// their bare apex is refused, while "https://user.github.io/" is a different host, the
// user's own, and is fine.
var ugcHosts = map[string][]string{
	// Code forges and their raw-content hosts.
	"github.com":                nil,
	"gist.github.com":           nil,
	"raw.githubusercontent.com": nil,
	"gitlab.com":                nil,
	"bitbucket.org":             nil,
	"codeberg.org":              nil,
	"sourceforge.net":           {"projects", "p"},
	// Model hubs.
	"huggingface.co": {"spaces", "datasets", "models"},
	"hf.co":          {"spaces", "datasets", "models"},
	// Package registries and their CDNs.
	"npmjs.com":              {"package"},
	"registry.npmjs.org":     nil,
	"unpkg.com":              nil,
	"cdn.jsdelivr.net":       {"npm", "gh"},
	"pypi.org":               {"project", "simple"},
	"files.pythonhosted.org": nil,
	// Static hosting whose subdomains are per-user: only the apex is refused.
	"github.io":     nil,
	"gitlab.io":     nil,
	"codeberg.page": nil,
	"pages.dev":     nil,
	"netlify.app":   nil,
	"vercel.app":    nil,
}

// ugc returns why a root at host and path (lowercase host, decoded path ending in "/")
// would trust a whole user-generated-content platform, or "".
func ugc(host, path string) string {
	shared, ok := ugcHosts[host]
	if !ok {
		shared, ok = ugcHosts[strings.TrimPrefix(host, "www.")]
	}
	if !ok {
		return ""
	}
	if path == "/" {
		return fmt.Sprintf("%s hosts content from any user: a trust root there must be scoped to a path its publisher controls, such as \"https://%s/ORG/\"", host, host)
	}
	first, _, _ := strings.Cut(path[1:], "/")
	for _, s := range shared {
		if strings.EqualFold(first, s) && path == "/"+first+"/" {
			return fmt.Sprintf("%s/%s/ holds content from any user: scope the trust root to one publisher's path below it", host, first)
		}
	}
	return ""
}
