// What the entry modules use of their platforms beyond the web APIs, declared for the
// type check of build/test (tsc --noEmit --checkJs), as far as the entries use it and no
// further. `skilledge build` does not write this file: it is the checker's, not the
// host's.

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
	function open(path: URL): Promise<{
		readable: ReadableStream<Uint8Array>;
		stat(): Promise<{ size: number }>;
		seek(offset: number, whence: SeekMode): Promise<number>;
		read(into: Uint8Array): Promise<number | null>;
		close(): void;
	}>;
	enum SeekMode {
		Start = 0,
	}
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

// Node (node.mjs): what it uses of node:http, node:fs/promises, node:stream and Buffer.
//
// Why declare them here rather than check against @types/node? The pinned tooling has no
// @types/node, and a package of some thousand declarations only for the checker would
// type all of Node where node.mjs uses some twenty members; declared here, they are the
// entry's platform as far as it goes, as Workers', Deno's and Bun's are above, and a new
// use of Node fails the check until it is declared.
declare class Buffer extends Uint8Array<ArrayBuffer> {
	static from(text: string): Buffer;
	static concat(list: readonly Uint8Array[]): Buffer;
}
declare module "node:stream" {
	class Readable {
		static toWeb(readable: Readable): ReadableStream<Uint8Array>;
	}
}
declare module "node:fs/promises" {
	import type { Readable } from "node:stream";
	interface FileHandle {
		stat(): Promise<{ size: number }>;
		close(): Promise<void>;
		createReadStream(): Readable;
		read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
	}
	function open(path: URL): Promise<FileHandle>;
	function readFile(path: URL): Promise<Buffer>;
}
declare module "node:http" {
	import type { Readable } from "node:stream";
	// A header field's value: a repeated one is an array in headers, each an array in
	// headersDistinct.
	interface IncomingMessage extends Readable {
		method: string;
		url: string;
		headers: Record<string, string | string[] | undefined>;
		headersDistinct: Record<string, string[] | undefined>;
		rawHeaders: string[];
		on(event: "data", listener: (chunk: Buffer) => void): this;
		on(event: "end", listener: () => void): this;
		on(event: "error", listener: (err: Error) => void): this;
	}
	interface ServerResponse {
		headersSent: boolean;
		writeHead(status: number, fields?: string[]): this;
		write(chunk: Uint8Array): boolean;
		end(body?: Uint8Array | null): this;
		once(event: "drain", listener: (...args: any[]) => void): this;
		destroy(err?: unknown): this;
	}
	interface Socket {
		writable: boolean;
		end(data: string): this;
		on(event: "data", listener: (chunk: Buffer) => void): this;
		resume(): this;
		destroy(): this;
	}
	interface Server {
		keepAliveTimeout: number;
		on(event: "clientError", listener: (err: Error & { code?: string }, socket: Socket) => void): this;
		listen(port: number, host: string | undefined, listening: () => void): this;
		// A server listening on a port (Node's own types add string, for a pipe, and null,
		// before it listens).
		address(): { address: string; port: number };
	}
	function createServer(options: { maxHeaderSize?: number }, serve: (req: IncomingMessage, res: ServerResponse) => void): Server;
}
