package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kafgo/broker/record"
	"kafgo/internal/uuid"
)

// OpenLog opens (creating if needed) the partition log in dir, whose name
// must be "<topic>-<partition>".
//
// On a clean open (opt.CleanShutdown) segments are trusted, but every index
// is sanity-checked and rebuilt when it fails. Otherwise every segment from
// the one holding opt.RecoveryPoint on is re-read: each batch's length, CRC
// and offsets are checked, the log is cut at the first bad or torn batch and
// later segments are removed, and the indexes are rebuilt. The leader epoch
// cache is then truncated to the log, and the producer state is loaded from
// the newest usable snapshot and the batches after it. The transaction
// indexes of recovered segments, and of any segment whose index fails its
// sanity check, are rebuilt while the producer state is replayed.
func OpenLog(dir string, cfg LogConfig, opt OpenOptions) (*Log, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tp, err := parseTopicPartitionDir(filepath.Base(dir))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", dir, err)
	}
	logger := opt.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger = logger.With("partition", tp.String())
	clock := opt.Clock
	if clock == nil {
		clock = time.Now
	}
	l := &Log{dir: dir, tp: tp, logger: logger, clock: clock, onFlush: opt.OnFlush}
	l.gcCond.L = &l.gcMu
	l.cfg.Store(&cfg)
	l.highWatermark.Store(-1)
	l.lastFlushMs.Store(l.nowMs())
	l.producers = newProducerStateManager(dir, logger)
	if err := l.loadTopicID(opt.TopicID); err != nil {
		return nil, err
	}
	if l.epochs, err = OpenLeaderEpochCache(filepath.Join(dir, LeaderEpochCheckpointFile), logger); err != nil {
		return nil, err
	}
	bases, err := l.cleanDirectory()
	if err != nil {
		return nil, err
	}
	segs := make([]*segment, 0, len(bases))
	txnFrom := int64(-1) // base of the first segment whose transaction index is rebuilt
	fail := func(err error) (*Log, error) {
		for _, s := range segs {
			s.close()
		}
		return nil, err
	}
	for _, b := range bases {
		s, err := openSegmentFiles(dir, b, logger)
		if err != nil {
			return fail(err)
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		s, err := createSegment(dir, max(opt.LogStartOffset, 0), &cfg, l.nowMs(), logger)
		if err != nil {
			return fail(err)
		}
		segs = append(segs, s)
	} else if opt.CleanShutdown {
		if err := l.loadClean(segs, &cfg); err != nil {
			return fail(err)
		}
	} else {
		if segs, err = l.recoverUnclean(segs, &cfg, opt.RecoveryPoint); err != nil {
			return fail(err)
		}
		txnFrom = segs[max(findSegment(segs, opt.RecoveryPoint), 0)].base
	}
	for i, s := range segs {
		if txnFrom >= 0 && s.base >= txnFrom {
			break
		}
		upper := int64(-1)
		if i+1 < len(segs) {
			upper = segs[i+1].base
		}
		if err := s.txnIdx.sanityCheck(s.base, upper); err != nil {
			logger.Warn("storage: rebuilding transaction indexes", "segment", s.logPath, "err", err)
			txnFrom = s.base
			break
		}
	}
	act := segs[len(segs)-1]
	if err := act.makeWritable(&cfg); err != nil {
		return fail(err)
	}
	for _, s := range segs {
		s.created = l.nowMs()
	}
	l.publishSegments(segs)
	leo := act.next
	l.leo.Store(leo)
	l.recoveryPoint.Store(leo)
	l.logStart.Store(max(opt.LogStartOffset, segs[0].base))
	if ls := l.logStart.Load(); ls > leo {
		// The checkpoint says data up to ls was deleted, but the log ends
		// before it (recovery cut it): nothing readable is lost by starting
		// the log afresh there, and it keeps start <= end.
		logger.Warn("storage: log start offset beyond the recovered end; starting the log there", "log_start", ls, "log_end", leo)
		l.mu.Lock()
		err := l.truncateFullyAndStartAtLocked(ls)
		l.mu.Unlock()
		if err != nil {
			l.closeSegments()
			return nil, err
		}
		return l, nil
	}
	if err := l.epochs.TruncateFromEnd(leo); err != nil {
		l.closeSegments()
		return nil, err
	}
	if err := l.epochs.TruncateFromStart(l.logStart.Load()); err != nil {
		l.closeSegments()
		return nil, err
	}
	snapLimit := leo
	if !opt.CleanShutdown {
		snapLimit = min(max(opt.RecoveryPoint, 0), leo)
	}
	l.mu.Lock()
	err = l.rebuildProducerStateLocked(snapLimit, txnFrom)
	l.mu.Unlock()
	if err != nil {
		l.closeSegments()
		return nil, err
	}
	ls := l.logStart.Load()
	if err := l.producers.deleteSnapshots(func(o int64) bool { return o < ls }); err != nil {
		logger.Warn("storage: cannot delete old producer snapshots", "err", err)
	}
	return l, nil
}

func (l *Log) closeSegments() {
	for _, s := range l.segments() {
		s.close()
	}
}

// loadTopicID reads partition.metadata and reconciles it with want.
func (l *Log) loadTopicID(want uuid.UUID) error {
	path := filepath.Join(l.dir, PartitionMetadataFile)
	have, err := ReadPartitionMetadata(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if want != (uuid.Zero) {
			if err := WritePartitionMetadata(path, want); err != nil {
				return err
			}
		}
		l.topicID = want
		return nil
	case err != nil:
		return err
	}
	if want != (uuid.Zero) && want != have {
		return fmt.Errorf("storage: %s holds topic id %s, expected %s: %w", path, uuid.UUID(have).String(), uuid.UUID(want).String(), ErrInconsistentTopicID)
	}
	l.topicID = have
	return nil
}

// cleanDirectory completes interrupted cleaner swaps (completeSwaps), then
// removes what an interrupted operation left behind (files marked .deleted,
// .cleaned, .swap, temp checkpoints, index files without a log) and returns
// the base offsets of the segments, ascending.
func (l *Log) cleanDirectory() ([]int64, error) {
	if err := l.completeSwaps(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("storage: list %s: %w", l.dir, err)
	}
	var bases []int64
	logs := map[int64]bool{}
	var indexes []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		path := filepath.Join(l.dir, name)
		switch {
		case strings.HasSuffix(name, deletedSuffix), strings.HasSuffix(name, cleanedSuffix), strings.HasSuffix(name, tmpSuffix):
			l.removeLeftover(path)
		case strings.HasSuffix(name, swapSuffix):
			// completeSwaps consumed every .log.swap; this one is not a
			// segment swap.
			l.logger.Warn("storage: removing unknown swap file", "file", path)
			l.removeLeftover(path)
		default:
			if b, ok := parseOffsetFileName(name, logExt); ok {
				bases = append(bases, b)
				logs[b] = true
			} else if strings.HasSuffix(name, indexExt) || strings.HasSuffix(name, timeIndexExt) || strings.HasSuffix(name, txnIndexExt) {
				indexes = append(indexes, name)
			}
		}
	}
	for _, name := range indexes {
		ext := filepath.Ext(name)
		if b, ok := parseOffsetFileName(name, ext); !ok || !logs[b] {
			l.logger.Warn("storage: removing orphaned index file", "file", name)
			l.removeLeftover(filepath.Join(l.dir, name))
		}
	}
	slices.Sort(bases)
	return bases, nil
}

func (l *Log) removeLeftover(path string) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		l.logger.Warn("storage: cannot remove leftover file", "file", path, "err", err)
	}
}

// loadClean trusts the segments but sanity-checks every index, rebuilding
// the ones that fail, and finds the end of the last segment.
func (l *Log) loadClean(segs []*segment, cfg *LogConfig) error {
	for i, s := range segs {
		last := i == len(segs)-1
		upper := int64(-1)
		if !last {
			upper = segs[i+1].base
		}
		if err := l.checkOrRebuild(s, cfg, upper, last); err != nil {
			return err
		}
	}
	act := segs[len(segs)-1]
	next, validEnd, err := act.readNextOffset()
	if err != nil {
		// A torn tail in a directory marked clean: recover the segment
		// rather than trust it.
		l.logger.Warn("storage: torn tail in a cleanly shut down segment; recovering it", "segment", act.logPath, "byte", validEnd, "err", err)
		if _, err := act.recover(cfg, act.base, nil); err != nil {
			return err
		}
		return nil
	}
	act.next = next
	if err := act.timeIdx.sanityCheck(next); err != nil {
		l.logger.Warn("storage: rebuilding indexes", "segment", act.logPath, "err", err)
		return act.rebuildIndexes(cfg)
	}
	return nil
}

// checkOrRebuild runs the index sanity check on s and rebuilds its indexes
// when the check fails or an index file was missing.
func (l *Log) checkOrRebuild(s *segment, cfg *LogConfig, upper int64, active bool) error {
	err := s.checkIndexes(s.indexBadLength)
	if err == nil && upper >= 0 {
		err = s.timeIdx.sanityCheck(upper)
	}
	if err == nil && s.indexMissing && s.size.Load() > 0 {
		err = fmt.Errorf("storage: an index of %s was missing", s.logPath)
	}
	if err == nil {
		s.loadState()
		return nil
	}
	l.logger.Warn("storage: rebuilding indexes", "segment", s.logPath, "err", err)
	if err := s.rebuildIndexes(cfg); err != nil {
		return err
	}
	if !active {
		s.seal()
	}
	return nil
}

// recoverUnclean re-reads every segment from the one holding rp on; the
// segments before it get the clean-open index check. It returns the segments
// that remain.
func (l *Log) recoverUnclean(segs []*segment, cfg *LogConfig, rp int64) ([]*segment, error) {
	start := max(findSegment(segs, rp), 0)
	for i := 0; i < start; i++ {
		if err := l.checkOrRebuild(segs[i], cfg, segs[i+1].base, false); err != nil {
			return nil, err
		}
	}
	assignEpoch := func(h *record.BatchHeader) {
		if e := h.PartitionLeaderEpoch; e >= 0 && l.epochs.latestBelow(e) {
			if err := l.epochs.Assign(e, h.BaseOffset); err != nil {
				l.logger.Warn("storage: leader epoch from recovered batch", "err", err)
			}
		}
	}
	prevNext := segs[start].base
	for i := start; i < len(segs); i++ {
		s := segs[i]
		res, err := s.recover(cfg, prevNext, assignEpoch)
		if err != nil {
			return nil, err
		}
		if res.batches == 0 && i > start && s.base < prevNext {
			// A segment whose base lies inside the previous one's offsets
			// and holds nothing valid: drop it and everything after it.
			for _, later := range segs[i:] {
				l.logger.Warn("storage: removing overlapping segment", "segment", later.logPath)
				if err := later.removeFiles(); err != nil {
					return nil, err
				}
			}
			segs = segs[:i]
			break
		}
		if res.truncatedBytes > 0 {
			l.logger.Warn("storage: truncated log during recovery", "segment", s.logPath, "bytes", res.truncatedBytes, "valid_batches", res.batches, "reason", res.reason)
		}
		if err := s.flush(); err != nil {
			return nil, err
		}
		if res.truncatedBytes > 0 && i+1 < len(segs) {
			for _, later := range segs[i+1:] {
				l.logger.Warn("storage: removing segment after the recovery truncation point", "segment", later.logPath)
				if err := later.removeFiles(); err != nil {
					return nil, err
				}
			}
			segs = segs[:i+1]
			break
		}
		if i+1 < len(segs) {
			s.seal()
		}
		prevNext = s.next
	}
	if err := syncDir(l.dir); err != nil {
		return nil, err
	}
	return segs, nil
}

// assignTopicID records id in partition.metadata when the log has none; a
// different one already recorded is ErrInconsistentTopicID.
func (l *Log) assignTopicID(id uuid.UUID) error {
	if id == (uuid.Zero) {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.topicID {
	case id:
		return nil
	case uuid.Zero:
		if err := WritePartitionMetadata(filepath.Join(l.dir, PartitionMetadataFile), id); err != nil {
			return err
		}
		l.topicID = id
		return nil
	}
	return fmt.Errorf("storage: %s has topic id %s, not %s: %w", l.tp, uuid.UUID(l.topicID).String(), uuid.UUID(id).String(), ErrInconsistentTopicID)
}
