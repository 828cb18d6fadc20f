package storage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"kafgo/broker/record"
	"kafgo/broker/storage/vfs"
)

// segment is one .log file with its .index, .timeindex and, once a
// transaction aborted in it, .txnindex. Only the active (last) segment of a
// log is appended to.
//
// Concurrency: the Log's mutex serialises every mutation. Readers never take
// it; they read at most size bytes, and size is stored only after the bytes
// and index entries of an append are in place, so a reader never meets a
// half-written batch.
type segment struct {
	fs      vfs.FS
	base    int64
	name    string      // the .log path at open, for readers' error messages
	logPath string      // current path of the .log (renamed .deleted); writer only
	log     *cachedFile // opened on demand through fileCache
	offIdx  *offsetIndex
	timeIdx *timeIndex
	txnIdx  *txnIndex
	tail    tailIndex // the active segment's last batches, exactly
	logger  *slog.Logger

	size    atomic.Int64 // published length: whole batches only
	deleted atomic.Bool

	indexMissing   bool // an index file did not exist when the segment was opened
	indexBadLength bool // an index file was not a whole number of entries

	// Writer-only state.
	next            int64 // offset after the last batch; valid for the active segment
	bytesSinceIndex int64
	created         int64 // ms; segment.ms falls back to it without timestamps
	rollingTs       int64 // largest timestamp of the first append
	rollingTsKnown  bool
	maxTsW          int64 // largest timestamp so far, feeding the time index
	maxTsOffW       int64
	reservedTo      int64 // the .log has blocks set aside up to here (vfs.Reserve)

	statMu   sync.Mutex
	maxTs    int64 // published copies of maxTsW/maxTsOffW, for readers
	maxTsOff int64

	syncMu sync.Mutex // flush: one sync of the segment at a time
}

// createSegment makes the files of a new, empty segment with preallocated
// indexes. An existing non-empty .log at that name is an error: it would
// mean two segments claim the same offsets.
func createSegment(fsys vfs.FS, dir string, base int64, cfg *LogConfig, nowMs int64, logger *slog.Logger) (*segment, error) {
	logPath := segmentPath(dir, base, logExt)
	if st, err := fsys.Stat(logPath); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("storage: create segment %s: a non-empty file exists", logPath)
	}
	for _, ext := range []string{indexExt, timeIndexExt, txnIndexExt} {
		if err := fsys.Remove(segmentPath(dir, base, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("storage: remove stale %s: %w", segmentPath(dir, base, ext), err)
		}
	}
	s, err := openSegmentFiles(fsys, dir, base, logger)
	if err != nil {
		return nil, err
	}
	s.created = nowMs
	if err := s.log.Truncate(0); err != nil {
		s.close()
		return nil, fmt.Errorf("storage: truncate %s: %w", logPath, err)
	}
	if err := s.makeWritable(cfg); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// openSegmentFiles opens (creating if needed) the three files of a segment,
// and its transaction index if it has one. The indexes are not validated
// here; the loader decides.
func openSegmentFiles(fsys vfs.FS, dir string, base int64, logger *slog.Logger) (*segment, error) {
	s := &segment{fs: fsys, base: base, logPath: segmentPath(dir, base, logExt), logger: logger, next: base}
	s.name = s.logPath
	s.maxTsW, s.maxTsOffW, s.maxTs, s.maxTsOff = noTimestamp, base, noTimestamp, base
	s.rollingTs = noTimestamp
	f, err := fsys.OpenFile(s.logPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storage: open segment %s: %w", s.logPath, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storage: stat %s: %w", s.logPath, err)
	}
	if st.Size() > math.MaxInt32 {
		f.Close()
		return nil, fmt.Errorf("storage: segment %s is %d bytes, beyond the int32 positions of its index: %w", s.logPath, st.Size(), ErrCorruptFile)
	}
	s.log = newCachedFile(fsys, s.logPath, os.O_RDWR, f)
	s.size.Store(st.Size())
	for _, ext := range []string{indexExt, timeIndexExt} {
		if _, err := fsys.Stat(segmentPath(dir, base, ext)); errors.Is(err, fs.ErrNotExist) {
			s.indexMissing = true
		}
	}
	var bad1, bad2 bool
	if s.offIdx, bad1, err = openOffsetIndex(fsys, segmentPath(dir, base, indexExt), base); err != nil {
		s.log.Close()
		return nil, err
	}
	if s.timeIdx, bad2, err = openTimeIndex(fsys, segmentPath(dir, base, timeIndexExt), base); err != nil {
		s.offIdx.close()
		s.log.Close()
		return nil, err
	}
	s.indexBadLength = bad1 || bad2
	if s.txnIdx, err = openTxnIndex(fsys, segmentPath(dir, base, txnIndexExt)); err != nil {
		s.timeIdx.close()
		s.offIdx.close()
		s.log.Close()
		return nil, err
	}
	return s, nil
}

// makeWritable grows both indexes to segment.index.bytes so the segment can
// take appends (new active segment, or an old one made active by truncation).
func (s *segment) makeWritable(cfg *LogConfig) error {
	if err := s.offIdx.resize(max(cfg.maxIndexBytes(offsetEntrySize), s.offIdx.n.Load()*offsetEntrySize)); err != nil {
		return err
	}
	return s.timeIdx.resize(max(cfg.maxIndexBytes(timeEntrySize), s.timeIdx.n.Load()*timeEntrySize))
}

// seal is Kafka's onBecomeInactiveSegment plus trimming: force the final time
// index entry (the segment's largest timestamp) and cut both index files to
// their entries. An entry that does not fit only costs lookup speed and is
// logged; an I/O error (allocating, truncating) is returned, for the log
// to fail on.
func (s *segment) seal() error {
	if err := s.timeIdx.maybeAppend(s.maxTsW, s.maxTsOffW, true); err != nil {
		if isDiskFailure(err) {
			return err
		}
		s.logger.Warn("storage: final time index entry", "segment", s.logPath, "err", err)
	}
	if err := s.offIdx.trim(); err != nil {
		return err
	}
	if err := s.releaseReserved(); err != nil {
		return err
	}
	return s.timeIdx.trim()
}

// shouldRoll is Kafka's LogSegment.shouldRoll for an append of appendSize
// bytes ending at lastOffset with largest timestamp maxTs.
func (s *segment) shouldRoll(cfg *LogConfig, appendSize, maxTs, lastOffset, nowMs int64) bool {
	if lastOffset-s.base > math.MaxInt32 {
		return true
	}
	size := s.size.Load()
	if size == 0 {
		return false
	}
	return size > cfg.SegmentBytes-appendSize ||
		s.timeWaitedForRoll(nowMs, maxTs) > cfg.SegmentMs ||
		s.offIdx.full() || s.timeIdx.full()
}

// timeWaitedForRoll measures segment.ms from the first append's largest
// timestamp when there is one, else from the segment's creation, as Kafka.
func (s *segment) timeWaitedForRoll(nowMs, maxTs int64) int64 {
	if !s.rollingTsKnown {
		if h, err := readHeaderAt(s.log, s.logPath, 0, s.size.Load()); err == nil {
			s.rollingTs = h.MaxTimestamp
		}
		s.rollingTsKnown = true
	}
	if s.rollingTs >= 0 {
		return maxTs - s.rollingTs
	}
	return nowMs - s.created
}

// append writes one append (whole batches) at the end of the segment and adds
// index entries by Kafka's rule: an entry (largest offset of this append,
// position where it starts) when more than index.interval.bytes were
// appended since the last entry, so the first append of a segment gets none.
// Disk blocks for index entries are reserved before the log is written, so an
// ENOSPC fails the append with nothing changed.
func (s *segment) append(data []byte, largestOffset, largestTs, offsetOfLargestTs int64, interval int64) error {
	pos := s.size.Load()
	if rel := largestOffset - s.base; rel < 0 || rel > math.MaxInt32 {
		return fmt.Errorf("storage: %s: offset %d does not fit relative to base %d", s.logPath, largestOffset, s.base)
	}
	if pos+int64(len(data)) > math.MaxInt32 {
		return fmt.Errorf("storage: %s: append of %d bytes at %d passes the int32 position limit: %w", s.logPath, len(data), pos, ErrBatchTooLarge)
	}
	maxTs, maxTsOff := s.maxTsW, s.maxTsOffW
	if largestTs > maxTs {
		maxTs, maxTsOff = largestTs, offsetOfLargestTs
	}
	addEntry := s.bytesSinceIndex > interval && !s.offIdx.full()
	if addEntry {
		if err := s.offIdx.reserve(); err != nil {
			return err
		}
		if s.timeIdx.needsAppend(maxTs) && !s.timeIdx.full() {
			if err := s.timeIdx.reserve(); err != nil {
				return err
			}
		}
	}
	if err := s.writeData(data, pos); err != nil {
		return err
	}
	if pos == 0 {
		s.rollingTs, s.rollingTsKnown = largestTs, true
	}
	s.maxTsW, s.maxTsOffW = maxTs, maxTsOff
	if addEntry {
		if err := s.offIdx.append(largestOffset, pos); err != nil {
			s.logger.Warn("storage: offset index entry skipped", "segment", s.logPath, "err", err)
		}
		if !s.timeIdx.full() {
			if err := s.timeIdx.maybeAppend(maxTs, maxTsOff, false); err != nil {
				s.logger.Warn("storage: time index entry skipped", "segment", s.logPath, "err", err)
			}
		}
		s.bytesSinceIndex = 0
	}
	s.bytesSinceIndex += int64(len(data))
	s.next = largestOffset + 1
	s.size.Store(pos + int64(len(data)))
	return nil
}

// writeData writes b at off; on any failure the file is cut back to off, so a
// partial write never stays behind what the segment has published.
func (s *segment) writeData(b []byte, off int64) error {
	s.reserveFor(off, off+int64(len(b)))
	n, err := s.log.WriteAt(b, off)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	if err == nil {
		return nil
	}
	if terr := s.log.Truncate(off); terr != nil {
		s.logger.Error("storage: cannot cut back a failed write", "segment", s.logPath, "byte", off, "err", terr)
	}
	s.reservedTo = off
	return fmt.Errorf("storage: write %s at byte %d: %w", s.logPath, off, err)
}

// How far past a write the active segment's blocks are reserved: as much
// as the segment already holds, between these bounds. Growing with the
// segment keeps the reservation of an idle partition's small segment
// small (tens of thousands of partitions) and makes the fallocate calls
// of a busy one rare; a sealed segment gives the rest back.
const (
	minReserveAhead = 64 << 10
	maxReserveAhead = 4 << 20
)

// reserveFor reserves blocks beyond a write ending at end before it is
// made, so the write does not allocate. A reservation that fails (a full
// disk, a file system without it) is not retried for this range: the
// write itself then allocates, or reports the error.
func (s *segment) reserveFor(off, end int64) {
	if end <= s.reservedTo {
		return
	}
	from := max(off, s.reservedTo)
	to := end + min(max(end, minReserveAhead), maxReserveAhead)
	if err := s.log.Reserve(from, to-from); err != nil {
		s.logger.Debug("storage: cannot reserve blocks ahead of appends", "segment", s.logPath, "err", err)
	}
	s.reservedTo = to
}

// releaseReserved gives back the blocks reserved past the segment's end:
// truncating a file to its own size frees what lies beyond it.
func (s *segment) releaseReserved() error {
	size := s.size.Load()
	if s.reservedTo <= size {
		return nil
	}
	if err := s.log.Truncate(size); err != nil {
		return fmt.Errorf("storage: release reserved blocks of %s: %w", s.logPath, err)
	}
	s.reservedTo = size
	return nil
}

// publishStats makes the largest timestamp of the segment visible to readers;
// the log calls it after publishing the new log end offset, so readers never
// see a max-timestamp offset beyond the end.
func (s *segment) publishStats() {
	s.statMu.Lock()
	s.maxTs, s.maxTsOff = s.maxTsW, s.maxTsOffW
	s.statMu.Unlock()
}

func (s *segment) stats() (ts, offset int64) {
	s.statMu.Lock()
	defer s.statMu.Unlock()
	return s.maxTs, s.maxTsOff
}

// largestTimestamp is what retention and timestamp lookup compare: the
// largest record timestamp, or the file's modification time when the
// segment has none, as Kafka's LogSegment.largestTimestamp.
func (s *segment) largestTimestamp() int64 {
	if ts, _ := s.stats(); ts >= 0 {
		return ts
	}
	st, err := s.log.Stat()
	if err != nil {
		return noTimestamp
	}
	return st.ModTime().UnixMilli()
}

// translateOffset finds the first batch whose last offset is >= target,
// reading no byte at or past end. found is false when no batch in the
// segment reaches target.
func (s *segment) translateOffset(target, end int64) (pos int64, h record.BatchHeader, found bool, err error) {
	_, pos = s.offIdx.lookup(target, end)
	for pos < end {
		h, err = readHeaderAt(s.log, s.name, pos, end)
		if err != nil {
			return pos, h, false, err
		}
		if h.LastOffset() >= target {
			return pos, h, true, nil
		}
		pos += int64(h.Size())
	}
	return end, h, false, nil
}

// boundary returns the largest batch boundary b with from <= b <= limit such
// that every batch in [from, b) ends below maxOffset. The index supplies a
// boundary near limit; a short header scan refines it.
func (s *segment) boundary(from, limit, maxOffset, end int64) int64 {
	p := from
	if ip, ok := s.offIdx.lookupBoundary(limit, maxOffset); ok && ip > p {
		p = ip
	}
	for p < limit {
		h, err := readHeaderAt(s.log, s.name, p, end)
		if err != nil || p+int64(h.Size()) > limit || h.LastOffset() >= maxOffset {
			break
		}
		p += int64(h.Size())
	}
	return p
}

// flush syncs the segment's files, one flush at a time: a flush waiting
// behind a failed one sees the failure (recorded in h before the next may
// start) and syncs nothing. Two concurrent fsyncs of one file could split a
// write-back error between them, the second reporting success for pages
// the kernel dropped (fsyncgate); serialised, none follows a failure.
func (s *segment) flush(h *dirHealth) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if err := h.check(); err != nil {
		return err
	}
	err := s.syncFiles()
	if h != nil && isDiskFailure(err) {
		h.fail(err)
	}
	return err
}

func (s *segment) syncFiles() error {
	if err := s.log.DataSync(); err != nil {
		return fmt.Errorf("storage: fsync %s: %w", s.logPath, err)
	}
	if err := s.offIdx.sync(); err != nil {
		return err
	}
	if err := s.txnIdx.sync(); err != nil {
		return err
	}
	return s.timeIdx.sync()
}

// renameSuffix renames the segment's files by appending suffix (".deleted").
// Open descriptors and mappings keep working, which is what lets in-flight
// readers finish after retention removed the segment.
func (s *segment) renameSuffix(suffix string) error {
	if err := s.log.rename(s.logPath + suffix); err != nil {
		return fmt.Errorf("storage: rename %s: %w", s.logPath, err)
	}
	s.logPath += suffix
	if err := s.offIdx.rename(s.offIdx.filePath() + suffix); err != nil {
		return err
	}
	if err := s.txnIdx.rename(s.txnIdx.path + suffix); err != nil {
		return err
	}
	return s.timeIdx.rename(s.timeIdx.filePath() + suffix)
}

// stripSuffix undoes renameSuffix.
func (s *segment) stripSuffix(suffix string) error {
	for _, x := range []*indexFile{s.offIdx.indexFile, s.timeIdx.indexFile} {
		if p, ok := strings.CutSuffix(x.filePath(), suffix); ok {
			if err := x.rename(p); err != nil {
				return err
			}
		}
	}
	if p, ok := strings.CutSuffix(s.txnIdx.path, suffix); ok {
		if err := s.txnIdx.rename(p); err != nil {
			return err
		}
	}
	if p, ok := strings.CutSuffix(s.logPath, suffix); ok {
		if err := s.log.rename(p); err != nil {
			return fmt.Errorf("storage: rename %s: %w", s.logPath, err)
		}
		s.logPath = p
	}
	return nil
}

// removeFiles closes the segment and deletes its files.
func (s *segment) removeFiles() error {
	cerr := s.close()
	var errs []error
	for _, p := range []string{s.logPath, s.offIdx.filePath(), s.timeIdx.filePath()} {
		if err := s.fs.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("storage: remove %s: %w", p, err))
		}
	}
	if err := s.txnIdx.remove(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(append(errs, cerr)...)
}

func (s *segment) close() error {
	var errs []error
	if err := s.offIdx.close(); err != nil {
		errs = append(errs, err)
	}
	if err := s.timeIdx.close(); err != nil {
		errs = append(errs, err)
	}
	if err := s.txnIdx.close(); err != nil {
		errs = append(errs, err)
	}
	if err := s.log.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		errs = append(errs, fmt.Errorf("storage: close %s: %w", s.logPath, err))
	}
	return errors.Join(errs...)
}
