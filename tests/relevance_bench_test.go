//go:build e2e && benchreport

package tests

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/search"
)

// The relevance benchmark: real public skills and queries written the way a person asks,
// each with the skills that answer it (judged by reading the skills' names and
// descriptions, never by a ranker). skilledge's search, through `skilledge serve`, beside
// a reference Okapi BM25 (k1 1.2, b 0.75) over name and description alone, SQLite's FTS5
// (Debian's sqlite3: bm25(), unicode61 tokens, the query's words ORed); then, in process
// and with the same index code, the rankings the weights were chosen among.
//
//	tests/testdata/relevance/fetch.sh DIR   # the pinned checkouts, once
//	SKILLEDGE_RELEVANCE_REPOS=DIR go test -tags 'e2e benchreport' -run RelevanceReport -count=1 ./tests/
//
// writes the relevance section of BENCHMARKS.md. The corpus is the SKILL.md of every skill
// of the repositories testdata/relevance/sources.tsv names, at the commits it pins, as
// OWNER__REPO/PATH (a skill repeated, by name and description, is kept once); the
// skills the build refuses are left out, as `--skip-invalid` does. The skills' text is not
// kept here: their licences differ.

// relevanceQuery is a query and the paths of the skills that answer it.
type relevanceQuery struct {
	text     string
	relevant []string
}

// TestRelevanceReport measures recall@5 and MRR@10 and writes the relevance section.
func TestRelevanceReport(t *testing.T) {
	repos := os.Getenv("SKILLEDGE_RELEVANCE_REPOS")
	if repos == "" {
		t.Fatal("set SKILLEDGE_RELEVANCE_REPOS to a folder holding the checkouts tests/testdata/relevance/sources.tsv names (tests/testdata/relevance/fetch.sh DIR makes it)")
	}
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the reference BM25 is SQLite's FTS5: install Debian's sqlite3 (apt-get install sqlite3)")
	}
	root := repoRoot(t)
	corpus, kept, repeated := relevanceCorpus(t, repos, readTSV(t, filepath.Join(root, "tests/testdata/relevance/sources.tsv")))
	var queries []relevanceQuery
	for _, row := range readTSV(t, filepath.Join(root, "tests/testdata/relevance/queries.tsv")) {
		queries = append(queries, relevanceQuery{row[0], strings.Fields(row[1])})
	}

	// skilledge as deployed: built by the CLI, searched over MCP (skills/list {query}).
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	start := time.Now()
	run(t, root, nil, cli, "build", corpus, "-o", out, "--skip-invalid")
	built := time.Since(start)
	addr, _ := startProcess(t, "skilledge serve", exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0", "--page-size", "100000"), servingLine)
	var listed []gjson.Result
	for cursor := ""; ; {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":` + strconv.Quote(cursor) + `}`
		}
		page := post(t, addr, `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":`+params+`}`)
		listed = append(listed, gjson.GetBytes(page, "result.skills").Array()...)
		if cursor = gjson.GetBytes(page, "result.nextCursor").Str; cursor == "" {
			break
		}
	}
	paths := map[string]bool{}
	type skill struct{ path, name, description string }
	var skills []skill
	for _, s := range listed {
		p := strings.TrimSuffix(strings.TrimPrefix(s.Get("uri").Str, "skill://"), "/SKILL.md")
		paths[p] = true
		skills = append(skills, skill{p, s.Get("name").Str, s.Get("description").Str})
	}
	for _, q := range queries {
		for _, p := range q.relevant {
			if !paths[p] {
				t.Fatalf("query %q: %s is not a skill the catalog serves", q.text, p)
			}
		}
	}
	served := make([][]string, len(queries))
	for i, q := range queries {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{"query":%s,"limit":10}}`, strconv.Quote(q.text))
		for _, s := range gjson.GetBytes(post(t, addr, body), "result.skills").Array() {
			served[i] = append(served[i], strings.TrimSuffix(strings.TrimPrefix(s.Get("uri").Str, "skill://"), "/SKILL.md"))
		}
	}

	// The reference: FTS5's bm25() over name and description.
	var sql strings.Builder
	sql.WriteString(".separator \"\\t\"\nCREATE VIRTUAL TABLE s USING fts5(path UNINDEXED, name, description);\nBEGIN;\n")
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	for _, s := range skills {
		sql.WriteString("INSERT INTO s VALUES(" + quote(s.path) + "," + quote(s.name) + "," + quote(s.description) + ");\n")
	}
	sql.WriteString("COMMIT;\n")
	word := regexp.MustCompile(`[\pL\pN]+`)
	for i, q := range queries {
		var terms []string
		for _, w := range word.FindAllString(q.text, -1) {
			terms = append(terms, `"`+w+`"`)
		}
		fmt.Fprintf(&sql, "SELECT %d, path FROM s WHERE s MATCH %s ORDER BY bm25(s) LIMIT 10;\n", i, quote(strings.Join(terms, " OR ")))
	}
	cmd := exec.Command(sqlite, ":memory:")
	cmd.Stdin = strings.NewReader(sql.String())
	refOut, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, refOut)
	}
	reference := make([][]string, len(queries))
	for _, line := range strings.Split(strings.TrimSpace(string(refOut)), "\n") {
		k, p, ok := strings.Cut(line, "\t")
		i, err := strconv.Atoi(k)
		if !ok || err != nil || i < 0 || i >= len(queries) {
			t.Fatalf("sqlite3 printed %q", line)
		}
		reference[i] = append(reference[i], p)
	}

	// The same index code in process, with the rankings the weights were chosen among; the
	// default must rank as the server does, or the rows below would not be skilledge's.
	c, _, err := compile.LoadDir(corpus, compile.Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	docs := compile.SearchDocs(c)
	ranked := func(r search.Ranking) [][]string {
		ix, err := search.Open(search.BuildRanked(docs, r), len(docs))
		if err != nil {
			t.Fatal(err)
		}
		var sc search.Scratch
		out := make([][]string, len(queries))
		for i, q := range queries {
			pq, err := search.ParseQuery(q.text)
			if err != nil {
				t.Fatalf("%q: %v", q.text, err)
			}
			for k, h := range ix.Search(pq, &sc, nil) {
				if k == 10 {
					break
				}
				out[i] = append(out[i], c.Skills[h.Skill].Path)
			}
		}
		return out
	}
	if got := ranked(search.DefaultRanking); !slices.EqualFunc(got, served, slices.Equal) {
		t.Fatal("in process, the default ranking does not rank as skilledge serve does")
	}

	type row struct {
		name   string
		ranked [][]string
	}
	rows := []row{{"skilledge (BM25F, as served)", served}, {"reference: Okapi BM25 over name and description (SQLite FTS5)", reference}}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, go%s, %s: %d skills from %d repositories (%d repeated ones kept once; %d the build refuses left out), built in %.1fs; %d queries, %s relevant skills a query (%.1f on average).\n\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), strings.TrimPrefix(runtime.Version(), "go"), sqliteVersion(t, sqlite),
		len(skills), len(readTSV(t, filepath.Join(root, "tests/testdata/relevance/sources.tsv"))), repeated, kept-len(skills), built.Seconds(),
		len(queries), relevantRange(queries), relevantMean(queries))
	b.WriteString("| ranking | recall@5 | MRR@10 | a relevant skill in the top 5 |\n|---|---|---|---|\n")
	for _, r := range rows {
		rec, mrr, hit := relevanceScores(queries, r.ranked)
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %d of %d |\n", r.name, rec, mrr, hit, len(queries))
	}
	b.WriteString("\nThe rankings the weights were chosen among, in process with the same index code (the first row is the default, as served):\n\n")
	b.WriteString("| BM25F ranking | recall@5 | MRR@10 | a relevant skill in the top 5 |\n|---|---|---|---|\n")
	for _, v := range rankingVariants() {
		rec, mrr, hit := relevanceScores(queries, ranked(v.r))
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %d of %d |\n", v.name, rec, mrr, hit, len(queries))
	}
	var missed []string
	for i, q := range queries {
		if _, mrr, _ := relevanceScores([]relevanceQuery{q}, [][]string{served[i]}); mrr == 0 {
			missed = append(missed, strconv.Quote(q.text))
		}
	}
	if len(missed) > 0 {
		fmt.Fprintf(&b, "\nQueries whose answer skilledge does not rank in its first 10: %s.\n", strings.Join(missed, ", "))
	}
	writeReport(t, "relevance", b.String())
}

// rankingVariant is a ranking measured beside the default.
type rankingVariant struct {
	name string
	r    search.Ranking
}

// rankingVariants are the default and the rankings it was chosen among: each field's
// weight moved, one at a time, and fields left out.
func rankingVariants() []rankingVariant {
	d := search.DefaultRanking
	with := func(name string, f func(r *search.Ranking)) rankingVariant {
		r := d
		f(&r)
		return rankingVariant{name, r}
	}
	return []rankingVariant{
		{"the default: " + describeRanking(d), d},
		with("name and description only, weight 1 each, b 0.75 (our terms and stems, BM25's fields)", func(r *search.Ranking) {
			*r = search.Ranking{Name: search.FieldRanking{Weight: 1, B: 0.75}, Description: search.FieldRanking{Weight: 1, B: 0.75}, K1: 1.2}
		}),
		with("headings 1, body 0.25 (the weights before this benchmark)", func(r *search.Ranking) { r.Headings.Weight, r.Body.Weight = 1, 0.25 }),
		with("no body", func(r *search.Ranking) { r.Body.Weight = 0 }),
		with("body 0.25", func(r *search.Ranking) { r.Body.Weight = 0.25 }),
		with("body 0.5", func(r *search.Ranking) { r.Body.Weight = 0.5 }),
		with("body 1", func(r *search.Ranking) { r.Body.Weight = 1 }),
		with("no headings", func(r *search.Ranking) { r.Headings.Weight = 0 }),
		with("headings 0.25", func(r *search.Ranking) { r.Headings.Weight = 0.25 }),
		with("headings 0.5", func(r *search.Ranking) { r.Headings.Weight = 0.5 }),
		with("headings 1", func(r *search.Ranking) { r.Headings.Weight = 1 }),
		with("no path", func(r *search.Ranking) { r.Path.Weight = 0 }),
		with("path 1", func(r *search.Ranking) { r.Path.Weight = 1 }),
		with("no keywords", func(r *search.Ranking) { r.Keywords.Weight = 0 }),
		with("name 1.5", func(r *search.Ranking) { r.Name.Weight = 1.5 }),
		with("name 5", func(r *search.Ranking) { r.Name.Weight = 5 }),
		with("description 1", func(r *search.Ranking) { r.Description.Weight = 1 }),
		with("description 3", func(r *search.Ranking) { r.Description.Weight = 3 }),
		with("k1 0.9", func(r *search.Ranking) { r.K1 = 0.9 }),
		with("k1 2", func(r *search.Ranking) { r.K1 = 2 }),
		with("b 0.75 everywhere", func(r *search.Ranking) {
			r.Name.B, r.Path.B, r.Keywords.B = 0.75, 0.75, 0.75
		}),
	}
}

// describeRanking writes a ranking's weights (b after the slash) and k1.
func describeRanking(r search.Ranking) string {
	f := func(name string, fr search.FieldRanking) string {
		return fmt.Sprintf("%s %g/%g", name, fr.Weight, fr.B)
	}
	return strings.Join([]string{f("name", r.Name), f("path", r.Path), f("keywords", r.Keywords), f("description", r.Description),
		f("headings", r.Headings), f("body", r.Body)}, ", ") + fmt.Sprintf(", k1 %g", r.K1)
}

// relevanceScores are the mean recall@5 (the share of a query's relevant skills in the
// first 5), the mean reciprocal rank of the first relevant skill within the first 10 (0
// when none is), and how many queries have a relevant skill in the first 5.
func relevanceScores(queries []relevanceQuery, ranked [][]string) (recall5, mrr10 float64, hits5 int) {
	for i, q := range queries {
		rel := map[string]bool{}
		for _, p := range q.relevant {
			rel[p] = true
		}
		found, first := 0, 0
		for k, p := range ranked[i] {
			if !rel[p] {
				continue
			}
			if k < 5 {
				found++
			}
			if first == 0 && k < 10 {
				first = k + 1
			}
		}
		recall5 += float64(found) / float64(len(rel))
		if first > 0 {
			mrr10 += 1 / float64(first)
		}
		if found > 0 {
			hits5++
		}
	}
	n := float64(len(queries))
	return recall5 / n, mrr10 / n, hits5
}

func relevantRange(queries []relevanceQuery) string {
	lo, hi := len(queries[0].relevant), 0
	for _, q := range queries {
		lo, hi = min(lo, len(q.relevant)), max(hi, len(q.relevant))
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

func relevantMean(queries []relevanceQuery) float64 {
	n := 0
	for _, q := range queries {
		n += len(q.relevant)
	}
	return float64(n) / float64(len(queries))
}

func sqliteVersion(t *testing.T, sqlite string) string {
	out, err := exec.Command(sqlite, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	return "SQLite " + f[0]
}

// readTSV reads the rows of a tab-separated file, skipping its first line (the heading) and
// lines starting with "#".
func readTSV(t *testing.T, path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for first := true; sc.Scan(); first = false {
		if first || sc.Text() == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		rows = append(rows, strings.Split(sc.Text(), "\t"))
	}
	return rows
}

// relevanceCorpus copies the SKILL.md of every skill of each source's checkout
// (repos/OWNER__REPO) into a new folder, as OWNER__REPO/PATH, in source order and then
// path order, keeping once a skill whose name and description were seen before. It returns
// the folder, how many it kept, and how many it left out as repeated.
func relevanceCorpus(t *testing.T, repos string, sources [][]string) (dir string, kept, repeated int) {
	dir = t.TempDir()
	seen := map[string]bool{}
	front := regexp.MustCompile(`(?s)\A---[ \t]*\r?\n(.*?)\r?\n---`)
	field := func(fm, key string) string {
		m := regexp.MustCompile(`(?m)^` + key + `:[ \t]*(.+)$`).FindStringSubmatch(fm)
		if m == nil {
			return ""
		}
		return strings.TrimSpace(m[1])
	}
	for _, src := range sources {
		base := filepath.Join(repos, strings.ReplaceAll(src[0], "/", "__"))
		var skills []string
		err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "SKILL.md" {
				skills = append(skills, p)
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s (of %s at %s): %v", base, src[0], src[1], err)
		}
		slices.Sort(skills)
		for _, p := range skills {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			key := ""
			if m := front.FindSubmatch(b); m != nil {
				key = strings.Trim(field(string(m[1]), "name"), `"'`) + "\x00" + field(string(m[1]), "description")
			}
			if seen[key] {
				repeated++
				continue
			}
			seen[key] = true
			rel, _ := filepath.Rel(repos, filepath.Dir(p))
			if err := os.MkdirAll(filepath.Join(dir, rel), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel, "SKILL.md"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			kept++
		}
	}
	return dir, kept, repeated
}
