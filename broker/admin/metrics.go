package admin

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"kafgo/broker/quota"
)

// collector reads the broker's state at scrape time, so metrics cost
// nothing between scrapes and are never stale.
type collector struct{ src Source }

var (
	descConns    = prometheus.NewDesc("kafgo_network_open_connections", "Open client connections.", nil, nil)
	descAccepted = prometheus.NewDesc("kafgo_network_accepted_connections_total", "Connections accepted.", nil, nil)
	descRequests = prometheus.NewDesc("kafgo_network_requests_total", "Requests received.", nil, nil)
	descBytesIn  = prometheus.NewDesc("kafgo_network_received_bytes_total", "Bytes received from clients.", nil, nil)
	descBytesOut = prometheus.NewDesc("kafgo_network_sent_bytes_total", "Bytes sent to clients.", nil, nil)
	descErrors   = prometheus.NewDesc("kafgo_network_closed_for_error_total", "Connections closed for bad input or errors.", nil, nil)
	partLabels   = []string{"topic", "partition"}
	descLEO      = prometheus.NewDesc("kafgo_log_end_offset", "Log end offset of the local replica.", partLabels, nil)
	descLSO      = prometheus.NewDesc("kafgo_log_start_offset", "Log start offset of the local replica.", partLabels, nil)
	descHW       = prometheus.NewDesc("kafgo_high_watermark", "High watermark as this replica knows it.", partLabels, nil)
	descLeader   = prometheus.NewDesc("kafgo_partition_is_leader", "1 when this broker leads the partition.", partLabels, nil)
	descISR      = prometheus.NewDesc("kafgo_partition_isr_size", "ISR size (leader's view).", partLabels, nil)
	descURP      = prometheus.NewDesc("kafgo_under_replicated_partitions", "Led partitions whose ISR is smaller than the replica set.", nil, nil)
	descCtl      = prometheus.NewDesc("kafgo_controller_active", "1 when this broker is the active controller.", nil, nil)

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

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descConns, descAccepted, descRequests, descBytesIn, descBytesOut, descErrors, descLEO, descLSO, descHW, descLeader, descISR, descURP, descCtl,
		descThrottleBytes, descThrottleRate, descThrottleLimit, descThrottling, descHeldBack,
		descSessions, descSessionParts, descSessionEvictions, descIncremental} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Wire.Stats()
	ch <- prometheus.MustNewConstMetric(descConns, prometheus.GaugeValue, float64(st.OpenConns))
	ch <- prometheus.MustNewConstMetric(descAccepted, prometheus.CounterValue, float64(st.Accepted))
	ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(st.Requests))
	ch <- prometheus.MustNewConstMetric(descBytesIn, prometheus.CounterValue, float64(st.BytesIn))
	ch <- prometheus.MustNewConstMetric(descBytesOut, prometheus.CounterValue, float64(st.BytesOut))
	ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(st.ClosedForError))
	urp := 0
	for _, p := range c.src.Replicas.Partitions() {
		s := p.State()
		labels := []string{s.TopicPartition.Topic, strconv.Itoa(int(s.TopicPartition.Partition))}
		ch <- prometheus.MustNewConstMetric(descLEO, prometheus.GaugeValue, float64(s.LogEndOffset), labels...)
		ch <- prometheus.MustNewConstMetric(descLSO, prometheus.GaugeValue, float64(s.LogStartOffset), labels...)
		ch <- prometheus.MustNewConstMetric(descHW, prometheus.GaugeValue, float64(s.HighWatermark), labels...)
		leader := 0.0
		if s.IsLeader {
			leader = 1
			if len(s.ISR) < len(s.Replicas) {
				urp++
			}
		}
		ch <- prometheus.MustNewConstMetric(descLeader, prometheus.GaugeValue, leader, labels...)
		ch <- prometheus.MustNewConstMetric(descISR, prometheus.GaugeValue, float64(len(s.ISR)), labels...)
	}
	ch <- prometheus.MustNewConstMetric(descURP, prometheus.GaugeValue, float64(urp))
	active := 0.0
	if c.src.IsController() {
		active = 1
	}
	ch <- prometheus.MustNewConstMetric(descCtl, prometheus.GaugeValue, active)
	leader, follower := c.src.Replicas.Quotas()
	collectQuota(ch, "leader", leader.Stats())
	collectQuota(ch, "follower", follower.Stats())
	if c.src.FetchSessions != nil {
		fs := c.src.FetchSessions()
		ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(fs.Sessions))
		ch <- prometheus.MustNewConstMetric(descSessionParts, prometheus.GaugeValue, float64(fs.Partitions))
		ch <- prometheus.MustNewConstMetric(descSessionEvictions, prometheus.CounterValue, float64(fs.Evictions))
		ch <- prometheus.MustNewConstMetric(descIncremental, prometheus.CounterValue, float64(fs.IncrementalFetches))
	}
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
