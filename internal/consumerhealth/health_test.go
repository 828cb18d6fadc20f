package consumerhealth

import (
	"testing"
	"time"
)

var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func sec(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// feed observes a partition each second for n seconds: the end grows by
// produce per second, the committed offset by consume (a commit each
// second, at the observation).
func feed(tr *Tracker, k Key, n int, produce, consume int64, startEnd, startCommitted int64) {
	for i := 0; i <= n; i++ {
		tr.Observe(k, Sample{Time: sec(float64(i)), Committed: startCommitted + consume*int64(i), CommitTime: sec(float64(i)), End: startEnd + produce*int64(i)})
	}
}

var k = Key{Group: "g", Topic: "t", Partition: 0}

func eval(t *testing.T, tr *Tracker, now time.Time, rt func(int64) (time.Time, bool)) PartitionHealth {
	t.Helper()
	ph, ok := tr.Evaluate(k, now, rt)
	if !ok {
		t.Fatal("not tracked")
	}
	return ph
}

func TestKeepsUpIsOK(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	feed(tr, k, 12, 100, 100, 0, 0)
	ph := eval(t, tr, sec(12.2), nil)
	if ph.Status != OK || ph.Lag != 0 || !ph.TimeLagKnown || ph.TimeLag != 0 || ph.Catchup != CaughtUp {
		t.Fatalf("%+v", ph)
	}
}

func TestFallingBehindIsWarningWithFiniteETA(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	feed(tr, k, 12, 100, 50, 0, 0)
	// The record after the committed offset (600) was written at 6 s.
	rt := func(o int64) (time.Time, bool) { return sec(float64(o) / 100), true }
	ph := eval(t, tr, sec(12.5), rt)
	if ph.Status != Warning {
		t.Fatalf("status %v, want WARNING: %+v", ph.Status, ph)
	}
	if ph.Lag != 600 || ph.TimeLag != 6500*time.Millisecond {
		t.Fatalf("lag %d, time lag %v", ph.Lag, ph.TimeLag)
	}
	if ph.Catchup != FallingBehind || ph.ConsumeRate != 50 || ph.ProduceRate != 100 || ph.ETA != 12*time.Second {
		t.Fatalf("catch-up %v rates %v/%v ETA %v", ph.Catchup, ph.ConsumeRate, ph.ProduceRate, ph.ETA)
	}
	later := eval(t, tr, sec(13), rt)
	if later.TimeLag <= ph.TimeLag {
		t.Fatal("time lag does not grow")
	}
}

func TestCatchingUpIsOKWithETA(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	feed(tr, k, 10, 50, 100, 2000, 0) // lag 2000 -> 1500
	ph := eval(t, tr, sec(10.5), nil)
	if ph.Status != OK || ph.Catchup != CatchingUp || ph.ETA != 30*time.Second {
		t.Fatalf("%+v", ph)
	}
}

func TestStopAfterTheWindow(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	feed(tr, k, 9, 100, 90, 50, 0) // commits at 0..9 s: the window spans 9 s
	// The end keeps growing, the commits stop.
	for i := 10; i <= 20; i++ {
		tr.Observe(k, Sample{Time: sec(float64(i)), Committed: 810, CommitTime: sec(9), End: 50 + int64(100*i)})
	}
	if ph := eval(t, tr, sec(17.9), nil); ph.Status == Stop {
		t.Fatalf("STOP before the window passed: %+v", ph)
	}
	if ph := eval(t, tr, sec(18.5), nil); ph.Status != Stop {
		t.Fatalf("status %v after 9.5 s without commits, want STOP", ph.Status)
	}
}

func TestStallAndRewind(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	for i := 0; i <= 5; i++ { // commits keep coming at the same offset
		tr.Observe(k, Sample{Time: sec(float64(i)), Committed: 50, CommitTime: sec(float64(i)), End: 100 + int64(i)})
	}
	if ph := eval(t, tr, sec(5.2), nil); ph.Status != Stall {
		t.Fatalf("%v, want STALL", ph.Status)
	}
	tr = NewTracker(DefaultConfig())
	for i, off := range []int64{100, 200, 300, 40, 60} {
		tr.Observe(k, Sample{Time: sec(float64(i)), Committed: off, CommitTime: sec(float64(i)), End: 1000})
	}
	if ph := eval(t, tr, sec(4.5), nil); ph.Status != Rewind {
		t.Fatalf("%v, want REWIND", ph.Status)
	}
}

func TestLagZeroInWindowIsOK(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	tr.Observe(k, Sample{Time: sec(0), Committed: 10, CommitTime: sec(0), End: 10})
	tr.Observe(k, Sample{Time: sec(1), Committed: 20, CommitTime: sec(1), End: 30})
	tr.Observe(k, Sample{Time: sec(2), Committed: 30, CommitTime: sec(2), End: 60})
	if ph := eval(t, tr, sec(2.1), nil); ph.Status != OK {
		t.Fatalf("%v, want OK (a commit at lag 0 in the window)", ph.Status)
	}
}

func TestTimeLagInterpolated(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	tr.Observe(k, Sample{Time: sec(0), Committed: 0, End: 0})
	tr.Observe(k, Sample{Time: sec(10), Committed: 0, End: 1000})
	tr.Observe(k, Sample{Time: sec(20), Committed: 250, End: 1000})
	// The end passed 250 a quarter of the way from 0 s to 10 s.
	ph := eval(t, tr, sec(20), func(int64) (time.Time, bool) { return time.Time{}, false })
	if !ph.TimeLagKnown || ph.TimeLag != 17500*time.Millisecond {
		t.Fatalf("time lag %v (%v)", ph.TimeLag, ph.TimeLagKnown)
	}
}

func TestWindowAndMinDistance(t *testing.T) {
	tr := NewTracker(Config{Intervals: 3, MinDistance: time.Second})
	for i, at := range []float64{0, 0.5, 2, 4, 6} {
		tr.Observe(k, Sample{Time: sec(at), Committed: int64(10 * (i + 1)), CommitTime: sec(at), End: 100})
	}
	h := tr.parts[k]
	if len(h.commits) != 3 || h.commits[0].offset != 30 || !h.commits[0].at.Equal(sec(2)) {
		t.Fatalf("%+v", h.commits)
	}
	tr = NewTracker(Config{Intervals: 3, MinDistance: time.Second})
	tr.Observe(k, Sample{Time: sec(0), Committed: 10, CommitTime: sec(0), End: 100})
	tr.Observe(k, Sample{Time: sec(0.5), Committed: 20, CommitTime: sec(0.5), End: 100})
	if h := tr.parts[k]; len(h.commits) != 1 || h.commits[0].offset != 20 || !h.commits[0].at.Equal(sec(0)) {
		t.Fatalf("min-distance: %+v", h.commits)
	}
}

func TestGroupIsItsWorstPartition(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	feed(tr, Key{"g", "a", 0}, 10, 100, 100, 0, 0)
	feed(tr, Key{"g", "a", 1}, 10, 100, 50, 0, 0)
	feed(tr, Key{"h", "a", 0}, 10, 100, 100, 0, 0)
	gs := tr.Groups(sec(10.2), nil)
	if len(gs) != 2 || gs[0].Group != "g" || gs[0].Status != Warning || gs[0].TotalLag != 500 || len(gs[0].Partitions) != 2 || gs[1].Status != OK {
		t.Fatalf("%+v", gs)
	}
	tr.Forget(func(k Key) bool { return k.Group != "h" })
	if len(tr.Groups(sec(11), nil)) != 1 {
		t.Fatal("forget")
	}
	if Stop.String() != "STOP" || Warning.String() != "WARNING" || Status(9).String() != "UNKNOWN" {
		t.Fatal("names")
	}
}

// A consumer that stops right after catching up turns STOP once the
// window's silence passed and the end moved on (current Burrow: STOP is
// judged before the lag-0 rule).
func TestStopAfterCatchingUp(t *testing.T) {
	tr := NewTracker(DefaultConfig())
	feed(tr, k, 9, 100, 100, 0, 0) // caught up at every commit, 0..9 s
	for i := 10; i <= 30; i++ {
		tr.Observe(k, Sample{Time: sec(float64(i)), Committed: 900, CommitTime: sec(9), End: int64(100 * i)})
	}
	if ph := eval(t, tr, sec(30), nil); ph.Status != Stop {
		t.Fatalf("%v, want STOP", ph.Status)
	}
	// Caught up a moment ago: not STOP yet.
	tr = NewTracker(DefaultConfig())
	feed(tr, k, 9, 100, 100, 0, 0)
	tr.Observe(k, Sample{Time: sec(19), Committed: 900, CommitTime: sec(9), End: 950})
	if ph := eval(t, tr, sec(19), nil); ph.Status == Stop {
		t.Fatal("STOP while the end was at the commit moments ago")
	}
}
