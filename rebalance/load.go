package rebalance

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/adminapi"
	"kafgo/internal/adminclient"
	"kafgo/internal/topicpart"
)

// LoadOptions say how to read the cluster.
type LoadOptions struct {
	// Admin maps broker ids to their admin endpoints (host:port); missing
	// ones are looked up in each broker's admin.listener config.
	Admin map[int32]string
	// MetricsWindow is how long traffic is measured for (0: not at all,
	// and the network goals are left out).
	MetricsWindow time.Duration
	// ExcludeTopics are left as they are (Cruise Control's
	// excluded_topics), except that their replicas on removed brokers
	// still move.
	ExcludeTopics func(topic string) bool
}

// Load reads the model: brokers and racks, replica assignments and leaders
// (Metadata), sizes and log directories (DescribeLogDirs), and, over the
// metrics window, each partition's traffic (the brokers' per-topic byte
// counters from their admin endpoints, shared out among the partitions by
// their log end offsets' growth). notes receives what could not be read.
func Load(ctx context.Context, cl *kgo.Client, o LoadOptions, notes io.Writer) (*Model, error) {
	adm := kadm.NewClient(cl)
	meta, err := adm.Metadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("rebalance: metadata: %w", err)
	}
	m := &Model{MaxReplicasPerBroker: 10000, DiskCapacityThreshold: 0.8, BalanceThreshold: 1.10}
	hosts := map[int32]string{}
	for _, b := range meta.Brokers {
		rack := ""
		if b.Rack != nil {
			rack = *b.Rack
		}
		m.Brokers = append(m.Brokers, &Broker{ID: b.NodeID, Rack: rack})
		hosts[b.NodeID] = b.Host
	}
	for _, t := range meta.Topics.Sorted() {
		if t.Err != nil {
			return nil, fmt.Errorf("rebalance: topic %s: %w", t.Topic, t.Err)
		}
		pinned := o.ExcludeTopics != nil && o.ExcludeTopics(t.Topic)
		for _, p := range t.Partitions.Sorted() {
			m.Partitions = append(m.Partitions, &Partition{TP: topicpart.TP{Topic: t.Topic, Partition: p.Partition},
				Replicas: append([]int32(nil), p.Replicas...), Leader: p.Leader, Dirs: map[int32]string{}, Pinned: pinned})
		}
	}
	dirs, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("rebalance: describing log directories: %w", err)
	}
	byTP := map[topicpart.TP]*Partition{}
	for _, p := range m.Partitions {
		byTP[p.TP] = p
	}
	for _, b := range m.Brokers {
		for _, d := range dirs[b.ID].Sorted() {
			if d.Err != nil {
				fmt.Fprintf(notes, "Note: log directory %s of broker %d: %v\n", d.Dir, b.ID, d.Err)
				continue
			}
			b.LogDirs = append(b.LogDirs, LogDir{Path: d.Dir, TotalBytes: d.TotalBytes})
			d.Topics.Each(func(dp kadm.DescribedLogDirPartition) {
				if p := byTP[topicpart.TP{Topic: dp.Topic, Partition: dp.Partition}]; p != nil && !dp.IsFuture {
					p.Size = max(p.Size, dp.Size)
					p.Dirs[b.ID] = dp.Dir
				}
			})
		}
	}
	if o.MetricsWindow > 0 {
		if err := measureTraffic(ctx, cl, m, hosts, o); err != nil {
			fmt.Fprintf(notes, "Note: traffic not measured (%v): the network goals are left out.\n", err)
		} else {
			m.Traffic = true
		}
	}
	m.index()
	return m, nil
}

// adminEndpoints finds each broker's admin endpoint: given, or its
// admin.listener config.
func adminEndpoints(ctx context.Context, cl *kgo.Client, m *Model, hosts map[int32]string, given map[int32]string) (map[int32]string, error) {
	out := map[int32]string{}
	for _, b := range m.Brokers {
		if a, ok := given[b.ID]; ok {
			out[b.ID] = a
			continue
		}
		a, err := adminclient.Endpoint(ctx, kadm.NewClient(cl), b.ID, hosts[b.ID])
		if err != nil {
			return nil, fmt.Errorf("%w (give --admin)", err)
		}
		out[b.ID] = a
	}
	return out, nil
}

// sample is one reading of every broker's per-topic byte counters and of
// every partition's log end offset.
type sample struct {
	at      time.Time
	in, out map[int32]map[string]uint64 // broker -> topic -> bytes
	ends    map[topicpart.TP]int64
}

func measureTraffic(ctx context.Context, cl *kgo.Client, m *Model, hosts map[int32]string, o LoadOptions) error {
	endpoints, err := adminEndpoints(ctx, cl, m, hosts, o.Admin)
	if err != nil {
		return err
	}
	first, err := takeSample(ctx, cl, m, endpoints)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(o.MetricsWindow):
	}
	second, err := takeSample(ctx, cl, m, endpoints)
	if err != nil {
		return err
	}
	secs := second.at.Sub(first.at).Seconds()
	if secs <= 0 {
		return fmt.Errorf("empty metrics window")
	}
	// Each broker's per-topic rates are shared among the partitions of
	// the topic it leads: bytes in by their log end offsets' growth,
	// bytes out evenly.
	type key struct {
		broker int32
		topic  string
	}
	grown := map[key]int64{}
	led := map[key]int{}
	for _, p := range m.Partitions {
		k := key{p.Leader, p.TP.Topic}
		grown[k] += max(0, second.ends[p.TP]-first.ends[p.TP])
		led[k]++
	}
	for _, p := range m.Partitions {
		k := key{p.Leader, p.TP.Topic}
		if led[k] == 0 {
			continue
		}
		in := float64(diff(second.in, first.in, p.Leader, p.TP.Topic)) / secs
		out := float64(diff(second.out, first.out, p.Leader, p.TP.Topic)) / secs
		share := 1 / float64(led[k])
		if grown[k] > 0 {
			share = float64(max(0, second.ends[p.TP]-first.ends[p.TP])) / float64(grown[k])
		}
		p.BytesIn = in * share
		p.BytesOut = out / float64(led[k])
	}
	return nil
}

func diff(b, a map[int32]map[string]uint64, broker int32, topic string) uint64 {
	x, y := b[broker][topic], a[broker][topic]
	if x < y {
		return 0 // the broker restarted: its counters began again
	}
	return x - y
}

func takeSample(ctx context.Context, cl *kgo.Client, m *Model, endpoints map[int32]string) (*sample, error) {
	s := &sample{at: time.Now(), in: map[int32]map[string]uint64{}, out: map[int32]map[string]uint64{}}
	for _, b := range m.Brokers {
		var doc adminapi.Metrics
		if err := adminclient.Get(ctx, endpoints[b.ID], adminapi.MetricsPath, &doc); err != nil {
			return nil, fmt.Errorf("broker %d: %w", b.ID, err)
		}
		s.in[b.ID], s.out[b.ID] = map[string]uint64{}, map[string]uint64{}
		for _, t := range doc.Topics {
			s.in[b.ID][t.Topic] = t.BytesIn
			s.out[b.ID][t.Topic] = t.BytesOut
		}
	}
	var topics []string
	seen := map[string]bool{}
	for _, p := range m.Partitions {
		if !seen[p.TP.Topic] {
			seen[p.TP.Topic] = true
			topics = append(topics, p.TP.Topic)
		}
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("log end offsets: %w", err)
	}
	s.ends = map[topicpart.TP]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil {
			s.ends[topicpart.TP{Topic: o.Topic, Partition: o.Partition}] = o.Offset
		}
	})
	return s, nil
}

// ParseAdmin reads --admin: "id=host:port,..." or, in broker id order of
// the cluster, "host:port,...".
func ParseAdmin(v string, ids []int32) (map[int32]string, error) {
	out := map[int32]string{}
	if v == "" {
		return out, nil
	}
	for i, item := range splitList(v) {
		if k, addr, ok := cutEq(item); ok {
			id, err := strconv.ParseInt(k, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("--admin %s: %q is not a broker id", v, k)
			}
			out[int32(id)] = addr
			continue
		}
		if i >= len(ids) {
			return nil, fmt.Errorf("--admin lists more endpoints than the cluster has brokers")
		}
		out[ids[i]] = item
	}
	return out, nil
}
