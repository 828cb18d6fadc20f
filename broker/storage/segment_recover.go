package storage

import (
	"errors"
	"fmt"
	"io"
	"math"

	"kafgo/broker/record"
)

// recoverResult describes what recovering one segment found.
type recoverResult struct {
	truncatedBytes int64 // bytes cut from the end (torn or corrupt tail)
	batches        int
	reason         error // why the scan stopped early, nil at a clean end
}

// recover is Kafka's LogSegment.recover: re-read every batch, check its
// length, CRC and offsets, rebuild both indexes from scratch, and cut the
// file at the first batch that fails. minOffset is the smallest base offset
// the first batch may have (the previous segment's end). onBatch sees every
// valid batch in order (the leader epoch cache is rebuilt from it).
//
// The CRC does not cover baseOffset or partitionLeaderEpoch, so corruption of
// those is caught only when offsets stop increasing or overflow the segment.
func (s *segment) recover(cfg *LogConfig, minOffset int64, onBatch func(*record.BatchHeader)) (recoverResult, error) {
	var res recoverResult
	st, err := s.log.Stat()
	if err != nil {
		return res, fmt.Errorf("storage: stat %s: %w", s.logPath, err)
	}
	fileSize := st.Size()
	s.offIdx.truncateEntries(0)
	s.timeIdx.truncateEntries(0)
	if err := s.makeWritable(cfg); err != nil {
		return res, err
	}
	interval := int64(cfg.IndexIntervalBytes)
	expect := max(minOffset, s.base)
	maxTs, maxTsOff := int64(noTimestamp), s.base
	var valid, lastEntry int64
	sc := newBatchScanner(s.log, s.logPath, 0, fileSize)
	for {
		h, pos, b, err := sc.next(true)
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = record.VerifyCRC(b)
			if err != nil {
				err = fmt.Errorf("storage: %s byte %d: %w", s.logPath, pos, err)
			}
		}
		if err == nil && (h.BaseOffset < expect || h.LastOffset()-s.base > math.MaxInt32) {
			err = fmt.Errorf("storage: %s byte %d: batch offsets [%d, %d] do not follow %d within base %d: %w",
				s.logPath, pos, h.BaseOffset, h.LastOffset(), expect, s.base, ErrCorruptFile)
		}
		if err != nil {
			res.reason = err
			break
		}
		if h.MaxTimestamp > maxTs {
			maxTs, maxTsOff = h.MaxTimestamp, h.LastOffset()
		}
		if pos-lastEntry > interval && !s.offIdx.full() {
			if err := s.offIdx.append(h.LastOffset(), pos); err != nil {
				return res, err
			}
			if !s.timeIdx.full() {
				if err := s.timeIdx.maybeAppend(maxTs, maxTsOff, false); err != nil {
					return res, err
				}
			}
			lastEntry = pos
		}
		valid = pos + int64(h.Size())
		expect = h.NextOffset()
		res.batches++
		if onBatch != nil {
			onBatch(&h)
		}
	}
	if valid < fileSize {
		res.truncatedBytes = fileSize - valid
		if err := s.log.Truncate(valid); err != nil {
			return res, fmt.Errorf("storage: truncate %s to %d bytes: %w", s.logPath, valid, err)
		}
	}
	s.size.Store(valid)
	s.next = expect
	if res.batches == 0 {
		s.next = s.base
	}
	s.bytesSinceIndex = 0
	s.rollingTsKnown = false
	s.maxTsW, s.maxTsOffW = maxTs, maxTsOff
	s.publishStats()
	// A cleanly closed segment always ends its time index with the largest
	// timestamp; recovery leaves the same state.
	if err := s.timeIdx.maybeAppend(maxTs, maxTsOff, true); err != nil {
		return res, err
	}
	return res, nil
}

// loadState fills the in-memory state of a segment opened from a clean
// directory without reading the whole log: the largest timestamp comes from
// the last time index entry (what close wrote), like Kafka.
func (s *segment) loadState() {
	ts, off := s.timeIdx.lastEntry()
	s.maxTsW, s.maxTsOffW = ts, off
	s.publishStats()
	s.bytesSinceIndex = 0
	s.rollingTsKnown = false
}

// readNextOffset finds the offset after the last batch by scanning headers
// from the last index entry. It returns the end of the valid batches too:
// on a clean open a shorter value means a torn tail the caller cuts off.
func (s *segment) readNextOffset() (next, validEnd int64, err error) {
	size := s.size.Load()
	_, pos := s.offIdx.lastEntry()
	if pos > size {
		pos = 0
	}
	next = s.base
	sc := newBatchScanner(s.log, s.logPath, pos, size)
	for {
		h, p, _, err := sc.next(false)
		if errors.Is(err, io.EOF) {
			return next, size, nil
		}
		if err != nil {
			return next, p, err
		}
		next = h.NextOffset()
	}
}

// checkIndexes is the sanity check run when a segment is opened without
// recovery: both index files must be whole entries, ordered, and point
// inside the log; the last offset index entry must name a real batch.
func (s *segment) checkIndexes(badLength bool) error {
	if badLength {
		return fmt.Errorf("storage: index of %s is not a whole number of entries: %w", s.logPath, ErrCorruptFile)
	}
	size := s.size.Load()
	if err := s.offIdx.sanityCheck(size); err != nil {
		return err
	}
	if err := s.timeIdx.sanityCheck(-1); err != nil {
		return err
	}
	if s.offIdx.n.Load() > 0 {
		o, p := s.offIdx.lastEntry()
		h, err := readHeaderAt(s.log, s.logPath, p, size)
		if err != nil {
			return fmt.Errorf("storage: last index entry of %s: %w", s.logPath, err)
		}
		if h.BaseOffset > o {
			return fmt.Errorf("storage: last index entry of %s: offset %d but the batch at byte %d starts at %d: %w", s.logPath, o, p, h.BaseOffset, ErrCorruptFile)
		}
	}
	return nil
}

// rebuildIndexes recreates both indexes from the log without validating
// CRCs (used when an index fails its sanity check on a clean open); it stops
// at the first unreadable header like recovery would.
func (s *segment) rebuildIndexes(cfg *LogConfig) error {
	_, err := s.recover(cfg, s.base, nil)
	return err
}

// truncateTo drops every batch whose last offset is >= offset (a batch that
// straddles offset goes too), with the index entries that refer to them.
// It returns the new end offset of the segment.
func (s *segment) truncateTo(offset int64, cfg *LogConfig, nowMs int64) (int64, error) {
	size := s.size.Load()
	pos, h, found, err := s.translateOffset(offset, size)
	if err != nil {
		return 0, err
	}
	if !found {
		// Nothing here reaches offset; the segment may still become the
		// active one, so learn where it ends and make it writable.
		next, _, err := s.readNextOffset()
		if err != nil {
			return 0, err
		}
		s.next = next
		return next, s.makeWritable(cfg)
	}
	newNext := h.BaseOffset
	if pos == 0 {
		newNext = s.base
	}
	s.offIdx.truncateTo(newNext)
	s.timeIdx.truncateTo(newNext)
	if err := s.txnIdx.truncateTo(newNext); err != nil {
		return 0, err
	}
	if err := s.makeWritable(cfg); err != nil {
		return 0, err
	}
	// Shrink the published size before the file so readers stop first.
	s.tail.truncate(pos)
	s.size.Store(pos)
	if err := s.log.Truncate(pos); err != nil {
		return 0, fmt.Errorf("storage: truncate %s to %d bytes: %w", s.logPath, pos, err)
	}
	s.reservedTo = pos
	if pos == 0 {
		s.created = nowMs
		s.rollingTs, s.rollingTsKnown = noTimestamp, false
	}
	s.bytesSinceIndex = 0
	s.next = newNext
	s.loadLargestTimestamp()
	return newNext, nil
}

// loadLargestTimestamp recomputes the segment's largest timestamp after a
// truncation: the last time index entry, then a scan of the batches after
// it, as Kafka's LogSegment.loadLargestTimestamp.
func (s *segment) loadLargestTimestamp() {
	ts, off := s.timeIdx.lastEntry()
	size := s.size.Load()
	_, pos := s.offIdx.lookup(off, size)
	sc := newBatchScanner(s.log, s.logPath, pos, size)
	for {
		h, _, _, err := sc.next(false)
		if err != nil {
			break
		}
		if h.MaxTimestamp > ts {
			ts, off = h.MaxTimestamp, h.LastOffset()
		}
	}
	s.maxTsW, s.maxTsOffW = ts, off
	s.publishStats()
}
