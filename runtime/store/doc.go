// Package store reads a content store on disk, as `skilledge build` writes it (the objects
// under OUT/assets/sha256/, each named by the SHA-256 of its bytes), for the fronts that
// splice its objects into responses (wire.Store). It owns reading those files: each object
// once per process, mapped read-only when large, checked against its name, and kept until
// Close.
//
// It never writes a store (catalog/compile does), and knows nothing of plugins, pools or
// requests: it imports the catalog reader's names and the standard library, nothing else
// of skilledge.
//
// Why does the harness read objects on first use, map the large ones, and check each
// against its name? Reading the whole store at start-up would cost time before the first
// answer (every file of the catalog) and memory for files nobody asks for; reading per
// request would cost a system call and a copy each time. So an object is loaded once, when
// first needed, and kept: read into memory below 64 KiB, mapped read-only above (no copy,
// and the page cache is shared with other processes serving the same build), then hashed
// once and refused if its bytes do not match its name, so a damaged file is a 500 naming it
// rather than wrong bytes under a right digest. Objects are opened non-blocking and must
// be regular files, so a FIFO in their place cannot hang a request.
//
// Why does the start-up check of the store list its folder, and leave sizes to first use?
// Every object the index names must be in the store at start, so that an incomplete copy
// of a build is refused with a message naming what is missing rather than failing a
// request later; one listing of the folder does that (Dir.CheckPresent). It used to stat
// every object as well, and collect the references into a list, which took tens of
// milliseconds for a catalog of a thousand skills (BENCHMARKS.md, "Why start-up lists the
// store's folder"). An object of the wrong size or content is caught where it always was,
// when it is first read and hashed, as a 500 for that request: serve and stdio of a built
// catalog start without reading or hashing what the index vouches for. Rejected: keeping
// the size check (the stat per object was the cost).
package store
