package serving

import (
	"errors"
	"fmt"

	"github.com/skilledge/skilledge/catalog/compile"
)

// Why do serving's errors not open with "serving: ", as the other libraries' do? Because
// they are sentences the CLI prints after "skilledge COMMAND: ", as it printed them when
// this code was its own: the folder, file or object they name is what the user gave or
// has to look at, and a prefix would change what every user reads for no one's benefit.
// They carry no advice, as the convention says: the CLI adds what to do (Options.Advise).

var (
	// ErrInvalid is returned by Check, Open and Server.Watch's rebuilds for a folder with
	// invalid skills, refused unless BuildOptions.SkipInvalid (each problem is reported).
	ErrInvalid = errors.New("the folder has invalid skills")
	// ErrBrokenPolicy is returned by Check for a folder whose access policy has problems,
	// which SkipInvalid does not skip: a catalog is never served under a policy that was
	// not read as written. It is compile.ErrPolicy, as its message says.
	ErrBrokenPolicy = fmt.Errorf("%w", compile.ErrPolicy)
	// ErrAssetSize is wrapped by the error of Build for a catalog with a content store
	// object over the most a Workers static asset may be; the error names each.
	ErrAssetSize = errors.New("an object over the Workers asset limit")
	// errMisplacedPolicy is wrapped by the error of a folder whose policy file sits above it.
	errMisplacedPolicy = errors.New("a policy file outside the skills folder")
)
