//go:build skilledge_public

package edge

import (
	"errors"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// The public plugin's authorization: none. Built with the tag skilledge_public, the
// plugin leaves out edge/auth and the crypto, math/big and ASN.1 its tokens need (a
// quarter of the module's code), which a catalog without an access policy, served
// without the auth option, never runs. It refuses the auth option (Check); everything
// else it answers byte for byte as the full plugin does.

// authConfig is the auth option, which this build never holds.
type authConfig = struct{}

// ErrPublicBuild is Check's error for the auth option in the public plugin.
var ErrPublicBuild = errors.New("auth: this plugin.wasm is skilledge's public build, which checks no credentials: serve the catalog with the full plugin (skilledge build ships it for a catalog with an access policy, or with --with-auth; serve and stdio run it with --auth)")

// Check reports whether a server can serve with opt: without the auth option, always.
func Check(opt wire.Options) error {
	if opt.Auth != nil {
		return ErrPublicBuild
	}
	return nil
}

// KeysWanted lists the key sets the server wants: none, without the auth option.
func (s *Server) KeysWanted() []string { return nil }

// SetKeys refuses every key set: without the auth option none is wanted.
func (s *Server) SetKeys(url string, doc []byte) error {
	return errors.New("auth: no auth option: no key set comes from " + url)
}

// newAuthz is nil: Check refused the auth option.
func newAuthz(*catalog.Pack, wire.Options) *authz { return nil }

// gate lets every request through: no caller is told apart.
func (s *Server) gate(*wire.Request, *headers, string) (*wire.Response, caller) {
	return nil, caller{}
}

// assertionField is the field an Access assertion would come in under opt: the default
// (Fields asks only with the auth option, which Check refuses).
func assertionField(wire.Options) string { return hdrAccessAssertion }

// assertionHeader is the field an Access assertion would come in under a: the default.
func (a *authz) assertionHeader() string { return hdrAccessAssertion }
