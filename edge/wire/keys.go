package wire

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Key sets: the package doc states what hosts do with them; the vectors in
// testdata/keys.json hold every host to it.

// The key sets' numbers.
//
// Why one fetch per URL every 30 seconds, and one retry of the request that wanted it?
// Tokens with made-up kids cost an attacker nothing; without a bound each would cost the
// issuer a request, sent by us. Thirty seconds (KeysRefetch) bounds that to two requests a
// minute per URL whatever comes in, and still picks up a real rotation within half a
// minute. The request whose token revealed the rotation is asked again once the new set is
// in hand, so that its client, which holds a valid token, never sees a 401 for it. Only
// that request is retried, once: a retry loop or retrying every waiting request would turn
// one forged token into many plugin calls. The cost: a token of a new key that arrives
// within 30 seconds of the last fetch is refused, and its client asks again.
//
// Why is a failed key set fetch tried again after 1 s, doubling, and on the host's own?
// Thirty seconds is the pause after a fetch that brought a set. After one that failed, the
// pause is 1 s (KeysRetry), then 2, 4, 8, 16, and 30 s from then on, and a host whose set
// is due (none in hand, or a stale one) fetches again on its own timer rather than at the
// next request: a serve that started while the identity provider restarted would
// otherwise refuse every token for half a minute, or for as long as no token arrived to
// ask. Doubling keeps an issuer that stays down at two requests a minute per URL.
// Rejected: a fixed short retry (an issuer that is down would be asked every second by
// every host); retrying only when a request comes (a quiet server stays locked out until
// its first caller is refused). On Workers an isolate runs no timer between requests, so
// there the first request past the pause fetches.
//
// Why honour max-age only between a minute and a day, and keep a stale set up to a day?
// Issuers say how long their key sets may be kept (Cache-Control max-age, often hours);
// below a minute a host would fetch in a loop, above a day a key the issuer withdrew (a
// leak) would stay trusted too long, so the age is clamped (KeysAge), and 10 minutes
// without one. When no fetch can refresh a stale set, the host keeps using it rather than
// refuse every caller because the issuer's endpoint is down, but for a day at most: then
// it hands the plugin an empty set and says so, and every token is refused until a fetch
// succeeds. Rejected: dropping the set at once (an issuer's outage becomes ours) and
// keeping it forever (a withdrawn key trusted for as long as someone keeps the endpoint
// unreachable).
const (
	// KeySetMax bounds a key set document (edge/auth.MaxKeySet): a longer one is refused.
	KeySetMax = 256 << 10
	// KeysTimeout bounds a fetch, redirects included.
	KeysTimeout = 5 * time.Second
	// KeysRefetch is the least time between two fetches of one URL, after one that brought
	// a set; after a failed fetch the pause is KeysRetry, doubled for each failure in a row,
	// up to KeysRefetch (KeysState.Pause).
	KeysRefetch = 30 * time.Second
	KeysRetry   = time.Second
	// KeysMinAge, KeysMaxAge and KeysDefaultAge bound how long a set is fresh (KeysAge).
	KeysMinAge     = time.Minute
	KeysMaxAge     = 24 * time.Hour
	KeysDefaultAge = 10 * time.Minute
	// KeysRedirects is the most redirects one fetch follows.
	KeysRedirects = 3
)

// KeysAccept is the Accept field of a key set fetch (RFC 7517 §8.5.1).
const KeysAccept = "application/jwk-set+json, application/json"

// ErrKeys is returned for a keys frame that has no URL line.
var ErrKeys = errors.New("wire: a keys input is URL LF DOCUMENT")

// AppendKeys appends the input of the keys export to dst: url, LF, and doc, the key set
// fetched from it, as it came.
func AppendKeys(dst []byte, url string, doc []byte) []byte {
	dst = append(dst, url...)
	dst = append(dst, '\n')
	return append(dst, doc...)
}

// ParseKeys reads the input of the keys export. The result aliases frame.
func ParseKeys(frame []byte) (url string, doc []byte, err error) {
	line, rest, ok := cutLine(frame)
	if !ok || line == "" {
		return "", nil, ErrKeys
	}
	return line, rest, nil
}

// KeysAge is how long a key set fetched with these Cache-Control and Age field values
// ("" when absent) is fresh: the first max-age directive (RFC 9111 §5.2.2.1; a token or a
// quoted string of digits) less Age, or KeysDefaultAge without a valid one; KeysMinAge
// with no-cache or no-store (the plugin needs the set, so it is kept, and fetched again
// as soon as allowed); always between KeysMinAge and KeysMaxAge. Directive names are
// compared without regard to case; s-maxage and the rest are ignored.
func KeysAge(cacheControl, age string) time.Duration {
	maxAge, found := int64(-1), false
	for _, d := range strings.Split(cacheControl, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-cache", "no-store":
			return KeysMinAge
		case "max-age":
			if found {
				continue
			}
			if n, ok := seconds(strings.TrimSpace(value), true); ok {
				maxAge, found = n, true
			}
		}
	}
	if !found {
		return KeysDefaultAge
	}
	if n, ok := seconds(strings.TrimSpace(age), false); ok {
		maxAge -= n
	}
	return min(max(time.Duration(maxAge)*time.Second, KeysMinAge), KeysMaxAge)
}

// seconds reads delta-seconds (RFC 9111 §1.2.2): digits, in quotes when quoted allows,
// capped at a day and a bit so that no sum overflows.
func seconds(s string, quoted bool) (int64, bool) {
	if quoted && len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = min(n*10+int64(s[i]-'0'), 1<<31)
	}
	return n, true
}

// KeysRedirect reports whether a host fetching a key set follows a redirect from the URL
// from to the URL to (absolute; a Location resolved against from): to must be https, or
// http to a loopback host (localhost, 127.0.0.0/8, [::1]) when from is too (an issuer on
// the same machine, as in tests). A redirect never leaves https.
func KeysRedirect(from, to string) bool {
	t, err := url.Parse(to)
	if err != nil || t.Host == "" || t.User != nil {
		return false
	}
	switch strings.ToLower(t.Scheme) {
	case "https":
		return true
	case "http":
		f, err := url.Parse(from)
		return err == nil && strings.EqualFold(f.Scheme, "http") && loopbackHost(f.Hostname()) && loopbackHost(t.Hostname())
	}
	return false
}

// KeysURL reports whether a host fetches a key set from u at all: https, or http to a
// loopback host. The plugin names no other (the auth option refuses them); a host checks
// again, as KeysRedirect(u, u).
func KeysURL(u string) bool { return KeysRedirect(u, u) }

// loopbackHost reports whether host (url.URL.Hostname) is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Zone() == "" && a.Unmap().IsLoopback()
}

// KeysState is a host's schedule for one key set URL: when it last began a fetch, how many
// fetches in a row failed, and whether it holds a set and until when that set is fresh.
// The zero KeysState is a URL never fetched.
type KeysState struct {
	Tried  time.Time // when the last fetch began; zero before the first
	Failed int       // fetches failed since the last that brought a set
	Held   bool      // a set is in hand
	Fresh  time.Time // until when it is fresh
}

// Pause is the least time from the last fetch's beginning to the next: KeysRefetch after
// a fetch that brought a set (or before any ended), and after n failed fetches in a row
// KeysRetry·2ⁿ⁻¹, at most KeysRefetch (1 s, 2 s, 4 s … 30 s), so that an issuer that was
// down for a moment is not a lockout of half a minute, and one that stays down is asked
// no more often than after a success.
func (k *KeysState) Pause() time.Duration {
	if k.Failed == 0 || k.Failed > 5 { // 2⁵ s is past KeysRefetch already
		return KeysRefetch
	}
	return min(KeysRetry<<(k.Failed-1), KeysRefetch)
}

// Refetch reports whether the host may fetch at now, for any reason: not within Pause of
// the last fetch.
func (k *KeysState) Refetch(now time.Time) bool {
	return k.Tried.IsZero() || !now.Before(k.Tried.Add(k.Pause()))
}

// Due reports whether the host fetches at now on its own: it holds no set, or one no
// longer fresh, and may fetch.
func (k *KeysState) Due(now time.Time) bool {
	return (!k.Held || !now.Before(k.Fresh)) && k.Refetch(now)
}

// Next is the first time Due holds, the zero time when it holds already at the last
// fetch; a host that checks the clock against it alone need not take a lock per request.
func (k *KeysState) Next() time.Time {
	var t time.Time
	if !k.Tried.IsZero() {
		t = k.Tried.Add(k.Pause())
	}
	if k.Held && k.Fresh.After(t) {
		t = k.Fresh
	}
	return t
}

// Begin records a fetch begun at now.
func (k *KeysState) Begin(now time.Time) { k.Tried = now }

// Done records a set fetched at now, fresh for age (KeysAge).
func (k *KeysState) Done(now time.Time, age time.Duration) {
	k.Held, k.Fresh, k.Failed = true, now.Add(age), 0
}

// Fail records that the fetch begun last failed. A host whose set is then due (Due: none
// in hand, or a stale one) fetches again at Next on its own, without waiting for a
// request, and so on until a fetch brings one; its log says when one does.
func (k *KeysState) Fail() { k.Failed++ }

// Expired reports whether the set held is given up at now: no fetch refreshed it for
// KeysMaxAge after it went stale. The host then gives the plugin an empty set, and Drops
// it.
func (k *KeysState) Expired(now time.Time) bool {
	return k.Held && !now.Before(k.Fresh.Add(KeysMaxAge))
}

// Drop records that the host gave the set up.
func (k *KeysState) Drop() { k.Held = false }

// EmptyKeySet is the set a host gives the plugin for a set it gave up (Expired).
const EmptyKeySet = `{"keys":[]}`
