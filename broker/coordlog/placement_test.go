package coordlog

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestTopicCreatedOnceUnderAStorm: many FindCoordinators find the
// internal topic missing at once and keep finding it missing until the
// metadata catches up; the topic is created by one of them, once.
func TestTopicCreatedOnceUnderAStorm(t *testing.T) {
	p := NewPlacement("__consumer_offsets", 50, nil)
	var creations atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 { // each keeps asking, as a client retries
				if done, ok := p.BeginTopicCreation(); ok {
					creations.Add(1)
					done(true)
				}
			}
		}()
	}
	wg.Wait()
	if n := creations.Load(); n != 1 {
		t.Fatalf("the topic was created %d times, want once", n)
	}
}

// TestFailedCreationIsRetried: a creation that failed does not hold the
// next one back.
func TestFailedCreationIsRetried(t *testing.T) {
	p := NewPlacement("__consumer_offsets", 50, nil)
	done, ok := p.BeginTopicCreation()
	if !ok {
		t.Fatal("first creation refused")
	}
	done(false)
	if _, ok := p.BeginTopicCreation(); !ok {
		t.Fatal("a failed creation blocked the next")
	}
}
