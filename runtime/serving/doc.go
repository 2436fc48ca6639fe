// Package serving turns a skills folder, or the output of `skilledge build`, into a
// catalog served by a pool of plugin instances, and keeps it served as the folder
// changes; it also writes the files a deployment needs. It is the room under the CLI's
// serve, stdio, build and validate:
//
//   - Load and Check read and check a skills folder (or the built-in examples), with its
//     git history when its policy file keeps versions (versions.go), and refuse a policy
//     file left beside the folder (policy.go);
//   - Open opens the catalog serve and stdio answer from: a built output folder as it is
//     (built.go), or a skills folder built into the build cache, which a later start
//     reuses when nothing changed (cache.go); meanwhile plugin.wasm is found and compiled
//     on a goroutine of its own (pluginstart.go). Server.Start makes the pool and the
//     front that serves it, and Server.Watch rebuilds the folder when it changes and
//     swaps the new catalog in (watch.go);
//   - Build writes a deployment (deploy.go) and reports it against the Workers plan
//     limits (limits.go);
//   - NewSkill makes the new skill of init (newskill.go), and Banner, Loopback,
//     DisplayAddr and SyncWriter are what a server says when it starts, where it may
//     listen, and how its log is written from several goroutines (listen.go).
//
// It says what takes long, and what a folder's problems are, in whole lines on the
// writer it is given; its errors say what failed and where, and what to do about them
// is the CLI's to add (Options.Advise). It imports the hosts' rooms (runtime/wasm,
// runtime/front, runtime/store, runtime/pluginbuild) and the compiler, never the server
// (edge), edge/auth (an auth option reaches it as bytes for the plugin) or
// runtime/telemetry (what an operator is told reaches it as a front.Observer).
package serving
