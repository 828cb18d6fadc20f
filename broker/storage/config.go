package storage

import (
	"fmt"
	"math"
)

// LogConfig holds the topic-level settings the log obeys. Field comments name
// the topic config key and Kafka's default.
type LogConfig struct {
	SegmentBytes       int64 // segment.bytes 1073741824
	SegmentMs          int64 // segment.ms 604800000
	SegmentIndexBytes  int   // segment.index.bytes 10485760
	IndexIntervalBytes int   // index.interval.bytes 4096
	FlushMessages      int64 // flush.messages math.MaxInt64 = leave it to the page cache
	FlushMs            int64 // flush.ms math.MaxInt64
	RetentionMs        int64 // retention.ms 604800000, -1 = infinite
	RetentionBytes     int64 // retention.bytes -1 = unlimited
	FileDeleteDelayMs  int64 // file.delete.delay.ms 60000

	// Compaction (cleanup.policy=compact or compact,delete). The delete
	// policy has no field: without it the broker passes infinite retention.
	Compact                bool    // cleanup.policy includes compact; false (Kafka's default policy is delete)
	DeleteRetentionMs      int64   // delete.retention.ms 86400000: how long a cleaned tombstone survives
	MinCompactionLagMs     int64   // min.compaction.lag.ms 0
	MaxCompactionLagMs     int64   // max.compaction.lag.ms math.MaxInt64; 0 (unset) = no limit
	MinCleanableDirtyRatio float64 // min.cleanable.dirty.ratio 0.5
}

// DefaultLogConfig returns Kafka's defaults.
func DefaultLogConfig() LogConfig {
	return LogConfig{
		SegmentBytes:       1 << 30,
		SegmentMs:          7 * 24 * 3600 * 1000,
		SegmentIndexBytes:  10 << 20,
		IndexIntervalBytes: 4096,
		FlushMessages:      math.MaxInt64,
		FlushMs:            math.MaxInt64,
		RetentionMs:        7 * 24 * 3600 * 1000,
		RetentionBytes:     -1,
		FileDeleteDelayMs:  60000,

		DeleteRetentionMs:      24 * 3600 * 1000,
		MaxCompactionLagMs:     math.MaxInt64,
		MinCleanableDirtyRatio: 0.5,
	}
}

// Validate checks the ranges Kafka's LogConfig enforces, plus the two limits
// this implementation relies on: index positions are int32, so a segment can
// be at most MaxInt32 bytes, and each index must hold at least one entry.
func (c LogConfig) Validate() error {
	switch {
	case c.SegmentBytes < 14 || c.SegmentBytes > math.MaxInt32:
		return fmt.Errorf("storage: segment.bytes %d not in [14, %d]: %w", c.SegmentBytes, math.MaxInt32, ErrInvalidConfig)
	case c.SegmentMs < 1:
		return fmt.Errorf("storage: segment.ms %d is below 1: %w", c.SegmentMs, ErrInvalidConfig)
	case c.SegmentIndexBytes < timeEntrySize:
		return fmt.Errorf("storage: segment.index.bytes %d is below %d: %w", c.SegmentIndexBytes, timeEntrySize, ErrInvalidConfig)
	case c.IndexIntervalBytes < 0:
		return fmt.Errorf("storage: index.interval.bytes %d is negative: %w", c.IndexIntervalBytes, ErrInvalidConfig)
	case c.FlushMessages < 1:
		return fmt.Errorf("storage: flush.messages %d is below 1: %w", c.FlushMessages, ErrInvalidConfig)
	case c.FlushMs < 0:
		return fmt.Errorf("storage: flush.ms %d is negative: %w", c.FlushMs, ErrInvalidConfig)
	case c.RetentionMs < -1:
		return fmt.Errorf("storage: retention.ms %d is below -1: %w", c.RetentionMs, ErrInvalidConfig)
	case c.FileDeleteDelayMs < 0:
		return fmt.Errorf("storage: file.delete.delay.ms %d is negative: %w", c.FileDeleteDelayMs, ErrInvalidConfig)
	case c.DeleteRetentionMs < 0:
		return fmt.Errorf("storage: delete.retention.ms %d is negative: %w", c.DeleteRetentionMs, ErrInvalidConfig)
	case c.MinCompactionLagMs < 0:
		return fmt.Errorf("storage: min.compaction.lag.ms %d is negative: %w", c.MinCompactionLagMs, ErrInvalidConfig)
	case c.MaxCompactionLagMs < 0:
		return fmt.Errorf("storage: max.compaction.lag.ms %d is negative: %w", c.MaxCompactionLagMs, ErrInvalidConfig)
	case !(c.MinCleanableDirtyRatio >= 0 && c.MinCleanableDirtyRatio <= 1):
		return fmt.Errorf("storage: min.cleanable.dirty.ratio %v not in [0, 1]: %w", c.MinCleanableDirtyRatio, ErrInvalidConfig)
	}
	return nil
}

// maxIndexBytes is the preallocated size of an index with the given entry
// size: segment.index.bytes rounded down to whole entries, never below one.
func (c *LogConfig) maxIndexBytes(entrySize int64) int64 {
	n := int64(c.SegmentIndexBytes) / entrySize * entrySize
	if n < entrySize {
		n = entrySize
	}
	return n
}
