package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSearchFolder: skilledge search DIR QUERY serves the folder to itself and prints what
// its search finds, best first, as a table or JSON; bad input is a usage error that says
// what is allowed, and a search that finds nothing exits 1.
func TestSearchFolder(t *testing.T) {
	dir := "../../../catalog/examples/skills"
	for _, c := range []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"words", []string{"search", dir, "chart", "a", "csv", "file"}, 0, "NAME             PATH                           SCORE  DESCRIPTION\ncsv-insights     csv-insights                   4.990  Profile a CSV file", ""},
		{"quoted", []string{"search", dir, "chart a csv file", "--limit", "1"}, 0, "csv-insights  csv-insights  4.990  Profile", "1 of 4 skills found; --limit N prints more"},
		{"a path's words", []string{"search", "--limit=1", dir, "billing"}, 0, "refunds  acme/billing/refunds", ""},
		{"as you type", []string{"search", dir, "incid", "--limit", "1"}, 0, "incident-response", ""},
		{"nothing found", []string{"search", dir, "zzzqqq"}, 1, "", `skilledge search: no skill found for "zzzqqq"`},
		{"no words", []string{"search", dir, " ? "}, 2, "", "the catalog refused the query: q: the query has no words: give one or more words, letters or digits"},
		{"too many words", []string{"search", dir, "a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg"}, 2, "", "the catalog refused the query: q: "},
		{"no query", []string{"search", dir}, 2, "", "missing argument"},
		{"bad limit", []string{"search", dir, "csv", "--limit", "0"}, 2, "", "--limit 0: give a number from 1 to 1000"},
		{"a token for a folder", []string{"search", dir, "csv", "--token", "x"}, 2, "", "--token is for a catalog's URL"},
		{"a bad URL", []string{"search", "ftp://x.example", "csv"}, 2, "", "is not an http(s) URL"},
		{"help", []string{"search", "-h"}, 0, "Usage: skilledge search URL|DIR QUERY...", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := call(t, "", c.args...)
			expect(t, code, stdout, stderr, c.code, c.stdout, c.stderr)
		})
	}

	code, stdout, stderr := call(t, "", "search", dir, "review", "--json", "--limit", "2")
	var res struct {
		Catalog string `json:"catalog"`
		Query   string `json:"query"`
		Total   int    `json:"total"`
		Skills  []struct {
			Name, Path, Description, Type, URL, Digest string
			Score                                      float64
		} `json:"skills"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil {
		t.Fatalf("--json: exit %d\n%s%s", code, stdout, stderr)
	}
	if res.Catalog != dir || res.Query != "review" || res.Total != 3 || len(res.Skills) != 2 || res.Skills[0].Name != "git-workflow" ||
		res.Skills[0].Score <= res.Skills[1].Score || res.Skills[0].URL != "" || !strings.HasPrefix(res.Skills[0].Digest, "sha256:") {
		t.Errorf("--json: %+v", res)
	}
}
