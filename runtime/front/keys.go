package front

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
)

// KeySets fetches the signing key sets the plugin names by URL (the auth option's
// jwt.jwksUri and access.certsUrl) and brings them to every pool it is given to
// (wasm.Options.Keys: it implements wasm.Keys), as edge/wire's package doc ("Key sets")
// says every host does: fetched when a pool starts, again in the background when no
// longer fresh, and when the plugin wants one again (a token named a key the set lacks),
// never twice within wire.KeysRefetch; over HTTPS (or http to loopback), with
// wire.KeysTimeout, at most wire.KeySetMax bytes, redirects only to https. It checks
// nothing in the documents: the plugin does. Failures, sets given up, sets that changed
// and sets the plugin refused go to its log. One KeySets serves every pool of a Server,
// so that a catalog swapped in has the sets in hand at once. It is safe for concurrent
// use.
type KeySets struct {
	client *http.Client
	log    io.Writer
	logMu  sync.Mutex
	now    func() time.Time // time.Now; tests move it
	sets   sync.Map         // URL -> *keySet

	// closed stops the fetches after a failure (Close); guarded by closeMu with the timers.
	closeMu sync.Mutex
	closed  bool
	// fetched and failures count the fetches that brought a set and those that failed.
	fetched, failures atomic.Int64
}

// Fetches reports how many fetches of a key set brought one, and how many failed.
func (k *KeySets) Fetches() (ok, failed int64) { return k.fetched.Load(), k.failures.Load() }

// keySet is what KeySets holds of one URL.
type keySet struct {
	url string
	// mu is held by a fetch, and guards state: one fetch of a URL at a time, and a request
	// that wants the set while one is under way waits for its outcome.
	mu    sync.Mutex
	state wire.KeysState
	// cur is the set in hand (nil before the first); next is state.Next() in Unix
	// nanoseconds, so that Keys checks the clock without taking mu.
	cur        atomic.Pointer[keyDoc]
	next       atomic.Int64
	refreshing atomic.Bool   // a background fetch is under way
	refused    atomic.Uint64 // the last version whose refusal was logged
	// retry is the timer of the next fetch after a failed one, while the set is due; nil
	// when none is set. Guarded by KeySets.closeMu.
	retry *time.Timer
}

// keyDoc is a version of a set.
type keyDoc struct {
	doc     []byte
	version uint64
}

// NewKeySets returns a KeySets that logs to log (os.Stderr in the CLI) and fetches with
// client; nil means http.DefaultTransport with wire.KeysTimeout. Redirects are checked by
// the contract's rule whatever client says.
func NewKeySets(log io.Writer, client *http.Client) *KeySets {
	c := &http.Client{Timeout: wire.KeysTimeout}
	if client != nil {
		*c = *client
	}
	c.CheckRedirect = keysRedirect
	return &KeySets{client: c, log: log, now: time.Now}
}

// keysRedirect follows at most wire.KeysRedirects redirects, each to where wire.KeysRedirect
// allows.
func keysRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > wire.KeysRedirects {
		return fmt.Errorf("more than %d redirects", wire.KeysRedirects)
	}
	if from := via[len(via)-1].URL.String(); !wire.KeysRedirect(from, req.URL.String()) {
		return fmt.Errorf("a redirect to %s, which is not https", req.URL.Redacted())
	}
	return nil
}

func (k *KeySets) set(url string) *keySet {
	if s, ok := k.sets.Load(url); ok {
		return s.(*keySet)
	}
	s, _ := k.sets.LoadOrStore(url, &keySet{url: url})
	return s.(*keySet)
}

func (s *keySet) version() uint64 {
	if d := s.cur.Load(); d != nil {
		return d.version
	}
	return 0
}

// Keys implements wasm.Keys: the set in hand for url, and its version. When the set is
// due (none yet, or no longer fresh, and not fetched within wire.KeysRefetch), it starts
// a fetch in the background and answers with the set in hand meanwhile.
func (k *KeySets) Keys(url string) ([]byte, uint64) {
	s := k.set(url)
	if k.now().UnixNano() >= s.next.Load() && s.refreshing.CompareAndSwap(false, true) {
		go func() {
			defer s.refreshing.Store(false)
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.state.Due(k.now()) {
				k.fetch(context.Background(), s, false)
			}
			s.next.Store(s.state.Next().UnixNano())
		}()
	}
	if d := s.cur.Load(); d != nil {
		return d.doc, d.version
	}
	return nil, 0
}

// Want implements wasm.Keys: it fetches url's set unless it was fetched within
// wire.KeysRefetch, or a fetch under way when it was called brought a new one; it returns
// once the fetch has ended. With a set in hand, the plugin wants it again because it
// lacked a key: the fetch is urgent.
func (k *KeySets) Want(ctx context.Context, url string) {
	s := k.set(url)
	v := s.version()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version() == v && s.state.Refetch(k.now()) {
		// The fetch is every waiter's, and the pause follows it: a client that goes away
		// must not cancel it (a forged token and a hang-up would keep a rotation unseen).
		// Its own time is bounded (wire.KeysTimeout).
		k.fetch(context.WithoutCancel(ctx), s, v != 0) // a set in hand lacked a key: no cache may answer with it
	}
}

// Refused implements wasm.Keys: it logs the plugin's reason, once a version.
func (k *KeySets) Refused(url string, version uint64, err error) {
	if s := k.set(url); s.refused.Swap(version) != version {
		k.logf("skilledge: the key set at %s: the plugin refused it: %v", url, err)
	}
}

// Close stops the fetches KeySets makes on its own after a failed one, for good (a fetch
// under way that fails sets no new timer); those that requests start go on. A process
// that ends need not call it; a test that ends while its issuer is down does.
func (k *KeySets) Close() {
	k.closeMu.Lock()
	defer k.closeMu.Unlock()
	k.closed = true
	k.sets.Range(func(_, v any) bool {
		if s := v.(*keySet); s.retry != nil {
			s.retry.Stop()
		}
		return true
	})
}

// retryLater, with s.mu held after a failed fetch, has s fetched again at its schedule's
// Next when its set is due (none in hand, or a stale one), without waiting for a request,
// and so on until a fetch brings one (wire.KeysState.Fail).
func (k *KeySets) retryLater(s *keySet) {
	now := k.now()
	if s.state.Held && now.Before(s.state.Fresh) {
		return // a fresh set is in hand: the failed fetch was a token's, which asks again
	}
	k.closeMu.Lock()
	defer k.closeMu.Unlock()
	if k.closed {
		return
	}
	wait := s.state.Next().Sub(now)
	if s.retry != nil {
		s.retry.Reset(wait)
		return
	}
	s.retry = time.AfterFunc(wait, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.state.Due(k.now()) {
			k.fetch(context.Background(), s, false)
		} else {
			k.retryLater(s) // a request's fetch came first: wait for the pause it set, if still due
		}
	})
}

// fetch fetches s's set, with s.mu held, and puts a set that differs from the one in hand
// in its place; urgent says the plugin wants it (a cache on the way is asked not to answer
// with what it holds). A failed fetch keeps the set in hand, unless that set is given up
// (wire.KeysState.Expired): then an empty set takes its place; and it is tried again on
// the schedule's pause (retryLater).
func (k *KeySets) fetch(ctx context.Context, s *keySet, urgent bool) {
	s.state.Begin(k.now())
	defer func() { s.next.Store(s.state.Next().UnixNano()) }()
	doc, age, err := k.get(ctx, s.url, urgent)
	now := k.now()
	if err != nil {
		k.failures.Add(1)
		s.state.Fail()
		defer k.retryLater(s)
		switch {
		case s.state.Expired(now):
			s.state.Drop()
			k.put(s, []byte(wire.EmptyKeySet))
			k.logf("skilledge: the key set at %s: %v; no fetch has refreshed it for %v after it went stale, so it is given up: every token it would verify is refused until a fetch brings it",
				s.url, err, wire.KeysMaxAge)
		case s.state.Held:
			k.logf("skilledge: the key set at %s: %v; the set in hand stays in use until %s", s.url, err,
				s.state.Fresh.Add(wire.KeysMaxAge).UTC().Format(time.RFC3339))
		default:
			k.logf("skilledge: the key set at %s: %v; every token it would verify is refused until a fetch brings it", s.url, err)
		}
		return
	}
	k.fetched.Add(1)
	failed := s.state.Failed
	s.state.Done(now, age)
	switch d := s.cur.Load(); {
	case d == nil || !bytes.Equal(d.doc, doc):
		k.put(s, doc)
		k.logf("skilledge: the key set at %s: fetched (%d bytes, fresh for %v)%s", s.url, len(doc), age, afterFailures(failed))
	case failed > 0:
		k.logf("skilledge: the key set at %s: fetched again, unchanged (fresh for %v)%s", s.url, age, afterFailures(failed))
	}
}

// afterFailures is what a log line adds about the failed fetches before one that worked.
func afterFailures(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", after a failed fetch"
	}
	return fmt.Sprintf(", after %d failed fetches", n)
}

// put makes doc the set in hand, a new version.
func (k *KeySets) put(s *keySet, doc []byte) {
	s.cur.Store(&keyDoc{doc: doc, version: s.version() + 1})
}

// get fetches the document at u, and how long it is fresh.
func (k *KeySets) get(ctx context.Context, u string, urgent bool) ([]byte, time.Duration, error) {
	if !wire.KeysURL(u) {
		return nil, 0, errors.New("not https (nor http to a loopback address): not fetched")
	}
	ctx, cancel := context.WithTimeout(ctx, wire.KeysTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", wire.KeysAccept)
	req.Header.Set("User-Agent", "skilledge")
	if urgent {
		req.Header.Set("Cache-Control", "no-cache")
	}
	resp, err := k.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v", wire.KeysTimeout)
		}
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, 0, fmt.Errorf("HTTP %s", resp.Status)
	}
	if resp.ContentLength > wire.KeySetMax {
		return nil, 0, fmt.Errorf("%d bytes, more than %d", resp.ContentLength, wire.KeySetMax)
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, wire.KeySetMax+1))
	if err != nil {
		return nil, 0, fmt.Errorf("reading it: %v", err)
	}
	if len(doc) > wire.KeySetMax {
		return nil, 0, fmt.Errorf("more than %d bytes", wire.KeySetMax)
	}
	return doc, wire.KeysAge(strings.Join(resp.Header.Values("Cache-Control"), ", "), resp.Header.Get("Age")), nil
}

func (k *KeySets) logf(format string, args ...any) {
	if k.log == nil {
		return
	}
	k.logMu.Lock()
	defer k.logMu.Unlock()
	fmt.Fprintf(k.log, format+"\n", args...)
}
