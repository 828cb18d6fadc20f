package broker

import (
	"testing"

	"kafgo/broker/config"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
)

func topicConfig(t *testing.T, overrides map[string]string) config.Topic {
	t.Helper()
	tc, err := config.Default().TopicConfig(overrides)
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// Every topic config reaches the storage or replica field it governs; the
// values are distinct, so a swapped mapping shows.
func TestPartitionConfigMapsEveryField(t *testing.T) {
	got := partitionConfig(topicConfig(t, map[string]string{
		"cleanup.policy":            "compact,delete",
		"segment.bytes":             "1048577",
		"segment.ms":                "1000002",
		"segment.index.bytes":       "1048579",
		"index.interval.bytes":      "4100",
		"flush.messages":            "5",
		"flush.ms":                  "6006",
		"retention.ms":              "7007",
		"retention.bytes":           "8008",
		"file.delete.delay.ms":      "9009",
		"delete.retention.ms":       "10010",
		"min.compaction.lag.ms":     "11011",
		"max.compaction.lag.ms":     "12012",
		"min.cleanable.dirty.ratio": "0.25",
		"min.insync.replicas":       "2",
		"max.message.bytes":         "13013",
		"message.timestamp.type":    "LogAppendTime",
	}), 1)
	want := replica.PartitionConfig{
		Log: storage.LogConfig{
			SegmentBytes: 1048577, SegmentMs: 1000002, SegmentIndexBytes: 1048579, IndexIntervalBytes: 4100,
			FlushMessages: 5, FlushMs: 6006, RetentionMs: 7007, RetentionBytes: 8008, FileDeleteDelayMs: 9009,
			Compact: true, DeleteRetentionMs: 10010, MinCompactionLagMs: 11011, MaxCompactionLagMs: 12012,
			MinCleanableDirtyRatio: 0.25,
		},
		MinInsyncReplicas: 2,
		MaxMessageBytes:   13013,
		LogAppendTime:     true,
		Compact:           true,
	}
	if got.Log != want.Log {
		t.Errorf("log config\n got %+v\nwant %+v", got.Log, want.Log)
	}
	if got.MinInsyncReplicas != want.MinInsyncReplicas || got.MaxMessageBytes != want.MaxMessageBytes ||
		got.LogAppendTime != want.LogAppendTime || got.Compact != want.Compact {
		t.Errorf("replica config\n got %+v\nwant %+v", got, want)
	}
}

// Retention deletes segments only under the delete policy: a compact-only
// topic keeps its segments whatever retention.ms/bytes say.
func TestPartitionConfigRetentionFollowsPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy            string
		wantMs, wantBytes int64
		wantCompact       bool
	}{
		{"delete", 7007, 8008, false},
		{"compact", -1, -1, true},
		{"compact,delete", 7007, 8008, true},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			pc := partitionConfig(topicConfig(t, map[string]string{"cleanup.policy": tc.policy, "retention.ms": "7007", "retention.bytes": "8008"}), 1)
			if pc.Log.RetentionMs != tc.wantMs || pc.Log.RetentionBytes != tc.wantBytes {
				t.Errorf("retention ms/bytes %d/%d, want %d/%d", pc.Log.RetentionMs, pc.Log.RetentionBytes, tc.wantMs, tc.wantBytes)
			}
			if pc.Compact != tc.wantCompact || pc.Log.Compact != tc.wantCompact {
				t.Errorf("compact %v (log %v), want %v", pc.Compact, pc.Log.Compact, tc.wantCompact)
			}
			if pc.LogAppendTime {
				t.Error("CreateTime topic reported as LogAppendTime")
			}
		})
	}
}

// The throttled-replica lists name partitionId:brokerId pairs; each broker
// throttles the partitions paired with its own id, and "*" throttles all.
func TestPartitionConfigThrottledReplicas(t *testing.T) {
	topic := topicConfig(t, map[string]string{
		"leader.replication.throttled.replicas":   "0:1,1:2,2:1",
		"follower.replication.throttled.replicas": "*",
	})
	for _, tc := range []struct {
		broker       int32
		leaderParts  []int32
		leaderExcept []int32
	}{
		{1, []int32{0, 2}, []int32{1, 3}},
		{2, []int32{1}, []int32{0, 2}},
		{3, nil, []int32{0, 1, 2}},
	} {
		pc := partitionConfig(topic, tc.broker)
		for _, p := range tc.leaderParts {
			if !pc.LeaderThrottled.Contains(p) {
				t.Errorf("broker %d: partition %d not leader-throttled", tc.broker, p)
			}
		}
		for _, p := range tc.leaderExcept {
			if pc.LeaderThrottled.Contains(p) {
				t.Errorf("broker %d: partition %d leader-throttled", tc.broker, p)
			}
		}
		for _, p := range []int32{0, 1, 7} {
			if !pc.FollowerThrottled.Contains(p) {
				t.Errorf("broker %d: partition %d not follower-throttled under *", tc.broker, p)
			}
		}
	}
	if pc := partitionConfig(topicConfig(t, nil), 1); !pc.LeaderThrottled.Empty() || !pc.FollowerThrottled.Empty() {
		t.Errorf("a topic without throttled replicas throttles %v / %v", pc.LeaderThrottled, pc.FollowerThrottled)
	}
}
