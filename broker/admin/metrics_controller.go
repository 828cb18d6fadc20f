package admin

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// Kafka's kafka.controller:type=KafkaController and ControllerStats beans.
// The KafkaController gauges are the active controller's; every other
// broker reports 0, so a sum over brokers is the cluster's figure.
var (
	descActiveCtl  = prometheus.NewDesc("kafka_controller_kafkacontroller_activecontrollercount", "1 on the active controller, 0 elsewhere.", nil, nil)
	descOffline    = prometheus.NewDesc("kafka_controller_kafkacontroller_offlinepartitionscount", "Partitions without a live leader (active controller only).", nil, nil)
	descGlobalPart = prometheus.NewDesc("kafka_controller_kafkacontroller_globalpartitioncount", "Partitions in the cluster (active controller only).", nil, nil)
	descGlobalTop  = prometheus.NewDesc("kafka_controller_kafkacontroller_globaltopiccount", "Topics in the cluster (active controller only).", nil, nil)
	descImbalance  = prometheus.NewDesc("kafka_controller_kafkacontroller_preferredreplicaimbalancecount",
		"Partitions not led by their preferred (first) replica (active controller only).", nil, nil)
	descToDelete         = prometheus.NewDesc("kafka_controller_kafkacontroller_topicstodeletecount", "Topics queued for deletion (active controller only).", nil, nil)
	descReplicasToDelete = prometheus.NewDesc("kafka_controller_kafkacontroller_replicastodeletecount", "Replicas of topics being deleted not yet removed (active controller only).", nil, nil)
	descElection         = prometheus.NewDesc("kafka_controller_controllerstats_leaderelectionrateandtimems",
		"Milliseconds each broker change took the active controller to handle, leader elections included (LeaderElectionRateAndTimeMs).", nil, nil)
	descUnclean = prometheus.NewDesc("kafka_controller_controllerstats_uncleanleaderelections_total", "Out-of-sync replicas elected leader (UncleanLeaderElectionsPerSec).", nil, nil)
)

func (c *collector) collectController(ctx context.Context, ch chan<- prometheus.Metric) {
	if c.src.Controller != nil {
		s := c.src.Controller(ctx)
		active := 0.0
		if s.Active {
			active = 1
		}
		ch <- gauge(descActiveCtl, active)
		ch <- gauge(descOffline, float64(s.OfflinePartitions))
		ch <- gauge(descGlobalPart, float64(s.GlobalPartitions))
		ch <- gauge(descGlobalTop, float64(s.GlobalTopics))
		ch <- gauge(descImbalance, float64(s.PreferredReplicaImbalance))
		ch <- gauge(descToDelete, float64(s.TopicsToDelete))
		ch <- gauge(descReplicasToDelete, float64(s.ReplicasToDelete))
	}
	if c.src.Metrics != nil {
		ch <- histogramMs(descElection, c.src.Metrics.LeaderElection.Snapshot())
		ch <- counter(descUnclean, c.src.Metrics.Counters().UncleanElections)
	}
}
