package admin

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kafgo/broker/metrics"
	"kafgo/broker/quota"
	"kafgo/broker/replica"
)

// collector reads the broker's state and counters at scrape time, so
// metrics cost nothing between scrapes and are never stale. It is an
// unchecked collector (Describe sends nothing): the BrokerTopicMetrics
// families carry both per-topic series and the all-topics one without a
// topic label, as the JMX exporter convention has them, which a checked
// collector cannot describe.
type collector struct {
	src Source
	win *window
}

func newCollector(src Source) *collector {
	c := &collector{src: src, win: newWindow(time.Minute)}
	// The first rate window starts when the counters did.
	start := time.Now()
	if src.Metrics != nil {
		start = src.Metrics.Started()
	}
	c.win.add(start, map[string]float64{})
	return c
}

// scrapeTimeout bounds what a scrape waits for (the controller's event
// loop, other brokers' end offsets for consumer lag).
const scrapeTimeout = 5 * time.Second

var (
	descConns    = prometheus.NewDesc("kafgo_network_open_connections", "Open client connections.", nil, nil)
	descAccepted = prometheus.NewDesc("kafgo_network_accepted_connections_total", "Connections accepted.", nil, nil)
	descRequests = prometheus.NewDesc("kafgo_network_requests_total", "Requests received.", nil, nil)
	descBytesIn  = prometheus.NewDesc("kafgo_network_received_bytes_total", "Bytes received from clients.", nil, nil)
	descBytesOut = prometheus.NewDesc("kafgo_network_sent_bytes_total", "Bytes sent to clients.", nil, nil)
	descErrors   = prometheus.NewDesc("kafgo_network_closed_for_error_total", "Connections closed for bad input or errors.", nil, nil)
	partLabels   = []string{"topic", "partition"}
	descHW       = prometheus.NewDesc("kafgo_high_watermark", "High watermark as this replica knows it.", partLabels, nil)
	descLeader   = prometheus.NewDesc("kafgo_partition_is_leader", "1 when this broker leads the partition.", partLabels, nil)
	descISR      = prometheus.NewDesc("kafgo_partition_isr_size", "ISR size (leader's view).", partLabels, nil)

	// Replication quotas (KIP-73), side="leader" (bytes served to followers
	// of leader-throttled partitions) or "follower" (bytes fetched for
	// follower-throttled replicas).
	sideLabel         = []string{"side"}
	descThrottleBytes = prometheus.NewDesc("kafgo_replication_throttled_bytes_total",
		"Replication bytes of throttled replicas counted against the quota (leader: sent, follower: received).", sideLabel, nil)
	descThrottleRate = prometheus.NewDesc("kafgo_replication_throttled_byte_rate",
		"Byte rate the replication quota measures over its window (bytes/s).", sideLabel, nil)
	descThrottleLimit = prometheus.NewDesc("kafgo_replication_throttle_limit_bytes",
		"leader/follower.replication.throttled.rate in force (bytes/s; 9223372036854775807 = none).", sideLabel, nil)
	descThrottling = prometheus.NewDesc("kafgo_replication_throttling",
		"1 while the quota is exceeded, so throttled replicas outside the ISR are held back.", sideLabel, nil)
	descHeldBack = prometheus.NewDesc("kafgo_replication_throttle_held_back_total",
		"Times a throttled replica's data was left out of a fetch because the quota was exceeded.", sideLabel, nil)

	// Incremental fetch sessions (KIP-227), Kafka's FetchSessionCache figures.
	descSessions = prometheus.NewDesc("kafgo_fetch_sessions",
		"Incremental fetch sessions cached (NumIncrementalFetchSessions).", nil, nil)
	descSessionParts = prometheus.NewDesc("kafgo_fetch_session_partitions",
		"Partitions cached over all fetch sessions (NumIncrementalFetchPartitionsCached).", nil, nil)
	descSessionEvictions = prometheus.NewDesc("kafgo_fetch_session_evictions_total",
		"Fetch sessions evicted to make room for new ones.", nil, nil)
	descIncremental = prometheus.NewDesc("kafgo_incremental_fetches_total",
		"Fetches served within a fetch session.", nil, nil)
)

// Describe sends nothing: see collector.
func (c *collector) Describe(chan<- *prometheus.Desc) {}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	c.collectWire(ch)
	c.collectWindowed(ch, time.Now())
	c.collectRequests(ch)
	c.collectTopics(ch)
	c.collectReplicas(ch)
	c.collectLogs(ch)
	c.collectController(ctx, ch)
	c.collectGroups(ctx, ch)
	c.collectHealth(ctx, ch)
	if c.src.Replicas != nil {
		leader, follower := c.src.Replicas.Quotas()
		collectQuota(ch, "leader", leader.Stats())
		collectQuota(ch, "follower", follower.Stats())
	}
	collectQuotas(ch, c.src.ClientQuotas)
	c.collectFetchSessions(ch)
}

// collectFetchSessions exports the incremental fetch session cache's
// figures (Kafka's FetchSessionCache metrics).
func (c *collector) collectFetchSessions(ch chan<- prometheus.Metric) {
	if c.src.FetchSessions == nil {
		return
	}
	fs := c.src.FetchSessions()
	ch <- gauge(descSessions, float64(fs.Sessions))
	ch <- gauge(descSessionParts, float64(fs.Partitions))
	ch <- prometheus.MustNewConstMetric(descSessionEvictions, prometheus.CounterValue, float64(fs.Evictions))
	ch <- prometheus.MustNewConstMetric(descIncremental, prometheus.CounterValue, float64(fs.IncrementalFetches))
}

func (c *collector) collectWire(ch chan<- prometheus.Metric) {
	if c.src.Wire == nil {
		return
	}
	st := c.src.Wire.Stats()
	ch <- prometheus.MustNewConstMetric(descConns, prometheus.GaugeValue, float64(st.OpenConns))
	ch <- prometheus.MustNewConstMetric(descAccepted, prometheus.CounterValue, float64(st.Accepted))
	ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(st.Requests))
	ch <- prometheus.MustNewConstMetric(descBytesIn, prometheus.CounterValue, float64(st.BytesIn))
	ch <- prometheus.MustNewConstMetric(descBytesOut, prometheus.CounterValue, float64(st.BytesOut))
	ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(st.ClosedForError))
	c.collectSocketServer(ch)
}

// collectReplicaPartition exports kafgo's own per-partition series.
func collectReplicaPartition(ch chan<- prometheus.Metric, s *replica.State) {
	labels := []string{s.TopicPartition.Topic, strconv.Itoa(int(s.TopicPartition.Partition))}
	ch <- gauge(descHW, float64(s.HighWatermark), labels...)
	leader := 0.0
	if s.IsLeader {
		leader = 1
	}
	ch <- gauge(descLeader, leader, labels...)
	ch <- gauge(descISR, float64(len(s.ISR)), labels...)
}

func collectQuota(ch chan<- prometheus.Metric, side string, st quota.Stats) {
	throttling := 0.0
	if st.Exceeded {
		throttling = 1
	}
	ch <- prometheus.MustNewConstMetric(descThrottleBytes, prometheus.CounterValue, float64(st.RecordedBytes), side)
	ch <- prometheus.MustNewConstMetric(descThrottleRate, prometheus.GaugeValue, st.Rate, side)
	ch <- prometheus.MustNewConstMetric(descThrottleLimit, prometheus.GaugeValue, float64(st.Limit), side)
	ch <- prometheus.MustNewConstMetric(descThrottling, prometheus.GaugeValue, throttling, side)
	ch <- prometheus.MustNewConstMetric(descHeldBack, prometheus.CounterValue, float64(st.HeldBack), side)
}

// msBuckets are metrics' histogram bounds in milliseconds, Kafka's unit
// for its timers.
var msBuckets = func() []float64 {
	var out []float64
	for _, b := range metrics.BucketBounds() {
		out = append(out, float64(b)/float64(time.Millisecond))
	}
	return out
}()

// histogramMs exports a duration histogram in milliseconds.
func histogramMs(desc *prometheus.Desc, s metrics.HistogramSnapshot, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(msBuckets))
	for i, le := range msBuckets {
		buckets[le] = s.Buckets[i]
	}
	return prometheus.MustNewConstHistogram(desc, s.Count, float64(s.Sum)/float64(time.Millisecond), buckets, labels...)
}

func counter(desc *prometheus.Desc, v uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
}

func gauge(desc *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
}
