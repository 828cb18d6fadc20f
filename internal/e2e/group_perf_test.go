package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestGroupCommitThroughput measures one kgo client committing in a loop,
// each OffsetCommit answered only once it is replicated (acks=all to
// __consumer_offsets), on one broker and on three with three replicas.
// Every commit must succeed and be the one OffsetFetch returns at the end.
func TestGroupCommitThroughput(t *testing.T) {
	cases := []struct {
		name string
		opt  testcluster.Options
	}{
		{"1 broker", testcluster.Options{}},
		{"3 brokers rf 3", testcluster.Options{Brokers: 3, ZooKeeper: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testcluster.Start(t, tc.opt)
			const topic, group = "commit-rate", "commit-rate-g"
			groupCreateTopic(t, c, topic, 1, int16(len(c.Brokers())))
			adm := kadm.NewClient(c.Client())
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// The first commit waits for the coordinator to exist.
			testwait.For(t, 30*time.Second, "a first commit", func() (bool, string) {
				r, err := adm.CommitOffsets(ctx, group, kadm.Offsets{topic: {0: {Topic: topic, Partition: 0, At: 0}}})
				if err == nil {
					err = r.Error()
				}
				return err == nil, func() string {
					if err != nil {
						return err.Error()
					}
					return ""
				}()
			})
			const d = 3 * time.Second
			start := time.Now()
			n := int64(0)
			for time.Since(start) < d {
				n++
				r, err := adm.CommitOffsets(ctx, group, kadm.Offsets{topic: {0: {Topic: topic, Partition: 0, At: n}}})
				if err == nil {
					err = r.Error()
				}
				if err != nil {
					t.Fatalf("commit %d: %v", n, err)
				}
			}
			rate := float64(n) / time.Since(start).Seconds()
			if got := groupCommitted(t, adm, group, topic)[0]; got != n {
				t.Fatalf("committed %d, want the last commit %d", got, n)
			}
			t.Logf("%s: %d sequential commits in %v: %.0f commits/s", tc.name, n, d, rate)
		})
	}
}
