package catalog

import "errors"

// ErrCorrupt is wrapped by every error Open returns for bytes that are not a valid pack.
var ErrCorrupt = errors.New("catalog: corrupt pack")
