package pluginbuild

// Variant is which of the plugin's two builds to run. Both answer every request alike
// but for the auth option, which only Full serves: Public is built with the tag
// PublicTag, which leaves out edge/auth and the crypto, math/big and ASN.1 its credentials
// need, a quarter of the module's code and a quarter of what a first start spends
// compiling it. `skilledge build` ships Public for a catalog without an access policy,
// serve and stdio run it unless given --auth.
type Variant uint8

const (
	// Full checks credentials: the auth option.
	Full Variant = iota
	// Public refuses the auth option (edge.ErrPublicBuild).
	Public
)

// PublicTag is the build tag of the public plugin.
const PublicTag = "skilledge_public"

// Variants lists both builds, Full first.
var Variants = []Variant{Full, Public}

// String is the variant's name in messages and flags: "full" or "public".
func (v Variant) String() string {
	if v == Public {
		return "public"
	}
	return "full"
}

// Tags are the go build -tags of the variant, empty for Full.
func (v Variant) Tags() string {
	if v == Public {
		return PublicTag
	}
	return ""
}

// cacheName is the file name of the variant's build of the source with hash in the
// cache.
func (v Variant) cacheName(hash string) string {
	if v == Public {
		return "plugin-public-" + hash + ".wasm"
	}
	return "plugin-" + hash + ".wasm"
}
