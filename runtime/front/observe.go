package front

import (
	"net/http"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
)

// Observer is told of every answer the HTTP front gives (Options.Observer), once it has
// been written: to count, log and trace it. Observe is called on the request's goroutine,
// before ServeHTTP returns, so it must be quick (a count, a line into a buffer, a span
// handed to a batch); r and its Request must not be kept after it returns.
type Observer interface {
	Observe(r *Record)
}

// Record is one answer as the host saw it: the plugin's facts (wire.Facts) and what only
// the host knows.
type Record struct {
	// Request is the request answered. Its body has been read.
	Request *http.Request
	// Start is when the front began to read the request, and Duration how long it took
	// to write the answer.
	Start    time.Time
	Duration time.Duration
	// Status is the answer's HTTP status, Bytes the length of its body as sent (the
	// objects spliced in), and BodyBytes the request body's length as read (at most the
	// body cap and one byte).
	Status           int
	Bytes, BodyBytes int64
	// Body is the request body as read, valid only until Observe returns (nil when it
	// could not be read).
	Body []byte
	// Replayed says the front gave a kept answer again, without calling the plugin.
	Replayed bool
	// Failure names the host's own answer (wire.Failure's Name: "busy", "instance", …)
	// when the plugin gave none; "" when it did.
	Failure string
	// Facts are what the plugin said the answer was; the zero Facts for a failure.
	Facts wire.Facts
}
