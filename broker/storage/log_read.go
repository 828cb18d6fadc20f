package storage

import (
	"fmt"
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
	leo := l.leo.Load()
	ls := l.logStart.Load()
	info := ReadInfo{FirstOffset: startOffset, LogStartOffset: ls, LogEndOffset: leo}
	if startOffset < ls || startOffset > leo {
		return info, fmt.Errorf("storage: %s: offset %d is outside [%d, %d]: %w", l.tp, startOffset, ls, leo, ErrOffsetOutOfRange)
	}
	maxOffset = min(maxOffset, leo)
	if startOffset >= maxOffset {
		return info, nil
	}
	segs := l.segments()
	for i := max(findSegment(segs, startOffset), 0); i < len(segs); i++ {
		s := segs[i]
		if s.base >= maxOffset {
			break
		}
		end := s.size.Load()
		pos, h, found, err := s.translateOffset(startOffset, end)
		if err != nil {
			return info, err
		}
		if !found {
			continue // startOffset lies in a gap at the end of this segment
		}
		if h.LastOffset() >= maxOffset {
			return info, nil
		}
		first := int64(h.Size())
		budget := max(int64(maxBytes), 0)
		if first > budget {
			if !minOneBatch {
				return info, nil
			}
			budget = first
		}
		stop := s.boundary(pos, min(pos+budget, end), maxOffset, end)
		info.Regions = []FileRegion{{File: s.log, Position: pos, Size: stop - pos}}
		info.Size = stop - pos
		info.FirstOffset = h.BaseOffset
		return info, nil
	}
	return info, nil
}

// ReadBytes is Read (with minOneBatch) copied into memory, for readers inside
// the broker that want bytes rather than file regions.
func (l *Log) ReadBytes(startOffset int64, maxBytes int32, maxOffset int64) ([]byte, error) {
	info, err := l.Read(startOffset, maxBytes, maxOffset, true)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, info.Size)
	off := 0
	for _, r := range info.Regions {
		n, err := r.File.ReadAt(buf[off:off+int(r.Size)], r.Position)
		if n < int(r.Size) {
			return nil, fmt.Errorf("storage: %s: read %d bytes at byte %d of %s: %w", l.tp, r.Size, r.Position, r.File.Name(), err)
		}
		off += n
	}
	return buf, nil
}
