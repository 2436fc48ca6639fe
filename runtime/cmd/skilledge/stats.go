package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skilledge/skilledge/runtime/telemetry"
)

const statsAbout = `Prints what a deployment answered, in a table: the skills most read (reads and
activations, with p50 and p99 from a log), and each MCP method's requests, errors,
error rate, p50 and p99. URL is a serve's metrics listener (serve --metrics ADDR:
http://ADDR/metrics, or http://ADDR, to which /metrics is added); FILE is a JSON log (serve --log json 2>FILE, or the JSON lines of
an entry run with SKILLEDGE_LOG=json), "-" for stdin. Lines that are not requests are
skipped. From metrics, percentiles are read from the histogram's buckets (to within a
bucket); from a log, they are exact.`

// cmdStats prints what a deployment answered: from a serve's metrics listener, or from a
// JSON log (serve --log json, or an entry's SKILLEDGE_LOG=json lines).
func cmdStats(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("stats", "skilledge stats URL|FILE [flags]", statsAbout)
	top := c.fs.Int("top", 10, "show the `N` skills most read")
	pos, code, ok := c.parse(args, 1, 1, stdout, stderr)
	if !ok {
		return code
	}
	if *top < 1 {
		return c.usageError(stderr, "--top must be at least 1")
	}
	st, err := telemetry.ReadStats(ctx, pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "skilledge stats: %v\n", err)
		return 1
	}
	st.Print(stdout, *top)
	return 0
}
