package config

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Topic is the effective configuration of one topic: its overrides where
// it has them, else the broker's value of the synonym key, else Kafka's
// topic default.
type Topic struct {
	CleanupPolicy                        []string
	CompressionType                      string
	DeleteRetentionMs                    int64
	FileDeleteDelayMs                    int64
	FlushMessages                        int64
	FlushMs                              int64
	IndexIntervalBytes                   int32
	MaxCompactionLagMs                   int64
	MaxMessageBytes                      int32
	MessageFormatVersion                 string
	MessageTimestampType                 string
	MessageTimestampDifferenceMaxMs      int64
	MinCleanableDirtyRatio               float64
	MinCompactionLagMs                   int64
	MinInsyncReplicas                    int32
	Preallocate                          bool
	RetentionBytes                       int64
	RetentionMs                          int64
	SegmentBytes                         int32
	SegmentIndexBytes                    int32
	SegmentJitterMs                      int64
	SegmentMs                            int64
	UncleanLeaderElectionEnable          bool
	MessageDownconversionEnable          bool
	LeaderReplicationThrottledReplicas   string
	FollowerReplicationThrottledReplicas string
}

// Compact reports whether cleanup.policy includes compact.
func (t Topic) Compact() bool { return contains(t.CleanupPolicy, "compact") }

// Delete reports whether cleanup.policy includes delete.
func (t Topic) Delete() bool { return contains(t.CleanupPolicy, "delete") }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TopicDef describes one topic config key.
type TopicDef struct {
	Name    string
	Type    Type
	Default string // Kafka's topic-level default, used when no broker synonym applies
	Doc     string
	// BrokerSynonym is the broker key whose value a topic without an
	// override inherits ("" for none). Some synonyms have lower-precedence
	// spellings of their own (log.retention.ms < .minutes < .hours), which
	// DescribeTopic lists too.
	BrokerSynonym string
	Validate      func(string) error

	checks []check
	// fromBroker renders the broker's effective value of the synonym in
	// this key's unit; assign stores a canonical value into a Topic.
	fromBroker func(*Broker) string
	assign     func(*Topic, string)
}

// TopicDefs lists every topic config key, sorted by name. Treat it as
// read-only.
var TopicDefs []TopicDef

var topicIndex = map[string]*TopicDef{}

func i64s(n int64) string { return strconv.FormatInt(n, 10) }
func i32s(n int32) string { return strconv.FormatInt(int64(n), 10) }

// throttledPattern matches leader/follower.replication.throttled.replicas:
// "*", or partition:broker pairs.
var throttledPattern = regexp.MustCompile(`^([0-9]+:[0-9]+)?$`)

func throttledReplicas(v string) error {
	if v == "*" {
		return nil
	}
	for _, it := range splitList(v) {
		if !throttledPattern.MatchString(it) {
			return fmt.Errorf("%w: must be \"*\" or a list of partitionId:brokerId pairs", ErrInvalidValue)
		}
	}
	return nil
}

func mustInt(v string) int64 {
	n, _ := parseInt(v, 64) // canonical, already validated
	return n
}

func mustDouble(v string) float64 {
	f, _ := parseDouble(v)
	return f
}

func initTopicDefs() {
	TopicDefs = []TopicDef{
		{Name: "cleanup.policy", Type: TypeList, Default: "delete", BrokerSynonym: "log.cleanup.policy", checks: []check{listOf(true, "delete", "compact")},
			Doc:        "delete (retention), compact (keep the last value per key) or both.",
			fromBroker: func(b *Broker) string { return strings.Join(b.LogCleanupPolicy, ",") },
			assign:     func(t *Topic, v string) { t.CleanupPolicy = splitList(v) }},
		{Name: "compression.type", Type: TypeString, Default: "producer", BrokerSynonym: "compression.type", checks: []check{compressionType},
			Doc:        "Codec for stored batches: uncompressed, gzip, snappy, lz4, zstd, or producer.",
			fromBroker: func(b *Broker) string { return b.CompressionType },
			assign:     func(t *Topic, v string) { t.CompressionType = v }},
		{Name: "delete.retention.ms", Type: TypeLong, Default: "86400000", BrokerSynonym: "log.cleaner.delete.retention.ms", checks: []check{atLeast(0)},
			Doc:        "How long tombstones survive compaction.",
			fromBroker: func(b *Broker) string { return i64s(b.LogCleanerDeleteRetentionMs) },
			assign:     func(t *Topic, v string) { t.DeleteRetentionMs = mustInt(v) }},
		{Name: "file.delete.delay.ms", Type: TypeLong, Default: "60000", BrokerSynonym: "log.segment.delete.delay.ms", checks: []check{atLeast(0)},
			Doc:        "How long a deleted segment stays on disk before removal.",
			fromBroker: func(b *Broker) string { return i64s(b.LogSegmentDeleteDelayMs) },
			assign:     func(t *Topic, v string) { t.FileDeleteDelayMs = mustInt(v) }},
		{Name: "flush.messages", Type: TypeLong, Default: longMax, BrokerSynonym: "log.flush.interval.messages", checks: []check{atLeast(0)},
			Doc:        "fsync after this many messages.",
			fromBroker: func(b *Broker) string { return i64s(b.LogFlushIntervalMessages) },
			assign:     func(t *Topic, v string) { t.FlushMessages = mustInt(v) }},
		{Name: "flush.ms", Type: TypeLong, Default: longMax, BrokerSynonym: "log.flush.interval.ms", checks: []check{atLeast(0)},
			Doc:        "fsync when the oldest unflushed message is this old.",
			fromBroker: func(b *Broker) string { return i64s(b.LogFlushIntervalMs) },
			assign:     func(t *Topic, v string) { t.FlushMs = mustInt(v) }},
		{Name: "follower.replication.throttled.replicas", Type: TypeList, Default: "", checks: []check{throttledReplicas},
			Doc:    "Replicas throttled on the follower side: \"*\" or partitionId:brokerId pairs.",
			assign: func(t *Topic, v string) { t.FollowerReplicationThrottledReplicas = v }},
		{Name: "index.interval.bytes", Type: TypeInt, Default: "4096", BrokerSynonym: "log.index.interval.bytes", checks: []check{atLeast(0)},
			Doc:        "Bytes of log between two offset index entries.",
			fromBroker: func(b *Broker) string { return i32s(b.LogIndexIntervalBytes) },
			assign:     func(t *Topic, v string) { t.IndexIntervalBytes = int32(mustInt(v)) }},
		{Name: "leader.replication.throttled.replicas", Type: TypeList, Default: "", checks: []check{throttledReplicas},
			Doc:    "Replicas throttled on the leader side: \"*\" or partitionId:brokerId pairs.",
			assign: func(t *Topic, v string) { t.LeaderReplicationThrottledReplicas = v }},
		{Name: "max.compaction.lag.ms", Type: TypeLong, Default: longMax, BrokerSynonym: "log.cleaner.max.compaction.lag.ms", checks: []check{atLeast(1)},
			Doc:        "Oldest a message may get before its log must be compacted.",
			fromBroker: func(b *Broker) string { return i64s(b.LogCleanerMaxCompactionLagMs) },
			assign:     func(t *Topic, v string) { t.MaxCompactionLagMs = mustInt(v) }},
		{Name: "max.message.bytes", Type: TypeInt, Default: "1048588", BrokerSynonym: "message.max.bytes", checks: []check{atLeast(0)},
			Doc:        "Largest record batch accepted, after compression.",
			fromBroker: func(b *Broker) string { return i32s(b.MessageMaxBytes) },
			assign:     func(t *Topic, v string) { t.MaxMessageBytes = int32(mustInt(v)) }},
		{Name: "message.downconversion.enable", Type: TypeBoolean, Default: "true", BrokerSynonym: "log.message.downconversion.enable",
			Doc:        "Convert batches for old fetchers.",
			fromBroker: func(b *Broker) string { return strconv.FormatBool(b.LogMessageDownconversionEnable) },
			assign:     func(t *Topic, v string) { t.MessageDownconversionEnable = v == "true" }},
		{Name: "message.format.version", Type: TypeString, Default: "2.8-IV1", BrokerSynonym: "log.message.format.version", checks: []check{kafkaVersion},
			Doc:        "Accepted for compatibility; batches are always written as RecordBatch v2.",
			fromBroker: func(b *Broker) string { return b.LogMessageFormatVersion },
			assign:     func(t *Topic, v string) { t.MessageFormatVersion = v }},
		{Name: "message.timestamp.difference.max.ms", Type: TypeLong, Default: longMax, BrokerSynonym: "log.message.timestamp.difference.max.ms", checks: []check{atLeast(0)},
			Doc:        "Refuse CreateTime batches further than this from the broker clock.",
			fromBroker: func(b *Broker) string { return i64s(b.LogMessageTimestampDifferenceMaxMs) },
			assign:     func(t *Topic, v string) { t.MessageTimestampDifferenceMaxMs = mustInt(v) }},
		{Name: "message.timestamp.type", Type: TypeString, Default: "CreateTime", BrokerSynonym: "log.message.timestamp.type", checks: []check{oneOf("CreateTime", "LogAppendTime")},
			Doc:        "CreateTime (producer's timestamps) or LogAppendTime (stamped on append).",
			fromBroker: func(b *Broker) string { return b.MessageTimestampType },
			assign:     func(t *Topic, v string) { t.MessageTimestampType = v }},
		{Name: "min.cleanable.dirty.ratio", Type: TypeDouble, Default: "0.5", BrokerSynonym: "log.cleaner.min.cleanable.ratio", checks: []check{ratioBetween(0, 1)},
			Doc:        "Clean the log once this share of it is dirty.",
			fromBroker: func(b *Broker) string { return rawOr(b, "log.cleaner.min.cleanable.ratio") },
			assign:     func(t *Topic, v string) { t.MinCleanableDirtyRatio = mustDouble(v) }},
		{Name: "min.compaction.lag.ms", Type: TypeLong, Default: "0", BrokerSynonym: "log.cleaner.min.compaction.lag.ms", checks: []check{atLeast(0)},
			Doc:        "Youngest a message may be and still be compacted away.",
			fromBroker: func(b *Broker) string { return i64s(b.LogCleanerMinCompactionLagMs) },
			assign:     func(t *Topic, v string) { t.MinCompactionLagMs = mustInt(v) }},
		{Name: "min.insync.replicas", Type: TypeInt, Default: "1", BrokerSynonym: "min.insync.replicas", checks: []check{atLeast(1)},
			Doc:        "Fewest in-sync replicas an acks=all produce needs.",
			fromBroker: func(b *Broker) string { return i32s(b.MinInsyncReplicas) },
			assign:     func(t *Topic, v string) { t.MinInsyncReplicas = int32(mustInt(v)) }},
		{Name: "preallocate", Type: TypeBoolean, Default: "false", BrokerSynonym: "log.preallocate",
			Doc:        "Preallocate segment files at full size.",
			fromBroker: func(b *Broker) string { return strconv.FormatBool(b.LogPreallocate) },
			assign:     func(t *Topic, v string) { t.Preallocate = v == "true" }},
		{Name: "retention.bytes", Type: TypeLong, Default: "-1", BrokerSynonym: "log.retention.bytes",
			Doc:        "Delete old segments once a partition is larger than this; -1 means no limit.",
			fromBroker: func(b *Broker) string { return i64s(b.LogRetentionBytes) },
			assign:     func(t *Topic, v string) { t.RetentionBytes = mustInt(v) }},
		{Name: "retention.ms", Type: TypeLong, Default: "604800000", BrokerSynonym: "log.retention.ms", checks: []check{atLeast(-1)},
			Doc:        "Delete segments older than this; -1 keeps them forever.",
			fromBroker: func(b *Broker) string { return i64s(b.LogRetentionMs) },
			assign:     func(t *Topic, v string) { t.RetentionMs = mustInt(v) }},
		{Name: "segment.bytes", Type: TypeInt, Default: "1073741824", BrokerSynonym: "log.segment.bytes", checks: []check{atLeast(14)},
			Doc:        "Roll a new segment at this size.",
			fromBroker: func(b *Broker) string { return i64s(b.LogSegmentBytes) },
			assign:     func(t *Topic, v string) { t.SegmentBytes = int32(mustInt(v)) }},
		{Name: "segment.index.bytes", Type: TypeInt, Default: "10485760", BrokerSynonym: "log.index.size.max.bytes", checks: []check{atLeast(4)},
			Doc:        "Largest index file; a full index rolls the segment.",
			fromBroker: func(b *Broker) string { return i32s(b.LogIndexSizeMaxBytes) },
			assign:     func(t *Topic, v string) { t.SegmentIndexBytes = int32(mustInt(v)) }},
		{Name: "segment.jitter.ms", Type: TypeLong, Default: "0", BrokerSynonym: "log.roll.jitter.ms", checks: []check{atLeast(0)},
			Doc:        "Most random time subtracted from segment.ms.",
			fromBroker: func(b *Broker) string { return i64s(b.LogRollJitterMs) },
			assign:     func(t *Topic, v string) { t.SegmentJitterMs = mustInt(v) }},
		{Name: "segment.ms", Type: TypeLong, Default: "604800000", BrokerSynonym: "log.roll.ms", checks: []check{atLeast(1)},
			Doc:        "Roll a new segment after this long even if it is not full.",
			fromBroker: func(b *Broker) string { return i64s(b.LogRollMs) },
			assign:     func(t *Topic, v string) { t.SegmentMs = mustInt(v) }},
		{Name: "unclean.leader.election.enable", Type: TypeBoolean, Default: "false", BrokerSynonym: "unclean.leader.election.enable",
			Doc:        "Allow an out-of-sync replica to become leader.",
			fromBroker: func(b *Broker) string { return strconv.FormatBool(b.UncleanLeaderElectionEnable) },
			assign:     func(t *Topic, v string) { t.UncleanLeaderElectionEnable = v == "true" }},
	}
	sort.Slice(TopicDefs, func(i, j int) bool { return TopicDefs[i].Name < TopicDefs[j].Name })
	for i := range TopicDefs {
		d := &TopicDefs[i]
		d.Validate = func(v string) error {
			_, err := d.canonical(v)
			return err
		}
		topicIndex[d.Name] = d
	}
}

// rawOr returns a broker key's effective raw value (keeping the operator's
// spelling of doubles), or its default.
func rawOr(b *Broker, name string) string {
	if b.l != nil {
		if v, _, ok := b.l.lookup(name); ok {
			return v
		}
	}
	return brokerIndex[name].Default
}

func (d *TopicDef) canonical(raw string) (string, error) {
	v, err := canonical(d.Type, raw)
	if err == nil {
		for _, c := range d.checks {
			if err = c(v); err != nil {
				break
			}
		}
	}
	if err != nil {
		return "", &Error{Key: d.Name, Value: raw, Err: err}
	}
	return v, nil
}

// LookupTopicDef returns the definition of a topic key.
func LookupTopicDef(name string) (TopicDef, bool) {
	d, ok := topicIndex[name]
	if !ok {
		return TopicDef{}, false
	}
	return *d, true
}

// ValidateTopicOverrides checks topic overrides as CreateTopics and
// AlterConfigs must: every key known, every value valid, and
// min.compaction.lag.ms not above max.compaction.lag.ms when both are given.
// Every problem is reported, each naming its key.
func ValidateTopicOverrides(overrides map[string]string) error {
	_, err := canonicalTopic(overrides)
	return err
}

func canonicalTopic(overrides map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(overrides))
	var errs []*Error
	for k, v := range overrides {
		d, ok := topicIndex[k]
		if !ok {
			e := &Error{Key: k, Value: v, Err: fmt.Errorf("%w: not a topic config name", ErrUnknownKey)}
			if s := suggest(k, topicIndex); s != "" {
				e.Err = fmt.Errorf("%w: not a topic config name (did you mean %s?)", ErrUnknownKey, s)
			} else if _, broker := brokerIndex[k]; broker {
				e.Err = fmt.Errorf("%w: not a topic config name (%s is a broker config)", ErrUnknownKey, k)
			}
			errs = append(errs, e)
			continue
		}
		cv, err := d.canonical(v)
		if err != nil {
			errs = append(errs, err.(*Error))
			continue
		}
		out[k] = cv
	}
	if len(errs) == 0 {
		minLag, hasMin := out["min.compaction.lag.ms"]
		maxLag, hasMax := out["max.compaction.lag.ms"]
		if hasMin && hasMax && mustInt(minLag) > mustInt(maxLag) {
			errs = append(errs, &Error{Key: "min.compaction.lag.ms", Value: minLag,
				Err: fmt.Errorf("%w: must not exceed max.compaction.lag.ms (%s)", ErrInvalidValue, maxLag)})
		}
	}
	return out, joinErrors(errs)
}

// topicValue returns the effective canonical value of a topic key and
// where it comes from: the override, the broker synonym, or the default.
func (b *Broker) topicValue(d *TopicDef, overrides map[string]string) (string, bool) {
	if v, ok := overrides[d.Name]; ok {
		return v, true
	}
	if d.fromBroker != nil {
		return d.fromBroker(b), false
	}
	return d.Default, false
}

// TopicConfig returns the effective configuration of a topic with the
// given overrides (the /config/topics/<topic> entries): each key is its
// override, else the broker's synonym value, else Kafka's default.
func (b *Broker) TopicConfig(overrides map[string]string) (Topic, error) {
	ov, err := canonicalTopic(overrides)
	if err != nil {
		return Topic{}, err
	}
	var t Topic
	for i := range TopicDefs {
		d := &TopicDefs[i]
		v, _ := b.topicValue(d, ov)
		d.assign(&t, v)
	}
	if t.MinCompactionLagMs > t.MaxCompactionLagMs {
		key, val := "min.compaction.lag.ms", strconv.FormatInt(t.MinCompactionLagMs, 10)
		if _, ok := ov[key]; !ok {
			key, val = "max.compaction.lag.ms", strconv.FormatInt(t.MaxCompactionLagMs, 10)
		}
		return Topic{}, &Error{Key: key, Value: val,
			Err: fmt.Errorf("%w: min.compaction.lag.ms (%d) must not exceed max.compaction.lag.ms (%d)", ErrInvalidValue, t.MinCompactionLagMs, t.MaxCompactionLagMs)}
	}
	return t, nil
}
