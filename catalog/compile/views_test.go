package compile

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog"
)

// TestViews: a private catalog holds one view per combination of scopes a caller can
// hold, each the catalog of exactly the skills those scopes show, listed or not, and the
// store holds every object every view names.
func TestViews(t *testing.T) {
	enc, p := encodeFinance(t)
	paths := func(v *catalog.Pack) string {
		if v == nil {
			return "-"
		}
		var out []string
		for i := range v.NumSkills() {
			out = append(out, string(v.SkillPath(i)))
		}
		return strings.Join(out, " ")
	}
	for _, want := range []struct {
		granted     string
		listed, all string
	}{
		{"skills:read", "public", "drafts/idea public"},
		{"skills:read other", "public", "drafts/idea public"},
		{"skills:finance skills:read", "finance/ledger finance/ledger/close finance/refunds public",
			"drafts/idea finance/ledger finance/ledger/close finance/refunds public"},
	} {
		v, ok := p.ViewFor([]byte(want.granted))
		if !ok {
			t.Fatalf("%q: no view", want.granted)
		}
		if got := paths(v.Listed); got != want.listed {
			t.Errorf("%q listed: %q, want %q", want.granted, got, want.listed)
		}
		if got := paths(v.All); got != want.all {
			t.Errorf("%q all: %q, want %q", want.granted, got, want.all)
		}
		if v.Listed.Private() || v.All != nil && v.All.Private() {
			t.Errorf("%q: a view is private", want.granted)
		}
	}
	// Without the default scopes, no view: no caller the server answers lacks them.
	if _, ok := p.ViewFor([]byte("skills:finance")); ok {
		t.Error("a view for a caller without the default scopes")
	}
	// Two views; the full one's unlisted index is the catalog's own tables.
	if vs := p.Views(); len(vs) != 2 || paths(vs[1].All) != "drafts/idea finance/ledger finance/ledger/close finance/refunds public" ||
		&vs[1].All.Bytes()[0] != &enc.Index[0] {
		t.Errorf("%d views, the full one %q", len(vs), paths(vs[len(vs)-1].All))
	}
	// A view's documents (its index.json, its well-known indexes, its page) are in the store.
	held := map[string]bool{}
	for _, name := range enc.Store.Names() {
		held[name] = true
	}
	for _, o := range p.Objects() {
		if !held[o.Name] {
			t.Errorf("object %s (%s) is not in the store", o.Name, o.What)
		}
	}
	for _, v := range p.Views() {
		for _, o := range v.Listed.Objects() {
			if !slices.ContainsFunc(p.Objects(), func(u catalog.ObjectUse) bool { return u.Name == o.Name }) {
				t.Errorf("Objects() leaves out %s (%s) of a view", o.Name, o.What)
			}
		}
	}
}

// TestTooManyViews: a policy whose rules give callers more combinations than a build
// compiles is refused as a policy problem, naming the limit.
func TestTooManyViews(t *testing.T) {
	for _, c := range []struct {
		rules int
		ok    bool
	}{{6, true}, {7, false}, {17, false}} {
		folder := fstest.MapFS{}
		policy := "access:\n  default: [skills:read]\n  rules:\n"
		for i := range c.rules {
			name := fmt.Sprintf("team%d", i)
			folder["teams/"+name+"/SKILL.md"] = ok(name)
			policy += fmt.Sprintf("    - path: teams/%s/\n      scopes: [skills:%s]\n", name, name)
		}
		folder[PolicyFile] = &fstest.MapFile{Data: []byte(policy)}
		cat, problems, err := Load(folder, "skills", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if HasErrors(problems) == c.ok {
			t.Fatalf("%d rules: problems %v", c.rules, problems)
		}
		if c.ok {
			enc, err := Encode(cat)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := catalog.Open(enc.Index)
			if len(p.Views()) != 1<<c.rules {
				t.Errorf("%d rules: %d views", c.rules, len(p.Views()))
			}
			continue
		}
		msg := fmt.Sprint(problems)
		if !strings.Contains(msg, PolicyFile) || !strings.Contains(msg, "at most") {
			t.Errorf("%d rules: %s", c.rules, msg)
		}
		if _, err := Encode(cat); err == nil {
			t.Errorf("%d rules: encoded", c.rules)
		}
	}
}
