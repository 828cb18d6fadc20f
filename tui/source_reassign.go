package tui

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/reassign"
)

// KIP-455's API key.
const listPartitionReassignmentsKey int16 = 46

// The replication throttle configs kafka-reassign-partitions --throttle
// sets (Kafka's QuotaConfigs names).
const (
	leaderThrottledReplicas   = "leader.replication.throttled.replicas"
	followerThrottledReplicas = "follower.replication.throttled.replicas"
	leaderThrottleRate        = "leader.replication.throttled.rate"
	followerThrottleRate      = "follower.replication.throttled.rate"
)

// reassignments lists the reassignments in progress and what paces
// them: the brokers' throttle rates (read whether or not anything moves,
// so that a throttle left behind shows) and, from DescribeLogDirs, how
// many bytes the adding replicas still lack; which topics' replicas are
// throttled comes from the snapshot's topic configs (throttledTopics). It
// returns nil when no broker serves ListPartitionReassignments (Kafka
// before 2.4).
func (l *Live) reassignments(ctx context.Context, s *Snapshot, versions func() (kadm.BrokersApiVersions, error)) *Reassignments {
	if vs, err := versions(); err == nil && !servedBy(vs, listPartitionReassignmentsKey) {
		return nil
	}
	r := &Reassignments{}
	moves, err := reassign.ListInFlight(ctx, l.cl)
	if err != nil {
		if errors.Is(err, kerr.UnsupportedVersion) {
			return nil
		}
		r.Err = "list reassignments: " + strings.TrimPrefix(err.Error(), "reassign: listing partition reassignments: ")
		return r
	}
	topicSet := kadm.TopicsSet{}
	for p, m := range moves {
		r.Moves = append(r.Moves, Reassignment{Topic: p.Topic, Partition: p.Partition, Replicas: m.Replicas,
			Adding: m.Adding, Removing: m.Removing, BytesLeft: -1})
		topicSet.Add(p.Topic, p.Partition)
	}

	// Throttle rates, per broker (dynamic broker configs).
	ids := make([]int32, 0, len(s.Brokers))
	for _, b := range s.Brokers {
		if !b.Offline {
			ids = append(ids, b.ID)
		}
	}
	if rates, err := l.adm.DescribeBrokerConfigs(ctx, ids...); err == nil {
		for _, rc := range rates {
			if rc.Err != nil {
				continue
			}
			id, err := strconv.ParseInt(rc.Name, 10, 32)
			if err != nil {
				continue
			}
			bt := BrokerThrottle{Broker: int32(id), Leader: -1, Follower: -1}
			for _, c := range rc.Configs {
				n, err := strconv.ParseInt(c.MaybeValue(), 10, 64)
				if err != nil || c.Source == kmsg.ConfigSourceDefaultConfig {
					continue
				}
				switch c.Key {
				case leaderThrottleRate:
					bt.Leader = n
				case followerThrottleRate:
					bt.Follower = n
				}
			}
			if bt.Leader >= 0 || bt.Follower >= 0 {
				r.Throttles = append(r.Throttles, bt)
			}
		}
	}

	if len(r.Moves) == 0 {
		return r
	}
	// Bytes left: the leader's log size minus each adding replica's.
	if dirs, err := l.adm.DescribeAllLogDirs(ctx, topicSet); err == nil {
		size := map[int32]map[tp]int64{}
		dirs.Each(func(d kadm.DescribedLogDir) {
			if d.Err != nil {
				return
			}
			for t, ps := range d.Topics {
				for p, dp := range ps {
					if size[d.Broker] == nil {
						size[d.Broker] = map[tp]int64{}
					}
					if !dp.IsFuture {
						size[d.Broker][tp{t, p}] = dp.Size
					}
				}
			}
		})
		leaders := map[tp]int32{}
		for _, t := range s.Topics {
			for _, p := range t.Partitions {
				leaders[tp{t.Name, p.ID}] = p.Leader
			}
		}
		for i := range r.Moves {
			m := &r.Moves[i]
			k := tp{m.Topic, m.Partition}
			lead, ok := size[leaders[k]][k]
			if !ok {
				continue
			}
			left := int64(0)
			for _, a := range m.Adding {
				if have, ok := size[a][k]; ok {
					left += max(0, lead-have)
				} else {
					left += lead
				}
			}
			m.BytesLeft = left
		}
	}
	return r
}

// throttledTopics completes r from the topics' configs: which moves are
// throttled, and which topics have throttled replicas set at all.
func (r *Reassignments) throttledTopics(cfg map[string]map[string]string) {
	if r == nil {
		return
	}
	for i := range r.Moves {
		m := &r.Moves[i]
		c := cfg[m.Topic]
		m.Throttled = throttles(c[leaderThrottledReplicas], m.Partition) || throttles(c[followerThrottledReplicas], m.Partition)
	}
	for t, c := range cfg {
		if strings.TrimSpace(c[leaderThrottledReplicas]) != "" || strings.TrimSpace(c[followerThrottledReplicas]) != "" {
			r.ThrottledTopics = append(r.ThrottledTopics, t)
		}
	}
}

// leftoverWarning says where a throttle was left set with nothing moving.
func (r *Reassignments) leftoverWarning() string {
	if !r.Leftover() {
		return ""
	}
	var where []string
	if len(r.Throttles) > 0 {
		bs := make([]int32, len(r.Throttles))
		for i, t := range r.Throttles {
			bs[i] = t.Broker
		}
		where = append(where, "rates on "+namedIDs("broker", "brokers", bs))
	}
	if n := len(r.ThrottledTopics); n > 0 {
		where = append(where, "throttled replicas of "+map[bool]string{true: "topic ", false: "topics "}[n == 1]+fewNames(append([]string(nil), r.ThrottledTopics...), 3))
	}
	return "replication throttle left set with no reassignment in progress (" + strings.Join(where, "; ") + "): clear it with " + clearByVerify + ", or " + clearByConfigs
}

// How a throttle left over is cleared: --verify with the plan that set it
// (Kafka's tool needs the file, and clears the throttles once every move
// in it is done), or, the plan gone, by deleting the configs themselves.
const (
	clearByVerify  = "kafgo reassign-partitions --verify --reassignment-json-file <plan>"
	clearByConfigs = "kafgo configs --alter --delete-config <the *.replication.throttled.* keys>"
)

// throttles reports whether a *.replication.throttled.replicas value
// ("*" or partition:broker pairs) covers partition p.
func throttles(v string, p int32) bool {
	if strings.TrimSpace(v) == "*" {
		return true
	}
	want := strconv.Itoa(int(p)) + ":"
	for _, pair := range strings.Split(v, ",") {
		if strings.HasPrefix(strings.TrimSpace(pair), want) {
			return true
		}
	}
	return false
}

// servedBy reports whether any broker that answered ApiVersions serves
// every one of keys; true when none answered, so that a blip does not
// hide a view.
func servedBy(vs kadm.BrokersApiVersions, keys ...int16) bool {
	answered, served := false, false
	vs.Each(func(v kadm.BrokerApiVersions) {
		if v.Err != nil {
			return
		}
		answered = true
		all := true
		for _, k := range keys {
			_, ok := v.KeyMaxVersion(k)
			all = all && ok
		}
		served = served || all
	})
	return !answered || served
}
