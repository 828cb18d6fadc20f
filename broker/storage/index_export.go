package storage

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"kafgo/broker/storage/vfs"
)

// Read-only access to segment index files for offline tools (kafgo
// dump-log-segments). The broker maps its indexes writable and truncates an
// index whose length is not a whole number of entries when it opens it; a
// tool must change nothing, so these functions read a copy of the file into
// memory and run the broker's own entry decoding, lookup and sanity checks
// over that copy. Entries are counted from the file length rounded down, as
// Kafka's read-only index does, so a torn last entry is left out of the
// entries and reported by the sanity check; and the index of an active
// segment, preallocated to segment.index.bytes, ends where its zero tail
// begins (see usedEntries), so a live segment reads as what it holds.

// OffsetIndexEntry is one .index entry with its offset made absolute.
type OffsetIndexEntry struct {
	Offset   int64
	Position int64
}

// TimeIndexEntry is one .timeindex entry with its offset made absolute.
type TimeIndexEntry struct {
	Timestamp int64
	Offset    int64
}

// SegmentBaseOffset returns the base offset a segment file's name encodes:
// the digits before the first dot of the base name, as Kafka parses it
// (any number of digits, 20 when Kafka or kafgo wrote it).
func SegmentBaseOffset(path string) (int64, bool) {
	name := filepath.Base(path)
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return 0, false
	}
	return parseOffsetFileName(name, name[i:])
}

// SegmentLogPath is the .log a segment file (index, time index, ...)
// belongs to: same directory, the name up to its first dot plus ".log".
func SegmentLogPath(path string) string {
	dir, name := filepath.Split(path)
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	return filepath.Join(dir, name+logExt)
}

// OffsetIndexFile is an in-memory copy of a .index file.
type OffsetIndexFile struct {
	x    *offsetIndex
	size int64 // file length in bytes
}

// TimeIndexFile is an in-memory copy of a .timeindex file.
type TimeIndexFile struct {
	x    *timeIndex
	size int64
}

// readIndexCopy loads path as an indexFile that is never mapped, resized or
// closed: only the readers (entryLocked, lookup, sanityCheck) may touch it.
func readIndexCopy(path string, entrySize int64) (*indexFile, int64, int64, error) {
	base, ok := SegmentBaseOffset(path)
	if !ok {
		return nil, 0, 0, fmt.Errorf("storage: index %s: the file name does not start with a base offset: %w", path, ErrCorruptFile)
	}
	data, err := readSmallFile(vfs.Default, path, maxIndexFileBytes)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("storage: read index: %w", err)
	}
	x := &indexFile{fs: vfs.Default, path: path, entrySize: entrySize, data: data, size: int64(len(data)), cap: int64(len(data)) / entrySize}
	x.n.Store(usedEntries(data, entrySize))
	return x, base, int64(len(data)), nil
}

// usedEntries counts the whole entries of an index file before its trailing
// all-zero entries, the unused, preallocated tail of an active segment's
// index (the broker writes it through a zero-filled mapping and trims it on
// roll and close). Kafka's dump stops at the first entry after the first
// whose relative offset is 0; a zero first entry is unused too, since no
// offset index entry points at byte 0 (a segment's first append gets none)
// and a time index entry (0, base) would need a record stamped at the Unix
// epoch. Zero entries followed by non-zero ones are counted, so the checks
// see them.
func usedEntries(data []byte, entrySize int64) int64 {
	end := int64(len(data)) / entrySize * entrySize
	last := end - 1
	for last >= 0 && data[last] == 0 {
		last--
	}
	return (last + entrySize) / entrySize
}

// emptyIndex stands in for an index the caller does not check.
func emptyIndex(path string, entrySize int64) *indexFile {
	return &indexFile{path: path, entrySize: entrySize}
}

// ReadOffsetIndex reads the .index file at path; its base offset comes from
// the file name.
func ReadOffsetIndex(path string) (*OffsetIndexFile, error) {
	f, base, size, err := readIndexCopy(path, offsetEntrySize)
	if err != nil {
		return nil, err
	}
	return &OffsetIndexFile{x: &offsetIndex{indexFile: f, base: base}, size: size}, nil
}

// BaseOffset is the segment's base offset.
func (f *OffsetIndexFile) BaseOffset() int64 { return f.x.base }

// Size is the file's length in bytes; beyond the whole entries it may end
// in a torn one.
func (f *OffsetIndexFile) Size() int64 { return f.size }

// Entries returns the whole entries of the file up to the zero tail of a
// preallocated index.
func (f *OffsetIndexFile) Entries() []OffsetIndexEntry {
	raw := f.x.entries()
	out := make([]OffsetIndexEntry, len(raw))
	for i, e := range raw {
		out[i] = OffsetIndexEntry{Offset: e[0], Position: e[1]}
	}
	return out
}

// Lookup is the broker's lookup: the greatest entry with an offset at or
// below target, or (base offset, 0) when there is none.
func (f *OffsetIndexFile) Lookup(target int64) OffsetIndexEntry {
	o, p := f.x.lookup(target, math.MaxInt64)
	return OffsetIndexEntry{Offset: o, Position: p}
}

// SanityCheck runs the check the broker runs on this index when it opens a
// cleanly shut down segment (a failure makes it rebuild the index): whole
// entries, offsets increasing from the base, positions increasing and
// inside the segment's .log, and the last entry naming a batch there.
func (f *OffsetIndexFile) SanityCheck() error {
	s, err := openCheckSegment(f.x.path, f.x.base)
	if err != nil {
		return err
	}
	defer s.log.Close()
	s.offIdx = f.x
	return s.checkIndexes(f.size%offsetEntrySize != 0)
}

// ReadTimeIndex reads the .timeindex file at path; its base offset comes
// from the file name.
func ReadTimeIndex(path string) (*TimeIndexFile, error) {
	f, base, size, err := readIndexCopy(path, timeEntrySize)
	if err != nil {
		return nil, err
	}
	return &TimeIndexFile{x: &timeIndex{indexFile: f, base: base}, size: size}, nil
}

// BaseOffset is the segment's base offset.
func (f *TimeIndexFile) BaseOffset() int64 { return f.x.base }

// Size is the file's length in bytes.
func (f *TimeIndexFile) Size() int64 { return f.size }

// Entries returns the whole entries of the file up to the zero tail of a
// preallocated index.
func (f *TimeIndexFile) Entries() []TimeIndexEntry {
	raw := f.x.entries()
	out := make([]TimeIndexEntry, len(raw))
	for i, e := range raw {
		out[i] = TimeIndexEntry{Timestamp: e[0], Offset: e[1]}
	}
	return out
}

// SanityCheck runs the check the broker runs on this time index when it
// opens a cleanly shut down segment: whole entries, timestamps strictly
// increasing, offsets not decreasing and not below the base. The
// segment's .log must exist, as the broker opens both.
func (f *TimeIndexFile) SanityCheck() error {
	s, err := openCheckSegment(f.x.path, f.x.base)
	if err != nil {
		return err
	}
	defer s.log.Close()
	s.timeIdx = f.x
	return s.checkIndexes(f.size%timeEntrySize != 0)
}

// openCheckSegment opens the .log of the segment that indexPath belongs to
// read-only, as a segment with empty indexes for the caller to replace the
// one it checks, so segment.checkIndexes runs unchanged.
func openCheckSegment(indexPath string, base int64) (*segment, error) {
	logPath := SegmentLogPath(indexPath)
	f, err := vfs.Default.OpenFile(logPath, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("storage: open segment: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storage: stat %s: %w", logPath, err)
	}
	s := &segment{fs: vfs.Default, base: base, name: logPath, logPath: logPath, log: newCachedFile(vfs.Default, logPath, os.O_RDONLY, f),
		offIdx:  &offsetIndex{indexFile: emptyIndex(indexPath, offsetEntrySize), base: base},
		timeIdx: &timeIndex{indexFile: emptyIndex(indexPath, timeEntrySize), base: base}}
	s.size.Store(st.Size())
	return s, nil
}
