package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"kafgo/broker/record"
	"kafgo/broker/storage/vfs"
)

// cleanerStageHook, when set (tests only), is called at each step of a
// segment swap: "cleaned" (the .cleaned files are complete and synced),
// "swap" (renamed to .swap: committed), "retired" (the new list is
// published and the sources renamed .deleted), "done" (final names).
// Tests copy the directory there to see what a crash would leave.
var cleanerStageHook func(l *Log, stage string)

func (l *Log) cleanerStage(stage string) {
	if h := cleanerStageHook; h != nil {
		h(l, stage)
	}
}

// cleanGroup rewrites the first segments of srcs into one destination
// segment named after srcs[0] and swaps it in; it returns how many it took.
// uppers[i] is the base offset of the segment after srcs[i] in the log.
//
// Sources are added while they fit (Kafka's groupSegmentsBySize, but with
// the destination's actual size instead of its sources' sizes, so small
// cleaned segments merge in the same pass): the destination's bytes plus
// the next source's within segment.bytes, likewise the entries of both
// indexes within segment.index.bytes, and the next source's offsets within
// 31 bits of the destination's base (an empty source never breaks this).
//
// If the last source batch of the group was dropped entirely, an empty
// batch with its header ends the destination: the destination then ends at
// the offset its sources ended, which is how recovery knows which segments
// a .swap replaces (completeSwaps).
func (l *Log) cleanGroup(ctx context.Context, srcs []*segment, uppers []int64, cfg *LogConfig, snap *cleanSnapshot, f *batchFilter, writeBuf int) (taken int, err error) {
	dst, err := createCleanedSegment(l.fs, l.dir, srcs[0].base, cfg, l.logger)
	if err != nil {
		return 0, err
	}
	dst.created = l.nowMs()
	committed := false
	defer func() {
		if !committed {
			if rerr := dst.removeFiles(); rerr != nil {
				l.logger.Warn("storage: remove unused cleaned segment", "segment", dst.logPath, "err", rerr)
			}
		}
	}()
	w := &cleanedWriter{seg: dst, health: l.health, interval: int64(cfg.IndexIntervalBytes), limit: max(writeBuf, 4096), maxTs: noTimestamp, maxTsOff: dst.base, next: dst.base}
	var (
		mtime    time.Time
		batches  int
		last     record.BatchHeader
		lastFate = fateCopied
	)
	for taken < len(srcs) {
		s := srcs[taken]
		if taken > 0 && !groupFits(s, uppers[taken], cfg, dst.base, w.flushed+int64(len(w.buf)), dst.offIdx.n.Load(), dst.timeIdx.n.Load()) {
			break
		}
		if st, err := s.log.Stat(); err == nil && st.ModTime().After(mtime) {
			mtime = st.ModTime()
		}
		size := s.size.Load()
		f.stats.BytesRead += size
		sc := newBatchScanner(s.log, s.name, 0, size)
		for {
			h, pos, b, err := sc.next(true)
			if isEOF(err) {
				break
			}
			if err != nil {
				return 0, l.cleanReadError(err)
			}
			if batches++; batches%256 == 0 {
				if err := l.checkCleanable(ctx); err != nil {
					return 0, err
				}
			}
			from := len(w.buf)
			if w.buf, lastFate, err = f.filter(w.buf, b); err != nil {
				return 0, l.cleanReadError(fmt.Errorf("storage: %s byte %d: %w", s.name, pos, err))
			}
			last = h
			if err := w.added(from); err != nil {
				return 0, err
			}
		}
		taken++
	}
	if lastFate == fateDropped {
		from := len(w.buf)
		if w.buf, err = appendEmptyBatch(w.buf, &last); err != nil {
			return 0, err
		}
		if err := w.added(from); err != nil {
			return 0, err
		}
	}
	// The retained ABORT markers of this group keep their index entries.
	if err := dst.txnIdx.append(f.txns.takeKept()); err != nil {
		return 0, err
	}
	if err := l.checkCleanable(ctx); err != nil {
		return 0, err
	}
	if err := w.finish(mtime); err != nil {
		return 0, err
	}
	f.stats.BytesWritten += w.flushed
	f.stats.BatchesWritten += w.batches
	l.cleanerStage("cleaned")
	committed, err = l.commitSwap(srcs[:taken], dst, snap)
	if err != nil {
		return 0, err
	}
	return taken, nil
}

// groupFits reports whether source s, whose offsets end below upper, may
// join a destination starting at base that holds size bytes and idx and
// tidx index entries (see cleanGroup).
func groupFits(s *segment, upper int64, cfg *LogConfig, base, size, idx, tidx int64) bool {
	n := s.size.Load()
	return size+n <= cfg.SegmentBytes &&
		(idx+s.offIdx.n.Load())*offsetEntrySize <= int64(cfg.SegmentIndexBytes) &&
		(tidx+s.timeIdx.n.Load())*timeEntrySize <= int64(cfg.SegmentIndexBytes) &&
		(n == 0 || upper-1-base <= math.MaxInt32)
}

// createCleanedSegment makes the empty files <base>.log.cleaned,
// .index.cleaned and .timeindex.cleaned, replacing any left by an earlier
// attempt, with indexes preallocated like an active segment's; a
// .txnindex.cleaned is created if an aborted transaction is kept.
func createCleanedSegment(fsys vfs.FS, dir string, base int64, cfg *LogConfig, logger *slog.Logger) (*segment, error) {
	final := segmentPath(dir, base, logExt)
	s := &segment{fs: fsys, base: base, name: final, logPath: final + cleanedSuffix, logger: logger, next: base}
	s.maxTsW, s.maxTsOffW, s.maxTs, s.maxTsOff = noTimestamp, base, noTimestamp, base
	s.rollingTs = noTimestamp
	idxPath, tidxPath := segmentPath(dir, base, indexExt)+cleanedSuffix, segmentPath(dir, base, timeIndexExt)+cleanedSuffix
	txnPath := segmentPath(dir, base, txnIndexExt) + cleanedSuffix
	for _, p := range []string{idxPath, tidxPath, txnPath} {
		if err := fsys.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("storage: remove stale %s: %w", p, err)
		}
	}
	f, err := fsys.OpenFile(s.logPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", s.logPath, err)
	}
	s.log = newCachedFile(fsys, s.logPath, os.O_RDWR, f)
	if s.offIdx, _, err = openOffsetIndex(fsys, idxPath, base); err != nil {
		s.log.Close()
		return nil, err
	}
	if s.timeIdx, _, err = openTimeIndex(fsys, tidxPath, base); err != nil {
		s.offIdx.close()
		s.log.Close()
		return nil, err
	}
	s.txnIdx = &txnIndex{fs: fsys, path: txnPath, name: final, lastOff: -1}
	if err := s.makeWritable(cfg); err != nil {
		s.removeFiles()
		return nil, err
	}
	return s, nil
}

// cleanedWriter fills a destination segment: batches are buffered and
// written in large writes, and index entries follow the rule recovery
// uses (an entry for a batch starting more than index.interval.bytes after
// the last entry), so rebuilding the indexes later yields the same files.
// The segment is invisible to readers until the swap, so nothing here is
// published early.
type cleanedWriter struct {
	seg             *segment
	health          *dirHealth
	buf             []byte // batches not yet written; they start at flushed
	flushed         int64
	interval        int64
	limit           int
	lastEntry       int64
	maxTs, maxTsOff int64
	next            int64
	batches         int64
}

// added takes note of the batches appended to buf from byte from on.
func (w *cleanedWriter) added(from int) error {
	s := w.seg
	for p := from; p < len(w.buf); {
		h, err := record.ParseBatchHeader(w.buf[p:])
		if err != nil {
			return fmt.Errorf("storage: clean: written batch: %w", err)
		}
		pos := w.flushed + int64(p)
		if pos+int64(h.Size()) > math.MaxInt32 {
			return fmt.Errorf("storage: %s: cleaned segment passes the int32 position limit: %w", s.logPath, ErrBatchTooLarge)
		}
		if rel := h.LastOffset() - s.base; rel < 0 || rel > math.MaxInt32 {
			return fmt.Errorf("storage: %s: offset %d does not fit relative to base %d", s.logPath, h.LastOffset(), s.base)
		}
		if h.MaxTimestamp > w.maxTs {
			w.maxTs, w.maxTsOff = h.MaxTimestamp, h.LastOffset()
		}
		if pos-w.lastEntry > w.interval && !s.offIdx.full() {
			if err := s.offIdx.append(h.LastOffset(), pos); err != nil {
				return err
			}
			if !s.timeIdx.full() {
				if err := s.timeIdx.maybeAppend(w.maxTs, w.maxTsOff, false); err != nil {
					return err
				}
			}
			w.lastEntry = pos
		}
		w.next = h.NextOffset()
		w.batches++
		p += h.Size()
	}
	if len(w.buf) >= w.limit {
		return w.flush()
	}
	return nil
}

func (w *cleanedWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if err := w.seg.writeData(w.buf, w.flushed); err != nil {
		return err
	}
	w.flushed += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}

// finish writes what is buffered, forces the final time index entry, trims
// the indexes and fsyncs the three files, then dates the log file like its
// newest source, so retention by file time (segments without timestamps)
// sees the data as old as it is.
func (w *cleanedWriter) finish(mtime time.Time) error {
	if err := w.flush(); err != nil {
		return err
	}
	s := w.seg
	s.size.Store(w.flushed)
	s.next = w.next
	s.maxTsW, s.maxTsOffW = w.maxTs, w.maxTsOff
	s.publishStats()
	if err := s.seal(); err != nil {
		return err
	}
	if err := s.flush(w.health); err != nil {
		return err
	}
	if !mtime.IsZero() {
		if err := s.fs.Chtimes(s.logPath, mtime, mtime); err != nil {
			s.logger.Warn("storage: date cleaned segment", "segment", s.logPath, "err", err)
		}
	}
	return nil
}

// commitSwap puts dst in place of the segments of g (Kafka's
// replaceSegments), under the writer lock so no append, roll, truncation
// or retention interleaves:
//
//  1. the log must still hold g as it was when the pass started (same
//     segments, no truncation since), else the pass is abandoned;
//  2. rename dst's files .cleaned -> .swap, the .log last: its rename is the
//     commit point, made durable by a directory fsync before anything else;
//  3. publish the new segment list in one atomic store, so a reader sees
//     either the old segments or the new one, never a mix;
//  4. rename the old segments .deleted and schedule their removal after
//     file.delete.delay.ms (readers holding their files keep reading);
//  5. rename dst's files .swap -> final names.
//
// A crash after 2 is completed by the next open (completeSwaps); before 2
// the .cleaned files are just removed.
//
// committed reports whether step 2 was done: from then on dst's files are
// the swap the next open completes, and must not be removed, whatever
// fails after (a failed dir is left as it is; see log_failure.go).
func (l *Log) commitSwap(g []*segment, dst *segment, snap *cleanSnapshot) (committed bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.truncGen != snap.gen {
		return false, fmt.Errorf("storage: %s: %w", l.tp, errCleanAborted)
	}
	cur := l.segments()
	i := slices.Index(cur, g[0])
	if i < 0 || i+len(g) >= len(cur) || !slices.Equal(cur[i:i+len(g)], g) {
		return false, fmt.Errorf("storage: %s: segments changed during cleaning: %w", l.tp, errCleanAborted)
	}
	if want := segmentPath(l.dir, g[0].base, logExt); g[0].logPath != want {
		// An earlier swap of this segment could not take its final name;
		// a new .swap at that name would overwrite it. The next open
		// completes the earlier one.
		return false, fmt.Errorf("storage: %s: segment %s is not yet named %s", l.tp, g[0].logPath, want)
	}
	if err := renameSegmentSuffix(dst, cleanedSuffix, swapSuffix, true); err != nil {
		return false, err
	}
	// The .swap is whole and synced (finish flushed it): whether or not
	// the directory fsync below succeeds, the next open may find it and
	// complete the swap, so from here on it stays.
	if err := l.syncLogDir(); err != nil {
		return true, err
	}
	l.cleanerStage("swap")
	l.publishSegments(slices.Concat(cur[:i], []*segment{dst}, cur[i+len(g):]))
	if err := l.retireSegmentsLocked(g); err != nil {
		return true, err
	}
	l.dirDirty = true
	l.cleanerStage("retired")
	if !strings.HasSuffix(g[0].logPath, deletedSuffix) || !strings.HasSuffix(g[0].offIdx.filePath(), deletedSuffix) || !strings.HasSuffix(g[0].timeIdx.filePath(), deletedSuffix) || !strings.HasSuffix(g[0].txnIdx.path, deletedSuffix) {
		// The old files still own the final names: renaming over them
		// would let their pending removal delete the new files. The next
		// open completes the swap instead.
		l.logger.Warn("storage: cleaned segment left as .swap until the next open", "segment", dst.logPath)
		return true, nil
	}
	if err := renameSegmentSuffix(dst, swapSuffix, "", false); err != nil {
		// The next open completes the swap; until then the dir is failed.
		return true, err
	}
	l.cleanerStage("done")
	return true, nil
}

// renameSegmentSuffix renames the files of s (the transaction index only if
// it exists) from suffix from to suffix to. logLast orders the .log after the indexes (its rename is the
// commit point of a swap); otherwise it goes first.
func renameSegmentSuffix(s *segment, from, to string, logLast bool) error {
	renameLog := func() error {
		p, ok := strings.CutSuffix(s.logPath, from)
		if !ok {
			return fmt.Errorf("storage: %s does not end in %q", s.logPath, from)
		}
		if err := s.log.rename(p + to); err != nil {
			return fmt.Errorf("storage: rename %s: %w", s.logPath, err)
		}
		s.logPath = p + to
		return nil
	}
	if !logLast {
		if err := renameLog(); err != nil {
			return err
		}
	}
	for _, x := range []*indexFile{s.offIdx.indexFile, s.timeIdx.indexFile} {
		p, ok := strings.CutSuffix(x.filePath(), from)
		if !ok {
			return fmt.Errorf("storage: %s does not end in %q", x.filePath(), from)
		}
		if err := x.rename(p + to); err != nil {
			return err
		}
	}
	p, ok := strings.CutSuffix(s.txnIdx.path, from)
	if !ok {
		return fmt.Errorf("storage: %s does not end in %q", s.txnIdx.path, from)
	}
	if err := s.txnIdx.rename(p + to); err != nil {
		return err
	}
	if logLast {
		return renameLog()
	}
	return nil
}
