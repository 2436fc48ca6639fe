package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/signing"
)

// RootReport is what the signed root said, once it verified (Options.TrustKey).
type RootReport struct {
	Catalog  string
	Sequence uint64
	Expires  time.Time
	Payload  string // hex SHA-256 of its payload: what the next root names as previous
}

// rootAdvice says what to do about a root that failed check err.
func rootAdvice(err error) string {
	switch {
	case errors.Is(err, signing.ErrSignature):
		return "it is not signed by the key given: check --trust-key, or ask the publisher whether the key changed"
	case errors.Is(err, signing.ErrExpired):
		return "the publisher has not signed the catalog since: a deployment that stopped being built, or a server serving an old root; ask the publisher to build and deploy again"
	case errors.Is(err, signing.ErrRollback):
		return "the deployment serves an older catalog than one seen before: it may have been rolled back, or replayed"
	case errors.Is(err, signing.ErrChain):
		return "the root does not follow the one seen before: the publisher lost its roots.json, or another signer holds the key"
	case errors.Is(err, signing.ErrOtherCatalog):
		return "the deployment serves another catalog's root"
	}
	return "the deployment's root is not a skilledge catalog root"
}

// FetchRoot reads the signed root of the deployment at base (catalog.RootJSON), under the
// rules of Fetch (same origin, its token, redirects, bounded): the envelope's bytes when it
// answers 200, and the status it answered with. A status other than 200 is not an error:
// the caller says what a 404 (no root) or another refusal means to it; a failure to
// answer at all is. Nothing is checked: signing.OpenRoot does that.
func FetchRoot(ctx context.Context, base string, opt Options) (env []byte, status int, err error) {
	v, err := newVerifier(base, opt)
	if err != nil {
		return nil, 0, err
	}
	u := v.withPath(catalog.RootJSON)
	resp, err := v.get(ctx, u, "application/json", v.sameOrigin, signing.MaxEnvelope)
	if err != nil {
		return nil, 0, fmt.Errorf("cannot fetch the signed root %s: %w", u, err)
	}
	if resp.status != 200 {
		return nil, resp.status, nil
	}
	return resp.body, 200, nil
}

// checkRoot holds the deployment to its signed root (PROTOCOL.md#signed-root) when
// Options.TrustKey is set: the root verifies with the key, is not expired, follows
// Options.Seen, and names every skill verified with the manifest digest of the files that
// verified, every kept version verified with its manifest digest, and the change feed
// with its digest when the root names one. Without a key, a root served is noted.
func (v *verifier) checkRoot(ctx context.Context) {
	u := v.withPath(catalog.RootJSON)
	at := u.String()
	resp, err := v.get(ctx, u, "application/json", v.sameOrigin, signing.MaxEnvelope)
	switch {
	case err != nil && v.opt.TrustKey == nil:
		return
	case err != nil:
		v.problem("", at, "cannot fetch the signed root: %v", err)
		return
	case resp.status != 200 && v.opt.TrustKey != nil:
		v.problem("", at, "%s: no signed root, where --trust-key asks for one (build --sign signs it)", statusText(resp.status))
		return
	case resp.status != 200:
		return
	case v.opt.TrustKey == nil:
		v.rep.Notes = append(v.rep.Notes, "the deployment serves a signed root ("+at+"): --trust-key KEY holds it to the publisher's key")
		return
	}
	r, err := signing.OpenRoot(resp.body, v.opt.TrustKey)
	if err == nil {
		err = r.Check(time.Now(), v.opt.Seen)
	}
	if err != nil {
		v.problem("", at, "the signed root: %v: %s", err, rootAdvice(err))
		return
	}
	v.rep.Root = &RootReport{Catalog: r.Catalog, Sequence: r.Sequence, Expires: r.Expires, Payload: r.Payload}
	for _, sr := range v.list {
		st := v.skills[sr.Name]
		if st.files == nil {
			continue // not verified: its problems say why
		}
		m, why := v.mcpEntry(sr.Name)
		if why != "" {
			continue // a problem of the cross-check already
		}
		served := strings.TrimPrefix(manifestOfInfo(st.files), "sha256:")
		v.namedInRoot(r, sr, at, m.uri, served)
	}
	for _, kv := range v.versionsOK {
		v.namedInRoot(r, kv.sr, at, kv.k.URI, strings.TrimPrefix(kv.k.Digest, "sha256:"))
	}
	if signed, ok := r.Digest(catalog.ChangesURI); ok {
		v.checkSignedFeed(ctx, signed)
	}
}

// checkSignedFeed holds the change feed (catalog.ChangesJSON) to the digest the root
// gives it: a feed is the publisher's word on what changed, and a server that rewrote it
// could hide a change.
func (v *verifier) checkSignedFeed(ctx context.Context, signed string) {
	u := v.withPath(catalog.ChangesJSON)
	resp, err := v.get(ctx, u, "application/json", v.sameOrigin, maxIndexBytes)
	switch {
	case err != nil:
		v.problem("", u.String(), "cannot fetch the change feed the signed root names: %v", err)
	case resp.status != 200:
		v.problem("", u.String(), "%s: the change feed the signed root names is not served", statusText(resp.status))
	case strings.TrimPrefix(DigestOf(resp.body), "sha256:") != signed:
		v.problem("", u.String(), "the change feed is not the one the publisher signed (the root gives sha256:%s, it is %s)", signed, DigestOf(resp.body))
	}
}

// namedInRoot records a problem of skill sr unless root r names uri with the manifest
// digest served (hex).
func (v *verifier) namedInRoot(r *signing.Root, sr *SkillReport, at, uri, served string) {
	switch signed, ok := r.Digest(uri); {
	case !ok:
		v.skillProblem(sr, at, "the signed root does not name %s: a skill the publisher did not sign (%s)", uri, rootAdvice(signing.ErrNotNamed))
	case signed != served:
		v.skillProblem(sr, at, "the signed root names %s with manifest sha256:%s, and the deployment serves sha256:%s: files the publisher did not sign", uri, signed, served)
	}
}
