package storage

import (
	"errors"
	"fmt"
	"io"
)

// OffsetForTimestamp finds the first record with a timestamp >= ts at or
// after the log start (ListOffsets by timestamp): the first segment whose
// largest timestamp reaches ts, its time index, its offset index, then a scan
// of batch headers and, in the one batch that qualifies, its record
// timestamps. Record-level offsets need uncompressed records; for a
// compressed batch the batch's base offset (or the log start, when later) and
// its maxTimestamp are returned instead.
func (l *Log) OffsetForTimestamp(ts int64) (offset, timestamp int64, found bool, err error) {
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
		if h.Attributes&attrCompressionMask != 0 {
			return max(h.BaseOffset, startingOffset), h.MaxTimestamp, true, nil
		}
		batch := make([]byte, h.Size())
		if _, err := s.log.ReadAt(batch, p); err != nil {
			return -1, -1, false, fmt.Errorf("storage: read %s batch at byte %d: %w", s.name, p, err)
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

// MaxTimestamp returns the largest timestamp in the log and the offset that
// carried it (ListOffsets -3, KIP-734), or (-1, -1) when no batch has one.
func (l *Log) MaxTimestamp() (timestamp, offset int64) {
	timestamp, offset = -1, -1
	for _, s := range l.segments() {
		if t, o := s.stats(); t > timestamp {
			timestamp, offset = t, o
		}
	}
	return timestamp, offset
}
