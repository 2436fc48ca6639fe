# workerd configuration serving wrangler's bundle of ts-worker.mjs (see README.md): copy it
# next to the bundle (embed paths are relative to this file), then
#   workerd serve DIR/ts-worker.capnp --socket-addr http=127.0.0.1:PORT
# One Worker, one module (wrangler bundles everything into ts-worker.js), the
# compatibility date of wrangler.ts-worker.toml (Node.js compatibility on by default).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "ts", worker = .tsWorker)],
  sockets = [(name = "http", http = (), service = "ts")],
);

const tsWorker :Workerd.Worker = (
  modules = [(name = "ts-worker.js", esModule = embed "ts-worker.js")],
  compatibilityDate = "2026-10-01",
);
