//go:build e2e && benchreport

package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The private-catalog benchmark: an authenticated small read beside the same read on a
// public deployment, natively (`skilledge serve`) and in workerd, in one run, the servers
// taken in turn; and the first request with a token the server has not seen (its
// signature checked) beside a repeat of it.
//
//	go test -tags 'e2e benchreport' -run AuthReport -count=1 -timeout 30m ./tests/
//
// writes the auth section of BENCHMARKS.md. Nothing here fails on a timing.

// newTokens is how many first requests with a new token each server is timed on.
const newTokens = 40

// TestAuthReport measures and writes the auth section of BENCHMARKS.md.
func TestAuthReport(t *testing.T) {
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	public := loadCatalog(t)
	private := loadCatalog(t)
	if err := os.WriteFile(filepath.Join(private, "skilledge.yaml"), []byte("access:\n  default: [skills:read]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	option, _ := privateAuth() // the test issuer's key set inline (ES256), and a static key
	authFile := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(authFile, []byte(option), 0o600); err != nil {
		t.Fatal(err)
	}
	token := privateToken("skills:read")
	fields := []string{"Authorization", "Bearer " + token}
	small := loadCases()[0]
	want := map[string][]byte{}

	addr, pubCmd := startProcess(t, "skilledge serve", exec.Command(cli, "serve", public, "--addr", "127.0.0.1:0"), servingLine)
	pub := loadServer{name: "`serve`, public", url: addr, pid: pubCmd.Process.Pid}
	addr, privCmd := startProcess(t, "skilledge serve --auth", exec.Command(cli, "serve", private, "--addr", "127.0.0.1:0", "--auth", authFile), servingLine)
	priv := loadServer{name: "`serve --auth`, a JWT", url: addr, pid: privCmd.Process.Pid, fields: fields}
	_, body, err := small.post(http.DefaultClient, pub.url, firstID)
	if err != nil {
		t.Fatal(err)
	}
	want[small.name] = body

	dPub, err := deployFolder(public)
	if err != nil {
		t.Fatal(err)
	}
	dPriv, err := deployFolder(private)
	if err != nil {
		t.Fatal(err)
	}
	pubConfig, err := workerdConfig(t.TempDir(), dPub, []string{deployedOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	var opts map[string]any
	if err := json.Unmarshal([]byte(deployedOptions(t)), &opts); err != nil {
		t.Fatal(err)
	}
	opts["auth"] = json.RawMessage(option)
	privOptions, _ := json.Marshal(opts)
	privConfig, err := workerdConfig(t.TempDir(), dPriv, []string{string(privOptions)})
	if err != nil {
		t.Fatal(err)
	}
	wPub := workerdServer(t, "Worker, public", pubConfig)
	wPriv := workerdServer(t, "Worker, `auth`, a JWT", privConfig)
	wPriv.fields = fields
	for _, srv := range []*loadServer{&pub, &priv, &wPub, &wPriv} {
		srv.answers = map[string]answer{}
		status, body, err := small.post(http.DefaultClient, srv.url, firstID, srv.fields...)
		a, ok := splitAnswer(body)
		if err != nil || status != 200 || !ok || !sameContents(body, want[small.name]) {
			t.Fatalf("%s: %d %v %.300s", srv.name, status, err, body)
		}
		srv.answers[small.name] = a
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, workerd %s. The small read of the load benchmark (`resources/read` of a\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), workerdVersion(t))
	fmt.Fprintf(&b, "10-byte file, 2026-07-28) at %d clients on keep-alive connections, %d rounds of %v per server, public and private in\n", manyClients, loadRounds, loadRound)
	b.WriteString("turn, on the same catalog; the private one has `default: [skills:read]` and every request carries the same ES256\n")
	b.WriteString("access token (its signature checked by the plugin on the first, the answer replayed for that credential until it\n")
	b.WriteString("expires, a minute at most: longer than a server's rounds). Each cell: requests per second, p50 and p99 latency, and\n")
	b.WriteString("the server's CPU time per request.\n\n")
	b.WriteString("| host | public | authenticated | authenticated ÷ public |\n|---|---|---|---|\n")
	for _, pair := range [][2]loadServer{{pub, priv}, {wPub, wPriv}} {
		var r [2]loadResult
		for k := range 2 {
			measure(t, pair[k], small, manyClients, loadWarm, &loadResult{})
		}
		for range loadRounds {
			for k := range 2 {
				measure(t, pair[k], small, manyClients, loadRound, &r[k])
			}
		}
		host := "native (`skilledge serve`)"
		if strings.HasPrefix(pair[0].name, "Worker") {
			host = "Worker in workerd"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | **%.2f×** |\n", host, authCell(&r[0]), authCell(&r[1]), r[1].rps()/r[0].rps())
	}

	b.WriteString("\nThe first request with a token the server has not seen: each a new ES256 token (another `jti`), one request, on a\n")
	fmt.Fprintf(&b, "warm keep-alive connection, %d times per server, beside a repeat of the same request with the same token.\n\n", newTokens)
	b.WriteString("| host | new token: p50 | p90 | the same token again: p50 |\n|---|---|---|---|\n")
	for _, srv := range []loadServer{priv, wPriv} {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		var first, again []time.Duration
		for i := range newTokens {
			tok := signJWT(`{"alg":"ES256","kid":"t1","typ":"at+jwt"}`, claimsJSON(map[string]any{"jti": fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i)}), nil)
			for k, into := range []*[]time.Duration{&first, &again} {
				t0 := time.Now()
				status, body, err := small.post(client, srv.url, int64(firstID+i*2+k), "Authorization", "Bearer "+tok)
				if err != nil || status != 200 || !sameContents(body, want[small.name]) {
					t.Fatalf("%s: %d %v %.200s", srv.name, status, err, body)
				}
				*into = append(*into, time.Since(t0))
			}
		}
		slices.Sort(first)
		slices.Sort(again)
		host := "native (`skilledge serve`)"
		if strings.HasPrefix(srv.name, "Worker") {
			host = "Worker in workerd"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", host, ms(first[len(first)/2]), ms(first[len(first)*9/10]), ms(again[len(again)/2]))
		client.CloseIdleConnections()
	}
	writeReport(t, "auth", b.String())
}

// authCell is one server's figures.
func authCell(r *loadResult) string {
	return fmt.Sprintf("%.0f req/s, p50 %s, p99 %s, %s CPU", r.rps(), latency(r.q(0.5)), latency(r.q(0.99)), latency(r.cpu/time.Duration(max(r.requests, 1))))
}
