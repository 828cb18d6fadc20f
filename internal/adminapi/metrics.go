package adminapi

// MetricsPath is GET /v1/metrics: the answering broker's Kafka metrics in
// JSON, the same figures /metrics exports to Prometheus. Counters count
// since the broker started: a reader takes rates from the difference of
// two reads over their TimeMs.
const MetricsPath = "/v1/metrics"

// Metrics is GET /v1/metrics.
type Metrics struct {
	TimeMs int64 `json:"time_ms"` // when the figures were read (unix ms)
	// Topics are the BrokerTopicMetrics of the topics hosted here;
	// AllTopics their total since start (deleted topics included).
	Topics         []TopicMetrics        `json:"topics"`
	AllTopics      TopicMetrics          `json:"all_topics"`
	Requests       []RequestMetrics      `json:"requests"`
	ReplicaManager ReplicaManagerMetrics `json:"replica_manager"`
	Controller     ControllerMetrics     `json:"controller"`
	// Groups are the consumer groups this broker coordinates.
	Groups []GroupMetrics `json:"groups"`
	// NetworkIdle and RequestHandlerIdle are the idle ratios (0-1) over
	// the last minute (see broker/admin's doc).
	NetworkIdle        float64 `json:"network_idle"`
	RequestHandlerIdle float64 `json:"request_handler_idle"`
}

// TopicMetrics are one topic's counters (AllTopics has no Topic).
type TopicMetrics struct {
	Topic               string `json:"topic,omitempty"`
	MessagesIn          uint64 `json:"messages_in"`
	BytesIn             uint64 `json:"bytes_in"`
	BytesOut            uint64 `json:"bytes_out"`
	BytesRejected       uint64 `json:"bytes_rejected"`
	FailedProduce       uint64 `json:"failed_produce_requests"`
	FailedFetch         uint64 `json:"failed_fetch_requests"`
	TotalProduce        uint64 `json:"total_produce_requests"`
	TotalFetch          uint64 `json:"total_fetch_requests"`
	ReplicationBytesIn  uint64 `json:"replication_bytes_in"`
	ReplicationBytesOut uint64 `json:"replication_bytes_out"`
}

// RequestMetrics are one request type's figures (Kafka's request names:
// Produce, FetchConsumer, FetchFollower, Metadata, ...).
type RequestMetrics struct {
	Request  string `json:"request"`
	Requests uint64 `json:"requests"`
	// Errors counts the error codes of the responses by Kafka's name,
	// NONE included.
	Errors      map[string]uint64 `json:"errors"`
	TotalTimeMs Latency           `json:"total_time_ms"`
	LocalTimeMs Latency           `json:"local_time_ms"`
	// RemoteTimeMs is the time in purgatory (acks=all, fetch long-poll).
	RemoteTimeMs       Latency `json:"remote_time_ms"`
	ResponseSendTimeMs Latency `json:"response_send_time_ms"`
	ThrottleTimeMs     Latency `json:"throttle_time_ms"`
}

// Latency summarizes a time histogram since start, in milliseconds;
// percentiles are estimated within the histogram's buckets.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// ReplicaManagerMetrics are Kafka's ReplicaManager figures.
type ReplicaManagerMetrics struct {
	PartitionCount            int    `json:"partition_count"`
	LeaderCount               int    `json:"leader_count"`
	UnderReplicatedPartitions int    `json:"under_replicated_partitions"`
	UnderMinISRPartitions     int    `json:"under_min_isr_partition_count"`
	AtMinISRPartitions        int    `json:"at_min_isr_partition_count"`
	ISRShrinks                uint64 `json:"isr_shrinks"`
	ISRExpands                uint64 `json:"isr_expands"`
	FailedISRUpdates          uint64 `json:"failed_isr_updates"`
}

// ControllerMetrics are Kafka's KafkaController and ControllerStats
// figures; the gauges are zero unless this broker is the active
// controller.
type ControllerMetrics struct {
	Active                    bool   `json:"active"`
	OfflinePartitions         int    `json:"offline_partitions_count"`
	GlobalPartitions          int    `json:"global_partition_count"`
	GlobalTopics              int    `json:"global_topic_count"`
	PreferredReplicaImbalance int    `json:"preferred_replica_imbalance_count"`
	LeaderElections           uint64 `json:"leader_elections"`
	UncleanLeaderElections    uint64 `json:"unclean_leader_elections"`
}

// GroupMetrics is one consumer group this broker coordinates.
type GroupMetrics struct {
	Group      string           `json:"group"`
	State      string           `json:"state"`
	Members    int              `json:"members"`
	Partitions []GroupPartition `json:"partitions"`
}

// GroupPartition is a group's committed offset on a partition and, when
// the partition's high watermark could be learned, its lag.
type GroupPartition struct {
	Topic         string `json:"topic"`
	Partition     int32  `json:"partition"`
	Offset        int64  `json:"offset"`
	HighWatermark *int64 `json:"high_watermark,omitempty"`
	Lag           *int64 `json:"lag,omitempty"`
}
