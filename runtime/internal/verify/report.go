package verify

import (
	"fmt"
	"io"
	"time"

	"github.com/skilledge/skilledge/runtime/internal/words"
)

// WriteText prints the report for a person (skilledge verify): the trust root, a line per
// skill ("ok  NAME  (N files)", and ", M versions" when it keeps versions, ", named N"
// when NAME is a qualified index name; or a "FAIL" line
// per problem), the deployment's problems and notes, and a summary.
func (r *Report) WriteText(w io.Writer) {
	if r.TrustRoot != "" {
		fmt.Fprintf(w, "trust root %s (%s)\n", r.TrustRoot, r.TrustRootSource)
	}
	failed := 0
	for _, s := range r.Skills {
		if s.OK() {
			versions := ""
			if s.Versions > 0 {
				versions = ", " + words.Plural(s.Versions, "version")
			}
			if s.Named != "" {
				versions += ", named " + s.Named
			}
			fmt.Fprintf(w, "ok  %s  (%s%s)\n", s.Name, words.Plural(s.Files, "file"), versions)
			continue
		}
		failed++
		for _, p := range s.Problems {
			fmt.Fprintf(w, "FAIL %s\n", p)
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "FAIL %s\n", p)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note %s\n", n)
	}
	if r.Root != nil {
		fmt.Fprintf(w, "signed root of %s, sequence %d, valid until %s, verified with the key given\n",
			r.Root.Catalog, r.Root.Sequence, r.Root.Expires.UTC().Format(time.RFC3339))
	}
	under := ""
	if r.TrustRoot != "" {
		under = " under " + r.TrustRoot
	}
	if r.OK() {
		fmt.Fprintf(w, "%s verified%s\n", words.Plural(len(r.Skills), "skill"), under)
		return
	}
	fmt.Fprintf(w, "not verified: %s checked%s, %d verified, %d failed; %s\n",
		words.Plural(len(r.Skills), "skill"), under, len(r.Skills)-failed, failed, words.Plural(r.NumProblems(), "problem"))
}
