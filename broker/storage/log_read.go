package storage

import (
	"fmt"

	"kafgo/broker/storage/vfs"
)

// Read returns whole batches starting with the batch that contains
// startOffset: at most maxBytes of them, but at least one whole batch when
// minOneBatch (KIP-74), and never a batch whose offsets reach maxOffset (the
// caller passes the high watermark or the log end offset). Data comes from
// one segment per call, as in Kafka. startOffset below the log start or
// above the log end offset is ErrOffsetOutOfRange.
//
// The regions stay readable after the segment is deleted by retention until
// file.delete.delay.ms has passed; truncation (follower only, above the high
// watermark) may shorten what a region covers.
func (l *Log) Read(startOffset int64, maxBytes int32, maxOffset int64, minOneBatch bool) (ReadInfo, error) {
	info, _, err := l.read(startOffset, maxBytes, maxOffset, minOneBatch, false)
	return info, err
}

// ReadCommitted is Read for a read_committed consumer (Fetch isolation
// level 1): maxOffset is the last stable offset, and aborted lists the
// aborted transactions that overlap the returned batches (Kafka's
// addAbortedTransactions): those whose marker is at or after startOffset
// and whose first offset is below upper bound of the data, the offset after
// the last returned batch (the next segment's base or the log end when the
// data ends its segment). aborted is nil when no batch is returned.
func (l *Log) ReadCommitted(startOffset int64, maxBytes int32, maxOffset int64, minOneBatch bool) (info ReadInfo, aborted []AbortedTxn, err error) {
	info, upper, err := l.read(startOffset, maxBytes, maxOffset, minOneBatch, true)
	if err != nil || info.Size == 0 {
		return info, nil, err
	}
	aborted, err = l.AbortedTransactions(startOffset, upper)
	return info, aborted, err
}

// AbortedTransactions lists the entries of the transaction indexes that
// overlap [from, upper): a marker at or after from and a first offset
// below upper. The scan starts in the segment holding from and stops at
// the first entry whose LSO reaches upper. The result is never nil.
func (l *Log) AbortedTransactions(from, upper int64) ([]AbortedTxn, error) {
	if err := l.Err(); err != nil {
		return nil, err
	}
	out, err := collectAborted(l.segments(), from, upper)
	return out, l.fail(err)
}

// read is Read; with wantUpper it also returns the upper bound of what it
// returned: the base offset of the batch after the last one returned, or
// when the data ends its segment, the next segment's base or the log end
// (one more header read, so only read_committed fetches pay it).
func (l *Log) read(startOffset int64, maxBytes int32, maxOffset int64, minOneBatch, wantUpper bool) (ReadInfo, int64, error) {
	if err := l.Err(); err != nil {
		return ReadInfo{FirstOffset: startOffset, LogStartOffset: l.logStart.Load(), LogEndOffset: l.leo.Load()}, -1, err
	}
	info, upper, err := l.readSegments(startOffset, maxBytes, maxOffset, minOneBatch, wantUpper)
	return info, upper, l.fail(err)
}

func (l *Log) readSegments(startOffset int64, maxBytes int32, maxOffset int64, minOneBatch, wantUpper bool) (ReadInfo, int64, error) {
	leo := l.leo.Load()
	ls := l.logStart.Load()
	info := ReadInfo{FirstOffset: startOffset, LogStartOffset: ls, LogEndOffset: leo}
	if startOffset < ls || startOffset > leo {
		return info, -1, fmt.Errorf("storage: %s: offset %d is outside [%d, %d]: %w", l.tp, startOffset, ls, leo, ErrOffsetOutOfRange)
	}
	maxOffset = min(maxOffset, leo)
	if startOffset >= maxOffset {
		return info, -1, nil
	}
	segs := l.segments()
	for i := max(findSegment(segs, startOffset), 0); i < len(segs); i++ {
		s := segs[i]
		if s.base >= maxOffset {
			break
		}
		end := s.size.Load()
		if sp, ok := s.tail.span(startOffset, end, maxOffset, func(first int64) int64 { return max(int64(maxBytes), first) }); ok {
			// The tail index knows the batches: no header to read.
			if sp.firstLast >= maxOffset || sp.firstSize > int64(maxBytes) && !minOneBatch {
				return info, -1, nil
			}
			f, hold, err := s.log.pin()
			if err != nil {
				return info, -1, err
			}
			info.Regions = []FileRegion{{File: vfs.OSFile(f), Position: sp.pos, Size: sp.stop - sp.pos, src: f, hold: hold}}
			info.Size = sp.stop - sp.pos
			info.FirstOffset = sp.firstBase
			upper := leo
			switch {
			case sp.nextBase >= 0:
				upper = sp.nextBase
			case i+1 < len(segs):
				upper = segs[i+1].base
			}
			return info, upper, nil
		}
		pos, h, found, err := s.translateOffset(startOffset, end)
		if err != nil {
			return info, -1, err
		}
		if !found {
			continue // startOffset lies in a gap at the end of this segment
		}
		if h.LastOffset() >= maxOffset {
			return info, -1, nil
		}
		first := int64(h.Size())
		budget := max(int64(maxBytes), 0)
		if first > budget {
			if !minOneBatch {
				return info, -1, nil
			}
			budget = first
		}
		stop := s.boundary(pos, min(pos+budget, end), maxOffset, end)
		f, hold, err := s.log.pin()
		if err != nil {
			return info, -1, err
		}
		info.Regions = []FileRegion{{File: vfs.OSFile(f), Position: pos, Size: stop - pos, src: f, hold: hold}}
		info.Size = stop - pos
		info.FirstOffset = h.BaseOffset
		upper := leo
		switch {
		case !wantUpper:
		case stop < end:
			next, err := readHeaderAt(f, s.name, stop, end)
			if err != nil {
				info.Release()
				return info, -1, err
			}
			upper = next.BaseOffset
		case i+1 < len(segs):
			upper = segs[i+1].base
		}
		return info, upper, nil
	}
	return info, -1, nil
}

// ReadBytes is Read (with minOneBatch) copied into memory, for readers inside
// the broker that want bytes rather than file regions.
func (l *Log) ReadBytes(startOffset int64, maxBytes int32, maxOffset int64) ([]byte, error) {
	info, err := l.Read(startOffset, maxBytes, maxOffset, true)
	if err != nil {
		return nil, err
	}
	defer info.Release()
	buf := make([]byte, info.Size)
	off := 0
	for _, r := range info.Regions {
		n, err := r.src.ReadAt(buf[off:off+int(r.Size)], r.Position)
		if n < int(r.Size) {
			return nil, l.fail(fmt.Errorf("storage: %s: read %d bytes at byte %d of %s: %w", l.tp, r.Size, r.Position, r.src.Name(), err))
		}
		off += n
	}
	return buf, nil
}
