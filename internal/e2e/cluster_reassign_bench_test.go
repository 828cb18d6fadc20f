package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// BenchmarkReassignMove measures, in one run on two brokers, how fast a
// partition reassignment copies a log to a broker that has no replica of
// it (from AlterPartitionAssignments until nothing is listed as moving),
// against a kgo consumer reading the same log from the leader: both are
// Fetch over loopback from the same files, so the ratio says what the
// replication path (follower fetcher, appends, ISR join, leader move)
// costs over a plain consumer.
//
//	go test -run '^$' -bench ReassignMove -benchtime 1x ./internal/e2e/
func BenchmarkReassignMove(b *testing.B) {
	c := testcluster.Start(b, testcluster.Options{Brokers: 2, ZooKeeper: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl := c.Client()
	adm := kadm.NewClient(cl)
	const n, size = 200_000, 1024
	var moveMBs, consumeMBs float64
	b.StopTimer() // timed: only the moves, not the set-up and the consumer baseline
	for i := 0; i < b.N; i++ {
		topic := "mv-" + time.Now().Format("150405.000")
		if err := createWithAssignment(ctx, cl, topic, map[int32][]int32{0: {1}}); err != nil {
			b.Fatal(err)
		}
		perfProduce(b, c.Bootstrap(), topic, "1", n, size)
		logBytes := partitionLogBytes(b, c.Broker(1), topic)

		start := time.Now()
		consumeAllRecords(b, ctx, c, topic, n)
		consumeMBs = float64(logBytes) / 1e6 / time.Since(start).Seconds()

		b.StartTimer()
		start = time.Now()
		req := kadm.AlterPartitionAssignmentsReq{}
		req.Assign(topic, 0, []int32{2})
		resp, err := adm.AlterPartitionAssignments(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if err := resp.Error(); err != nil {
			b.Fatal(err)
		}
		testwait.For(b, 4*time.Minute, "the move to finish", func() (bool, string) {
			// kadm answers an empty set without asking: name the partition.
			l, err := adm.ListPartitionReassignments(ctx, kadm.TopicsSet{topic: {0: {}}})
			if err != nil {
				return false, err.Error()
			}
			if len(l[topic]) > 0 {
				return false, "still moving"
			}
			md, err := testcluster.Metadata(ctx, cl, topic)
			if err != nil {
				return false, err.Error()
			}
			p := md.Topics[0].Partitions[0]
			return len(p.Replicas) == 1 && p.Replicas[0] == 2 && p.Leader == 2, "metadata not moved yet"
		})
		moveMBs = float64(logBytes) / 1e6 / time.Since(start).Seconds()
		b.StopTimer()
		if got := partitionLogBytes(b, c.Broker(2), topic); got != logBytes {
			b.Fatalf("moved log holds %d bytes, the original %d", got, logBytes)
		}
		b.Logf("%.1f MB moved at %.1f MB/s; the consumer read it at %.1f MB/s; ratio %.2f", float64(logBytes)/1e6, moveMBs, consumeMBs, moveMBs/consumeMBs)
	}
	b.ReportMetric(moveMBs, "move-MB/s")
	b.ReportMetric(consumeMBs, "consume-MB/s")
	b.ReportMetric(moveMBs/consumeMBs, "ratio")
}

// consumeAllRecords reads n records of topic from the start.
func consumeAllRecords(b *testing.B, ctx context.Context, c *testcluster.Cluster, topic string, n int) {
	b.Helper()
	cl := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxBytes(64<<20))
	defer cl.Close()
	got := 0
	for got < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			b.Fatalf("consumed %d of %d: %v", got, n, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { b.Fatal(err) })
		got += fs.NumRecords()
	}
}
