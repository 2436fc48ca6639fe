package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBest: the first k hits Best leaves are those a full sort puts first, in its order
// (score down, then row up), ties and all; the others are still there.
func TestBest(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 1))
	for _, n := range []int{0, 1, 2, 7, 64, 1000} {
		for _, k := range []int{0, 1, 2, 5, 10, 20, n / 2, n - 1, n, n + 3} {
			if k < 0 {
				continue
			}
			hits := make([]Hit, n)
			for i := range hits {
				hits[i] = Hit{Skill: r.IntN(3 * n), Score: uint32(r.IntN(8))} // many ties
			}
			want := slices.Clone(hits)
			slices.SortFunc(want, func(a, b Hit) int {
				if better(a, b) {
					return -1
				}
				if better(b, a) {
					return 1
				}
				return 0
			})
			got := slices.Clone(hits)
			Best(got, k)
			m := min(k, n)
			if !slices.Equal(got[:m], want[:m]) {
				t.Fatalf("n %d, k %d: %v, want %v", n, k, got[:m], want[:m])
			}
			rest := slices.Clone(got)
			slices.SortFunc(rest, func(a, b Hit) int { return a.Skill*16 + int(a.Score) - b.Skill*16 - int(b.Score) })
			slices.SortFunc(hits, func(a, b Hit) int { return a.Skill*16 + int(a.Score) - b.Skill*16 - int(b.Score) })
			if !slices.Equal(rest, hits) {
				t.Fatalf("n %d, k %d: Best lost or made hits", n, k)
			}
		}
	}
}
