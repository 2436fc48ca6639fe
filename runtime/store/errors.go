package store

import "errors"

// ErrStore is wrapped by the errors of a content store on disk (Dir): an object that is
// missing, damaged or unreadable, or a store used after Close.
var ErrStore = errors.New("store")
