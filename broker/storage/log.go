package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"kafgo/broker/partid"
	"kafgo/internal/uuid"
)

// OpenOptions carries what the log manager knows about a partition
// directory before opening it.
type OpenOptions struct {
	RecoveryPoint  int64            // from recovery-point-offset-checkpoint; segments at/after it are validated on an unclean open
	LogStartOffset int64            // from log-start-offset-checkpoint
	CleanShutdown  bool             // the dir had the clean-shutdown marker: skip recovery
	TopicID        uuid.UUID        // written to partition.metadata if non-zero
	Clock          func() time.Time // nil = time.Now
	Logger         *slog.Logger
	// OnFlush, if set, is told how long each flush that synced data took
	// (Kafka's LogFlushRateAndTimeMs).
	OnFlush func(time.Duration)
}

// AppendInfo describes a completed append.
type AppendInfo struct {
	FirstOffset, LastOffset int64
	// MaxTimestamp and OffsetOfMaxTimestamp are the largest timestamp of
	// the append and the last offset of the earliest batch carrying it, as
	// the time index records it (-1 without timestamps); for a duplicate,
	// the original batch's timestamp and last offset.
	MaxTimestamp, OffsetOfMaxTimestamp int64
	NumBatches, NumRecords             int
	Bytes                              int
	// Duplicate: the batch repeats one already written by an idempotent
	// producer; nothing was appended and the offsets are the original ones.
	Duplicate bool
	// LogStartOffset at the time of the append (Produce v5+ returns it).
	LogStartOffset int64
}

// FileRegion is a byte range of a segment file. Read it with ReadAt or
// sendfile at Position: the descriptor is shared, so nobody ever seeks it.
type FileRegion struct {
	File     *os.File
	Position int64
	Size     int64
}

// ReadInfo is the result of Log.Read.
type ReadInfo struct {
	Regions []FileRegion
	Size    int64
	// FirstOffset is the base offset of the first batch returned (it may be
	// below the requested offset); the requested offset when Size is 0.
	FirstOffset                  int64
	LogStartOffset, LogEndOffset int64
}

// Log is one partition's log: a sequence of segments in a directory.
//
// One writer, many readers. Appends, rolls, truncation, retention and close
// serialise on mu. Reads take no lock: they load the published log end
// offset, then the segment list (an immutable slice swapped atomically), and
// read each segment only up to its published size. Writers publish in the
// order bytes, index entries, segment size, log end offset, so every offset
// below the end a reader saw is fully on disk in the page cache.
type Log struct {
	dir    string
	tp     partid.TopicPartition
	logger *slog.Logger
	clock  func() time.Time

	cfg atomic.Pointer[LogConfig]

	segs          atomic.Pointer[[]*segment]
	leo           atomic.Int64
	logStart      atomic.Int64
	recoveryPoint atomic.Int64
	highWatermark atomic.Int64 // -1 until SetHighWatermark
	hwPos, lsoPos positionCache
	lastFlushMs   atomic.Int64

	mu       sync.Mutex
	closed   bool
	truncGen uint64 // bumped by truncation so a concurrent flush cannot overstate the recovery point
	dirDirty bool   // segment files were created or renamed since the last directory fsync
	scratch  []batchMeta
	pstage   producerAppend

	flushMu sync.Mutex
	bg      sync.WaitGroup // background flushes started by rolls

	// Group commit of flush.messages appends (flushCovering): syncs in
	// flight and the highest offset they will make durable, waited on
	// with gcCond.
	gcMu       sync.Mutex
	gcCond     sync.Cond
	gcInflight int
	gcCovers   int64

	pendingMu sync.Mutex
	pending   map[*segment]*time.Timer
	deleters  sync.WaitGroup

	epochs    *LeaderEpochCache
	producers *ProducerStateManager
	topicID   uuid.UUID
	onFlush   func(time.Duration) // OpenOptions.OnFlush
}

// Dir is the partition directory.
func (l *Log) Dir() string { return l.dir }

// TopicPartition is the partition this log holds.
func (l *Log) TopicPartition() partid.TopicPartition { return l.tp }

// TopicID is the topic id from partition.metadata (zero when unknown).
func (l *Log) TopicID() uuid.UUID {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.topicID
}

// Epochs is the partition's leader epoch cache.
func (l *Log) Epochs() *LeaderEpochCache { return l.epochs }

// Producers is the partition's idempotent producer state.
func (l *Log) Producers() *ProducerStateManager { return l.producers }

// LogEndOffset is the offset the next appended record will get.
func (l *Log) LogEndOffset() int64 { return l.leo.Load() }

// LogStartOffset is the first offset readers may fetch.
func (l *Log) LogStartOffset() int64 { return l.logStart.Load() }

// RecoveryPoint is the offset below which everything has been fsynced.
func (l *Log) RecoveryPoint() int64 { return l.recoveryPoint.Load() }

// Config returns the current configuration.
func (l *Log) Config() LogConfig { return *l.cfg.Load() }

// SetHighWatermark tells the log the partition's high watermark, reporting
// whether it changed. Retention then never deletes a segment holding offsets
// at or above it (Kafka's rule: unreplicated data is not retained away).
// Until it is called, retention is bounded by the log end offset only.
// Transactions whose marker is now below it stop holding the last stable
// offset back.
func (l *Log) SetHighWatermark(hw int64) bool {
	changed := l.highWatermark.Swap(hw) != hw
	l.producers.onHighWatermark(hw)
	return changed
}

// AdvanceHighWatermark raises the high watermark to hw if that is higher,
// reporting whether it moved. It is one compare-and-swap, so concurrent
// advancers (a leader's produces and follower fetches) can never leave an
// older value last.
func (l *Log) AdvanceHighWatermark(hw int64) bool {
	for {
		cur := l.highWatermark.Load()
		if hw <= cur {
			return false
		}
		if l.highWatermark.CompareAndSwap(cur, hw) {
			// Only ever releases transactions below hw, so a concurrent
			// advancer's lower value arriving later is harmless.
			l.producers.onHighWatermark(hw)
			return true
		}
	}
}

// HighWatermark is the high watermark last given to the log (-1 if none).
func (l *Log) HighWatermark() int64 { return l.highWatermark.Load() }

// LastStableOffset is the partition's LSO for high watermark hw (Kafka's
// Log.lastStableOffset): the first offset of the earliest transaction that
// is open or whose marker is not yet below the HW, never below the log
// start offset, and hw when that is lower or there is none. Consumers
// reading committed data read below it.
func (l *Log) LastStableOffset(hw int64) int64 {
	first, ok := l.producers.FirstUnstableOffset()
	if !ok {
		return hw
	}
	return min(max(first, l.logStart.Load()), hw)
}

// UpdateConfig applies a new topic configuration to later appends, rolls and
// retention passes. Index sizes change for segments created from now on.
// An invalid configuration is logged and ignored.
func (l *Log) UpdateConfig(cfg LogConfig) {
	if err := cfg.Validate(); err != nil {
		l.logger.Warn("storage: ignoring invalid log config", "err", err)
		return
	}
	l.cfg.Store(&cfg)
}

// Size is the total size of the segment files in bytes.
func (l *Log) Size() int64 {
	var n int64
	for _, s := range l.segments() {
		n += s.size.Load()
	}
	return n
}

// NumSegments is the number of live segments.
func (l *Log) NumSegments() int { return len(l.segments()) }

// SegmentBaseOffsets lists the base offsets of the live segments.
func (l *Log) SegmentBaseOffsets() []int64 {
	segs := l.segments()
	out := make([]int64, len(segs))
	for i, s := range segs {
		out[i] = s.base
	}
	return out
}

func (l *Log) segments() []*segment { return *l.segs.Load() }

func (l *Log) active() *segment {
	s := l.segments()
	return s[len(s)-1]
}

func (l *Log) publishSegments(s []*segment) { l.segs.Store(&s) }

func (l *Log) nowMs() int64 { return l.clock().UnixMilli() }

// findSegment returns the index of the segment holding offset: the last one
// whose base is <= offset, or -1 when offset is below every segment.
func findSegment(segs []*segment, offset int64) int {
	return sort.Search(len(segs), func(i int) bool { return segs[i].base > offset }) - 1
}

// Close flushes everything, forces the final time index entry and trims the
// indexes of the active segment, writes a producer snapshot at the log end,
// and closes every file. Pending deletions of retired segments run now.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	// Background flushes see closed and stop; wait for them before
	// closing the files they may be syncing.
	l.bg.Wait()

	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	segs := l.segments()
	leo := l.leo.Load()
	segs[len(segs)-1].seal()
	rp := l.recoveryPoint.Load()
	for i, s := range segs {
		if i+1 < len(segs) && segs[i+1].base <= rp {
			continue
		}
		if err := s.flush(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := syncDir(l.dir); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		l.recoveryPoint.Store(leo)
	}
	if l.producers.MapEndOffset() == leo {
		if err := l.producers.takeSnapshot(leo); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range segs {
		if err := s.close(); err != nil {
			errs = append(errs, err)
		}
	}
	l.finishPendingDeletes()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("storage: close %s: %w", l.tp, err)
	}
	return nil
}

// Delete closes the log and removes its directory.
func (l *Log) Delete() error {
	cerr := l.Close()
	if err := os.RemoveAll(l.dir); err != nil {
		return fmt.Errorf("storage: delete %s: %w", l.dir, err)
	}
	return cerr
}

func (l *Log) checkOpenLocked() error {
	if l.closed {
		return fmt.Errorf("storage: log %s: %w", l.tp, ErrClosed)
	}
	return nil
}
