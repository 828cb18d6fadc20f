package replica

import (
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkAppendDuringLeaderAndISR measures a producer's append latency
// to an existing partition while a LeaderAndIsr creates 2,000 partitions
// of new topics, each topic's configuration read from a store that takes
// a millisecond to answer (a ZooKeeper round trip). It reports the
// appends' p50, p99 and max during the LeaderAndIsr.
func BenchmarkAppendDuringLeaderAndISR(b *testing.B) {
	for range b.N {
		m, _, _ := newManagerWith(b, 1, func(c *Config, _ *clock) {
			cf := c.ConfigFor
			c.LoadConfig = func(topic string) (PartitionConfig, error) {
				time.Sleep(time.Millisecond)
				return cf(topic), nil
			}
		})
		m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
		req := kmsg.NewPtrLeaderAndISRRequest()
		req.Version = 5
		req.ControllerID, req.ControllerEpoch, req.BrokerEpoch = 1, 1, -1
		for t := range 200 {
			ts := kmsg.NewLeaderAndISRRequestTopicState()
			ts.Topic = "new-" + string(rune('a'+t%26)) + string(rune('a'+t/26))
			for p := range 10 {
				ps := kmsg.NewLeaderAndISRRequestTopicPartition()
				ps.Partition, ps.Leader, ps.ISR, ps.Replicas = int32(p), 1, []int32{1}, []int32{1}
				ts.PartitionStates = append(ts.PartitionStates, ps)
			}
			req.TopicStates = append(req.TopicStates, ts)
		}
		done := make(chan struct{})
		go func() { m.HandleLeaderAndISR(req); close(done) }()
		data := batch(b, 1)
		var lat []time.Duration
	loop:
		for {
			select {
			case <-done:
				break loop
			default:
			}
			t0 := time.Now()
			if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: data}}); r[0].Err != nil {
				b.Fatal(r[0].Err)
			}
			lat = append(lat, time.Since(t0))
			time.Sleep(time.Millisecond) // a producer at about 1,000 batches/s
		}
		slices.Sort(lat)
		if len(lat) == 0 {
			b.Fatal("no append measured")
		}
		at := func(q float64) float64 { return float64(lat[min(int(q*float64(len(lat))), len(lat)-1)].Microseconds()) }
		b.ReportMetric(at(0.5), "p50-µs")
		b.ReportMetric(at(0.99), "p99-µs")
		b.ReportMetric(at(1), "max-µs")
		b.ReportMetric(float64(len(lat)), "appends")
	}
}
