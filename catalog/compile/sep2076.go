package compile

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/internal/yamljson"
)

// The SEP-2076 frontmatter fields `arguments` and `dependencies` (PROTOCOL.md#sep-2076),
// in SEP-2076's shapes:
//
//	arguments:    [{name, description?, required?}]
//	dependencies: {tools?: [string], prompts?: [{name}], resources?: [{type: "ref/resource", uri}]}
//
// They are carried verbatim from the frontmatter into the skills/list entry and the
// skills/get {name} result, so everything a client relies on is checked here: a wrong
// type or a missing member is an error with its line, and a member SEP-2076 does not
// define is a warning (it is passed through).

// sep2076Member returns the field name of the frontmatter top as JSON when shaped (it is
// in SEP-2076's shape), nil otherwise.
func sep2076Member(top *yamljson.Value, name string, shaped bool) []byte {
	if k, ok := top.Lookup(name); ok && shaped {
		return k.Val.AppendJSON(nil)
	}
	return nil
}

// validateArguments checks the frontmatter field arguments (k).
func validateArguments(k yamljson.Key, report fieldReport) {
	if !isKind("arguments", k, yamljson.List, "a list of {name, description, required} mappings", report) {
		return
	}
	first := map[string]int{} // argument name -> index of its first use
	for i, it := range k.Val.Items {
		at := fmt.Sprintf("arguments[%d]", i)
		if !isMapping(at, it, report) {
			continue
		}
		if name, ok := requiredString(at, it, "name", report); ok {
			switch {
			case strings.TrimSpace(name) == "":
				report(Error, it.Line, at+".name: must not be blank")
			case strings.IndexFunc(name, unicode.IsControl) >= 0:
				report(Error, it.Line, fmt.Sprintf("%s.name %q: must not contain control characters", at, name))
			default:
				if j, dup := first[name]; dup {
					report(Error, keyLine(it, "name"), fmt.Sprintf("%s.name %q: arguments[%d] has the same name", at, name, j))
				} else {
					first[name] = i
				}
			}
		}
		for _, e := range it.Keys {
			switch e.Name {
			case "name":
			case "description":
				memberType(at, e, yamljson.String, report)
			case "required":
				memberType(at, e, yamljson.Bool, report)
			default:
				unknownMember(at, e, "name, description and required", report)
			}
		}
	}
}

// validateDependencies checks the frontmatter field dependencies (k).
func validateDependencies(k yamljson.Key, report fieldReport) {
	if !isKind("dependencies", k, yamljson.Map, "a mapping with tools, prompts and resources", report) {
		return
	}
	for _, d := range k.Val.Keys {
		at := "dependencies." + d.Name
		switch d.Name {
		case "tools":
			if !isKind(at, d, yamljson.List, "a list of tool names", report) {
				continue
			}
			for i, it := range d.Val.Items {
				if it.Kind == yamljson.Invalid {
					continue
				}
				item := fmt.Sprintf("%s[%d]", at, i)
				if it.Kind != yamljson.String {
					report(Error, it.Line, fmt.Sprintf("%s: must be a tool name (a string), not %s%s", item, article(it.Kind), quoteHint(it)))
				} else if strings.TrimSpace(it.Text) == "" {
					report(Error, it.Line, item+": must not be blank")
				}
			}
		case "prompts":
			if !isKind(at, d, yamljson.List, "a list of {name} mappings", report) {
				continue
			}
			for i, it := range d.Val.Items {
				item := fmt.Sprintf("%s[%d]", at, i)
				if !isMapping(item, it, report) {
					continue
				}
				if name, ok := requiredString(item, it, "name", report); ok && strings.TrimSpace(name) == "" {
					report(Error, keyLine(it, "name"), item+".name: must not be blank")
				}
				for _, e := range it.Keys {
					if e.Name != "name" {
						unknownMember(item, e, "name", report)
					}
				}
			}
		case "resources":
			if !isKind(at, d, yamljson.List, `a list of {type: "ref/resource", uri} mappings`, report) {
				continue
			}
			for i, it := range d.Val.Items {
				item := fmt.Sprintf("%s[%d]", at, i)
				if !isMapping(item, it, report) {
					continue
				}
				if typ, ok := requiredString(item, it, "type", report); ok && typ != "ref/resource" {
					report(Error, keyLine(it, "type"), fmt.Sprintf(`%s.type %q: must be "ref/resource"`, item, typ))
				}
				if uri, ok := requiredString(item, it, "uri", report); ok {
					if why := uriProblem(uri); why != "" {
						report(Error, keyLine(it, "uri"), fmt.Sprintf("%s.uri %q: %s", item, uri, why))
					}
				}
				for _, e := range it.Keys {
					if e.Name != "type" && e.Name != "uri" {
						unknownMember(item, e, "type and uri", report)
					}
				}
			}
		default:
			unknownMember("dependencies", d, "tools, prompts and resources", report)
		}
	}
}

// uriProblem returns why s cannot be the URI of a resource dependency, or "": it needs an
// RFC 3986 scheme, and a skill:// URI must be one this server could serve.
// See https://www.rfc-editor.org/rfc/rfc3986#section-3.1.
func uriProblem(s string) string {
	colon := strings.IndexByte(s, ':')
	if colon < 1 {
		return "must be an absolute URI (scheme:…)"
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "must be an absolute URI (scheme:…)"
		}
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "must not contain spaces or control characters"
	}
	if strings.EqualFold(s[:colon], "skill") {
		if _, err := catalog.ParseURI(s); err != nil {
			return "is not a usable skill:// URI: " + err.Error()
		}
	}
	return ""
}

// isKind reports whether the field k (named at) holds a value of kind want, reporting it
// if not (a value that could not be converted is reported already); what describes the
// value expected.
func isKind(at string, k yamljson.Key, want yamljson.Kind, what string, report fieldReport) bool {
	switch k.Val.Kind {
	case want:
		return true
	case yamljson.Invalid:
		return false
	}
	report(Error, k.Line, fmt.Sprintf("%s: must be %s, not %s", at, what, article(k.Val.Kind)))
	return false
}

// isMapping reports whether the list item v (named at) is a mapping, reporting it if not.
func isMapping(at string, v *yamljson.Value, report fieldReport) bool {
	switch v.Kind {
	case yamljson.Map:
		return true
	case yamljson.Invalid:
		return false
	}
	report(Error, v.Line, fmt.Sprintf("%s: must be a mapping, not %s", at, article(v.Kind)))
	return false
}

// requiredString returns the string member key of the mapping v (named at), reporting a
// missing or non-string one.
func requiredString(at string, v *yamljson.Value, key string, report fieldReport) (string, bool) {
	e, ok := v.Lookup(key)
	if !ok {
		report(Error, v.Line, fmt.Sprintf("%s: missing %q", at, key))
		return "", false
	}
	return e.Val.Text, memberType(at, e, yamljson.String, report)
}

// memberType reports whether the member e of the mapping named at has kind want,
// reporting it if it has another.
func memberType(at string, e yamljson.Key, want yamljson.Kind, report fieldReport) bool {
	switch e.Val.Kind {
	case want:
		return true
	case yamljson.Invalid:
		return false
	}
	hint := quoteHint(e.Val)
	if want == yamljson.Bool && e.Val.Kind == yamljson.String && (e.Val.Text == "true" || e.Val.Text == "false") {
		hint = fmt.Sprintf(" (write %s without quotes)", e.Val.Text)
	} else if want != yamljson.String {
		hint = ""
	}
	report(Error, e.Line, fmt.Sprintf("%s.%s: must be %s, not %s%s", at, e.Name, article(want), article(e.Val.Kind), hint))
	return false
}

// unknownMember warns about a member SEP-2076 does not define: it is passed through.
func unknownMember(at string, e yamljson.Key, known string, report fieldReport) {
	report(Warning, e.Line, fmt.Sprintf("%s: unknown key %q: passed through verbatim (SEP-2076 defines %s)", at, e.Name, known))
}

// keyLine is the line of member key of the mapping v, or v's own.
func keyLine(v *yamljson.Value, key string) int {
	if e, ok := v.Lookup(key); ok {
		return e.Line
	}
	return v.Line
}
