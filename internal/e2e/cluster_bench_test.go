package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"kafgo/internal/testing/testcluster"
)

type perfJSON struct {
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	P99           float64 `json:"p99"`
	Failed        int64   `json:"failed"`
}

func perfProduce(b *testing.B, bootstrap, topic, acks string, n, size int) perfJSON {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, testcluster.Binary(b), "perf", "produce", "--topic", topic,
		"--num-records", strconv.Itoa(n), "--record-size", strconv.Itoa(size), "--throughput", "-1",
		"--producer-props", "bootstrap.servers="+bootstrap, "acks="+acks, "--format", "json").Output()
	if err != nil {
		b.Fatalf("perf produce: %v\n%s", err, out)
	}
	var r perfJSON
	if err := json.Unmarshal(out, &r); err != nil || r.Failed > 0 {
		b.Fatalf("perf produce output %s: %v", out, err)
	}
	return r
}

// BenchmarkReplicatedProduce measures, in one run on a 3-broker cluster,
// kafgo perf produce of 1 KiB records with acks=all to an RF=3 topic
// (min.insync.replicas=2) against acks=1 to an RF=1 topic, and reports the
// ratio: the price of replication.
//
//	go test -run '^$' -bench ReplicatedProduce -benchtime 1x ./internal/e2e/
func BenchmarkReplicatedProduce(b *testing.B) {
	c := testcluster.Start(b, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{"min.insync.replicas": "2"}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	adm := c.Admin()
	if _, err := adm.CreateTopic(ctx, 6, 3, nil, "rf3"); err != nil {
		b.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 6, 1, nil, "rf1"); err != nil {
		b.Fatal(err)
	}
	waitFullISR(b, ctx, c.Client(), "rf3", 6)
	const n, size = 300_000, 1024
	b.ResetTimer()
	var all, one perfJSON
	for i := 0; i < b.N; i++ {
		all = perfProduce(b, c.Bootstrap(), "rf3", "all", n, size)
		one = perfProduce(b, c.Bootstrap(), "rf1", "1", n, size)
	}
	b.ReportMetric(all.RecordsPerSec, "rf3-acks-all-rec/s")
	b.ReportMetric(one.RecordsPerSec, "rf1-acks-1-rec/s")
	b.ReportMetric(all.RecordsPerSec/one.RecordsPerSec, "ratio")
	b.ReportMetric(all.P99, "rf3-p99-ms")
	b.ReportMetric(one.P99, "rf1-p99-ms")
	b.Logf("RF=3 acks=all: %.0f rec/s %.1f MB/s p99 %.0f ms; RF=1 acks=1: %.0f rec/s %.1f MB/s p99 %.0f ms; ratio %.2f",
		all.RecordsPerSec, all.MBPerSec, all.P99, one.RecordsPerSec, one.MBPerSec, one.P99, all.RecordsPerSec/one.RecordsPerSec)
}
