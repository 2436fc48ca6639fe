package serving

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
)

// TestBuildProgress: a build that takes long says what it builds, how far it got, and
// when it is done (here "long" is shortened to nothing).
func TestBuildProgress(t *testing.T) {
	defer func(a, e time.Duration) { progressAfter, progressEvery = a, e }(progressAfter, progressEvery)
	progressAfter, progressEvery = 0, 0
	c, _, err := compile.Load(examples.FS, "examples", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := encode(c, t.TempDir(), "the built-in examples", compile.EncodeOptions{}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"skilledge: building the catalog of the built-in examples (6 skills, 13 files, ",
		"skilledge: archived 1 of 6 skills…\n",
		"skilledge: archived 6 of 6 skills…\n",
		"skilledge: built in ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("progress lacks %q:\n%s", want, out.String())
		}
	}
	// A fast build says nothing.
	progressAfter, progressEvery = time.Hour, time.Hour
	out.Reset()
	if _, err := encode(c, t.TempDir(), "the built-in examples", compile.EncodeOptions{}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("a fast build printed %q", out.String())
	}
}
