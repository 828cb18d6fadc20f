package leakcheck

import (
	"strings"
	"testing"
	"time"
)

func parkedForever(stop chan struct{}) { <-stop }

// A goroutine the test started and did not stop is found, with its stack;
// once it ends, nothing is.
func TestFindsALeakedGoroutine(t *testing.T) {
	stop := make(chan struct{})
	go parkedForever(stop)
	leaked := Find(50 * time.Millisecond)
	found := false
	for _, g := range leaked {
		if strings.Contains(g, "leakcheck.parkedForever") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the parked goroutine was not reported; found:\n%s", strings.Join(leaked, "\n\n"))
	}
	close(stop)
	for _, g := range Find(5 * time.Second) {
		if strings.Contains(g, "leakcheck.parkedForever") {
			t.Fatalf("a goroutine that ended is still reported:\n%s", g)
		}
	}
}
