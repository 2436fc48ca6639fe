package compile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/internal/dirfs"
)

// PolicyFile is the file at a skills folder's root that holds its settings; its access
// section is the catalog's access policy. It belongs to no skill, and is never served.
const PolicyFile = "skilledge.yaml"

// maxPolicyBytes bounds the policy file read: a policy is a few rules.
const maxPolicyBytes = 1 << 20

// MaxKeep bounds the policy's versions.keep.
const MaxKeep = 100

// Access is a catalog's access policy: who may see which skill. A catalog without one is
// public. Every caller needs the Default scopes (an authenticated caller with none of them
// is refused everything); a skill under a rule's path needs that rule's scopes as well.
//
//	access:
//	  default: [skills:read]
//	  rules:
//	    - path: finance/
//	      scopes: [skills:finance]
//	    - path: drafts/
//	      listed: false
type Access struct {
	// Default are the scopes every caller needs for any skill, sorted and distinct.
	Default []string
	// Rules in the order written.
	Rules []AccessRule
	// Broken says the policy file has problems (Load reported them): such a catalog is
	// never encoded, whatever Options.SkipInvalid says, because a policy not read as
	// written would serve skills to callers it means to keep out (ErrPolicy).
	Broken bool
}

// ErrPolicy is returned by Encode for a catalog whose access policy has problems.
var ErrPolicy = errors.New("compile: the access policy (" + PolicyFile + ") has errors: a catalog is never served under a policy that was not read as written")

// AccessRule applies to the skills whose path is Path or lies under it (whole segments).
type AccessRule struct {
	// Path is the skill path prefix, "/"-separated, without a trailing "/".
	Path string
	// Scopes are needed in addition to the default ones, sorted and distinct.
	Scopes []string
	// Unlisted leaves the skills out of every listing: they are served to whoever may see
	// them, by URI or name, but no list, index, page or completion names them.
	Unlisted bool
	// Line is where the rule starts in the policy file.
	Line int
}

// Matches reports whether the rule applies to the skill at path p.
func (r AccessRule) Matches(p string) bool {
	return p == r.Path || strings.HasPrefix(p, r.Path+"/")
}

// Scopes returns the scopes a caller needs to see the skill at path p: the default ones and
// those of every rule that applies, sorted and distinct; and whether the skill is listed.
func (a *Access) Scopes(p string) (scopes []string, listed bool) {
	scopes, listed = slices.Clone(a.Default), true
	for _, r := range a.Rules {
		if r.Matches(p) {
			scopes = append(scopes, r.Scopes...)
			listed = listed && !r.Unlisted
		}
	}
	slices.Sort(scopes)
	return slices.Compact(scopes), listed
}

func readPolicy(fsys fs.FS) ([]byte, error) {
	f, err := fsys.Open(PolicyFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is a %s, not a regular file", PolicyFile, dirfs.TypeName(fi.Mode()))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPolicyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxPolicyBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxPolicyBytes)
	}
	return b, nil
}

// policyProblem is a problem with the policy file at a line (0 for the whole file).
type policyProblem struct {
	line int
	msg  string
}

// parseAccess reads the access section of a policy file: nil and no problems when it has
// none (the catalog is public), nil and problems when it is not what this package reads.
// Every problem is reported, not just the first.
func parseAccess(b []byte) (*Access, []policyProblem) {
	d := parsePolicy(b)
	return d.access, d.problems
}

// versionsPolicy is the policy file's versions section: versions.keep, 0 when it has
// none, and versions.declassify, the skill path prefixes (without a trailing "/") whose
// earlier versions are published to whoever may see the skill today (Catalog.Declassify).
type versionsPolicy struct {
	keep       int
	declassify []string
}

// policyDoc is a policy file as read: its sections, or its problems. A file with
// problems has no sections: nothing of it is used.
type policyDoc struct {
	access   *Access
	versions versionsPolicy
	sources  []Source
	problems []policyProblem
}

// broken returns the document of a file with problems: nothing but them.
func broken(problems []policyProblem) policyDoc { return policyDoc{problems: problems} }

// parsePolicy reads a policy file: its access section as parseAccess does, its versions
// section (versions: {keep: N, declassify: [PATH…]}), zero when it has none, and its
// sources (sources.go).
func parsePolicy(b []byte) policyDoc {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return broken([]policyProblem{yamlProblem(err)})
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return policyDoc{} // an empty file
	}
	p := &policyParser{}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return broken([]policyProblem{{root.Line, "the policy file must be a mapping (access: …, versions: …, sources: …)"}})
	}
	var (
		access  *yaml.Node
		vp      versionsPolicy
		sources []Source
	)
	p.mapping(root, "the policy file", func(key string, k, v *yaml.Node) {
		switch key {
		case "access":
			access = v
		case "versions":
			vp = p.versions(v)
		case "sources":
			sources = p.sources(v)
		default:
			p.add(k.Line, fmt.Sprintf("unknown key %q: the policy file has sections access, versions and sources", key))
		}
	})
	if len(p.problems) > 0 && access == nil {
		return broken(p.problems)
	}
	if access == nil {
		return policyDoc{versions: vp, sources: sources}
	}
	a := &Access{Default: []string{}}
	if access.Kind != yaml.MappingNode {
		p.add(access.Line, "access must be a mapping with default and rules")
		return broken(p.problems)
	}
	p.mapping(access, "access", func(key string, k, v *yaml.Node) {
		switch key {
		case "default":
			a.Default = p.scopes(v, "access.default")
		case "rules":
			if v.Kind != yaml.SequenceNode {
				p.add(v.Line, "access.rules must be a list of rules (- path: …)")
				return
			}
			for i, rn := range v.Content {
				if r, ok := p.rule(rn, i); ok {
					a.Rules = append(a.Rules, r)
				}
			}
		default:
			p.add(k.Line, fmt.Sprintf("unknown key %q in access: it has default and rules", key))
		}
	})
	seen := map[string]int{}
	for _, r := range a.Rules {
		if line, ok := seen[r.Path]; ok {
			p.add(r.Line, fmt.Sprintf("a second rule for path %q (the first is on line %d): merge them into one", r.Path+"/", line))
		}
		seen[r.Path] = r.Line
	}
	if len(p.problems) > 0 {
		return broken(p.problems)
	}
	return policyDoc{access: a, versions: vp, sources: sources}
}

// versions reads the versions section: {keep: N, declassify: [PATH…]}, 1 ≤ N ≤ MaxKeep,
// each PATH a skill path prefix as a rule's path is written.
func (p *policyParser) versions(n *yaml.Node) versionsPolicy {
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, "versions must be a mapping (versions: {keep: 10})")
		return versionsPolicy{}
	}
	var vp versionsPolicy
	p.mapping(n, "versions", func(key string, k, v *yaml.Node) {
		switch key {
		case "keep":
			i, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || i < 1 || i > MaxKeep {
				p.add(v.Line, fmt.Sprintf("versions.keep must be a whole number from 1 to %d (the versions kept per skill, the latest included)", MaxKeep))
				return
			}
			vp.keep = i
		case "declassify":
			if v.Kind != yaml.SequenceNode {
				p.add(v.Line, "versions.declassify must be a list of skill paths (- tools/forecast)")
				return
			}
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
					p.add(e.Line, "versions.declassify: each entry must be a skill path such as tools/forecast")
					continue
				}
				path, msg := rulePath(e.Value)
				if msg != "" {
					p.add(e.Line, "versions.declassify "+strconv.Quote(e.Value)+": "+msg)
					continue
				}
				vp.declassify = append(vp.declassify, path)
			}
		default:
			p.add(k.Line, fmt.Sprintf("unknown key %q in versions: it has keep and declassify", key))
		}
	})
	if vp.keep == 0 && len(p.problems) == 0 {
		p.add(n.Line, "versions needs keep: the number of versions kept per skill, the latest included")
	}
	return vp
}

type policyParser struct{ problems []policyProblem }

func (p *policyParser) add(line int, msg string) {
	p.problems = append(p.problems, policyProblem{line, msg})
}

// mapping calls f for each key of the mapping n (what names it in messages), refusing
// keys that are not plain strings, repeated keys, anchors, aliases and merge keys.
func (p *policyParser) mapping(n *yaml.Node, what string, f func(key string, k, v *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" && k.Tag != "!!merge" {
			p.add(k.Line, fmt.Sprintf("a key of %s is not a string", what))
			continue
		}
		if k.Tag == "!!merge" || v.Kind == yaml.AliasNode || v.Anchor != "" {
			p.add(k.Line, fmt.Sprintf("%s: anchors, aliases and merge keys are not read in the policy file; write it out", what))
			continue
		}
		if seen[k.Value] {
			p.add(k.Line, fmt.Sprintf("key %q appears twice in %s", k.Value, what))
			continue
		}
		seen[k.Value] = true
		f(k.Value, k, v)
	}
}

// scopes reads a list of scope tokens, sorted and distinct.
func (p *policyParser) scopes(n *yaml.Node, what string) []string {
	if n.Kind != yaml.SequenceNode {
		p.add(n.Line, what+" must be a list of scopes ([skills:read])")
		return nil
	}
	out := []string{}
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
			p.add(e.Line, what+": a scope must be a string")
			continue
		}
		if !catalog.ValidScope(e.Value) {
			p.add(e.Line, fmt.Sprintf("%s: %s is not an OAuth scope (RFC 6749 §3.3: printable ASCII without spaces, quotes or backslashes)", what, strconv.Quote(e.Value)))
			continue
		}
		out = append(out, e.Value)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rule reads the i-th rule.
func (p *policyParser) rule(n *yaml.Node, i int) (AccessRule, bool) {
	what := fmt.Sprintf("access.rules[%d]", i)
	r := AccessRule{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, what+" must be a mapping (path, scopes, listed)")
		return r, false
	}
	before := len(p.problems)
	hasPath, hasEffect := false, false
	p.mapping(n, what, func(key string, k, v *yaml.Node) {
		switch key {
		case "path":
			hasPath = true
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
				p.add(v.Line, what+".path must be a string: a skill path prefix such as finance/")
				return
			}
			path, msg := rulePath(v.Value)
			if msg != "" {
				p.add(v.Line, what+".path "+strconv.Quote(v.Value)+": "+msg)
			}
			r.Path = path
		case "scopes":
			hasEffect = true
			r.Scopes = p.scopes(v, what+".scopes")
		case "listed":
			hasEffect = true
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				p.add(v.Line, what+".listed must be true or false")
				return
			}
			r.Unlisted = v.Value == "false" || v.Value == "False" || v.Value == "FALSE"
		default:
			p.add(k.Line, fmt.Sprintf("unknown key %q in %s: a rule has path, scopes and listed", key, what))
		}
	})
	if !hasPath {
		p.add(n.Line, what+" has no path")
	}
	if !hasEffect && len(p.problems) == before {
		p.add(n.Line, what+" has neither scopes nor listed: it changes nothing")
	}
	return r, len(p.problems) == before
}

// rulePath checks a rule's path: skill path segments, with or without a trailing "/",
// never empty, ".", ".." or holding a backslash; the message says what is wrong.
func rulePath(s string) (string, string) {
	p := strings.TrimSuffix(s, "/")
	if p == "" {
		return "", "empty: a rule for every skill is access.default"
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return "", "segments must be directory names, not empty, . or .."
		case strings.ContainsAny(seg, "\\\x00*?[]"):
			return "", "a path is a plain prefix of skill paths: no backslashes or patterns"
		}
	}
	return p, ""
}

// yamlProblem turns a yaml.v3 error into a problem at its line, when it says one.
func yamlProblem(err error) policyProblem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(n); err == nil {
				return policyProblem{line, "not valid YAML: " + tail}
			}
		}
	}
	return policyProblem{0, "not valid YAML: " + msg}
}
