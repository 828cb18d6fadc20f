package topics

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/uuid"
)

// TopicDescription is what --describe prints about one topic, gathered
// from Metadata and DescribeConfigs.
type TopicDescription struct {
	Name     string
	ID       uuid.UUID
	Internal bool
	// Partitions are sorted by partition id.
	Partitions []PartitionDescription
	// Configs are the configs not at their default (any source but
	// DEFAULT_CONFIG: the topic's own overrides and the broker's static
	// and dynamic configs behind a topic config), sorted by name, as Kafka
	// 2.8's TopicCommand prints them (config.entries.filter(!_.isDefault)).
	Configs []ConfigEntry
	// MinISR is the effective min.insync.replicas, 0 when unknown.
	MinISR int
}

// PartitionDescription is one partition line.
type PartitionDescription struct {
	Partition int32
	Leader    int32 // -1 when there is none
	Replicas  []int32
	ISR       []int32
}

// ConfigEntry is one name=value config.
type ConfigEntry struct {
	Name  string
	Value *string
}

func describe(ctx context.Context, adm *kadm.Client, o Options, out io.Writer) error {
	md, names, err := matchingTopics(ctx, adm, o)
	if err != nil {
		return err
	}
	if err := ensureExists(o, names); err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	live := make(map[int32]bool, len(md.Brokers))
	for _, b := range md.Brokers {
		live[b.NodeID] = true
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, names...)
	if err != nil {
		return fmt.Errorf("describing topic configs: %w", err)
	}
	descs := make([]TopicDescription, 0, len(names))
	for _, name := range names {
		td := md.Topics[name]
		if td.Err != nil {
			return fmt.Errorf("describing topic %s: %w", name, td.Err)
		}
		d := TopicDescription{Name: name, ID: uuid.UUID(td.ID), Internal: td.IsInternal}
		for _, p := range td.Partitions.Sorted() {
			d.Partitions = append(d.Partitions, PartitionDescription{
				Partition: p.Partition, Leader: p.Leader, Replicas: p.Replicas, ISR: p.ISR,
			})
		}
		rc, err := rcs.On(name, nil)
		if err != nil {
			return fmt.Errorf("describing configs of topic %s: %w", name, err)
		}
		if rc.Err != nil {
			return fmt.Errorf("describing configs of topic %s: %w", name, rc.Err)
		}
		for _, c := range rc.Configs {
			if c.Source != kmsg.ConfigSourceDefaultConfig {
				d.Configs = append(d.Configs, ConfigEntry{Name: c.Key, Value: c.Value})
			}
			if c.Key == "min.insync.replicas" && c.Value != nil {
				n, err := strconv.Atoi(*c.Value)
				if err != nil {
					return fmt.Errorf("topic %s: min.insync.replicas %q: %w", name, *c.Value, err)
				}
				d.MinISR = n
			}
		}
		slices.SortFunc(d.Configs, func(a, b ConfigEntry) int {
			switch {
			case a.Name < b.Name:
				return -1
			case a.Name > b.Name:
				return 1
			}
			return 0
		})
		descs = append(descs, d)
	}
	return RenderDescribe(out, descs, live, o)
}
