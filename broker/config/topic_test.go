package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestTopicConfigSynonyms(t *testing.T) {
	b := mustParse(t, map[string]string{
		"log.segment.bytes":                 "2048",
		"log.retention.hours":               "24",
		"log.roll.ms":                       "1000",
		"message.max.bytes":                 "5000",
		"log.cleanup.policy":                "compact",
		"min.insync.replicas":               "2",
		"unclean.leader.election.enable":    "true",
		"compression.type":                  "lz4",
		"log.cleaner.min.cleanable.ratio":   "0.3",
		"log.flush.scheduler.interval.ms":   "777",
		"log.message.timestamp.type":        "LogAppendTime",
		"log.segment.delete.delay.ms":       "5",
		"log.index.size.max.bytes":          "4096",
		"log.cleaner.delete.retention.ms":   "6",
		"log.preallocate":                   "true",
		"log.message.downconversion.enable": "false",
	})
	tests := []struct {
		name      string
		overrides map[string]string
		get       func(Topic) any
		want      any
	}{
		{"segment.bytes ← log.segment.bytes", nil, func(t Topic) any { return t.SegmentBytes }, int32(2048)},
		{"retention.ms ← log.retention.hours", nil, func(t Topic) any { return t.RetentionMs }, int64(24 * 3600 * 1000)},
		{"segment.ms ← log.roll.ms", nil, func(t Topic) any { return t.SegmentMs }, int64(1000)},
		{"max.message.bytes ← message.max.bytes", nil, func(t Topic) any { return t.MaxMessageBytes }, int32(5000)},
		{"cleanup.policy ← log.cleanup.policy", nil, func(t Topic) any { return []any{t.CleanupPolicy, t.Compact(), t.Delete()} }, []any{[]string{"compact"}, true, false}},
		{"min.insync.replicas ← same", nil, func(t Topic) any { return t.MinInsyncReplicas }, int32(2)},
		{"unclean.leader.election.enable ← same", nil, func(t Topic) any { return t.UncleanLeaderElectionEnable }, true},
		{"compression.type ← same", nil, func(t Topic) any { return t.CompressionType }, "lz4"},
		{"min.cleanable.dirty.ratio ← log.cleaner.min.cleanable.ratio", nil, func(t Topic) any { return t.MinCleanableDirtyRatio }, 0.3},
		{"flush.ms ← log.flush.scheduler.interval.ms", nil, func(t Topic) any { return t.FlushMs }, int64(777)},
		{"message.timestamp.type ← log.message.timestamp.type", nil, func(t Topic) any { return t.MessageTimestampType }, "LogAppendTime"},
		{"file.delete.delay.ms ← log.segment.delete.delay.ms", nil, func(t Topic) any { return t.FileDeleteDelayMs }, int64(5)},
		{"segment.index.bytes ← log.index.size.max.bytes", nil, func(t Topic) any { return t.SegmentIndexBytes }, int32(4096)},
		{"delete.retention.ms ← log.cleaner.delete.retention.ms", nil, func(t Topic) any { return t.DeleteRetentionMs }, int64(6)},
		{"preallocate ← log.preallocate", nil, func(t Topic) any { return t.Preallocate }, true},
		{"message.downconversion.enable ← log.message.downconversion.enable", nil, func(t Topic) any { return t.MessageDownconversionEnable }, false},
		{"no synonym: default", nil, func(t Topic) any { return t.LeaderReplicationThrottledReplicas }, ""},
		{"override beats synonym", map[string]string{"segment.bytes": "4096", "retention.ms": "-1"},
			func(t Topic) any { return []any{t.SegmentBytes, t.RetentionMs} }, []any{int32(4096), int64(-1)}},
		{"override list", map[string]string{"cleanup.policy": "compact,delete"},
			func(t Topic) any { return []any{t.Compact(), t.Delete()} }, []any{true, true}},
		{"throttled replicas", map[string]string{"leader.replication.throttled.replicas": "0:1,1:2", "follower.replication.throttled.replicas": "*"},
			func(t Topic) any {
				return []any{t.LeaderReplicationThrottledReplicas, t.FollowerReplicationThrottledReplicas}
			}, []any{"0:1,1:2", "*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc, err := b.TopicConfig(tt.overrides)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.get(tc); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestValidateTopicOverrides(t *testing.T) {
	tests := []struct {
		name      string
		overrides map[string]string
		key       string
		contains  string
		sentinel  error
	}{
		{"unknown", map[string]string{"retention.mss": "1"}, "retention.mss", "did you mean retention.ms", ErrUnknownKey},
		{"broker key on a topic", map[string]string{"log.retention.hours": "1"}, "log.retention.hours", "is a broker config", ErrUnknownKey},
		{"segment.bytes too small", map[string]string{"segment.bytes": "13"}, "segment.bytes", "at least 14", ErrInvalidValue},
		{"retention.ms below -1", map[string]string{"retention.ms": "-2"}, "retention.ms", "at least -1", ErrInvalidValue},
		{"cleanup.policy", map[string]string{"cleanup.policy": "delete,purge"}, "cleanup.policy", "purge", ErrInvalidValue},
		{"compression.type is case sensitive", map[string]string{"compression.type": "GZIP"}, "compression.type", "one of", ErrInvalidValue},
		{"timestamp type", map[string]string{"message.timestamp.type": "Now"}, "message.timestamp.type", "CreateTime", ErrInvalidValue},
		{"ratio", map[string]string{"min.cleanable.dirty.ratio": "2"}, "min.cleanable.dirty.ratio", "between", ErrInvalidValue},
		{"min.insync.replicas", map[string]string{"min.insync.replicas": "0"}, "min.insync.replicas", "at least 1", ErrInvalidValue},
		{"throttled replicas", map[string]string{"leader.replication.throttled.replicas": "0-1"}, "leader.replication.throttled.replicas", "partitionId:brokerId", ErrInvalidValue},
		{"compaction lags", map[string]string{"min.compaction.lag.ms": "10", "max.compaction.lag.ms": "5"}, "min.compaction.lag.ms", "max.compaction.lag.ms", ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTopicOverrides(tt.overrides)
			ce := wantKeyError(t, err, tt.key, tt.overrides[tt.key], tt.sentinel)
			if !strings.Contains(ce.Error(), tt.contains) {
				t.Errorf("error %q does not mention %q", ce, tt.contains)
			}
			if _, err := Default().TopicConfig(tt.overrides); err == nil {
				t.Error("TopicConfig accepted what ValidateTopicOverrides refused")
			}
		})
	}
	if err := ValidateTopicOverrides(map[string]string{"retention.ms": "1000", "cleanup.policy": "compact"}); err != nil {
		t.Errorf("valid overrides refused: %v", err)
	}
}

// TestTopicConfigCompactionLagAgainstBroker: an override that is fine on
// its own but conflicts with the broker's value of the other key.
func TestTopicConfigCompactionLagAgainstBroker(t *testing.T) {
	b := mustParse(t, map[string]string{"log.cleaner.max.compaction.lag.ms": "100"})
	_, err := b.TopicConfig(map[string]string{"min.compaction.lag.ms": "200"})
	wantKeyError(t, err, "min.compaction.lag.ms", "200", ErrInvalidValue)
}

func TestDescribeTopic(t *testing.T) {
	b := mustParse(t, map[string]string{"log.retention.hours": "24", "log.segment.bytes": "2048"})
	if err := b.Set("min.insync.replicas", "2"); err != nil {
		t.Fatal(err)
	}
	if err := b.SetClusterDefault("log.cleanup.policy", "compact"); err != nil {
		t.Fatal(err)
	}
	values := b.DescribeTopic(map[string]string{"max.message.bytes": " 2000 "})
	byName := map[string]Value{}
	for _, v := range values {
		byName[v.Name] = v
		if v.ReadOnly || v.Sensitive {
			t.Errorf("%s: read-only %v sensitive %v", v.Name, v.ReadOnly, v.Sensitive)
		}
	}
	if len(values) != len(TopicDefs) {
		t.Fatalf("%d values for %d topic keys", len(values), len(TopicDefs))
	}
	tests := []struct {
		name     string
		value    string
		source   Source
		synonyms []Synonym
	}{
		{"max.message.bytes", "2000", DynamicTopicConfig, []Synonym{
			{"max.message.bytes", "2000", DynamicTopicConfig},
			{"message.max.bytes", "1048588", DefaultConfig}}},
		{"retention.ms", "86400000", StaticBrokerConfig, []Synonym{
			{"log.retention.hours", "24", StaticBrokerConfig},
			{"log.retention.hours", "168", DefaultConfig}}},
		{"segment.bytes", "2048", StaticBrokerConfig, []Synonym{
			{"log.segment.bytes", "2048", StaticBrokerConfig},
			{"log.segment.bytes", "1073741824", DefaultConfig}}},
		{"min.insync.replicas", "2", DynamicBrokerConfig, []Synonym{
			{"min.insync.replicas", "2", DynamicBrokerConfig},
			{"min.insync.replicas", "1", DefaultConfig}}},
		{"cleanup.policy", "compact", DynamicDefaultBrokerConfig, []Synonym{
			{"log.cleanup.policy", "compact", DynamicDefaultBrokerConfig},
			{"log.cleanup.policy", "delete", DefaultConfig}}},
		{"segment.ms", "604800000", DefaultConfig, []Synonym{
			{"log.roll.hours", "168", DefaultConfig}}},
		{"flush.ms", "9223372036854775807", DefaultConfig, []Synonym{
			{"log.flush.scheduler.interval.ms", "9223372036854775807", DefaultConfig}}},
		{"leader.replication.throttled.replicas", "", DefaultConfig, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := byName[tt.name]
			if v.Value != tt.value || v.Source != tt.source {
				t.Errorf("value %q source %v, want %q %v", v.Value, v.Source, tt.value, tt.source)
			}
			if !reflect.DeepEqual(v.Synonyms, tt.synonyms) {
				t.Errorf("synonyms %v, want %v", v.Synonyms, tt.synonyms)
			}
			if v.Type == "" || v.Doc == "" {
				t.Errorf("type %q doc %q", v.Type, v.Doc)
			}
		})
	}
}
