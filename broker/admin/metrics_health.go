package admin

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kafgo/internal/adminapi"
	"kafgo/internal/consumerhealth"
)

// Consumer health, from the coordinator of each group only (see
// internal/consumerhealth): kafka-lag-exporter's time lag per partition
// and Burrow's statuses as numbers (OK 1, WARNING 2, ERROR 3, STOP 4,
// STALL 5, REWIND 6).
var (
	descLagSeconds = prometheus.NewDesc("kafka_consumergroup_lag_seconds",
		"Seconds since the next record the group will read was written (0 when caught up); left out while unknown.", lagLabels, nil)
	descMaxLagSeconds = prometheus.NewDesc("kafka_consumergroup_max_lag_seconds",
		"The largest time lag over the group's partitions.", []string{"consumergroup"}, nil)
	descGroupStatus = prometheus.NewDesc("kafka_consumergroup_status",
		"The group's health by Burrow's rules over its window of commits, its worst partition's: 1 OK, 2 WARNING, 3 ERROR, 4 STOP, 5 STALL, 6 REWIND.", []string{"consumergroup"}, nil)
	descPartitionStatus = prometheus.NewDesc("kafka_consumergroup_partition_status",
		"The partition's health by Burrow's rules (the numbers of kafka_consumergroup_status).", lagLabels, nil)
)

func (c *collector) collectHealth(ctx context.Context, ch chan<- prometheus.Metric) {
	if c.src.Health == nil {
		return
	}
	for _, g := range c.src.Health(ctx) {
		ch <- gauge(descGroupStatus, float64(g.Status), g.Group)
		ch <- gauge(descMaxLagSeconds, g.MaxTimeLag.Seconds(), g.Group)
		for _, p := range g.Partitions {
			labels := []string{g.Group, p.Topic, strconv.Itoa(int(p.Partition))}
			ch <- gauge(descPartitionStatus, float64(p.Status), labels...)
			if p.TimeLagKnown {
				ch <- gauge(descLagSeconds, p.TimeLag.Seconds(), labels...)
			}
		}
	}
}

func (s *Server) consumerHealth(w http.ResponseWriter, r *http.Request) {
	var groups []consumerhealth.GroupHealth
	if s.src.Health != nil {
		ctx, cancel := context.WithTimeout(r.Context(), scrapeTimeout)
		defer cancel()
		groups = s.src.Health(ctx)
	}
	writeJSON(w, adminapi.FromHealth(time.Now(), groups))
}
