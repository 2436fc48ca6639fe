package versions

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNotRepo is returned by Git for a folder that is in no git work tree, or when there is
// no git command to ask.
var ErrNotRepo = errors.New("history: not in a git work tree")

// gitRepo is a Source that runs the git command in the work tree holding a skills folder.
type gitRepo struct {
	top    string // the work tree's root, or a bare repository (GitAt)
	prefix string // the folder's path in it, with a trailing slash ("" for the root)
	head   string // the commit whose history is read: "HEAD", or GitAt's commit
	// maxFiles bounds the files Files lists at a commit (0: no bound): a source's tree
	// is another's, and a few kilobytes of trees can list millions of paths. maxLog bounds
	// the commits Log lists likewise (0: no bound).
	maxFiles, maxLog int
	mu               sync.Mutex
	batch            *catFile // the reader of blobs (Read)
	noBatch          bool     // it could not start: a command a read
}

// Git returns the Source of the skills folder dir: the history of the work tree that holds
// it, as the git command reads it (committed history only: what is not committed is not
// published). It wraps ErrNotRepo when dir is in no work tree.
func Git(ctx context.Context, dir string) (Source, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotRepo, dir, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) == 1 {
		lines = append(lines, "") // the root of the work tree: an empty prefix line
	}
	return &gitRepo{top: lines[0], prefix: lines[1], head: "HEAD"}, nil
}

// GitAt returns the Source of the folder dir ("" for the root) of the repository gitDir (a
// bare one: a source's cache) as it is at commit: its history is commit's. The commit must
// be a full object name; it is not checked here.
func GitAt(gitDir, commit, dir string) Source {
	prefix := ""
	if dir != "" {
		prefix = strings.TrimSuffix(dir, "/") + "/"
	}
	// Read keeps DefaultMaxCommits commits, and needs one more to know the history is cut.
	return &gitRepo{top: gitDir, prefix: prefix, head: commit, maxFiles: MaxSourceFiles, maxLog: DefaultMaxCommits + 1}
}

// MaxSourceFiles bounds the files a GitAt source lists at one commit: more than a catalog
// of thousands of skills holds, and a few hundred megabytes of names at most.
//
// Why bound the files a source's tree lists? git stores a tree once however often it is
// used, so a repository of a few hundred kilobytes can nest one tree in itself twenty times
// and list a million paths: reading them took a gigabyte. A source is another's
// repository; the folder is the team's own, and is not bounded so.
const MaxSourceFiles = 200_000

// ErrTooManyFiles is wrapped by Files' error for a tree that lists more than maxFiles.
var ErrTooManyFiles = errors.New("the tree lists more files than a source may have")

// Env is the environment the git command runs in: the process's, without what would point
// git at another repository than the one named (GIT_DIR, GIT_WORK_TREE, … as a git hook
// sets them), and with extra.
func Env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
			"GIT_NAMESPACE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

func (g *gitRepo) pathspec() string {
	if g.prefix == "" {
		return "."
	}
	return g.prefix
}

// Log implements Source: the commits of HEAD's history that touched the folder, newest
// first; none in a repository without commits.
func (g *gitRepo) Log(ctx context.Context) ([]Commit, error) {
	if _, err := git(ctx, g.top, "rev-parse", "--verify", "--quiet", "--end-of-options", g.head); err != nil {
		return nil, nil // no commit yet
	}
	// --first-parent: what was published is what the branch received, merges included,
	// not each commit of a branch merged into it (which git log would list by date).
	args := []string{"log", "-z", "--first-parent", "--format=%H%x00%cI%x00%s"}
	if g.maxLog > 0 {
		args = append(args, "--max-count="+strconv.Itoa(g.maxLog))
	}
	out, err := git(ctx, g.top, append(args, "--end-of-options", g.head, "--", g.pathspec())...)
	if err != nil {
		return nil, err
	}
	return parseLog(out)
}

// parseLog reads what git log -z --format=%H%x00%cI%x00%s printed: three fields a commit.
// A commit whose date is not RFC 3339 is Unreadable, not an error; subjects are cut to
// MaxSubject characters.
func parseLog(out []byte) ([]Commit, error) {
	var commits []Commit
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(f) == 1 && f[0] == "" {
		return nil, nil
	}
	if len(f)%3 != 0 {
		return nil, fmt.Errorf("history: git log printed %d fields, not commits of three", len(f))
	}
	for ; len(f) > 0; f = f[3:] {
		c := Commit{Hash: strings.TrimLeft(f[0], "\n"), Subject: cutSubject(f[2])}
		date, err := time.Parse(time.RFC3339, f[1])
		if err != nil {
			// git keeps what a committer wrote (a date past year 9999, a time zone of
			// its own) and fsck finds nothing wrong: one commit must not stop every build.
			c.Unreadable = fmt.Sprintf("its committer date %q is not an RFC 3339 date", cutSubject(f[1]))
		}
		c.Date = date
		commits = append(commits, c)
	}
	return commits, nil
}

// Files implements Source: the blobs of the folder's tree at commit, with their sizes
// (ls-tree --long reads them from the objects' headers, not their contents); submodules
// are no files: they are left out.
//
// Why are a version's sizes read from git's object headers? A history can hold blobs that
// compress a thousandfold: a .git of 244 KB held 1.5 GB of files, and the build read every
// blob of every version, kept them all, and let older versions skip the per-skill limit.
// With the sizes from the headers a version over the limits is refused before a byte of it
// is read, and the others are read (through one git cat-file --batch, Read) when needed
// and let go: across the history only digests and frontmatter names are kept, and a kept
// version keeps in memory what the latest does (files up to compile.KeepBytes, one copy
// per digest), its larger files read from git again when encoded. Rejected: a size check
// after reading (the reading is the cost), and a cache of blobs by a memory budget (the
// history is read once; nothing is asked for twice but the names and digests kept).
func (g *gitRepo) Files(ctx context.Context, commit string) ([]File, error) {
	out, err := gitLimited(ctx, g.top, g.maxFiles, "ls-tree", "-r", "-z", "--long", "--full-tree", "--end-of-options", commit, "--", g.pathspec())
	if err != nil {
		return nil, err
	}
	var files []File
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("history: git ls-tree printed %q", rec)
		}
		if f[1] != "blob" {
			continue
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("history: git ls-tree printed %q", rec)
		}
		p, ok := strings.CutPrefix(string(name), g.prefix)
		if !ok {
			continue
		}
		files = append(files, File{Path: p, Blob: f[2], Link: f[0] == "120000", Exec: f[0] == "100755", Size: size})
	}
	return files, nil
}

// Read implements Source: through one `git cat-file --batch` that the repository starts
// at its first read and keeps (a history's reads are thousands, and a build reads a kept
// version's large files again when it encodes them), stopped when the repository is let
// go (runtime.AddCleanup); where it cannot start, with a git command a read.
func (g *gitRepo) Read(ctx context.Context, blob string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.batch == nil && !g.noBatch {
		b, err := newCatFile(g.top)
		if err != nil {
			g.noBatch = true
		} else {
			g.batch = b
			runtime.AddCleanup(g, func(b *catFile) { b.close() }, b)
		}
	}
	if g.batch != nil {
		data, err := g.batch.read(blob)
		if err != nil && !errors.Is(err, errNoBlob) {
			g.batch.close() // a broken pipe: the next read starts another
			g.batch = nil
		}
		return data, err
	}
	return git(ctx, g.top, "cat-file", "blob", "--end-of-options", blob)
}

// Stream returns the bytes of blob as `git cat-file blob` prints them, for a file too
// large to hold: closing it stops the command, however much of it was read.
func (g *gitRepo) Stream(ctx context.Context, blob string) (io.ReadCloser, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", g.top, "cat-file", "blob", "--end-of-options", blob)
	cmd.Env = Env()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &stream{ReadCloser: out, cmd: cmd}, nil
}

// stream is a running `git cat-file blob`'s output. Its end is an error unless the
// command succeeded: a blob that is missing ends as one, not as empty bytes.
type stream struct {
	io.ReadCloser
	cmd  *exec.Cmd
	done bool
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if err == io.EOF && !s.done {
		s.done = true
		if werr := s.cmd.Wait(); werr != nil {
			return n, fmt.Errorf("history: git cat-file blob: %w", werr)
		}
	}
	return n, err
}

func (s *stream) Close() error {
	s.ReadCloser.Close()
	if !s.done {
		s.done = true
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	return nil
}

// catFile is a running `git cat-file --batch`: a blob's name in, its header and bytes out.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// errNoBlob is wrapped by the error of a read of an object that is not a blob.
var errNoBlob = errors.New("not a blob")

// newCatFile starts `git cat-file --batch` in dir. It runs until close, whatever context
// the read that started it had.
func newCatFile(dir string) (*catFile, error) {
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Env = Env()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// read asks for blob and reads the answer: "OID blob SIZE\n", SIZE bytes and "\n"; or
// "NAME missing\n".
func (b *catFile) read(blob string) ([]byte, error) {
	if strings.ContainsAny(blob, " \t\n") {
		return nil, fmt.Errorf("history: %q is not an object name", blob)
	}
	if _, err := io.WriteString(b.in, blob+"\n"); err != nil {
		return nil, fmt.Errorf("history: git cat-file --batch: %w", err)
	}
	head, err := b.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("history: git cat-file --batch: %w", err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && f[1] == "missing" || len(f) == 3 && f[1] != "blob" {
		return nil, fmt.Errorf("history: git cat-file --batch: %s: %s: %w", blob, strings.TrimSpace(head), errNoBlob)
	}
	if len(f) != 3 {
		return nil, fmt.Errorf("history: git cat-file --batch: %s: %s", blob, strings.TrimSpace(head))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("history: git cat-file --batch: %s: %s", blob, strings.TrimSpace(head))
	}
	data := make([]byte, size+1) // and the "\n" that ends it
	if _, err := io.ReadFull(b.out, data); err != nil {
		return nil, fmt.Errorf("history: git cat-file --batch: %s: %w", blob, err)
	}
	return data[:size], nil
}

func (b *catFile) close() {
	b.in.Close()
	b.cmd.Wait()
}

// Shallow implements Source.
func (g *gitRepo) Shallow(ctx context.Context) (bool, error) {
	out, err := git(ctx, g.top, "rev-parse", "--is-shallow-repository")
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(out)) == "true", nil
}

// gitLimited is git, stopping it with ErrTooManyFiles once it has printed more than max
// NUL-terminated records (0: no limit).
func gitLimited(ctx context.Context, dir string, max int, args ...string) ([]byte, error) {
	if max <= 0 {
		return git(ctx, dir, args...)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCommand(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var out []byte
	buf := make([]byte, 64<<10)
	records := 0
	for {
		n, rerr := pipe.Read(buf)
		records += bytes.Count(buf[:n], []byte{0})
		out = append(out, buf[:n]...)
		if records > max {
			cancel()
			cmd.Wait()
			return nil, fmt.Errorf("history: git %s: %w (more than %d)", args[0], ErrTooManyFiles, max)
		}
		if rerr != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, gitError(args[0], &stderr, err)
	}
	return out, nil
}

// gitError is the error of the git command named cmd: what it said on stderr, else err.
func gitError(cmd string, stderr *bytes.Buffer, err error) error {
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return fmt.Errorf("history: git %s: %s", cmd, msg)
	}
	return fmt.Errorf("history: git %s: %v", cmd, err)
}

// gitCommand is the git command run in dir with args, as git runs it.
func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	// --literal-pathspecs: a folder named ":(exclude)x" is that folder, not pathspec magic.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "--literal-pathspecs", "-c", "core.quotePath=false"}, args...)...)
	cmd.Env = Env()
	return cmd
}

// git runs the git command in dir and returns what it printed; an error carries what it
// said on stderr.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := gitCommand(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, gitError(args[0], &stderr, err)
	}
	return out, nil
}

// GitDirs returns the git directory of the work tree holding dir and the directory its
// refs are kept in (they differ in a linked work tree), as absolute paths; ErrNotRepo
// when dir is in no work tree. A watcher looks at their files to see a commit land.
func GitDirs(ctx context.Context, dir string) (gitDir, commonDir string, err error) {
	out, err := git(ctx, dir, "rev-parse", "--absolute-git-dir", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", ErrNotRepo, dir, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 {
		return "", "", fmt.Errorf("%w: %s: git rev-parse said %q", ErrNotRepo, dir, out)
	}
	return lines[0], lines[1], nil
}
