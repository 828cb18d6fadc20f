package e2e

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
)

// BenchmarkTLSThroughput measures, in one run against one broker, franz-go
// producing (acks=1, 1 KiB records, 6 partitions) and then consuming the
// same volume over the PLAINTEXT listener and over an SSL listener, in
// alternating rounds on fresh topics, and reports the medians and the
// TLS/plaintext ratios of the medians (the machine is shared, so single
// rounds vary). The plaintext fetch path sends segment bytes
// with sendfile; the TLS path reads them into pooled buffers and encrypts.
//
//	go test -run '^$' -bench TLSThroughput -benchtime 1x ./internal/e2e/
func BenchmarkTLSThroughput(b *testing.B) {
	f := newSecFixture(b)
	c := testcluster.Start(b, testcluster.Options{Config: f.brokerTLS(), Listeners: []testcluster.Listener{{Name: "SSL", Protocol: "SSL"}}})
	br := c.Brokers()[0]
	const records, size, parts, rounds = 150_000, 1024, 6, 4
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	adm := c.Admin()
	run := func(addr, topic string, opts ...kgo.Opt) (produceMBs, consumeMBs float64) {
		if _, err := adm.CreateTopic(ctx, parts, 1, nil, topic); err != nil {
			b.Fatal(err)
		}
		value := bytes.Repeat([]byte("x"), size)
		pcl := secureClient(b, []string{addr}, append(opts, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(),
			kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(50_000))...)
		start := time.Now()
		errs := make(chan error, 1)
		for i := 0; i < records; i++ {
			pcl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			})
		}
		if err := pcl.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		select {
		case err := <-errs:
			b.Fatal(err)
		default:
		}
		produceMBs = float64(records*size) / (1 << 20) / time.Since(start).Seconds()
		ccl := secureClient(b, []string{addr}, append(opts, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxBytes(50<<20))...)
		start = time.Now()
		got := 0
		for got < records {
			fs := ccl.PollFetches(ctx)
			if ctx.Err() != nil {
				b.Fatalf("consumed %d of %d", got, records)
			}
			got += fs.NumRecords()
		}
		consumeMBs = float64(records*size) / (1 << 20) / time.Since(start).Seconds()
		ccl.Close()
		pcl.Close()
		if _, err := adm.DeleteTopic(ctx, topic); err != nil {
			b.Fatal(err)
		}
		return produceMBs, consumeMBs
	}
	b.ResetTimer()
	var pps, pcs, tps, tcs []float64
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			p1, c1 := run(br.Addr(), fmt.Sprintf("plain-%d-%d", i, r))
			p2, c2 := run(br.ListenerAddr("SSL"), fmt.Sprintf("tls-%d-%d", i, r), f.tlsOpt(false))
			pps, pcs, tps, tcs = append(pps, p1), append(pcs, c1), append(tps, p2), append(tcs, c2)
		}
	}
	pp, pc, tp, tc := medianOf(pps), medianOf(pcs), medianOf(tps), medianOf(tcs)
	b.ReportMetric(pp, "plain-produce-MB/s")
	b.ReportMetric(tp, "tls-produce-MB/s")
	b.ReportMetric(tp/pp, "produce-ratio")
	b.ReportMetric(pc, "plain-consume-MB/s")
	b.ReportMetric(tc, "tls-consume-MB/s")
	b.ReportMetric(tc/pc, "consume-ratio")
	b.Logf("rounds: plaintext produce %v consume %v, TLS produce %v consume %v (MB/s)", rounded(pps), rounded(pcs), rounded(tps), rounded(tcs))
	b.Logf("median produce: plaintext %.1f MB/s, TLS %.1f MB/s (ratio %.2f); consume: plaintext %.1f MB/s, TLS %.1f MB/s (ratio %.2f)", pp, tp, tp/pp, pc, tc, tc/pc)
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x + 0.5)
	}
	return out
}
