package clientquota

import (
	"testing"
	"time"
)

// saturate drives a producer that sends reqSize-byte requests back to back
// against a 1 MiB/s quota, each answered rtt after it is sent and each
// followed by the throttle time it got (a KIP-219 client waits it out, and
// the broker's mute would hold it anyway), for d on a fake clock. It
// returns the bytes acknowledged by each millisecond.
func saturate(t *testing.T, samples int, reqSize int64, rtt, d time.Duration) func(at time.Duration) int64 {
	t.Helper()
	m, clk := newTestManager(Config{Samples: samples})
	m.Update(Entity{Client: NamedPart("p")}, map[string]string{ProducerByteRate: "1048576"})
	type ack struct {
		at  time.Duration
		cum int64
	}
	var acks []ack
	var cum int64
	for now := time.Duration(0); now < d; {
		clk.set(now.Milliseconds())
		throttle := m.RecordAndThrottle(Produce, "u", "p", float64(reqSize))
		cum += reqSize
		acks = append(acks, ack{now + rtt, cum})
		now += rtt + throttle
	}
	return func(at time.Duration) int64 {
		var v int64
		for _, a := range acks {
			if a.at <= at {
				v = a.cum
			}
		}
		return v
	}
}

func ratio(bytes int64, over time.Duration) float64 {
	return float64(bytes) / over.Seconds() / (1 << 20)
}

// TestSaturatingClientDefaultWindow documents what Kafka's default quota
// window (11 samples of 1 s) does to a client far faster than its quota:
// a fresh sensor counts ten windows of history, so about 10 s of quota
// passes at once, and the sample holding it expires 11 s later, when the
// next burst passes. Over each 11 s cycle the client gets its quota; over
// a 10 s window that starts after the burst it gets a small fraction.
func TestSaturatingClientDefaultWindow(t *testing.T) {
	acked := saturate(t, 11, 64<<10, time.Millisecond, 34*time.Second)
	for _, cycle := range []time.Duration{0, 11 * time.Second, 22 * time.Second} {
		got := ratio(acked(cycle+11*time.Second-time.Millisecond)-acked(cycle-time.Millisecond), 11*time.Second)
		if got < 0.95 || got > 1.1 {
			t.Errorf("cycle from %v: %.3f of the quota, want about 1", cycle, got)
		}
	}
	if got := ratio(acked(11*time.Second-time.Millisecond)-acked(time.Second), 10*time.Second); got > 0.2 {
		t.Errorf("from 1 s to 11 s: %.3f of the quota, want the little left after the first burst", got)
	}
}

// TestSaturatingClientShortWindow: with quota.window.num=2 the burst is
// one window's worth and every 10 s window after the first second
// averages close to the quota, which is what the end-to-end test
// measures.
func TestSaturatingClientShortWindow(t *testing.T) {
	for _, size := range []int64{16 << 10, 64 << 10, 256 << 10} {
		acked := saturate(t, 2, size, time.Millisecond, 30*time.Second)
		for from := time.Second; from <= 20*time.Second; from += 50 * time.Millisecond {
			got := ratio(acked(from+10*time.Second)-acked(from), 10*time.Second)
			if got < 0.85 || got > 1.15 {
				t.Fatalf("%d-byte requests, 10 s from %v: %.3f of the quota", size, from, got)
			}
		}
	}
}
