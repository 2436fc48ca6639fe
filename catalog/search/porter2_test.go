package search

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestStemVectors holds Stem to the Snowball project's own output on a sample of its
// English vocabulary (testdata/porter2.txt).
func TestStemVectors(t *testing.T) {
	f, err := os.Open("testdata/porter2.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		word, want, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("testdata/porter2.txt: %q is not a word and a stem", line)
		}
		if got := Stem(word); got != want {
			t.Errorf("Stem(%q) = %q, want %q", word, got, want)
		}
		n++
	}
	if n < 3000 {
		t.Fatalf("testdata/porter2.txt has %d pairs, want the 3,676 of the sample", n)
	}
}

func TestStem(t *testing.T) {
	for _, c := range []struct{ word, want string }{
		{"filling", "fill"}, {"fills", "fill"}, {"filled", "fill"}, {"filler", "filler"},
		{"forms", "form"}, {"slides", "slide"}, {"generalization", "general"},
		{"skies", "sky"}, {"dying", "die"}, {"news", "news"}, {"proceed", "proceed"},
		{"ties", "tie"}, {"cries", "cri"}, {"gas", "gas"}, {"gaps", "gap"},
		{"yes", "yes"}, {"by", "by"}, {"a", "a"},
		{"mp4", "mp4"}, {"résumé", "résumé"}, {"ec2", "ec2"}, // not all ASCII letters: kept
	} {
		if got := Stem(c.word); got != c.want {
			t.Errorf("Stem(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}
