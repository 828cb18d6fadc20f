package perf

import (
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/javanum"
)

// clientMetrics counts what kgo's hooks report, for --print-metrics. kgo
// keeps no metrics registry of its own, so the figures printed are the
// ones measured here, under the Java client's metric names where one
// means the same thing.
type clientMetrics struct {
	mu            sync.Mutex
	requests      int64
	bytesOut      int64
	bytesIn       int64
	writeErrors   int64
	connections   int64
	throttleTotal time.Duration
	throttleMax   time.Duration
	throttles     int64
	batches       int64
	batchRecords  int64
	batchBytes    int64 // on the wire
	batchRaw      int64 // before compression
	batchMax      int64
}

var (
	_ kgo.HookBrokerWrite         = (*clientMetrics)(nil)
	_ kgo.HookBrokerRead          = (*clientMetrics)(nil)
	_ kgo.HookBrokerConnect       = (*clientMetrics)(nil)
	_ kgo.HookBrokerThrottle      = (*clientMetrics)(nil)
	_ kgo.HookProduceBatchWritten = (*clientMetrics)(nil)
	_ kgo.HookFetchBatchRead      = (*clientMetrics)(nil)
)

func (m *clientMetrics) OnBrokerWrite(_ kgo.BrokerMetadata, _ int16, n int, _, _ time.Duration, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	m.bytesOut += int64(n)
	if err != nil {
		m.writeErrors++
	}
}

func (m *clientMetrics) OnBrokerRead(_ kgo.BrokerMetadata, _ int16, n int, _, _ time.Duration, _ error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bytesIn += int64(n)
}

func (m *clientMetrics) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.connections++
}

func (m *clientMetrics) OnBrokerThrottle(_ kgo.BrokerMetadata, d time.Duration, _ bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.throttles++
	m.throttleTotal += d
	m.throttleMax = max(m.throttleMax, d)
}

func (m *clientMetrics) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, b kgo.ProduceBatchMetrics) {
	m.batch(b.NumRecords, b.CompressedBytes, b.UncompressedBytes)
}

func (m *clientMetrics) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, b kgo.FetchBatchMetrics) {
	m.batch(b.NumRecords, b.CompressedBytes, b.UncompressedBytes)
}

func (m *clientMetrics) batch(records, wire, raw int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batches++
	m.batchRecords += int64(records)
	m.batchBytes += int64(wire)
	m.batchRaw += int64(raw)
	m.batchMax = max(m.batchMax, int64(wire))
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// snapshot returns the metrics as Kafka names them: group:name:{tags}.
func (m *clientMetrics) snapshot(producer bool, clientID string) map[string]float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	tags := "{client-id=" + clientID + "}"
	out := map[string]float64{}
	put := func(group, name string, v float64) { out[group+":"+name+":"+tags] = v }
	group := "consumer-metrics"
	if producer {
		group = "producer-metrics"
		put(group, "batch-size-avg", ratio(m.batchBytes, m.batches))
		put(group, "batch-size-max", float64(m.batchMax))
		put(group, "compression-rate-avg", ratio(m.batchBytes, m.batchRaw))
		put(group, "records-per-batch-avg", ratio(m.batchRecords, m.batches))
		put(group, "record-send-total", float64(m.batchRecords))
		put(group, "produce-throttle-time-avg", ratio(m.throttleTotal.Milliseconds(), m.throttles))
		put(group, "produce-throttle-time-max", float64(m.throttleMax.Milliseconds()))
	} else {
		fg := "consumer-fetch-manager-metrics"
		put(fg, "records-consumed-total", float64(m.batchRecords))
		put(fg, "bytes-consumed-total", float64(m.batchRaw))
		put(fg, "fetch-batches-total", float64(m.batches))
		put(fg, "fetch-throttle-time-avg", ratio(m.throttleTotal.Milliseconds(), m.throttles))
		put(fg, "fetch-throttle-time-max", float64(m.throttleMax.Milliseconds()))
	}
	put(group, "request-total", float64(m.requests))
	put(group, "outgoing-byte-total", float64(m.bytesOut))
	put(group, "incoming-byte-total", float64(m.bytesIn))
	put(group, "connection-creation-total", float64(m.connections))
	put(group, "request-error-total", float64(m.writeErrors))
	return out
}

// printMetrics writes metrics in the layout of Kafka's ToolsUtils.printMetrics.
func printMetrics(w io.Writer, metrics map[string]float64) {
	if len(metrics) == 0 {
		return
	}
	width := 0
	for name := range metrics {
		width = max(width, len(name))
	}
	fmt.Fprintf(w, "\n%-*s   %s\n", width, "Metric Name", "Value")
	for _, name := range slices.Sorted(maps.Keys(metrics)) {
		fmt.Fprintf(w, "%-*s : %s\n", width, name, javanum.FormatFixed(metrics[name], 3))
	}
}
