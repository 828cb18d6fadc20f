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
	"kafgo/broker/storage/vfs"
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
	// FS is the file system under the log; nil is the operating system's.
	// Tests put vfs.WithErrors or vfs.NewMem here.
	FS vfs.FS

	// health is the log dir's, shared with the other logs of the dir
	// (the manager's); nil gives the log one of its own.
	health *dirHealth
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
//
// The descriptor stays open (pinned in the descriptor cache) until Release;
// call it once the region was sent or copied. A region dropped without
// Release is released when the garbage collector finds it unreachable.
type FileRegion struct {
	File     *os.File // nil when the log's FS has no descriptors (tests)
	Position int64
	Size     int64

	src  vfs.File // what File is, for reading inside storage
	hold *fileHold
}

// Release unpins the region's descriptor; later calls do nothing.
func (r FileRegion) Release() { r.hold.Release() }

// ReadAt reads from the region's file (at absolute file offsets).
func (r FileRegion) ReadAt(p []byte, off int64) (int, error) { return r.src.ReadAt(p, off) }

// ReadInfo is the result of Log.Read.
type ReadInfo struct {
	Regions []FileRegion
	Size    int64
	// FirstOffset is the base offset of the first batch returned (it may be
	// below the requested offset); the requested offset when Size is 0.
	FirstOffset                  int64
	LogStartOffset, LogEndOffset int64
}

// Release releases every region.
func (ri ReadInfo) Release() {
	for _, r := range ri.Regions {
		r.Release()
	}
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
	fs     vfs.FS
	health *dirHealth // the log dir's: its first I/O error fails every log in it
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

	flushMu   sync.Mutex
	dirSyncMu sync.Mutex     // syncLogDir
	bg        sync.WaitGroup // background flushes started by rolls

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
	if err := l.Err(); err == nil {
		if err := l.syncForClose(); err != nil {
			l.fail(fmt.Errorf("storage: close %s: %w", l.tp, err))
		}
	}
	var errs []error
	for _, s := range l.segments() {
		if err := s.close(); err != nil {
			errs = append(errs, err)
		}
	}
	// A failed dir is not written to (the pending removals stay for the
	// next open); the next start recovers it from the recovery point.
	l.finishPendingDeletes()
	if err := l.Err(); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("storage: close %s: %w", l.tp, err)
	}
	return nil
}

// syncForClose seals the active segment, syncs what the recovery point
// does not cover and the directory, and writes a producer snapshot at the
// log end, stopping at the first error (which the caller fails the log on:
// nothing more is synced after a failed sync).
func (l *Log) syncForClose() error {
	segs := l.segments()
	leo := l.leo.Load()
	if err := segs[len(segs)-1].seal(); err != nil {
		return err
	}
	rp := l.recoveryPoint.Load()
	for i, s := range segs {
		if i+1 < len(segs) && segs[i+1].base <= rp {
			continue
		}
		if err := s.flush(l.health); err != nil {
			return err
		}
	}
	if err := l.syncLogDir(); err != nil {
		return err
	}
	l.recoveryPoint.Store(leo)
	if l.producers.MapEndOffset() == leo {
		return l.producers.takeSnapshot(leo)
	}
	return nil
}

// Delete closes the log and removes its directory.
func (l *Log) Delete() error {
	cerr := l.Close()
	if err := l.fs.RemoveAll(l.dir); err != nil {
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

// checkUsableLocked refuses an operation on a closed log or a failed dir.
func (l *Log) checkUsableLocked() error {
	if err := l.checkOpenLocked(); err != nil {
		return err
	}
	return l.Err()
}
