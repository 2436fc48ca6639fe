package telemetry

import (
	"math"
	"net"
	"strconv"

	"github.com/skilledge/skilledge/runtime/front"
)

// field is one attribute of an answer: a string, or a number when str is "" and num is
// set, or a bool (flag).
type field struct {
	key   string
	str   string
	num   float64
	kind  byte // 's', 'n' (number), 'b' (true)
	isInt bool
}

// fields are the attributes of r, in the order the log line writes them (the JavaScript
// entries' logRecord), every one without a value left out. callers keeps the caller, its
// client and its address.
func fields(r *front.Record, callers bool) []field {
	out := make([]field, 0, 20)
	str := func(k, v string) {
		if v != "" {
			out = append(out, field{key: k, str: v, kind: 's'})
		}
	}
	num := func(k string, v float64, isInt bool) {
		out = append(out, field{key: k, num: v, kind: 'n', isInt: isInt})
	}
	method, path := "", ""
	if r.Request != nil {
		method, path = r.Request.Method, r.Request.URL.Path
	}
	str("http.request.method", method)
	str("url.path", path)
	num("http.response.status_code", float64(r.Status), true)
	num("http.response.body.size", float64(r.Bytes), true)
	num("http.request.body.size", float64(r.BodyBytes), true)
	num("duration_ms", math.Round(float64(r.Duration.Nanoseconds())/1e3)/1e3, false)
	f := &r.Facts
	str("skilledge.route", f.Route)
	str("mcp.method.name", f.Method)
	str("mcp.protocol.version", f.Version)
	str("skilledge.read", f.Read)
	str("skilledge.skill.path", f.Skill)
	if f.Skill != "" {
		str("skilledge.skill.name", f.SkillName())
	}
	str("mcp.resource.uri", f.URI)
	if f.Code != 0 {
		str("rpc.response.status_code", strconv.FormatInt(f.Code, 10))
	}
	str("error.type", errorType(r))
	if r.Replayed {
		out = append(out, field{key: "skilledge.replayed", kind: 'b'})
	}
	str("skilledge.failure", r.Failure)
	if callers && f.Caller != "" {
		str("user.id", f.Caller)
		str("skilledge.client_id", f.Client)
		if r.Request != nil {
			str("client.address", clientAddress(r.Request.RemoteAddr))
		}
	}
	return out
}

// errorType is the error.type of an answer: the host's own failure, else the JSON-RPC
// error code, else a 5xx status; "" for none (a 404 is an answer, not an error).
func errorType(r *front.Record) string {
	switch {
	case r.Failure != "":
		return r.Failure
	case r.Facts.Code != 0:
		return strconv.FormatInt(r.Facts.Code, 10)
	case r.Status >= 500:
		return strconv.Itoa(r.Status)
	}
	return ""
}

// clientAddress is the host of a RemoteAddr.
func clientAddress(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}
