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
