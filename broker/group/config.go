package group

import (
	"log/slog"
	"time"

	"kafgo/broker/record"
	"kafgo/internal/topicname"
)

// OffsetsTopic is Kafka's internal topic of committed offsets and group
// metadata.
const OffsetsTopic = topicname.ConsumerOffsets

// Config holds the broker settings the coordinator obeys, with Kafka's
// names beside them.
type Config struct {
	BrokerID               int32
	NumPartitions          int32         // offsets.topic.num.partitions, until the topic exists
	MinSessionTimeout      time.Duration // group.min.session.timeout.ms
	MaxSessionTimeout      time.Duration // group.max.session.timeout.ms
	InitialRebalanceDelay  time.Duration // group.initial.rebalance.delay.ms
	MaxSize                int           // group.max.size
	MetadataMaxBytes       int           // offset.metadata.max.bytes
	LoadBufferSize         int32         // offsets.load.buffer.size
	Retention              time.Duration // offsets.retention.minutes
	RetentionCheckInterval time.Duration // offsets.retention.check.interval.ms
	CommitTimeout          time.Duration // offsets.commit.timeout.ms
	RequiredAcks           int16         // offsets.commit.required.acks
	Codec                  record.Codec  // offsets.topic.compression.codec

	// NewMemberJoinTimeout bounds how long a member that never completed a
	// join stays in a rebalance (Kafka's fixed 5 minutes): such a client
	// cannot heartbeat, and if it went away it must not stall the group.
	NewMemberJoinTimeout time.Duration

	Clock  Clock
	Logger *slog.Logger
}

func (c *Config) setDefaults() {
	if c.NumPartitions <= 0 {
		c.NumPartitions = 50
	}
	if c.MaxSessionTimeout <= 0 {
		c.MaxSessionTimeout = 30 * time.Minute
	}
	if c.MaxSize <= 0 {
		c.MaxSize = int(^uint32(0) >> 1)
	}
	if c.LoadBufferSize <= 0 {
		c.LoadBufferSize = 5 << 20
	}
	if c.Retention <= 0 {
		c.Retention = 7 * 24 * time.Hour
	}
	if c.RetentionCheckInterval <= 0 {
		c.RetentionCheckInterval = 10 * time.Minute
	}
	if c.CommitTimeout <= 0 {
		c.CommitTimeout = 5 * time.Second
	}
	if c.NewMemberJoinTimeout <= 0 {
		c.NewMemberJoinTimeout = 5 * time.Minute
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}
