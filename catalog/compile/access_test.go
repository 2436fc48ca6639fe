package compile

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog"
)

// accessFolder is a skills folder with a public, a finance, a nested and a drafts skill,
// and policy as its skilledge.yaml.
func accessFolder(policy string) fstest.MapFS {
	return fstest.MapFS{
		"public/SKILL.md":               ok("public"),
		"finance/refunds/SKILL.md":      ok("refunds"),
		"finance/ledger/SKILL.md":       ok("ledger"),
		"finance/ledger/close/SKILL.md": ok("close"),
		"drafts/idea/SKILL.md":          ok("idea"),
		PolicyFile:                      {Data: []byte(policy)},
	}
}

// TestAccess: what a policy gives each skill, and every way a policy file is refused, each
// with the file and line.
func TestAccess(t *testing.T) {
	const good = `access:
  default: [skills:read]
  rules:
    - path: finance/
      scopes: [skills:finance]
    - path: drafts
      listed: false
`
	for _, c := range []struct {
		name   string
		policy string
		want   []string          // problems
		scopes map[string]string // skill path -> "scope scope" + " unlisted"
	}{
		{name: "no access section: public", policy: "# nothing yet\n", scopes: map[string]string{"public": "", "finance/refunds": ""}},
		{name: "empty file: public", policy: "", scopes: map[string]string{"public": ""}},
		{name: "default and rules", policy: good, scopes: map[string]string{
			"public": "skills:read", "finance/refunds": "skills:finance skills:read", "finance/ledger/close": "skills:finance skills:read",
			"drafts/idea": "skills:read unlisted"}},
		{name: "default alone", policy: "access:\n  default: [b, a, b]\n", scopes: map[string]string{"public": "a b", "drafts/idea": "a b"}},
		{name: "an empty default: any valid credential", policy: "access:\n  default: []\n", scopes: map[string]string{"public": ""}},
		{name: "a rule for one skill", policy: "access:\n  rules:\n    - path: finance/refunds\n      scopes: [x]\n",
			scopes: map[string]string{"finance/refunds": "x", "finance/ledger": ""}},

		{name: "a policy file over 1 MiB", policy: "# " + strings.Repeat("x", maxPolicyBytes), want: []string{"skills/skilledge.yaml: cannot read the policy file: larger than 1048576 bytes"}},
		{name: "not YAML", policy: "access: [\n", want: []string{"skills/skilledge.yaml:1: not valid YAML: did not find expected node content"}},
		{name: "not a mapping", policy: "- access\n", want: []string{"skills/skilledge.yaml:1: the policy file must be a mapping (access: …, versions: …, sources: …)"}},
		{name: "unknown top-level key", policy: "acess:\n  default: [a]\n", want: []string{`skills/skilledge.yaml:1: unknown key "acess": the policy file has sections access, versions and sources`}},
		{name: "unknown access key", policy: "access:\n  defaults: [a]\n", want: []string{`skills/skilledge.yaml:2: unknown key "defaults" in access: it has default and rules`}},
		{name: "default not a list", policy: "access:\n  default: skills:read\n", want: []string{"skills/skilledge.yaml:2: access.default must be a list of scopes ([skills:read])"}},
		{name: "malformed scope", policy: "access:\n  default: [\"skills read\", \"a\\\"b\", ok]\n", want: []string{
			`skills/skilledge.yaml:2: access.default: "skills read" is not an OAuth scope (RFC 6749 §3.3: printable ASCII without spaces, quotes or backslashes)`,
			`skills/skilledge.yaml:2: access.default: "a\"b" is not an OAuth scope (RFC 6749 §3.3: printable ASCII without spaces, quotes or backslashes)`}},
		{name: "a scope that is a number", policy: "access:\n  default: [1]\n", want: []string{"skills/skilledge.yaml:2: access.default: a scope must be a string"}},
		{name: "rules not a list", policy: "access:\n  rules:\n    path: x\n", want: []string{"skills/skilledge.yaml:3: access.rules must be a list of rules (- path: …)"}},
		{name: "unknown rule key and no path", policy: "access:\n  rules:\n    - scope: [a]\n", want: []string{
			`skills/skilledge.yaml:3: unknown key "scope" in access.rules[0]: a rule has path, scopes and listed`,
			"skills/skilledge.yaml:3: access.rules[0] has no path"}},
		{name: "a rule that changes nothing", policy: "access:\n  rules:\n    - path: finance/\n", want: []string{
			"skills/skilledge.yaml:3: access.rules[0] has neither scopes nor listed: it changes nothing"}},
		{name: "a rule matching no skill", policy: "access:\n  rules:\n    - path: financ/\n      scopes: [a]\n", want: []string{
			`skills/skilledge.yaml:3: rule for path "financ/" matches no skill: no SKILL.md is at financ or under it`}},
		{name: "a path that is not a prefix", policy: "access:\n  rules:\n    - path: ../finance\n      scopes: [a]\n    - path: \"fin*\"\n      scopes: [a]\n    - path: /\n      scopes: [a]\n", want: []string{
			`skills/skilledge.yaml:3: access.rules[0].path "../finance": segments must be directory names, not empty, . or ..`,
			`skills/skilledge.yaml:5: access.rules[1].path "fin*": a path is a plain prefix of skill paths: no backslashes or patterns`,
			`skills/skilledge.yaml:7: access.rules[2].path "/": empty: a rule for every skill is access.default`}},
		{name: "listed not a boolean", policy: "access:\n  rules:\n    - path: drafts/\n      listed: \"no\"\n", want: []string{"skills/skilledge.yaml:4: access.rules[0].listed must be true or false"}},
		{name: "two rules for one path", policy: "access:\n  rules:\n    - path: drafts/\n      listed: false\n    - path: drafts\n      scopes: [a]\n", want: []string{
			`skills/skilledge.yaml:5: a second rule for path "drafts/" (the first is on line 3): merge them into one`}},
		{name: "a repeated key", policy: "access:\n  default: [a]\n  default: [b]\n", want: []string{`skills/skilledge.yaml:3: key "default" appears twice in access`}},
		{name: "an alias", policy: "s: &s [a]\naccess:\n  default: *s\n", want: []string{
			"skills/skilledge.yaml:1: the policy file: anchors, aliases and merge keys are not read in the policy file; write it out",
			"skills/skilledge.yaml:3: access: anchors, aliases and merge keys are not read in the policy file; write it out"}},
		{name: "a nested skill that needs more than its holder", policy: "access:\n  rules:\n    - path: finance/ledger/close\n      scopes: [skills:close]\n", want: []string{
			"skills/skilledge.yaml: skill finance/ledger/close needs scope skills:close that skill finance/ledger, which holds it, does not: anyone who may see finance/ledger reads finance/ledger/close's files through it; give finance/ledger the same rule, or move finance/ledger/close out of it"}},
		{name: "a nested skill unlisted in a listed one", policy: "access:\n  rules:\n    - path: finance/ledger/close\n      listed: false\n", want: []string{
			"skills/skilledge.yaml: skill finance/ledger/close is unlisted but skill finance/ledger, which holds it, is listed: its SKILL.md is listed among finance/ledger's files; unlist finance/ledger too, or move finance/ledger/close out of it"}},
		{name: "a nested skill that needs less is fine", policy: "access:\n  rules:\n    - path: finance/ledger\n      scopes: [x]\n",
			scopes: map[string]string{"finance/ledger": "x", "finance/ledger/close": "x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, problems, err := Load(accessFolder(c.policy), "skills", Options{})
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "problems", strs(problems), c.want)
			for p, want := range c.scopes {
				var got string
				for _, s := range cat.Skills {
					if s.Path == p {
						got = strings.Join(s.Scopes, " ")
						if s.Unlisted {
							got += " unlisted"
						}
						got = strings.TrimSpace(got)
					}
				}
				if got != want {
					t.Errorf("skill %s: %q, want %q", p, got, want)
				}
			}
			if (cat.Access != nil) != strings.Contains(c.policy, "access") && len(c.want) == 0 {
				t.Errorf("Access = %v for policy %q", cat.Access, c.policy)
			}
		})
	}
}

// FuzzAccess: no policy file makes the parser panic, and what it accepts holds only valid
// scopes and paths.
func FuzzAccess(f *testing.F) {
	f.Add([]byte("access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [a]\n    - path: d\n      listed: false\n"))
	f.Add([]byte("access: {default: [], rules: [{path: x, listed: true}]}"))
	f.Add([]byte("access:\n  <<: {default: [a]}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, problems := parseAccess(b)
		if a == nil {
			return
		}
		if len(problems) > 0 {
			t.Fatalf("a policy and problems: %v", problems)
		}
		for _, s := range a.Default {
			if !catalog.ValidScope(s) {
				t.Fatalf("default scope %q", s)
			}
		}
		for _, r := range a.Rules {
			if r.Path == "" || strings.HasSuffix(r.Path, "/") {
				t.Fatalf("rule path %q", r.Path)
			}
			for _, s := range r.Scopes {
				if !catalog.ValidScope(s) {
					t.Fatalf("rule scope %q", s)
				}
			}
		}
	})
}

// TestEncodeAccess: a private catalog's index opens with catalog.MagicPrivate and says,
// skill by skill, what its policy says; a public one is as before.
func TestEncodeAccess(t *testing.T) {
	enc, p := encodeFinance(t)
	if string(enc.Index[:8]) != catalog.MagicPrivate {
		t.Fatalf("magic %q", enc.Index[:8])
	}
	if !p.Private() || string(p.DefaultScopes()) != "skills:read" || string(p.PolicyScopes()) != "skills:finance skills:read" {
		t.Fatalf("private %t, default %q, scopes %q", p.Private(), p.DefaultScopes(), p.PolicyScopes())
	}
	want := map[string]string{
		"drafts/idea": "skills:read unlisted", "finance/ledger": "skills:finance skills:read", "finance/ledger/close": "skills:finance skills:read",
		"finance/refunds": "skills:finance skills:read", "public": "skills:read",
	}
	for i := range p.NumSkills() {
		got := string(p.SkillScopes(i))
		if !p.SkillListed(i) {
			got += " unlisted"
		}
		if path := string(p.SkillPath(i)); got != want[path] {
			t.Errorf("skill %s: %q, want %q", path, got, want[path])
		}
	}

	// The same folder without the policy is a public catalog: Magic, no access tables.
	pub := accessFolder("")
	c, _, _ := Load(pub, "skills", Options{})
	enc, _ = Encode(c)
	p, err := catalog.Open(enc.Index)
	if err != nil || p.Private() || string(enc.Index[:8]) != catalog.Magic || !p.SkillListed(0) || len(p.SkillScopes(0)) != 0 {
		t.Fatalf("public: %v, private %t", err, p != nil && p.Private())
	}
}

// TestBrokenPolicyNeverEncodes: a policy with any problem (one the parser refuses, a rule
// matching nothing, a nested skill it would betray) is never encoded, not even with
// SkipInvalid, which serves the valid skills of a folder: a catalog is never served public,
// or half hidden, because its policy has a typo.
func TestBrokenPolicyNeverEncodes(t *testing.T) {
	for _, policy := range []string{
		"acess:\n  default: [skills:read]\n",
		"access:\n  default: [skills:read]\n  rule:\n    - path: finance/\n",
		"access:\n  rules:\n    - path: nowhere/\n      scopes: [a]\n",
		"access:\n  rules:\n    - path: finance/ledger/close\n      scopes: [x]\n",
	} {
		c, problems, err := Load(accessFolder(policy), "skills", Options{SkipInvalid: true})
		if err != nil || !HasErrors(problems) || c.Access == nil || !c.Access.Broken {
			t.Fatalf("%q: err %v, problems %v, access %+v", policy, err, problems, c.Access)
		}
		if enc, err := Encode(c); !errors.Is(err, ErrPolicy) {
			t.Fatalf("%q encoded (%v), magic %q", policy, err, enc.Index[:8])
		}
	}
}

// encodeFinance encodes accessFolder under a policy with a finance rule and an unlisted
// draft, and opens its index.
func encodeFinance(t *testing.T) (*Encoded, *catalog.Pack) {
	t.Helper()
	c, problems, err := Load(accessFolder(`access:
  default: [skills:read]
  rules:
    - path: finance/
      scopes: [skills:finance]
    - path: drafts/
      listed: false
`), "skills", Options{})
	if err != nil || HasErrors(problems) {
		t.Fatal(err, problems)
	}
	enc, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	return enc, p
}
