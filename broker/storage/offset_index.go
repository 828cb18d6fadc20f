package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"kafgo/broker/storage/vfs"
)

const offsetEntrySize = 8

// offsetIndex is a segment's .index: sparse entries (relative offset int32,
// position int32). Entry (o, p) means the append that starts at byte p of the
// .log ends at offset base+o, so every batch before p has smaller offsets and
// a batch starts exactly at p.
type offsetIndex struct {
	*indexFile
	base int64
}

func openOffsetIndex(fsys vfs.FS, path string, base int64) (*offsetIndex, bool, error) {
	f, bad, err := openIndexFile(fsys, path, offsetEntrySize)
	if err != nil {
		return nil, false, err
	}
	return &offsetIndex{indexFile: f, base: base}, bad, nil
}

// entryLocked decodes entry i; the caller holds mu (shared) and i < n.
func (x *offsetIndex) entryLocked(i int64) (offset, pos int64) {
	b := x.data[i*offsetEntrySize:]
	return x.base + int64(int32(binary.BigEndian.Uint32(b))), int64(int32(binary.BigEndian.Uint32(b[4:])))
}

// lookup returns the greatest entry with offset <= target whose position is
// below end (entries beyond what a reader may read are ignored), or (base, 0)
// when there is none: the place to start a forward scan for target.
func (x *offsetIndex) lookup(target, end int64) (offset, pos int64) {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	i := sort.Search(int(n), func(i int) bool {
		o, p := x.entryLocked(int64(i))
		return o > target || p >= end
	})
	if i == 0 {
		return x.base, 0
	}
	return x.entryLocked(int64(i - 1))
}

// lookupBoundary returns the position of the greatest entry with position <=
// posLimit and offset < maxOffset: a batch boundary such that every batch
// before it ends below maxOffset. ok is false when no entry qualifies.
func (x *offsetIndex) lookupBoundary(posLimit, maxOffset int64) (pos int64, ok bool) {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	i := sort.Search(int(n), func(i int) bool {
		o, p := x.entryLocked(int64(i))
		return p > posLimit || o >= maxOffset
	})
	if i == 0 {
		return 0, false
	}
	_, pos = x.entryLocked(int64(i - 1))
	return pos, true
}

// lastEntry is the last entry, or (base, 0) when empty.
func (x *offsetIndex) lastEntry() (offset, pos int64) {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	if n == 0 {
		return x.base, 0
	}
	return x.entryLocked(n - 1)
}

// entries copies all entries out (tests and the dump tool).
func (x *offsetIndex) entries() [][2]int64 {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	out := make([][2]int64, n)
	for i := range n {
		o, p := x.entryLocked(i)
		out[i] = [2]int64{o, p}
	}
	return out
}

// append adds (offset, pos). Offsets must grow strictly, positions must not
// shrink, as in Kafka's OffsetIndex.append.
func (x *offsetIndex) append(offset, pos int64) error {
	rel := offset - x.base
	if rel < 0 || rel > math.MaxInt32 || pos < 0 || pos > math.MaxInt32 {
		return fmt.Errorf("storage: index %s: entry (%d, %d) out of range for base %d", x.path, offset, pos, x.base)
	}
	if n := x.n.Load(); n > 0 {
		lo, lp := x.lastEntry()
		if offset <= lo || pos < lp {
			return fmt.Errorf("storage: index %s: entry (%d, %d) does not follow (%d, %d)", x.path, offset, pos, lo, lp)
		}
	}
	if x.full() {
		return fmt.Errorf("storage: index %s is full (%d entries)", x.path, x.cap)
	}
	if err := x.reserve(); err != nil {
		return err
	}
	var e [offsetEntrySize]byte
	binary.BigEndian.PutUint32(e[:], uint32(rel))
	binary.BigEndian.PutUint32(e[4:], uint32(pos))
	return x.appendEntry(e[:])
}

// truncateTo drops the entries with offset >= offset.
func (x *offsetIndex) truncateTo(offset int64) {
	x.rlock()
	n := x.countLocked()
	i := sort.Search(int(n), func(i int) bool {
		o, _ := x.entryLocked(int64(i))
		return o >= offset
	})
	x.mu.RUnlock()
	x.truncateEntries(int64(i))
}

// sanityCheck validates every entry: offsets strictly increasing and not
// below the base, positions increasing and inside the log.
func (x *offsetIndex) sanityCheck(logSize int64) error {
	x.rlock()
	defer x.mu.RUnlock()
	n := x.countLocked()
	prevO, prevP := int64(-1), int64(-1)
	for i := range n {
		o, p := x.entryLocked(i)
		switch {
		case o < x.base:
			return fmt.Errorf("storage: index %s entry %d (byte %d): offset %d below base %d: %w", x.path, i, i*offsetEntrySize, o, x.base, ErrCorruptFile)
		case i > 0 && (o <= prevO || p <= prevP):
			return fmt.Errorf("storage: index %s entry %d (byte %d): (%d, %d) does not follow (%d, %d): %w", x.path, i, i*offsetEntrySize, o, p, prevO, prevP, ErrCorruptFile)
		case p < 0 || p >= logSize:
			return fmt.Errorf("storage: index %s entry %d (byte %d): position %d outside the %d-byte log: %w", x.path, i, i*offsetEntrySize, p, logSize, ErrCorruptFile)
		}
		prevO, prevP = o, p
	}
	return nil
}
