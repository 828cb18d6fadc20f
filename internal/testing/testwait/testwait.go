// Package testwait is the one polling helper the tests use to wait for a
// condition: a deadline instead of a sleep, and a failure that says what was
// awaited and, where the condition can tell, why it still did not hold.
package testwait

import (
	"testing"
	"time"
)

// For polls cond until it reports true, failing t once timeout has passed
// with what and the last reason cond gave. Polls start at 1 ms and back off
// to 50 ms, so fast conditions return quickly without a busy loop on slow ones.
func For(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if why != "" {
				t.Fatalf("timed out after %v waiting for %s: %s", timeout, what, why)
			}
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// Until is For for a condition with no reason to report.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	For(t, timeout, what, func() (bool, string) { return cond(), "" })
}
