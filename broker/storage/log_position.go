package storage

import "sync/atomic"

// OffsetPosition locates an offset in the log without reading it: the base
// offset of the segment holding the batch that contains it and that batch's
// byte position in the segment (Kafka's LogOffsetMetadata). Two positions
// on the same segment tell how many bytes lie between their offsets; a
// delayed fetch uses that to decide whether fetch.min.bytes have arrived
// without reading the log on every append.
type OffsetPosition struct {
	Offset      int64
	SegmentBase int64
	Pos         int64
}

// OnOlderSegment reports whether p lies on a segment before o's.
func (p OffsetPosition) OnOlderSegment(o OffsetPosition) bool { return p.SegmentBase < o.SegmentBase }

// cachedPosition is a position computed for one segment list: a
// truncation, roll, retention pass or cleaner swap publishes a new list,
// which retires it.
type cachedPosition struct {
	segs *[]*segment
	pos  OffsetPosition
}

// positionCache keeps the last position computed for an offset that is
// asked for again and again (the high watermark, the last stable offset).
type positionCache struct {
	p atomic.Pointer[cachedPosition]
}

func (c *positionCache) get(l *Log, offset int64) (OffsetPosition, bool) {
	segs := l.segs.Load()
	if cp := c.p.Load(); cp != nil && cp.segs == segs && cp.pos.Offset == offset {
		return cp.pos, true
	}
	pos, ok := l.positionIn(*segs, offset)
	if ok {
		c.p.Store(&cachedPosition{segs: segs, pos: pos})
	}
	return pos, ok
}

// PositionOf locates offset (between the log start and end offsets); false
// when it cannot (outside the log, or a read error). The log end offset
// costs two atomic loads; other offsets an index lookup and a few batch
// header reads, as the read of that offset would.
func (l *Log) PositionOf(offset int64) (OffsetPosition, bool) {
	return l.positionIn(l.segments(), offset)
}

// HighWatermarkPosition is PositionOf(HighWatermark()), computed once per
// high watermark value.
func (l *Log) HighWatermarkPosition() (OffsetPosition, bool) {
	return l.hwPos.get(l, l.highWatermark.Load())
}

// LastStablePosition is PositionOf(LastStableOffset(hw)), computed once
// per value.
func (l *Log) LastStablePosition(hw int64) (OffsetPosition, bool) {
	return l.lsoPos.get(l, l.LastStableOffset(hw))
}

func (l *Log) positionIn(segs []*segment, offset int64) (OffsetPosition, bool) {
	if len(segs) == 0 {
		return OffsetPosition{}, false
	}
	last := segs[len(segs)-1]
	// The log end: the end of the active segment. Its size is loaded after
	// the offset; an append in between makes it a little generous, never
	// short.
	if offset == l.leo.Load() && offset >= last.base {
		return OffsetPosition{Offset: offset, SegmentBase: last.base, Pos: last.size.Load()}, true
	}
	i := findSegment(segs, offset)
	if i < 0 {
		return OffsetPosition{}, false
	}
	s := segs[i]
	end := s.size.Load()
	if pos, ok := s.tail.position(offset, end); ok {
		return OffsetPosition{Offset: offset, SegmentBase: s.base, Pos: pos}, true
	}
	pos, _, found, err := s.translateOffset(offset, end)
	if err != nil {
		return OffsetPosition{}, false
	}
	if !found {
		// Past the segment's last batch: where the next segment starts.
		if i+1 < len(segs) {
			return OffsetPosition{Offset: offset, SegmentBase: segs[i+1].base, Pos: 0}, true
		}
		return OffsetPosition{Offset: offset, SegmentBase: s.base, Pos: end}, true
	}
	return OffsetPosition{Offset: offset, SegmentBase: s.base, Pos: pos}, true
}
