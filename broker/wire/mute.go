package wire

import (
	"sync"
	"sync/atomic"
	"time"
)

// muteState is a connection's quota mute (Kafka's THROTTLE_STARTED /
// THROTTLE_ENDED): until it passes, the reader serves no further request
// from the connection, so a client over its quota is held back even if it
// ignores throttle_time_ms. Responses to requests already read still go
// out; Kafka sends the throttled response at once and mutes after it
// (KIP-219).
type muteState struct {
	until atomic.Int64 // unix nanos; 0 when never muted

	once sync.Once
	done chan struct{} // closed when the connection closes
}

func (m *muteState) doneCh() chan struct{} {
	m.once.Do(func() { m.done = make(chan struct{}) })
	return m.done
}

// closed wakes a reader waiting out a mute: the connection is gone.
func (m *muteState) closed() { close(m.doneCh()) }

// MuteUntil stops the reader from serving the connection's next request
// before t. A later deadline replaces an earlier one, never the reverse.
// Handlers call it with the throttle time of a response (client quotas).
func (c *ConnInfo) MuteUntil(t time.Time) {
	n := t.UnixNano()
	for {
		cur := c.mute.until.Load()
		if cur >= n || c.mute.until.CompareAndSwap(cur, n) {
			return
		}
	}
}

// MutedUntil is when the connection's mute ends (the zero Time if it was
// never muted).
func (c *ConnInfo) MutedUntil() time.Time {
	if n := c.mute.until.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// awaitUnmute holds the reader, with a request read but not yet served,
// until the connection's mute passes. It reports false when the connection
// closed meanwhile; on shutdown it returns at once and the reader stops at
// its next check.
func (c *conn) awaitUnmute() bool {
	for {
		d := time.Until(c.info.MutedUntil())
		if d <= 0 {
			return true
		}
		c.srv.stats.muted.Add(1)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.srv.done:
			t.Stop()
			return true
		case <-c.info.mute.doneCh():
			t.Stop()
			return false
		}
	}
}
