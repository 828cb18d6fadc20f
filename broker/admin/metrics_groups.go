package admin

import (
	"context"
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"kafgo/broker/group"
	"kafgo/broker/partid"
	"kafgo/internal/adminapi"
)

// Kafka's kafka.coordinator.group:type=GroupMetadataManager beans (the
// domain's dot becomes an underscore), kafka_exporter's consumer group
// series, and kafgo's transaction coordinator counts.
var (
	descNumGroups  = prometheus.NewDesc("kafka_coordinator_group_groupmetadatamanager_numgroups", "Groups this broker coordinates.", nil, nil)
	descNumOffsets = prometheus.NewDesc("kafka_coordinator_group_groupmetadatamanager_numoffsets", "Committed offsets of the groups this broker coordinates.", nil, nil)
	descGroupState = map[group.State]*prometheus.Desc{
		group.PreparingRebalance:  prometheus.NewDesc("kafka_coordinator_group_groupmetadatamanager_numgroupspreparingrebalance", "Groups this broker coordinates in PreparingRebalance.", nil, nil),
		group.CompletingRebalance: prometheus.NewDesc("kafka_coordinator_group_groupmetadatamanager_numgroupscompletingrebalance", "Groups this broker coordinates in CompletingRebalance.", nil, nil),
		group.Stable:              prometheus.NewDesc("kafka_coordinator_group_groupmetadatamanager_numgroupsstable", "Groups this broker coordinates in Stable.", nil, nil),
		group.Dead:                prometheus.NewDesc("kafka_coordinator_group_groupmetadatamanager_numgroupsdead", "Groups this broker coordinates in Dead (kafgo drops dead groups at once, so 0).", nil, nil),
		group.Empty:               prometheus.NewDesc("kafka_coordinator_group_groupmetadatamanager_numgroupsempty", "Groups this broker coordinates in Empty.", nil, nil),
	}

	lagLabels         = []string{"consumergroup", "topic", "partition"}
	descGroupOffset   = prometheus.NewDesc("kafka_consumergroup_current_offset", "Committed offset of the group on the partition.", lagLabels, nil)
	descGroupLag      = prometheus.NewDesc("kafka_consumergroup_lag", "High watermark minus the group's committed offset (0 when ahead).", lagLabels, nil)
	descGroupLagSum   = prometheus.NewDesc("kafka_consumergroup_lag_sum", "The group's lag summed over the topic's partitions.", []string{"consumergroup", "topic"}, nil)
	descGroupMembers  = prometheus.NewDesc("kafka_consumergroup_members", "Members of the group.", []string{"consumergroup"}, nil)
	descTxnPartitions = prometheus.NewDesc("kafgo_txn_coordinator_partitions", "__transaction_state partitions this broker leads, by state (loaded, loading).", []string{"state"}, nil)
	descTxnStates     = prometheus.NewDesc("kafgo_txn_coordinator_transactions", "Transactional ids this broker coordinates, by transaction state.", []string{"state"}, nil)
)

func (c *collector) collectGroups(ctx context.Context, ch chan<- prometheus.Metric) {
	if c.src.Txns != nil {
		s := c.src.Txns()
		ch <- gauge(descTxnPartitions, float64(s.PartitionsLoaded), "loaded")
		ch <- gauge(descTxnPartitions, float64(s.PartitionsLoading), "loading")
		for state, n := range s.Transactions {
			ch <- gauge(descTxnStates, float64(n), state)
		}
	}
	if c.src.Groups == nil {
		return
	}
	groups := groupsView(ctx, c.src)
	byState := map[string]int{}
	offsets := 0
	for _, g := range groups {
		byState[g.State]++
		offsets += len(g.Partitions)
	}
	ch <- gauge(descNumGroups, float64(len(groups)))
	ch <- gauge(descNumOffsets, float64(offsets))
	for state, d := range descGroupState {
		ch <- gauge(d, float64(byState[state.String()]))
	}
	for _, g := range groups {
		ch <- gauge(descGroupMembers, float64(g.Members), g.Group)
		lagSum := map[string]int64{}
		var topics []string
		for _, p := range g.Partitions {
			labels := []string{g.Group, p.Topic, strconv.Itoa(int(p.Partition))}
			ch <- gauge(descGroupOffset, float64(p.Offset), labels...)
			if p.Lag == nil {
				continue // the partition's end is unknown now: no lag series
			}
			ch <- gauge(descGroupLag, float64(*p.Lag), labels...)
			if _, ok := lagSum[p.Topic]; !ok {
				topics = append(topics, p.Topic)
			}
			lagSum[p.Topic] += *p.Lag
		}
		for _, t := range topics {
			ch <- gauge(descGroupLagSum, float64(lagSum[t]), g.Group, t)
		}
	}
}

// groupsView lists the groups this broker coordinates with their committed
// offsets and, where the partition's high watermark is known, their lag
// (kafka_exporter's: the HW minus the committed offset, 0 when ahead).
// Groups and partitions come sorted.
func groupsView(ctx context.Context, src Source) []adminapi.GroupMetrics {
	if src.Groups == nil {
		return nil
	}
	snaps := src.Groups()
	var tps []partid.TopicPartition
	seen := map[partid.TopicPartition]bool{}
	for _, g := range snaps {
		for tp := range g.Offsets {
			if !seen[tp] {
				seen[tp] = true
				tps = append(tps, tp)
			}
		}
	}
	var ends map[partid.TopicPartition]int64
	if src.EndOffsets != nil && len(tps) > 0 {
		ends = src.EndOffsets(ctx, tps)
	}
	out := make([]adminapi.GroupMetrics, 0, len(snaps))
	for _, g := range snaps {
		gm := adminapi.GroupMetrics{Group: g.ID, State: g.State.String(), Members: g.Members, Partitions: []adminapi.GroupPartition{}}
		for tp, off := range g.Offsets {
			p := adminapi.GroupPartition{Topic: tp.Topic, Partition: tp.Partition, Offset: off}
			if end, ok := ends[tp]; ok {
				lag := max(end-off, 0)
				p.HighWatermark, p.Lag = &end, &lag
			}
			gm.Partitions = append(gm.Partitions, p)
		}
		sort.Slice(gm.Partitions, func(i, j int) bool {
			a, b := gm.Partitions[i], gm.Partitions[j]
			return a.Topic < b.Topic || a.Topic == b.Topic && a.Partition < b.Partition
		})
		out = append(out, gm)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}
