package group

import "time"

// Clock is time as the coordinator sees it; tests drive a fake one.
type Clock interface {
	Now() time.Time
	// AfterFunc runs f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a scheduled AfterFunc.
type Timer interface {
	// Stop cancels the call if it has not started; a callback that already
	// started must notice on its own that it is stale (every callback checks
	// a sequence number under the group lock).
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
