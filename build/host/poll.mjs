// @ts-check

// The WASI poll_oneoff the host gives the plugin in place of the Extism SDK's (pollOneoff):
// it answers a poll whose every subscription is a relative clock that has already expired,
// the only poll the plugin makes, and refuses any other.
//
// Why does the host give the plugin a poll_oneoff of its own? The WASI shim of the SDK's
// browser build (1.0.3), which every entry uses, throws "async io not supported" from
// poll_oneoff, whatever it is asked. The Go runtime polls, with a timeout of 0, each time
// it starts the world again (a collection, runtime.ReadMemStats) once it has a timer; it
// has one once its scavenger has slept, and the scavenger runs whenever a call blocks, as
// runtime.GC at the end of a call does (edge/plugin/gc.go). In workerd, whose clock stands
// still within a request, the scavenger sleeps at every collection, so the instance and
// its request failed at the second collection (TestJSHostsCollect; CI's TestHostile caught
// it at its 63rd request). A poll of a clock that has expired
// needs no wait, and this one answers it at once. Any other would have the host wait:
// JavaScript cannot block inside a synchronous import, and in workerd the clock would not
// move while it did; such a poll gets ENOTSUP, the Go runtime throws, and only that request
// fails. The plugin makes none (runtime/wasm's TestPluginPollsOnlyExpiredClocks runs it
// with a clock that stands still and counts the sleeps it asks for). Rejected: keeping the
// scavenger from its timer (nothing in the runtime's API does, and any call that blocks
// lets it run); no runtime.GC at the end of a call (a stalled cycle made cache-cold reads
// take twice as long); a wait with Atomics.wait (workerd's clock stands still through it).

/** WASI errnos (wasi_snapshot_preview1). */
const EINVAL = 28;
const ENOTSUP = 58;

/** The sizes of a WASI subscription and of an event, in bytes. */
const subscriptionSize = 48;
const eventSize = 32;

// wasiFunctions is what the host gives createPlugin as its functions option (a
// poll_oneoff for wasi_snapshot_preview1, which replaces the shim's), and made, which the
// host calls with the instance's exports once it is made and which returns them: the
// import reads the instance's memory from then on.
/**
 * @returns {{ functions: Record<string, Record<string, (ctx: any, ...args: any[]) => any>>, made: (exports: WebAssembly.Exports) => WebAssembly.Exports }}
 */
export function wasiFunctions() {
	/** @type {WebAssembly.Memory | null} */
	let memory = null;
	return {
		functions: { wasi_snapshot_preview1: { poll_oneoff: pollOneoff(() => memory) } },
		made: (exports) => {
			memory = /** @type {WebAssembly.Memory} */ (exports.memory);
			return exports;
		},
	};
}

// pollOneoff is a poll_oneoff import for the Extism SDK's functions option, which calls it
// with its call context first. memory returns the instance's memory, or null while the
// instance is being made (the Go runtime does not poll then). A poll of n subscriptions,
// each a clock (tag 0) with a relative timeout (flags without abstime) of 0, is answered
// with an event for each, and nevents = n; any other gets ENOTSUP (or EINVAL for n = 0, as
// WASI says) and writes nothing.
/**
 * @param {() => WebAssembly.Memory | null} memory
 * @returns {(ctx: unknown, subscriptions: number, events: number, n: number, nevents: number) => number}
 */
export function pollOneoff(memory) {
	return (_ctx, subscriptions, events, n, nevents) => {
		const m = memory();
		if (m === null) return ENOTSUP;
		n >>>= 0;
		if (n === 0) return EINVAL;
		const v = new DataView(m.buffer);
		const sub = subscriptions >>> 0;
		const ev = events >>> 0;
		if (sub + n * subscriptionSize > v.byteLength || ev + n * eventSize > v.byteLength || (nevents >>> 0) + 4 > v.byteLength) return EINVAL;
		for (let i = 0; i < n; i++) {
			const s = sub + i * subscriptionSize;
			const clock = v.getUint8(s + 8) === 0;
			const abstime = (v.getUint16(s + 40, true) & 1) !== 0;
			if (!clock || abstime || v.getBigUint64(s + 24, true) !== 0n) return ENOTSUP;
		}
		for (let i = 0; i < n; i++) {
			const s = sub + i * subscriptionSize;
			const e = ev + i * eventSize;
			for (let k = 0; k < eventSize; k += 8) v.setBigUint64(e + k, 0n, true);
			v.setBigUint64(e, v.getBigUint64(s, true), true); // userdata
			// error 0 (+8), type 0: clock (+10)
		}
		v.setUint32(nevents >>> 0, n, true);
		return 0;
	};
}
