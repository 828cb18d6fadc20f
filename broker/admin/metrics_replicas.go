package admin

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"kafgo/broker/replica"
	"kafgo/internal/adminapi"
)

// Kafka's kafka.server:type=ReplicaManager and kafka.log:type=Log,
// LogFlushStats beans.
var (
	descURP         = prometheus.NewDesc("kafka_server_replicamanager_underreplicatedpartitions", "Partitions this broker leads whose ISR is smaller than their replica set.", nil, nil)
	descUnderMinISR = prometheus.NewDesc("kafka_server_replicamanager_underminisrpartitioncount", "Partitions this broker leads whose ISR is below min.insync.replicas.", nil, nil)
	descAtMinISR    = prometheus.NewDesc("kafka_server_replicamanager_atminisrpartitioncount", "Partitions this broker leads whose ISR is exactly min.insync.replicas.", nil, nil)
	descLeaders     = prometheus.NewDesc("kafka_server_replicamanager_leadercount", "Partitions this broker leads.", nil, nil)
	descPartitions  = prometheus.NewDesc("kafka_server_replicamanager_partitioncount", "Partition replicas hosted on this broker.", nil, nil)
	descOfflineReps = prometheus.NewDesc("kafka_server_replicamanager_offlinereplicacount",
		"Replicas whose log directory failed; kafgo does not take log directories offline, so always 0.", nil, nil)
	descISRShrinks = prometheus.NewDesc("kafka_server_replicamanager_isrshrinks_total", "ISR shrinks the controller accepted for partitions this broker leads (IsrShrinksPerSec).", nil, nil)
	descISRExpands = prometheus.NewDesc("kafka_server_replicamanager_isrexpands_total", "ISR expansions the controller accepted for partitions this broker leads (IsrExpandsPerSec).", nil, nil)
	descISRFailed  = prometheus.NewDesc("kafka_server_replicamanager_failedisrupdates_total", "ISR changes the controller refused or that did not reach it (FailedIsrUpdatesPerSec).", nil, nil)

	descLogEnd      = prometheus.NewDesc("kafka_log_log_logendoffset", "Log end offset of the local replica.", partLabels, nil)
	descLogStart    = prometheus.NewDesc("kafka_log_log_logstartoffset", "Log start offset of the local replica.", partLabels, nil)
	descLogSize     = prometheus.NewDesc("kafka_log_log_size", "Bytes of the local replica's segment files.", partLabels, nil)
	descLogSegments = prometheus.NewDesc("kafka_log_log_numlogsegments", "Segments of the local replica.", partLabels, nil)
	descLogFlush    = prometheus.NewDesc("kafka_log_logflushstats_logflushrateandtimems", "Milliseconds each log flush (fsync of unflushed segments) took (LogFlushRateAndTimeMs).", nil, nil)
)

func (c *collector) collectReplicas(ch chan<- prometheus.Metric) {
	rm := replicaManager(c.src, func(s *replica.State) { collectReplicaPartition(ch, s) })
	if c.src.Replicas != nil {
		ch <- gauge(descPartitions, float64(rm.PartitionCount))
		ch <- gauge(descLeaders, float64(rm.LeaderCount))
		ch <- gauge(descURP, float64(rm.UnderReplicatedPartitions))
		ch <- gauge(descUnderMinISR, float64(rm.UnderMinISRPartitions))
		ch <- gauge(descAtMinISR, float64(rm.AtMinISRPartitions))
		ch <- gauge(descOfflineReps, 0)
	}
	if c.src.Metrics != nil {
		ch <- counter(descISRShrinks, rm.ISRShrinks)
		ch <- counter(descISRExpands, rm.ISRExpands)
		ch <- counter(descISRFailed, rm.FailedISRUpdates)
		ch <- histogramMs(descLogFlush, c.src.Metrics.LogFlush.Snapshot())
	}
}

// replicaManager computes the ReplicaManager figures, calling each (if
// set) with every partition's state on the way.
func replicaManager(src Source, each func(*replica.State)) adminapi.ReplicaManagerMetrics {
	var rm adminapi.ReplicaManagerMetrics
	if src.Replicas != nil {
		for _, p := range src.Replicas.Partitions() {
			rm.PartitionCount++
			s := p.State()
			if each != nil {
				each(&s)
			}
			if !s.IsLeader {
				continue
			}
			rm.LeaderCount++
			isr, minISR := len(s.ISR), int(p.Config().MinInsyncReplicas)
			if isr < len(s.Replicas) {
				rm.UnderReplicatedPartitions++
			}
			switch {
			case isr < minISR:
				rm.UnderMinISRPartitions++
			case isr == minISR:
				rm.AtMinISRPartitions++
			}
		}
	}
	n := src.Metrics.Counters()
	rm.ISRShrinks, rm.ISRExpands, rm.FailedISRUpdates = n.ISRShrinks, n.ISRExpands, n.FailedISRUpdates
	return rm
}

// collectLogs reads every local log's offsets and sizes (Kafka's Log
// gauges), at scrape time only.
func (c *collector) collectLogs(ch chan<- prometheus.Metric) {
	if c.src.Logs == nil {
		return
	}
	for tp, l := range c.src.Logs.Logs() {
		labels := []string{tp.Topic, strconv.Itoa(int(tp.Partition))}
		ch <- gauge(descLogEnd, float64(l.LogEndOffset()), labels...)
		ch <- gauge(descLogStart, float64(l.LogStartOffset()), labels...)
		ch <- gauge(descLogSize, float64(l.Size()), labels...)
		ch <- gauge(descLogSegments, float64(l.NumSegments()), labels...)
	}
}
