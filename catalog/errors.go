package catalog

import "errors"

// ErrCorrupt is wrapped by every error Open returns for bytes that are not a valid pack.
var ErrCorrupt = errors.New("catalog: corrupt index")

// ErrOldFormat is wrapped, beside ErrCorrupt, by Open's error for a format-1 pack: one
// written by skilledge before file contents moved to the content store. Rebuild it.
var ErrOldFormat = errors.New("catalog.pack is in the format of skilledge before the content store (file contents inside); rebuild it with skilledge build")
