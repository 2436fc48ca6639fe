package serving

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/internal/words"
)

// How encode reports progress: a first line once building has taken progressAfter, then
// a line at most every progressEvery. Tests shorten them.
var (
	progressAfter = time.Second
	progressEvery = 3 * time.Second
)

// encode encodes c, its store objects written into dir/sha256 as they are made (see
// compile.EncodeOptions), saying so on progress when it takes more than progressAfter
// (archiving a large catalog), with a line per progressEvery on how far it got.
func encode(c *compile.Catalog, dir, label string, opt compile.EncodeOptions, progress io.Writer) (*compile.Encoded, error) {
	start := time.Now()
	var mu sync.Mutex
	said, last := false, start
	files, bytes := c.Size()
	announce := func() {
		if !said {
			said = true
			fmt.Fprintf(progress, "skilledge: building the catalog of %s (%s, %s, %s)…\n", label,
				words.Plural(len(c.Skills), "skill"), words.Plural(files, "file"), size(int(bytes)))
		}
	}
	t := time.AfterFunc(progressAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		announce()
	})
	opt.Dir = dir
	opt.Progress = func(done int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if now.Sub(start) >= progressAfter {
			announce()
		}
		if said && now.Sub(last) >= progressEvery {
			last = now
			fmt.Fprintf(progress, "skilledge: archived %d of %d skills…\n", done, len(c.Skills))
		}
	}
	enc, err := compile.EncodeWith(c, opt)
	t.Stop()
	mu.Lock()
	defer mu.Unlock()
	announce = func() {} // a timer that fires now, after the build, says nothing
	if said && err == nil {
		fmt.Fprintf(progress, "skilledge: built in %.1fs\n", time.Since(start).Seconds())
	}
	return enc, err
}
