// Package store reads a content store on disk, as `skilledge build` writes it (the objects
// under OUT/assets/sha256/, each named by the SHA-256 of its bytes), for the fronts that
// splice its objects into responses (wire.Store). It owns reading those files: each object
// once per process, mapped read-only when large, checked against its name, and kept until
// Close.
//
// It never writes a store (catalog/compile does), and knows nothing of plugins, pools or
// requests: it imports the catalog reader's names and the standard library, nothing else
// of skilledge.
package store
