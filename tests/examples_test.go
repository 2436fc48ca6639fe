package tests

import (
	"testing"

	"github.com/skilledge/skilledge/catalog"
)

// exampleSkillURIs returns the SKILL.md URIs of a pack in listing order.
func exampleSkillURIs(t testing.TB, b []byte) []string {
	p, err := catalog.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for i := 0; i < p.NumSkills(); i++ {
		uris = append(uris, string(p.Skill(i, catalog.SkillURI)))
	}
	return uris
}
