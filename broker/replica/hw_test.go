package replica

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHighWatermarkMonotonicUnderConcurrentAdvancers: on a leader whose
// ISR is itself, an appender moves the LEO while many goroutines advance
// the HW at once (as concurrent produces and follower fetches do). The HW
// the log holds (it bounds retention and the cleaner) must never move
// backwards and must end equal to the partition's. More threads than
// cores let the OS preempt an advancer anywhere, which is what exposes a
// gap between deciding the HW and publishing it.
func TestHighWatermarkMonotonicUnderConcurrentAdvancers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	m, _, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
	p, _ := m.Partition(tp0)
	b := batch(t, 1)
	const advancers = 12

	var stop atomic.Bool
	var backwards atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := p.Log().HighWatermark()
		for !stop.Load() {
			hw := p.Log().HighWatermark()
			if hw < last {
				backwards.Store(last<<32 | hw)
			}
			last = hw
		}
	}()
	for i := 0; i < advancers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				p.mu.RLock()
				p.maybeIncrementHWLocked()
				p.mu.RUnlock()
			}
		}()
	}
	deadline := time.Now().Add(2 * time.Second)
	for n := 0; n < 20000 && time.Now().Before(deadline); n++ {
		if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: b}}); r[0].Err != nil {
			t.Fatal(r[0].Err)
		}
	}
	stop.Store(true)
	wg.Wait()
	p.mu.RLock()
	p.maybeIncrementHWLocked()
	p.mu.RUnlock()
	if v := backwards.Load(); v != 0 {
		t.Errorf("the log's HW went back from %d to %d", v>>32, v&(1<<32-1))
	}
	leo := p.Log().LogEndOffset()
	if got, want := p.Log().HighWatermark(), p.HighWatermark(); got != want || want != leo {
		t.Fatalf("log HW %d, partition HW %d, LEO %d: want all equal", got, want, leo)
	}
}
