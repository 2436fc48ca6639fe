package serving

import (
	"fmt"
	"io"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/runtime/internal/words"
)

// BuildOptions say how a skills folder is checked and built: the flags of every command
// that builds a catalog.
type BuildOptions struct {
	// SkipInvalid leaves invalid skills out, reporting each, instead of refusing the
	// folder (ErrInvalid).
	SkipInvalid bool
	// AllowOversize accepts skills over 512 files or 16 MiB, reported as warnings.
	AllowOversize bool
	// Strict makes the Agent Skills limits errors (validate --strict).
	Strict bool
	// TrustRoot is the Domain-Verified Skills trust root the catalog publishes, as
	// trust.ParseRoot wrote it (Root.String), or "" for none.
	TrustRoot string
	// Frozen refuses a sources.lock that does not hold the policy file's sources as
	// configured, or whose refs moved under it, and never writes it (catalog/sources).
	Frozen bool
	// SourceTokens are tokens for private sources, by origin ("https://git.example.com"):
	// each given to git for the sources at its origin alone (catalog/sources).
	SourceTokens map[string]string
	// Log is told of each source fetched and of the lock written; nil says nothing.
	Log io.Writer
}

// Folder is a skills folder loaded and checked.
type Folder struct {
	// Dir is the folder, "" for the built-in examples.
	Dir     string
	Catalog *compile.Catalog
	// Problems are the folder's problems in the order found, without the "skipped"
	// warnings unless SkipInvalid was asked.
	Problems []compile.Problem
	Checked  int // skills found, valid or not
	Errors   int
	Warnings int // not counting the "skipped" warnings, which repeat errors
	Skipped  int // skills left out, with SkipInvalid
}

// Load loads dir, or the built-in examples when dir is "", with its history when its
// policy file keeps versions (a folder in no git work tree gets a warning instead), and
// counts its problems. It fails on a folder it cannot read, and on a policy file that sits
// above dir (errMisplacedPolicy); a folder with invalid skills is not an error here.
func Load(dir string, opt BuildOptions) (*Folder, error) {
	// Always ask for the Skipped warnings: they are how invalid skills are counted.
	copt := compile.Options{SkipInvalid: true, AllowOversize: opt.AllowOversize, Strict: opt.Strict}
	var (
		c        *compile.Catalog
		problems []compile.Problem
		err      error
	)
	if dir == "" {
		c, problems, err = compile.Load(examples.FS, "examples", copt)
	} else if err = misplacedPolicy(dir); err == nil {
		c, problems, err = compile.LoadDir(dir, copt)
	}
	if err != nil {
		return nil, err
	}
	if c.Keep > 0 && dir != "" {
		hp, err := attachVersions(c, dir, opt.Strict)
		if err != nil {
			return nil, err
		}
		problems = append(problems, hp...)
	}
	if dir != "" {
		sp, err := composeSources(c, dir, opt)
		if err != nil {
			return nil, err
		}
		problems = append(problems, sp...)
	}
	f := &Folder{Dir: dir, Catalog: c, Checked: len(c.Skills)}
	for _, p := range problems {
		if p.Skipped {
			f.Checked++
			if opt.SkipInvalid {
				// Said, and counted as a skill skipped: its errors are counted already.
				f.Skipped++
				f.Problems = append(f.Problems, p)
			}
			continue
		}
		if p.Severity == compile.Error {
			f.Errors++
		} else {
			f.Warnings++
		}
		f.Problems = append(f.Problems, p)
	}
	return f, nil
}

// Check loads dir as Load does and returns it ready to build, with opt.TrustRoot set,
// after printing its problems and their summary on log (nothing for a folder without
// any). It refuses a folder whose access policy has problems (ErrBrokenPolicy), and one
// with invalid skills unless opt.SkipInvalid (ErrInvalid), after printing why.
func Check(dir string, opt BuildOptions, log io.Writer) (*Folder, error) {
	if opt.Log == nil {
		opt.Log = log
	}
	f, err := Load(dir, opt)
	if err != nil {
		return nil, err
	}
	f.Catalog.TrustRoot = opt.TrustRoot
	switch {
	case f.Catalog.Access != nil && f.Catalog.Access.Broken:
		err = ErrBrokenPolicy
	case f.Errors > 0 && !opt.SkipInvalid:
		err = ErrInvalid
	}
	if len(f.Problems) > 0 || err != nil {
		f.Report(log)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Report prints every problem and the summary line.
func (f *Folder) Report(w io.Writer) {
	f.Print(w, compile.Problem.String)
}

// Print prints every problem formatted by line, then the summary line: "3 skills
// checked: 2 errors, 0 warnings", and "; 2 skills skipped" when skills were left out.
//
// Why does the summary count a skipped skill apart? With --skip-invalid each invalid skill
// gets a line saying it is skipped and why, which repeats its first error; counted as a
// warning, one bad description read "1 error, 1 warning". The line is kept (it says what
// is not served), and the summary counts it as a skill skipped instead.
func (f *Folder) Print(w io.Writer, line func(compile.Problem) string) {
	for _, p := range f.Problems {
		fmt.Fprintln(w, line(p))
	}
	fmt.Fprintf(w, "%s checked: %s, %s", words.Plural(f.Checked, "skill"), words.Plural(f.Errors, "error"), words.Plural(f.Warnings, "warning"))
	if f.Skipped > 0 {
		fmt.Fprintf(w, "; %s skipped", words.Plural(f.Skipped, "skill"))
	}
	fmt.Fprintln(w)
}

// label names the folder in progress lines.
func (f *Folder) label() string {
	if f.Dir == "" {
		return "the built-in examples"
	}
	return f.Dir
}
