// Package verify checks a skills deployment the way a DVS (Domain-Verified Skills,
// draft-zzn-dvs) client would, and cross-checks its surfaces against each other.
//
// Verify reads the deployment's well-known v0.2.0 index
// (/.well-known/agent-skills/index.json, cloudflare/agent-skills-discovery-rfc), refuses
// every skill URL that is not under the trust root, downloads every artifact (bounded),
// checks its SHA-256 against the index, unpacks archives in memory (catalog/archive, which
// refuses traversal, links, devices and bombs), and then checks that the files are
// exactly those the MCP manifest (skills/list on <base>/mcp, protocol 2026-07-28)
// announces, with the same digests and sizes. A catalog that keeps versions lists each
// skill's kept versions in the _meta of its SKILL.md in resources/list: each version's
// archive (/.well-known/agent-skills/NAME/@VERSION/VNAME.tar.gz) is downloaded and held to
// the version's manifest digest (versions.go). If the deployment also publishes the v0.1.0
// index (/.well-known/skills/index.json), its files are fetched and checked the same way.
//
// Nothing is ever written to disk, and nothing fetched is run.
//
// Why does `skilledge verify` refuse what it cannot read unambiguously? A verifier that
// normalises URLs differently from the server can be tricked (/acme%2F../evil), so a URL
// with dot segments, encoded separators, userinfo or another port is never under a trust
// root; a root on a user-generated-content platform must name a path; a self-declared
// trustRoot must contain the index declaring it, or any index could claim any publisher;
// plain http is refused except to loopback (Options.AllowHTTPLoopback). A digest mismatch
// stops that artifact's checks: bytes the index does not vouch for are not the skill, and
// unpacking them serves no one.
package verify

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/catalog/trust"
)

// Paths and identifiers of the formats Verify reads.
const (
	// IndexPath is the v0.2.0 well-known index, relative to the deployment URL.
	IndexPath = "/.well-known/agent-skills/index.json"
	// IndexV01Path is the v0.1.0 well-known index.
	IndexV01Path = "/.well-known/skills/index.json"
	// Schema is the $schema a v0.2.0 index must carry.
	Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
	// MCPPath is the MCP endpoint, relative to the deployment URL.
	MCPPath = "/mcp"
	// ProtocolVersion is the MCP revision of the skills/list requests.
	ProtocolVersion = "2026-07-28"
)

// ErrUsage is wrapped by the errors of Verify that are the caller's: a deployment URL or
// trust root that cannot be used, plain http where it is not allowed.
var ErrUsage = errors.New("verify: bad usage")

// Options configure Verify. The zero Options verify an https deployment under the trust
// root its index declares, or else the origin of its index.
type Options struct {
	// TrustRoot is the DVS trust root every skill URL must be under (trust.ParseRoot). ""
	// derives it: the top-level "trustRoot" of the v0.2.0 index if it declares one (valid,
	// and containing the index's own URL), else the origin of the index URL
	// ("https://host/"). A configured root wins: a root the index declares must then be
	// equal to it or under it, and is used instead (it is the narrower).
	TrustRoot string
	// AllowHTTPLoopback permits plain http to loopback hosts only (127.0.0.0/8, ::1,
	// localhost), for tests and local servers; it is implied when the deployment URL is
	// itself plain http on such a host, whose traffic never leaves the machine. Trust roots
	// and URLs on such hosts are then compared as if their scheme were https, so
	// "http://127.0.0.1:8080/" is a valid root holding "http://127.0.0.1:8080/x" (and,
	// harmlessly, "https://127.0.0.1:8080/x"). Plain http to any other host is refused
	// whatever this says.
	//
	// Why is plain http to a loopback deployment allowed without a flag? verify, pull and
	// outdated against a local serve needed --allow-http-loopback on every run, and the
	// refusal spoke of DVS. Plain http to a loopback host never leaves the machine: there
	// is no one on the path to read or change it. So a deployment URL that is itself
	// loopback http is read without a flag, its trust root the loopback origin, and the
	// lock records that URL as given. What the flag guarded stays closed: an https
	// deployment still cannot steer a read to a loopback http URL (a local service) unless
	// the flag says so, and plain http anywhere else is refused, in words that say what is
	// allowed. Rejected: dropping the flag (tests and mirrors serve https indexes that name
	// loopback files) and allowing any http (a network path can rewrite it).
	AllowHTTPLoopback bool
	// Client makes the requests. nil means a client with a 30-second timeout per request.
	// Verify uses a copy whose CheckRedirect is its own: at most 5 redirects, each target
	// checked against the rules of the first request (https; the same origin for the
	// indexes; under the trust root for skill files; none for the MCP endpoint).
	Client *http.Client
	// Tokens are the credentials the caller holds, each bound to its origin. The one
	// bound to the deployment's origin (its scheme, host and port), if any, is sent as
	// "Authorization: Bearer TOKEN" with every request to that origin, as an agent
	// checking a private deployment sends it: the indexes, the skill files and the MCP
	// manifest. No token is sent to another origin, nor kept on a redirect that leaves
	// the deployment's; a read of a source with no token of its own sends none.
	Tokens Credentials
	// Limits bound each skill: an archive may unpack to at most MaxEntries entries and
	// MaxBytes bytes of files, a SKILL.md or a file of the v0.1.0 index may hold at most
	// MaxBytes, and an archive download at most MaxBytes plus 1 KiB per entry and 64 KiB
	// (room for headers: an incompressible skill at the limit must still fit). Zero fields
	// mean archive.DefaultLimits (1024 entries, 16 MiB).
	Limits archive.Limits
	// Fetched, when not nil, is called by Fetch, FetchMCP and FetchVersion with each
	// skill whose files were downloaded and verified, as it is: for progress. Calls may
	// come from several goroutines, one at a time.
	Fetched func(name string, files int, bytes int64)
	// Take, when not nil, is handed by Fetch, FetchV01 and FetchMCP each skill whose files
	// were downloaded and verified, one at a time, and the skill is returned without its
	// files (Fetched.Taken): a read then holds one skill's files at a time, however many
	// it downloads. Take's first error ends the read (nothing more is downloaded) and is
	// the read's error. FetchVersion returns its one skill's files as it always does.
	Take func(Fetched) error
	// Unlisted are skill names FetchMCP looks up one by one when the listing does not
	// name them: an unlisted skill is served by name and URI though no listing names it
	// (skills/get {name} gives its SKILL.md URI, skills/get {uri} its entry, checked as a
	// listed one is). A name the server does not know is left out.
	Unlisted []string
	// TrustKey, when set, is the publisher's public key: Verify holds the deployment to
	// its signed root (checkRoot), a problem for each check that fails. Seen, when set
	// too, is the root accepted before, which the new one must follow (no rollback).
	TrustKey ed25519.PublicKey
	Seen     *signing.Seen
}

// Report is what Verify found. Problems are readable lines, each naming the skill (if
// any) and the URL concerned.
type Report struct {
	// Base is the deployment URL and IndexURL the v0.2.0 index that was read (after any
	// redirect).
	Base, IndexURL string
	// TrustRoot is the trust root the skills were checked against, and TrustRootSource
	// where it came from: "configured", "declared by the index" or "the origin of the
	// index". In loopback mode a loopback root is shown with http.
	TrustRoot, TrustRootSource string
	// Skills are the entries of the v0.2.0 index, in its order: those with a valid name
	// not taken by an earlier entry (the others are Problems).
	Skills []SkillReport
	// Problems are those that concern no single skill (the index itself, the MCP
	// manifest, skills present on one surface only).
	Problems []string
	// Notes are observations that are not failures (an absent v0.1.0 index).
	Notes []string
	// NoIndex is set when the v0.2.0 index answered 404: the deployment publishes none.
	NoIndex bool
	// Root is what the signed root said, when Options.TrustKey verified it.
	Root *RootReport
}

// SkillReport is one entry of the v0.2.0 index.
type SkillReport struct {
	Name string // the entry's name, or "skills[i]" when it has no usable name
	// Named is its SKILL.md's name where the entry names it otherwise (a qualified index
	// name, PROTOCOL.md#index-names), else "".
	Named string `json:",omitempty"`
	URL   string // the resolved artifact URL ("" if the entry has none)
	// Files is how many files the artifact holds: 1 for a SKILL.md, the regular files of
	// an archive; 0 if it could not be read.
	Files int
	// Versions is how many of its kept versions (PROTOCOL.md#versions) verified: each
	// version's archive, held to the manifest digest the MCP resources/list gives.
	Versions int
	Problems []string
}

// OK reports whether the deployment verified: no problem anywhere.
func (r *Report) OK() bool { return r.NumProblems() == 0 }

// NumProblems counts the problems of the report and of every skill.
func (r *Report) NumProblems() int {
	n := len(r.Problems)
	for _, s := range r.Skills {
		n += len(s.Problems)
	}
	return n
}

// OK reports whether the skill verified.
func (s *SkillReport) OK() bool { return len(s.Problems) == 0 }

// Verify checks the deployment at base: "https://skills.example.com", or with a path
// prefix ("https://example.com/skills"); a base that is itself the URL of the v0.2.0 index
// is taken as the deployment it belongs to.
//
// It returns an error wrapping ErrUsage, and no report, when base or Options.TrustRoot is
// unusable or base is plain http on a host that is not loopback; and ctx's error, with the report so far, when ctx ends. Everything about the
// deployment itself, unreachable included, is a problem in the report.
func Verify(ctx context.Context, base string, opt Options) (*Report, error) {
	v, err := newVerifier(base, opt)
	if err != nil {
		return nil, err
	}
	v.run(ctx)
	for _, s := range v.list {
		v.rep.Skills = append(v.rep.Skills, *s)
	}
	if err := ctx.Err(); err != nil {
		return v.rep, err
	}
	return v.rep, nil
}

// verifier holds the state of one Verify.
type verifier struct {
	opt      Options
	lim      archive.Limits
	client   *http.Client
	base     *url.URL // without a trailing "/" unless the path is empty
	token    string   // the token bound to base's origin (Options.Tokens), or ""
	takeErr  error    // Options.Take's first error
	root     trust.Root
	declared trust.Root // the valid root the v0.2.0 index declares, or the zero Root
	rep      *Report
	list     []*SkillReport         // the entries of the v0.2.0 index with a valid, unique name
	skills   map[string]*skillState // the same, by name
	mcp      map[string][]*mcpSkill // the MCP manifest by frontmatter name; nil if unread
	// want and fetched serve Fetch: want says whether an entry's artifact is fetched,
	// fetched collects the entries that verified (with their files) or were not wanted.
	want    func(Fetched) bool
	fetched []Fetched
	// versionsOK are the kept versions that verified, which checkRoot holds to the root.
	versionsOK []keptOK
}

// skillState is what the checks of one skill share.
type skillState struct {
	rep   *SkillReport
	kind  string              // "skill-md" or "archive"; "" if unknown
	files map[string]fileInfo // the artifact's files, once read and trusted
}

// fileInfo is what the surfaces say of one file.
type fileInfo struct {
	digest string // "sha256:<hex>"
	size   int64
}

// usageError is an error of the caller's; it is ErrUsage to errors.Is.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func newVerifier(base string, opt Options) (*verifier, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, usagef("the deployment URL %q is not a URL: %v", base, err)
	}
	switch {
	case u.Scheme == "" || u.Host == "":
		return nil, usagef("the deployment URL %q is not an absolute URL: write https://HOST[/PATH]", base)
	case u.User != nil:
		return nil, usagef("the deployment URL %q has userinfo: DVS identifies skills by host and path only", base)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsRune(base, '#'):
		return nil, usagef("the deployment URL %q has a query or fragment", base)
	}
	if strings.EqualFold(u.Scheme, "http") && isLoopback(u.Hostname()) {
		// A deployment on this machine: its plain http never leaves it.
		opt.AllowHTTPLoopback = true
	}
	v := &verifier{opt: opt, lim: opt.Limits, skills: make(map[string]*skillState)}
	if why := v.schemeProblem(u); why != "" {
		return nil, usagef("%s: %s", base, why)
	}
	// The URL of the index itself names its deployment.
	if p := u.EscapedPath(); strings.HasSuffix(p, IndexPath) {
		u.RawPath = ""
		u.Path = strings.TrimSuffix(u.Path, IndexPath)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	v.base = u
	v.token = opt.Tokens.For(u)
	if !sendable(v.token) { // a map made without Add
		return nil, usagef("the token for %s holds a space, a line break or another control character: give the token alone", Origin(u))
	}
	if opt.TrustRoot != "" {
		r, err := v.parseRoot(opt.TrustRoot)
		if err != nil {
			return nil, usagef("%v", err)
		}
		v.root = r
	}
	def := archive.DefaultLimits()
	if v.lim.MaxEntries <= 0 {
		v.lim.MaxEntries = def.MaxEntries
	}
	if v.lim.MaxBytes <= 0 {
		v.lim.MaxBytes = def.MaxBytes
	}
	if opt.Client != nil {
		c := *opt.Client
		v.client = &c
	} else {
		v.client = &http.Client{Timeout: 30 * time.Second}
	}
	v.client.CheckRedirect = checkRedirect
	v.rep = &Report{Base: base}
	return v, nil
}

// run performs every check, recording problems in v.rep.
func (v *verifier) run(ctx context.Context) {
	if !v.readIndex(ctx) {
		return
	}
	v.crossCheckMCP(ctx)
	if ctx.Err() != nil {
		return
	}
	v.checkVersions(ctx)
	if ctx.Err() != nil {
		return
	}
	v.checkV01(ctx)
	if ctx.Err() != nil {
		return
	}
	v.checkRoot(ctx)
}

// isLoopback reports whether host (from url.URL.Hostname) is a loopback host:
// "localhost" or an address in 127.0.0.0/8 or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// loopbackHTTP reports whether u is plain http that loopback mode lets through.
func (v *verifier) loopbackHTTP(u *url.URL) bool {
	return v.opt.AllowHTTPLoopback && strings.EqualFold(u.Scheme, "http") && isLoopback(u.Hostname())
}

// schemeProblem returns why u may not be fetched at all, or "".
func (v *verifier) schemeProblem(u *url.URL) string {
	switch {
	case strings.EqualFold(u.Scheme, "https"):
		return ""
	case v.loopbackHTTP(u):
		return ""
	case strings.EqualFold(u.Scheme, "http"):
		return "plain http is refused: skills are read over https, or over http only from this machine (127.0.0.0/8, ::1, localhost), where traffic never leaves it"
	default:
		return fmt.Sprintf("the scheme %q is not https", u.Scheme)
	}
}

// asHTTPS returns u as a string, with the scheme https if loopback mode lets it through
// as plain http: the form trust roots compare.
func (v *verifier) asHTTPS(u *url.URL) string {
	if v.loopbackHTTP(u) {
		c := *u
		c.Scheme = "https"
		return c.String()
	}
	return u.String()
}

// parseRoot parses a trust root, reading a loopback http root as https in loopback mode.
func (v *verifier) parseRoot(s string) (trust.Root, error) {
	if u, err := url.Parse(s); err == nil && v.loopbackHTTP(u) {
		c := *u
		c.Scheme = "https"
		r, err := trust.ParseRoot(c.String())
		if err != nil {
			// Say it as the user wrote it.
			return r, errors.New(strings.ReplaceAll(err.Error(), c.String(), s))
		}
		return r, nil
	}
	return trust.ParseRoot(s)
}

// showRoot renders a root as the user wrote it: with http for a loopback root in
// loopback mode.
func (v *verifier) showRoot(r trust.Root) string {
	s := r.String()
	if v.opt.AllowHTTPLoopback && isLoopback(strings.Trim(r.Host(), "[]")) {
		s = "http" + strings.TrimPrefix(s, "https")
	}
	return s
}

// outside returns why u may not be fetched as part of a skill: not https (or loopback
// http in loopback mode), or not under the trust root. "" if it may.
func (v *verifier) outside(u *url.URL) string {
	if why := v.schemeProblem(u); why != "" {
		return fmt.Sprintf("outside the trust root %s: %s", v.showRoot(v.root), why)
	}
	if why := v.root.Explain(v.asHTTPS(u)); why != "" {
		return fmt.Sprintf("outside the trust root %s: %s", v.showRoot(v.root), why)
	}
	return ""
}

// sameOrigin returns why u is not on the origin of the deployment, or "".
func (v *verifier) sameOrigin(u *url.URL) string {
	if why := v.schemeProblem(u); why != "" {
		return why
	}
	if !strings.EqualFold(u.Scheme, v.base.Scheme) || !strings.EqualFold(u.Host, v.base.Host) {
		return fmt.Sprintf("it leaves the deployment's origin %s://%s", v.base.Scheme, v.base.Host)
	}
	return ""
}

// withPath returns the deployment URL with suffix (beginning with "/") appended to its
// path.
func (v *verifier) withPath(suffix string) *url.URL {
	u := *v.base
	u.Path += suffix
	if u.RawPath != "" {
		u.RawPath += suffix
	}
	return &u
}

// skillProblem records a problem of skill s about URL at.
func (v *verifier) skillProblem(s *SkillReport, at, format string, args ...any) {
	s.Problems = append(s.Problems, line(s.Name, at, fmt.Sprintf(format, args...)))
}

// problem records a problem concerning no single skill entry of the v0.2.0 index; name
// may be "".
func (v *verifier) problem(name, at, format string, args ...any) {
	v.rep.Problems = append(v.rep.Problems, line(name, at, fmt.Sprintf(format, args...)))
}

// nameProblem records a problem of the skill called name: on its report if the v0.2.0
// index has it, else on the deployment's.
func (v *verifier) nameProblem(name, at, format string, args ...any) {
	if s, ok := v.skills[name]; ok {
		v.skillProblem(s.rep, at, format, args...)
		return
	}
	v.problem(name, at, format, args...)
}

func line(name, at, msg string) string {
	var b strings.Builder
	if name != "" {
		b.WriteString(name)
		b.WriteString(": ")
	}
	if at != "" {
		b.WriteString(at)
		b.WriteString(": ")
	}
	b.WriteString(msg)
	return b.String()
}
