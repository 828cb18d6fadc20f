package storage

import (
	"errors"
	"fmt"
	"io"
)

// OffsetForTimestamp finds the first record with a timestamp >= ts at or
// after the log start (ListOffsets by timestamp), as Kafka's
// LogSegment.findOffsetByTimestamp: the first segment whose largest
// timestamp reaches ts, the greatest time index entry at or below ts, the
// offset index position of its (batch last) offset, then a scan of batches
// from there; in the first batch whose maxTimestamp reaches ts, the first
// record that does (compressed batches are decompressed for it).
func (l *Log) OffsetForTimestamp(ts int64) (offset, timestamp int64, found bool, err error) {
	if err := l.Err(); err != nil {
		return -1, -1, false, err
	}
	offset, timestamp, found, err = l.offsetForTimestamp(ts)
	return offset, timestamp, found, l.fail(err)
}

func (l *Log) offsetForTimestamp(ts int64) (offset, timestamp int64, found bool, err error) {
	leo := l.leo.Load()
	ls := l.logStart.Load()
	segs := l.segments()
	for i, s := range segs {
		if i+1 < len(segs) && segs[i+1].base <= ls {
			continue
		}
		if s.largestTimestamp() < ts {
			continue
		}
		offset, timestamp, found, err = s.findOffsetByTimestamp(ts, ls, leo)
		if err != nil || found {
			return offset, timestamp, found, err
		}
	}
	return -1, -1, false, nil
}

func (s *segment) findOffsetByTimestamp(ts, startingOffset, leo int64) (offset, timestamp int64, found bool, err error) {
	end := s.size.Load()
	_, o := s.timeIdx.lookup(ts)
	_, pos := s.offIdx.lookup(max(o, startingOffset), end)
	sc := newBatchScanner(s.log, s.name, pos, end)
	for {
		h, p, _, err := sc.next(false)
		if errors.Is(err, io.EOF) {
			return -1, -1, false, nil
		}
		if err != nil {
			return -1, -1, false, err
		}
		if h.LastOffset() >= leo {
			return -1, -1, false, nil
		}
		if h.MaxTimestamp < ts || h.LastOffset() < startingOffset {
			continue
		}
		// Only the batch that qualifies is read whole.
		batch, err := sc.window(p, int64(h.Size()))
		if err != nil {
			return -1, -1, false, err
		}
		offset, timestamp = -1, -1
		werr := walkRecordTimestamps(batch, &h, func(o, t int64) bool {
			if t >= ts && o >= startingOffset {
				offset, timestamp = o, t
				return false
			}
			return true
		})
		if werr != nil {
			return -1, -1, false, fmt.Errorf("storage: %s batch at byte %d: %w", s.name, p, werr)
		}
		if offset >= 0 {
			return offset, timestamp, true, nil
		}
	}
}

// MaxTimestamp returns the largest timestamp in the log and the offset of
// the first record carrying it (ListOffsets -3, KIP-734), or (-1, -1) when
// no batch has one. As Kafka answers it: the segment with the largest
// timestamp (the earliest on a tie), and from the offset index position of
// its time index offset, the first batch whose maxTimestamp is that
// timestamp and in it the first record with it.
func (l *Log) MaxTimestamp() (timestamp, offset int64, err error) {
	if err := l.Err(); err != nil {
		return -1, -1, err
	}
	timestamp, offset, err = l.maxTimestamp()
	return timestamp, offset, l.fail(err)
}

func (l *Log) maxTimestamp() (timestamp, offset int64, err error) {
	timestamp, offset = -1, -1
	var best *segment
	for _, s := range l.segments() {
		if t, o := s.stats(); t > timestamp {
			best, timestamp, offset = s, t, o
		}
	}
	if best == nil {
		return -1, -1, nil
	}
	offset, err = best.firstRecordWithMaxTimestamp(timestamp, offset)
	if err != nil {
		return -1, -1, err
	}
	return timestamp, offset, nil
}

// firstRecordWithMaxTimestamp finds the first record with timestamp ts in
// the first batch at or after the one holding shallow (the time index
// offset) whose maxTimestamp is ts. Without such a batch (a header whose
// maxTimestamp disagrees with its records) shallow is the answer.
func (s *segment) firstRecordWithMaxTimestamp(ts, shallow int64) (int64, error) {
	end := s.size.Load()
	_, pos := s.offIdx.lookup(shallow, end)
	sc := newBatchScanner(s.log, s.name, pos, end)
	for {
		h, p, _, err := sc.next(false)
		if errors.Is(err, io.EOF) {
			return shallow, nil
		}
		if err != nil {
			return -1, err
		}
		if h.MaxTimestamp != ts {
			continue
		}
		batch, err := sc.window(p, int64(h.Size()))
		if err != nil {
			return -1, err
		}
		offset := int64(-1)
		werr := walkRecordTimestamps(batch, &h, func(o, t int64) bool {
			if t == ts {
				offset = o
				return false
			}
			return true
		})
		if werr != nil {
			return -1, fmt.Errorf("storage: %s batch at byte %d: %w", s.name, p, werr)
		}
		if offset < 0 {
			offset = shallow
		}
		return offset, nil
	}
}
