package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// idleBytesIn is how many bytes broker b receives over d while its clients
// only long-poll.
func idleBytesIn(t *testing.T, b *testcluster.Broker, d time.Duration) float64 {
	t.Helper()
	before := metricValue(t, b, "kafgo_network_received_bytes_total")
	time.Sleep(d)
	return metricValue(t, b, "kafgo_network_received_bytes_total") - before
}

// TestKgoFetchSessionsManyPartitions: a franz-go consumer of 200 partitions
// runs in an incremental fetch session (KIP-227, franz-go's default): it
// reads every record exactly once and in order, the broker counts the
// session and its incremental fetches, an idle consumer's long polls cost
// bytes per change rather than per partition (a full fetch of 200
// partitions is about 7 KB; the idle polls of two seconds stay far below
// one), and records then produced to one partition of the 200 reach it.
func TestKgoFetchSessionsManyPartitions(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic, partitions, perPartition = "many", 200, 50
	if _, err := c.Admin().CreateTopic(ctx, partitions, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	prod := c.Client(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	produce := func(p int32, from, n int) {
		for i := from; i < from+n; i++ {
			prod.Produce(ctx, &kgo.Record{Partition: p, Value: []byte(strconv.Itoa(i))}, func(r *kgo.Record, err error) {
				if err != nil {
					t.Errorf("produce to %d: %v", r.Partition, err)
				}
			})
		}
	}
	for p := int32(0); p < partitions; p++ {
		produce(p, 0, perPartition)
	}
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	cons := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(250*time.Millisecond))
	next := map[int32]int{}
	consume := func(want int) {
		t.Helper()
		got := 0
		for got < want {
			fs := cons.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("consumed %d of %d records before the deadline", got, want)
			}
			fs.EachError(func(tp string, p int32, err error) { t.Fatalf("fetch %s-%d: %v", tp, p, err) })
			fs.EachRecord(func(r *kgo.Record) {
				if v, _ := strconv.Atoi(string(r.Value)); v != next[r.Partition] {
					t.Fatalf("partition %d: record %q at offset %d, want %d", r.Partition, r.Value, r.Offset, next[r.Partition])
				}
				next[r.Partition]++
				got++
			})
		}
	}
	consume(partitions * perPartition)

	b := c.Brokers()[0]
	testwait.For(t, 30*time.Second, "the consumer's session fetching incrementally", func() (bool, string) {
		s, p, inc := metricValue(t, b, "kafgo_fetch_sessions"), metricValue(t, b, "kafgo_fetch_session_partitions"), metricValue(t, b, "kafgo_incremental_fetches_total")
		return s >= 1 && p >= partitions && inc > 0, fmt.Sprintf("sessions %v partitions %v incremental fetches %v", s, p, inc)
	})
	if n := idleBytesIn(t, b, 2*time.Second); n > 4000 {
		t.Errorf("an idle consumer of %d partitions sent %.0f bytes in 2 s: fetches are not incremental", partitions, n)
	}

	produce(137, perPartition, 5)
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	consume(5)
	if next[137] != perPartition+5 {
		t.Fatalf("partition 137 read up to %d", next[137])
	}
}

// TestFollowerFetchSessions: followers replicate 60 partitions through
// incremental fetch sessions: every replica catches up (HW = LEO on all
// three), each broker holds its followers' sessions, idle followers send
// bytes per change rather than per partition, and records produced
// afterwards replicate through the same sessions.
func TestFollowerFetchSessions(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	const topic, partitions = "replicated", 60
	if _, err := c.Admin().CreateTopic(ctx, partitions, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, cl, topic, partitions)
	prod := c.Client(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	produceAll := func(round int) {
		for p := int32(0); p < partitions; p++ {
			for i := range 20 {
				prod.Produce(ctx, &kgo.Record{Partition: p, Value: []byte(fmt.Sprint(round, "-", i))}, func(r *kgo.Record, err error) {
					if err != nil {
						t.Errorf("produce to %d: %v", r.Partition, err)
					}
				})
			}
		}
		if err := prod.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	caughtUp := func(want int64) {
		t.Helper()
		testwait.For(t, 60*time.Second, "every replica of every partition at the leader's end", func() (bool, string) {
			var lag []string
			for _, b := range c.Brokers() {
				parts, err := adminPartitions(b)
				if err != nil {
					return false, err.Error()
				}
				n := 0
				for _, p := range parts {
					if p.Topic != topic {
						continue
					}
					n++
					if p.LogEndOffset != want || p.HighWatermark != want {
						lag = append(lag, fmt.Sprintf("broker %d p%d leo %d hw %d", b.ID, p.Partition, p.LogEndOffset, p.HighWatermark))
					}
				}
				if n != partitions {
					lag = append(lag, fmt.Sprintf("broker %d hosts %d partitions", b.ID, n))
				}
			}
			if len(lag) > 5 {
				lag = append(lag[:5], "...")
			}
			return len(lag) == 0, strings.Join(lag, "; ")
		})
	}
	produceAll(1)
	caughtUp(20)
	for _, b := range c.Brokers() {
		// Each leads about a third of the partitions, fetched by the two
		// other brokers' fetchers (num.replica.fetchers=1): two sessions.
		testwait.For(t, 30*time.Second, fmt.Sprintf("broker %d serving its followers' sessions", b.ID), func() (bool, string) {
			s, inc := metricValue(t, b, "kafgo_fetch_sessions"), metricValue(t, b, "kafgo_incremental_fetches_total")
			return s >= 2 && inc > 0, fmt.Sprintf("sessions %v incremental fetches %v", s, inc)
		})
	}
	// Two followers of ~20 partitions each long-poll every 500 ms: full
	// fetches would be ~1.4 KB each, some 11 KB in two seconds.
	if n := idleBytesIn(t, c.Brokers()[0], 2*time.Second); n > 4000 {
		t.Errorf("idle followers sent %.0f bytes in 2 s: fetches are not incremental", n)
	}
	produceAll(2)
	caughtUp(40)
}
