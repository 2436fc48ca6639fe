package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Generated catalogs for the tests and benchmarks that need more than the examples. Both
// are the same bytes on every machine (a fixed ChaCha8 seed).

// writeIncompressibleCatalog writes into dir a catalog whose file contents are 13 MiB of
// random (incompressible, binary) bytes over five skills, one file of 4 MiB among them,
// with a text file and an empty one besides, and returns the bytes written. The first
// skill, alphabetically, has a subdirectory (the conformance suite's directory scenario
// reads the first skill it finds).
func writeIncompressibleCatalog(dir string) (int64, error) {
	rnd := rand.NewChaCha8([32]byte{'s', 'k', 'i', 'l', 'l', 'e', 'd', 'g', 'e'})
	var total int64
	write := func(rel string, data []byte) error {
		total += int64(len(data))
		return writeFile(filepath.Join(dir, filepath.FromSlash(rel)), data)
	}
	random := func(n int) []byte {
		b := make([]byte, n)
		rnd.Read(b)
		return b
	}
	skills := []struct {
		name  string
		files map[string]int
	}{
		{"alpha", map[string]int{"data/model-4m.bin": 4 << 20, "data/notes.md": 0, "data/tables/weights.bin": 256 << 10}},
		{"bravo", map[string]int{"assets/font.ttf": 2 << 20, "assets/glyphs.bin": 256 << 10}},
		{"charlie", map[string]int{"blobs/a.bin": 1 << 20, "blobs/b.bin": 1<<20 + 256<<10}},
		{"delta", map[string]int{"archive.bin": 2<<20 + 256<<10}},
		{"echo", map[string]int{"media/clip.bin": 1 << 20, "media/still.bin": 1<<20 + 256<<10, "scripts/__init__.py": -1}},
	}
	for _, s := range skills {
		md := fmt.Sprintf("---\nname: %s\ndescription: A generated skill (%s) carrying incompressible data, for testing catalogs that do not fit a Worker script.\n---\n\n# %s\n\nRead the files under this folder as needed.\n", s.name, s.name, s.name)
		if err := write(s.name+"/SKILL.md", []byte(md)); err != nil {
			return 0, err
		}
		for rel, n := range s.files {
			var data []byte
			switch n {
			case 0:
				data = []byte("Notes on " + s.name + ": plain text, served as text.\n")
			case -1: // empty
			default:
				data = random(n)
			}
			if err := write(s.name+"/"+rel, data); err != nil {
				return 0, err
			}
		}
	}
	return total, nil
}

// proseWords are the vocabulary of generated text (prose).
var proseWords = strings.Fields("the skill reads a file writes output checks each value before it continues when the user asks for a report chart table document slide sheet font schema element attribute type sequence choice minOccurs maxOccurs name ref base restriction extension")

// prose is about n bytes of generated lines from rnd, each starting with prefix.
func prose(rnd *rand.Rand, n int, prefix string) []byte {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(prefix)
		for range 8 + rnd.IntN(8) {
			b.WriteString(proseWords[rnd.IntN(len(proseWords))])
			b.WriteByte(' ')
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// writeRealisticCatalog writes into dir a catalog shaped like a popular public skills
// repository (16 skills, about 340 files, about 11 MB): markdown instructions and
// references, Python scripts, XML schemas that three skills ship identically, and fonts
// (random bytes, as incompressible as real ones), and returns the bytes written.
func writeRealisticCatalog(dir string) (int64, error) {
	rnd := rand.New(rand.NewChaCha8([32]byte{'r', 'e', 'a', 'l'}))
	var total int64
	write := func(rel string, data []byte) error {
		total += int64(len(data))
		return writeFile(filepath.Join(dir, filepath.FromSlash(rel)), data)
	}
	schemas := map[string][]byte{}
	for i := range 38 {
		schemas[fmt.Sprintf("schemas/ooxml/part-%02d.xsd", i)] = prose(rnd, 20<<10+rnd.IntN(40<<10), `  <xsd:element name="x" type="`)
	}
	for i := range 16 {
		name := fmt.Sprintf("skill-%02d", i)
		md := fmt.Sprintf("---\nname: %s\ndescription: Generated skill %d, which works with documents, charts and fonts; use it when the user asks for one.\nlicense: Apache-2.0\n---\n\n", name, i)
		if err := write(name+"/SKILL.md", append([]byte(md), prose(rnd, 4<<10+rnd.IntN(12<<10), "- ")...)); err != nil {
			return 0, err
		}
		for k := range 4 + rnd.IntN(4) {
			if err := write(fmt.Sprintf("%s/reference/topic-%d.md", name, k), prose(rnd, 2<<10+rnd.IntN(20<<10), "")); err != nil {
				return 0, err
			}
		}
		for k := range 2 + rnd.IntN(4) {
			if err := write(fmt.Sprintf("%s/scripts/tool_%d.py", name, k), prose(rnd, 1<<10+rnd.IntN(10<<10), "    ")); err != nil {
				return 0, err
			}
		}
		switch {
		case i < 3: // three document skills ship the same schemas
			for rel, data := range schemas {
				if err := write(name+"/scripts/"+rel, data); err != nil {
					return 0, err
				}
			}
		case i == 5: // a design skill with fonts
			for k := range 54 {
				font := make([]byte, 40<<10+rnd.IntN(100<<10))
				for j := range font {
					font[j] = byte(rnd.Uint32())
				}
				if err := write(fmt.Sprintf("%s/fonts/Family-%02d.ttf", name, k), font); err != nil {
					return 0, err
				}
			}
		}
	}
	return total, nil
}

// writeLargeCatalog writes into dir a catalog of 1,000 skills of 10 files each (SKILL.md
// and nine notes, a line apiece) and returns the files' paths, relative to dir.
func writeLargeCatalog(dir string) ([]string, error) {
	var paths []string
	for i := range 1000 {
		name := fmt.Sprintf("skill-%04d", i)
		if err := writeFile(filepath.Join(dir, name, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: Generated skill number "+name+".\n---\nBody.\n")); err != nil {
			return nil, err
		}
		paths = append(paths, name+"/SKILL.md")
		for k := range 9 {
			rel := fmt.Sprintf("notes/n%d.md", k)
			if err := writeFile(filepath.Join(dir, name, rel), []byte(fmt.Sprintf("note %d of %s\n", k, name))); err != nil {
				return nil, err
			}
			paths = append(paths, name+"/"+rel)
		}
	}
	return paths, nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// The vocabulary of writeScaleCatalog: what skills are about (scaleDomains), what they do
// (scaleActions) and to what (scaleObjects), and the other words of their prose.
var (
	scaleDomains = strings.Fields("pdf spreadsheet slides terraform kubernetes docker react vue angular django rails postgres mysql redis kafka graphql grpc stripe sentry datadog prometheus grafana aws azure gcp cloudflare vercel expo flutter swift kotlin rust golang python typescript java dotnet bash git github jira slack notion figma tailwind webpack vite jest playwright cypress pandas numpy pytorch tensorflow spark airflow dbt snowflake bigquery elasticsearch opensearch nginx ansible helm argocd vault oauth saml ldap markdown latex csv json yaml xml openapi")
	scaleActions = strings.Fields("review generate test deploy migrate audit refactor document debug profile optimize validate convert summarize translate format lint monitor scaffold secure benchmark analyze visualize extract merge schedule backup restore upgrade configure provision")
	scaleObjects = strings.Fields("forms reports dashboards pipelines modules components endpoints schemas queries migrations charts tables invoices contracts releases changelogs incidents alerts logs traces metrics secrets certificates policies permissions roles tests fixtures mocks snapshots containers clusters services functions workflows jobs notebooks datasets models prompts agents commits branches reviews issues tickets pages layouts themes icons fonts images videos")
	scaleProse   = strings.Fields("the a of to and in for with when use this skill it user asks files file project before after each step check output write read run command errors error result value values options option config default new existing changes change team code data system make sure keep first then only not all any from by on at as is are be can should must will may that if or its their your you we they one two more most other same every list set name path line lines text format example examples input inputs source target version versions build task tasks tool tools work working need needs using used create update remove add found find return returns call calls open save start end state local remote page pages section sections field fields type types rule rules note notes guide context request response message messages report issue summary detail details review plan")
)

// writeScaleCatalog writes into dir a catalog of n skills, a SKILL.md each, whose text is
// shaped like real skills': a name of an action, a domain and an object; a description of
// two sentences saying what it does and when to use it; tags under metadata for a third
// of them; and a body of headings and 150 to 600 words. As in real skills, the words of
// the body are mostly common ones, which most skills hold ("file", "data", "user": the
// real skills of the relevance benchmark hold "file" in 59% of them), and then the skill's
// own domain, action and object, with now and then another: so a domain word is in a few
// percent of the skills ("pdf" is in 6.5% of the real ones, "kubernetes" in 1.7%), not in
// all. Domains, actions and objects are drawn more often from the front of their lists,
// as real text draws from a vocabulary (a Zipf-like law). The same n gives the same bytes
// on every machine.
func writeScaleCatalog(dir string, n int) error {
	rnd := rand.New(rand.NewChaCha8([32]byte{'s', 'c', 'a', 'l', 'e'}))
	pick := func(words []string) string { // the k-th word with probability ~ 1/(k+1)
		k := int(float64(len(words)) * rnd.Float64() * rnd.Float64())
		return words[k]
	}
	for i := range n {
		domain, action, object := pick(scaleDomains), pick(scaleActions), pick(scaleObjects)
		own := []string{domain, domain, action, object}
		sentence := func(words int) string {
			var b strings.Builder
			for k := range words {
				if k > 0 {
					b.WriteByte(' ')
				}
				switch r := rnd.IntN(100); {
				case r < 8: // the skill's own words
					b.WriteString(own[rnd.IntN(len(own))])
				case r < 10: // another domain, action or object, as a skill mentions one
					b.WriteString(pick([][]string{scaleDomains, scaleActions, scaleObjects}[rnd.IntN(3)]))
				default:
					b.WriteString(pick(scaleProse))
				}
			}
			return b.String()
		}
		name := fmt.Sprintf("%s-%s-%s-%d", action, domain, object, i)
		var md strings.Builder
		fmt.Fprintf(&md, "---\nname: %s\ndescription: %s %s %s with %s, %s. Use when the user asks to %s %s or mentions %s.\n",
			name, strings.ToUpper(action[:1])+action[1:], domain, object, pick(scaleDomains), sentence(6+rnd.IntN(10)), action, object, domain)
		if i%3 == 0 {
			fmt.Fprintf(&md, "metadata:\n  tags: %s, %s, %s\n", domain, pick(scaleDomains), object)
		}
		fmt.Fprintf(&md, "---\n\n# %s %s %s\n\n", action, domain, object)
		for _, h := range []string{"When to use", "Steps", "Checks"} {
			fmt.Fprintf(&md, "## %s\n\n", h)
			for range 1 + rnd.IntN(4) {
				md.WriteString(sentence(10+rnd.IntN(40)) + ".\n\n")
			}
		}
		if err := writeFile(filepath.Join(dir, name, "SKILL.md"), []byte(md.String())); err != nil {
			return err
		}
	}
	return nil
}
