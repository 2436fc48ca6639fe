package pull

import (
	"errors"
	"fmt"
	"os"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// DefaultMaxTotal is how many bytes of files one pull may download and write, all its
// skills together, unless Options.MaxTotal says otherwise (skilledge pull --max-total).
// Each skill is bounded by verify's limits (16 MiB); this bounds a catalog of many.
const DefaultMaxTotal = 1 << 30

// ErrTooLarge is wrapped by the error of a pull whose selected skills hold more than its
// total bound.
var ErrTooLarge = errors.New("pull: over the total size")

// stager writes each skill a read downloads and verifies into a temporary folder of DIR
// as it arrives (verify.Options.Take), so that a pull holds one skill's files in memory
// at a time, and counts the bytes against the total bound; the folders are swapped into
// place once every selected skill has verified, and those left are removed by cleanup.
//
// A dry stager (pull --dry-run) writes nothing: it checks and counts each skill as take
// does, and lets its files go.
//
// Why does a dry run download what a pull would, rather than plan from the listing alone?
// Because what a skill becomes depends on its files where the listing gives no digest to
// compare (a v0.1.0 index) or another digest than the lock's (a lock made over MCP), and
// because a plan whose skills would not verify, or not fit --max-total, is no plan: the
// dry run fails as the pull would.
type stager struct {
	dir, source string
	max, total  int64
	dry         bool
	made        bool // DIR did not exist: cleanup removes it if it holds nothing
	skills      map[string]*staged
}

// staged is one skill written to its temporary folder.
type staged struct {
	lock  LockedSkill // its lock entry (lockedOf)
	tmp   string      // the temporary folder in DIR ("" in a dry run)
	files int
	bytes int64
}

func newStager(dir, source string, max int64, dry bool) *stager {
	if max <= 0 {
		max = DefaultMaxTotal
	}
	return &stager{dir: dir, source: source, max: max, dry: dry, skills: map[string]*staged{}}
}

// take checks f's files as paths of this file system (lockedOf), counts them against the
// bound, and writes them to a temporary folder.
func (s *stager) take(f verify.Fetched) error {
	ls, err := lockedOf(s.source, f)
	if err != nil {
		return err
	}
	var n int64
	for _, file := range f.Files {
		n += int64(len(file.Data))
	}
	if s.total+n > s.max {
		return fmt.Errorf("%w: the selected skills hold more than %d MiB of files (at %s); nothing was written: pass --max-total to allow more, or select fewer skills", ErrTooLarge, s.max>>20, f.Name)
	}
	if s.dry {
		s.put(&staged{lock: ls, files: len(f.Files), bytes: n})
		return nil
	}
	if _, err := os.Stat(s.dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return err
		}
		s.made = true
	}
	tmp, written, err := writeTemp(s.dir, f.Name, f.Files)
	if err != nil {
		return err
	}
	s.put(&staged{lock: ls, tmp: tmp, files: len(f.Files), bytes: written})
	return nil
}

// put keeps st as the skill staged under its name, in place of one staged before.
func (s *stager) put(st *staged) {
	if old := s.skills[st.lock.Name]; old != nil {
		if old.tmp != "" {
			os.RemoveAll(old.tmp)
		}
		s.total -= old.bytes
	}
	s.skills[st.lock.Name] = st
	s.total += st.bytes
}

// swap puts the staged skill name into place as DIR/NAME.
func (s *stager) swap(name string) error {
	st := s.skills[name]
	if err := swapIn(s.dir, name, st.tmp); err != nil {
		return err
	}
	delete(s.skills, name)
	return nil
}

// cleanup removes the temporary folders not swapped in, and DIR when take made it and it
// holds nothing.
func (s *stager) cleanup() {
	for _, st := range s.skills {
		if st.tmp != "" {
			os.RemoveAll(st.tmp)
		}
	}
	if s.made {
		os.Remove(s.dir) // only if empty
	}
}
