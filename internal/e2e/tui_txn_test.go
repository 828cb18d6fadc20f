package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestTUIShowsOpenTransaction: `kafgo tui --once --view transactions`
// shows a kgo producer's open transaction as the coordinator holds it
// (transactional id, producer id and epoch, Ongoing, its partitions, its
// age), and, once committed, no open transaction and one idle id.
func TestTUIShowsOpenTransaction(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{"transaction.state.log.num.partitions": fmt.Sprint(txnPartitions)}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const topic, id = "tui-txn", "tui-etl"
	if _, err := c.Admin().CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	p := c.Client(kgo.TransactionalID(id), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.TransactionTimeout(45*time.Second))
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, part := range []int32{0, 2} {
		if err := p.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: part, Value: []byte("open")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	pid, epoch, err := p.ProducerID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	frame := func() string {
		return kafgo(t, "", "tui", "--bootstrap-server", c.Bootstrap(), "--once", "--no-color", "--timeout", "5s",
			"--width", "120", "--height", "30", "--view", "transactions")
	}

	time.Sleep(1100 * time.Millisecond) // an age of at least a second
	out := frame()
	row := regexp.MustCompile(fmt.Sprintf(`(?m)^>\s+%s\s+Ongoing\s+%d\s+%d\s+2\s+(\d+)s\s+45s$`, id, pid, epoch))
	m := row.FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("no row for the open transaction (producer %d epoch %d, 2 partitions, 45s timeout, aged a second or more):\n%s", pid, epoch, out)
	}
	for _, want := range []string{"[5 Transactions]", "1 open transaction · 0 idle transactional ids",
		fmt.Sprintf("%s · producer %d epoch %d · timeout 45s · age %ss · coordinator 1", id, pid, epoch, m[1]),
		"\n  tui-txn-0, tui-txn-2\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("frame lacks %q:\n%s", want, out)
		}
	}

	if err := p.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 30*time.Second, "the committed transaction gone from the view", func() (bool, string) {
		out = frame()
		return strings.Contains(out, "0 open transactions · 1 idle transactional id\n") && strings.Contains(out, "no open transactions"), out
	})
}
