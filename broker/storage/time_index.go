package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"kafgo/broker/storage/vfs"
)

const timeEntrySize = 12

// noTimestamp is Kafka's RecordBatch.NO_TIMESTAMP.
const noTimestamp = -1

// timeIndex is a segment's .timeindex: entries (timestamp int64, relative
// offset int32), written only when the timestamp exceeds the last entry's.
// An entry (t, o) says the largest timestamp among offsets up to o is t, and
// o is the last offset of the earliest batch that carried it.
type timeIndex struct {
	*indexFile
	base int64
}

func openTimeIndex(fsys vfs.FS, path string, base int64) (*timeIndex, bool, error) {
	f, bad, err := openIndexFile(fsys, path, timeEntrySize)
	if err != nil {
		return nil, false, err
	}
	return &timeIndex{indexFile: f, base: base}, bad, nil
}

func (x *timeIndex) entryLocked(i int64) (ts, offset int64) {
	b := x.data[i*timeEntrySize:]
	return int64(binary.BigEndian.Uint64(b)), x.base + int64(int32(binary.BigEndian.Uint32(b[8:])))
}

// full reserves the last slot for the entry forced on roll, as Kafka's
// TimeIndex.isFull does.
func (x *timeIndex) full() bool { return x.n.Load() >= x.cap-1 }

// lastEntry is the last entry, or (NO_TIMESTAMP, base) when empty.
func (x *timeIndex) lastEntry() (ts, offset int64) {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	if n == 0 {
		return noTimestamp, x.base
	}
	return x.entryLocked(n - 1)
}

// lookup returns the greatest entry with timestamp <= target, or
// (NO_TIMESTAMP, base) when there is none.
func (x *timeIndex) lookup(target int64) (ts, offset int64) {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	i := sort.Search(int(n), func(i int) bool {
		t, _ := x.entryLocked(int64(i))
		return t > target
	})
	if i == 0 {
		return noTimestamp, x.base
	}
	return x.entryLocked(int64(i - 1))
}

func (x *timeIndex) entries() [][2]int64 {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	out := make([][2]int64, n)
	for i := range n {
		t, o := x.entryLocked(i)
		out[i] = [2]int64{t, o}
	}
	return out
}

// needsAppend reports whether maybeAppend(ts, offset) would write, so the
// caller can reserve disk blocks before it writes anything else.
func (x *timeIndex) needsAppend(ts int64) bool {
	last, _ := x.lastEntry()
	return ts > last
}

// maybeAppend adds (ts, offset) when ts is larger than the last entry's
// timestamp. skipFullCheck allows the reserved last slot (roll and close).
func (x *timeIndex) maybeAppend(ts, offset int64, skipFullCheck bool) error {
	lastTs, lastOff := x.lastEntry()
	if ts <= lastTs {
		return nil
	}
	rel := offset - x.base
	if rel < 0 || rel > math.MaxInt32 {
		return fmt.Errorf("storage: time index %s: offset %d out of range for base %d", x.path, offset, x.base)
	}
	if x.n.Load() > 0 && offset < lastOff {
		return fmt.Errorf("storage: time index %s: offset %d is below the last entry's %d", x.path, offset, lastOff)
	}
	if x.indexFile.full() || (!skipFullCheck && x.full()) {
		return fmt.Errorf("storage: time index %s is full (%d entries)", x.path, x.cap)
	}
	if err := x.reserve(); err != nil {
		return err
	}
	var e [timeEntrySize]byte
	binary.BigEndian.PutUint64(e[:], uint64(ts))
	binary.BigEndian.PutUint32(e[8:], uint32(rel))
	return x.appendEntry(e[:])
}

// truncateTo drops the entries with offset >= offset.
func (x *timeIndex) truncateTo(offset int64) {
	x.rlock()
	n := x.countLocked()
	i := sort.Search(int(n), func(i int) bool {
		_, o := x.entryLocked(int64(i))
		return o >= offset
	})
	x.mu.RUnlock()
	x.truncateEntries(int64(i))
}

// sanityCheck validates every entry: timestamps strictly increasing, offsets
// not decreasing, none below the base. nextOffset bounds the offsets from
// above when the caller knows it (pass -1 otherwise).
func (x *timeIndex) sanityCheck(nextOffset int64) error {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	prevT, prevO := int64(math.MinInt64), int64(-1)
	for i := range n {
		t, o := x.entryLocked(i)
		switch {
		case o < x.base:
			return fmt.Errorf("storage: time index %s entry %d (byte %d): offset %d below base %d: %w", x.path, i, i*timeEntrySize, o, x.base, ErrCorruptFile)
		case nextOffset >= 0 && o >= nextOffset:
			return fmt.Errorf("storage: time index %s entry %d (byte %d): offset %d beyond the log end %d: %w", x.path, i, i*timeEntrySize, o, nextOffset, ErrCorruptFile)
		case i > 0 && (t <= prevT || o < prevO):
			return fmt.Errorf("storage: time index %s entry %d (byte %d): (%d, %d) does not follow (%d, %d): %w", x.path, i, i*timeEntrySize, t, o, prevT, prevO, ErrCorruptFile)
		}
		prevT, prevO = t, o
	}
	return nil
}
