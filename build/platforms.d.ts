// What the entry modules use of their platforms beyond the web APIs, declared for the
// type check of build/test (tsc --noEmit --checkJs), as far as the entries use it and no
// further. `skilledge build` does not write this file: it is the checker's, not the
// host's. (node.mjs is not checked: its platform is node:http, node:fs and node:stream.)

// Cloudflare Workers: the modules wrangler makes of plugin.wasm (CompiledWasm) and
// catalog.pack (Data), and a stream the runtime sends with a known Content-Length.
declare module "*.wasm" {
	const module: WebAssembly.Module;
	export default module;
}
declare module "*.pack" {
	const data: ArrayBuffer;
	export default data;
}
declare class FixedLengthStream extends TransformStream<Uint8Array, Uint8Array> {
	constructor(length: number);
}

// Deno.
declare namespace Deno {
	function readFile(path: URL): Promise<Uint8Array<ArrayBuffer>>;
	function open(path: URL): Promise<{ readable: ReadableStream<Uint8Array>; stat(): Promise<{ size: number }>; close(): void }>;
	function exit(code?: number): never;
	const env: { get(name: string): string | undefined };
	namespace errors {
		class NotFound extends Error {}
	}
}

// Bun, and the part of Node's process it has.
declare namespace Bun {
	interface BunFile extends Blob {
		exists(): Promise<boolean>;
	}
	function file(path: URL): BunFile;
	function serve(options: { port: number; hostname?: string; fetch(request: Request): Response | Promise<Response> }): { url: URL };
}
declare const process: { env: Record<string, string | undefined>; exit(code?: number): never };
