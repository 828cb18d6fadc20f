package storage

import (
	"sync"
	"testing"
	"time"
)

// TestFlushReportsItsTime: OnFlush hears of each flush that synced data,
// and not of a flush with nothing to do.
func TestFlushReportsItsTime(t *testing.T) {
	var mu sync.Mutex
	var flushes []time.Duration
	l := openTestLog(t, partDir(t), testConfig(), OpenOptions{CleanShutdown: true, OnFlush: func(d time.Duration) {
		mu.Lock()
		flushes = append(flushes, d)
		mu.Unlock()
	}})
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(flushes) }
	if err := l.Flush(); err != nil { // the new segment's directory entry
		t.Fatal(err)
	}
	base := count()
	mustAppend(t, l, plain(3, 10, 1000).bytes(), 0)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != base+1 {
		t.Fatalf("%d flushes reported after one with data (%d before)", got, base)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != base+1 {
		t.Fatalf("a flush with nothing to sync was reported (%d)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if flushes[len(flushes)-1] <= 0 {
		t.Fatalf("flush time %v", flushes[len(flushes)-1])
	}
}

// With flush.messages=1 every append is made durable by a group-commit
// sync; those syncs are flushes too, and are timed like the others.
func TestGroupCommitFlushesAreReported(t *testing.T) {
	var mu sync.Mutex
	n := 0
	cfg := testConfig()
	cfg.FlushMessages = 1
	l := openTestLog(t, partDir(t), cfg, OpenOptions{CleanShutdown: true, OnFlush: func(time.Duration) {
		mu.Lock()
		n++
		mu.Unlock()
	}})
	mustAppend(t, l, plain(1, 10, 1000).bytes(), 0) // the first may take the ordered path (new segment)
	mu.Lock()
	base := n
	mu.Unlock()
	for i := 0; i < 3; i++ {
		mustAppend(t, l, plain(1, 10, 1000).bytes(), 0)
	}
	mu.Lock()
	defer mu.Unlock()
	if n-base != 3 {
		t.Fatalf("%d flushes reported for 3 appends with flush.messages=1", n-base)
	}
}
