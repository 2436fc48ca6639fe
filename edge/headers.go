package edge

import (
	"slices"
	"strings"

	"github.com/skilledge/skilledge/edge/wire"
)

// RequestFields are the names, in lowercase, of the request header fields the server
// reads (scanHeaders); no answer depends on any other field. The plugin gives them to its
// hosts (the raw ABI's skilledge_fields), which frame only these (wire.AppendRequestHead),
// so a new field is read here and nowhere else. TestRequestFields holds the list to
// scanHeaders and to headers.
var RequestFields = []string{"host", "origin", "accept", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name", "if-none-match", "x-forwarded-proto",
	"authorization", hdrAccessAssertion}

// hdrAccessAssertion is the field Cloudflare Access puts its assertion in (auth.Config's
// AccessHeader).
const hdrAccessAssertion = "cf-access-jwt-assertion"

// credentialFields are the RequestFields that carry credentials, read only with the auth
// option.
var credentialFields = []string{"authorization", hdrAccessAssertion}

// Fields are the request header fields a server with opt reads, in RequestFields' order:
// what the plugin asks its hosts to frame (skilledge_fields). Without the auth option no
// credential field is among them, so that no host frames a caller's token for nothing
// (and replays of public answers are not keyed by it); with an Access assertion in a field
// of its own (auth.access.header), that field stands for Cf-Access-Jwt-Assertion. opt
// passed Check.
func Fields(opt wire.Options) []string {
	if opt.Auth != nil {
		f := assertionField(opt)
		if f == hdrAccessAssertion {
			return RequestFields
		}
		out := slices.Clone(RequestFields)
		out[slices.Index(out, hdrAccessAssertion)] = f
		return out
	}
	out := make([]string, 0, len(RequestFields))
	for _, f := range RequestFields {
		if !slices.Contains(credentialFields, f) {
			out = append(out, f)
		}
	}
	return out
}

// headers are the request header fields the server reads, found in one pass over the
// header (names compared as HTTP does, ignoring ASCII case; the first of a repeated
// field wins, as with wire.Header.Get). Values alias the request. manyHosts and
// manyOrigins say Host or Origin came more than once (a value holding a comma is several
// joined, as RFC 9110 §5.3 combines repeated fields and the Fetch API does): the request
// is refused. manyCredentials says Authorization or the Access assertion came more than
// once: which credential a request carries must be one answer too.
type headers struct {
	host, origin, contentType, protocolVersion, method, name, ifNoneMatch string
	accept, forwardedProto, authorization, assertion                      string
	hasHost, hasOrigin, hasContentType, hasVersion, hasMethod, hasName    bool
	hasIfNoneMatch, hasAccept, hasForwardedProto, manyHosts, manyOrigins  bool
	hasAuthorization, hasAssertion, manyCredentials                       bool
}

// scanHeaders reads h once. The names it looks for differ in length but for Origin and
// Accept, so each field costs one length switch and at most two comparisons. assertion is
// the field an Access assertion comes in (assertionField); another than
// Cf-Access-Jwt-Assertion costs one more comparison a field.
//
// Why is a request with two `Host` or two `Origin` headers a 403? Only the first of each
// was checked, so "Origin: http://localhost" followed by "Origin: http://evil.com" was
// answered: whoever reads the second (a proxy, a framework, a log) sees another sender
// than the one we allowed. So scanHeaders counts them, and a request with more than one
// Host or Origin (or a value holding a comma, which is how the Fetch API and proxies join
// repeated fields, RFC 9110 §5.3, and how workerd hands two Host fields to the Worker) is
// refused before anything else, whatever the options allow. 403, as for a disallowed
// value: we cannot tell who the request is from, so it is forbidden, and clients get one
// kind of refusal for rebinding defences. RFC 9112 §3.2 asks a server for 400 on a
// repeated Host; Go's net/http answers that 400 itself before serve's plugin sees the
// request, so the plugin's 403 is what the Worker and hosts that pass fields through
// give. The hostile suite holds both.
func scanHeaders(h wire.Header, assertion string) headers {
	var hd headers
	custom := assertion != hdrAccessAssertion
	for _, f := range h {
		var dst *string
		var has *bool
		if custom && len(f.Name) == len(assertion) && wire.EqualFold(f.Name, assertion) {
			hd.manyCredentials = hd.manyCredentials || hd.hasAssertion
			if !hd.hasAssertion {
				hd.assertion, hd.hasAssertion = f.Value, true
			}
			continue
		}
		switch len(f.Name) {
		case len("Host"):
			dst, has = &hd.host, &hd.hasHost
			if !wire.EqualFold(f.Name, "Host") {
				continue
			}
			hd.manyHosts = hd.manyHosts || hd.hasHost || strings.IndexByte(f.Value, ',') >= 0
		case len("Origin"): // and len("Accept")
			switch {
			case wire.EqualFold(f.Name, "Origin"):
				dst, has = &hd.origin, &hd.hasOrigin
				hd.manyOrigins = hd.manyOrigins || hd.hasOrigin || strings.IndexByte(f.Value, ',') >= 0
			case wire.EqualFold(f.Name, "Accept"):
				dst, has = &hd.accept, &hd.hasAccept
			default:
				continue
			}
		case len("Content-Type"):
			dst, has = &hd.contentType, &hd.hasContentType
			if !wire.EqualFold(f.Name, "Content-Type") {
				continue
			}
		case len(hdrProtocolVersion):
			dst, has = &hd.protocolVersion, &hd.hasVersion
			if !wire.EqualFold(f.Name, hdrProtocolVersion) {
				continue
			}
		case len(hdrMethod):
			dst, has = &hd.method, &hd.hasMethod
			if !wire.EqualFold(f.Name, hdrMethod) {
				continue
			}
		case len(hdrName):
			dst, has = &hd.name, &hd.hasName
			if !wire.EqualFold(f.Name, hdrName) {
				continue
			}
		case len("If-None-Match"): // and len("Authorization")
			switch {
			case wire.EqualFold(f.Name, "If-None-Match"):
				dst, has = &hd.ifNoneMatch, &hd.hasIfNoneMatch
			case wire.EqualFold(f.Name, "Authorization"):
				dst, has = &hd.authorization, &hd.hasAuthorization
				hd.manyCredentials = hd.manyCredentials || hd.hasAuthorization
			default:
				continue
			}
		case len(hdrAccessAssertion):
			dst, has = &hd.assertion, &hd.hasAssertion
			if custom || !wire.EqualFold(f.Name, hdrAccessAssertion) {
				continue
			}
			hd.manyCredentials = hd.manyCredentials || hd.hasAssertion
		case len("X-Forwarded-Proto"):
			dst, has = &hd.forwardedProto, &hd.hasForwardedProto
			if !wire.EqualFold(f.Name, "X-Forwarded-Proto") {
				continue
			}
		default:
			continue
		}
		if !*has {
			*dst, *has = f.Value, true
		}
	}
	return hd
}
