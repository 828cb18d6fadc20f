package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
)

// txnPerfJSON is kafgo perf produce --format json with the transactions
// it committed.
type txnPerfJSON struct {
	perfJSON
	Records      int64 `json:"records"`
	Transactions int64 `json:"transactions"`
}

// perfProduceArgs runs kafgo perf produce of n records of size bytes with
// acks=all (idempotent) and the extra flags.
func perfProduceArgs(tb testing.TB, bootstrap, topic string, n, size int, extra ...string) txnPerfJSON {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"perf", "produce", "--topic", topic, "--num-records", strconv.Itoa(n), "--record-size", strconv.Itoa(size),
		"--throughput", "-1", "--bootstrap-server", bootstrap, "--producer-props", "acks=all", "enable.idempotence=true", "--format", "json"}, extra...)
	out, err := exec.CommandContext(ctx, testcluster.Binary(tb), args...).Output()
	if err != nil {
		tb.Fatalf("perf produce %v: %v\n%s", extra, err, out)
	}
	var r txnPerfJSON
	if err := json.Unmarshal(out, &r); err != nil || r.Failed > 0 {
		tb.Fatalf("perf produce output %s: %v", out, err)
	}
	return r
}

// TestPerfProduceTransactional: kafgo perf produce --transactional-id
// --transaction-records commits a transaction every N records against a
// kafgo broker, and a read_committed consumer reads them all.
func TestPerfProduceTransactional(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{"transaction.state.log.num.partitions": fmt.Sprint(txnPartitions)}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Admin().CreateTopic(ctx, 3, 1, nil, "perf-txn"); err != nil {
		t.Fatal(err)
	}
	r := perfProduceArgs(t, c.Bootstrap(), "perf-txn", 2000, 100, "--transactional-id", "perf-txn-1", "--transaction-records", "100")
	if r.Records != 2000 || r.Transactions != 20 {
		t.Fatalf("%d records in %d transactions, want 2000 in 20", r.Records, r.Transactions)
	}
	if got := readValues(t, ctx, c, "perf-txn", kgo.ReadCommitted(), 2000); len(got) != 2000 {
		t.Fatalf("read_committed read %d records, want 2000", len(got))
	}
}

// BenchmarkTxnProduce measures, in one run on one broker, kafgo perf
// produce of 100-byte records with acks=all: idempotent without
// transactions, then in transactions of 1000 and of 100 records, and
// reports each transactional throughput as a ratio to the idempotent one:
// the price of a commit (EndTxn, the markers, the transaction log writes)
// per batch.
//
//	go build -o bin/kafgo ./cmd/kafgo && KAFGO_BIN=$PWD/bin/kafgo \
//	  go test -run '^$' -bench TxnProduce -benchtime 1x ./internal/e2e/
func BenchmarkTxnProduce(b *testing.B) {
	c := testcluster.Start(b, testcluster.Options{Config: map[string]string{"transaction.state.log.num.partitions": fmt.Sprint(txnPartitions)}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, topic := range []string{"idem", "txn1000", "txn100"} {
		if _, err := c.Admin().CreateTopic(ctx, 6, 1, nil, topic); err != nil {
			b.Fatal(err)
		}
	}
	const n, size = 300_000, 100
	b.ResetTimer()
	var idem, t1000, t100 txnPerfJSON
	for i := 0; i < b.N; i++ {
		idem = perfProduceArgs(b, c.Bootstrap(), "idem", n, size)
		t1000 = perfProduceArgs(b, c.Bootstrap(), "txn1000", n, size, "--transactional-id", "bench-1000", "--transaction-records", "1000")
		t100 = perfProduceArgs(b, c.Bootstrap(), "txn100", n, size, "--transactional-id", "bench-100", "--transaction-records", "100")
	}
	b.ReportMetric(idem.RecordsPerSec, "idempotent-rec/s")
	b.ReportMetric(t1000.RecordsPerSec, "txn1000-rec/s")
	b.ReportMetric(t100.RecordsPerSec, "txn100-rec/s")
	b.ReportMetric(t1000.RecordsPerSec/idem.RecordsPerSec, "txn1000-ratio")
	b.ReportMetric(t100.RecordsPerSec/idem.RecordsPerSec, "txn100-ratio")
	b.Logf("idempotent: %.0f rec/s p99 %.0f ms; 1000 records/txn: %.0f rec/s p99 %.0f ms (%d txns, ratio %.2f); 100 records/txn: %.0f rec/s p99 %.0f ms (%d txns, ratio %.2f)",
		idem.RecordsPerSec, idem.P99, t1000.RecordsPerSec, t1000.P99, t1000.Transactions, t1000.RecordsPerSec/idem.RecordsPerSec,
		t100.RecordsPerSec, t100.P99, t100.Transactions, t100.RecordsPerSec/idem.RecordsPerSec)
}
