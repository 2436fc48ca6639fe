// @ts-check

// The limits of the host contract, which the host's modules share.

// limits are edge/wire's (limits.go); testdata/limits.json holds both to the same numbers.
export const limits = {
	DefaultMaxBody: 1048576, // the body cap when the options do not set maxBody
	MaxBatch: 64,
	HintSize: 16, // a replay hint without an expiry
	HintSizeExpiring: 20, // and with one
	ReplayEntries: 1024,
	ReplayEntryMax: 256 * 1024,
	ReplayBudget: 16 * 1024 * 1024,
	ReplayShapesMax: 16,
	KeySetMax: 256 * 1024,
	KeysRedirects: 3,
	KeysTimeout: 5, // seconds, as the other durations
	KeysRefetch: 30,
	KeysRetry: 1,
	KeysMinAge: 60,
	KeysMaxAge: 24 * 60 * 60,
	KeysDefaultAge: 10 * 60,
	MaxNeedRounds: 8, // the rounds of NEED (shards given) one request goes through
};
