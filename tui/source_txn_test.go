package tui

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"kafgo/internal/testing/clitest"
)

// TestLiveTransactions: against a broker serving KIP-664 the snapshot
// holds an open transaction as its coordinator describes it; against one
// without (Kafka 2.8's API set), it holds none and the view is hidden.
func TestLiveTransactions(t *testing.T) {
	t.Run("served", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
		ctx := clitest.Context(t, 30*time.Second)
		p := clitest.Client(t, addrs, kgo.TransactionalID("tui-txn"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := p.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: 1, Value: []byte("x")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		pid, epoch, err := p.ProducerID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewLive(clitest.Client(t, addrs), nil).Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Transactions == nil || s.Transactions.Err != "" || len(s.Transactions.Open) != 1 {
			t.Fatalf("transactions: %+v", s.Transactions)
		}
		x := s.Transactions.Open[0]
		if x.ID != "tui-txn" || x.ProducerID != pid || x.Epoch != epoch || x.State != "Ongoing" ||
			len(x.Partitions) != 1 || x.Partitions[0] != "orders-1" || x.StartMs < 0 || x.TimeoutMs <= 0 {
			t.Fatalf("open transaction %+v, want tui-txn producer %d epoch %d on orders-1", x, pid, epoch)
		}

		if err := p.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		clitest.Eventually(t, 10*time.Second, func() (bool, error) {
			s, err := NewLive(clitest.Client(t, addrs), nil).Snapshot(ctx)
			if err != nil {
				return false, err
			}
			return s.Transactions != nil && len(s.Transactions.Open) == 0 && s.Transactions.Idle == 1, nil
		})
	})
	t.Run("not served", func(t *testing.T) {
		_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"), kfake.MaxVersions(kversion.V2_8_0()))
		ctx := clitest.Context(t, 30*time.Second)
		s, err := NewLive(clitest.Client(t, addrs), nil).Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Transactions != nil {
			t.Fatalf("transactions from a broker without KIP-664: %+v", s.Transactions)
		}
	})
}
