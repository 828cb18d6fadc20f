package storage

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The read-only copies of index files count the entries an active
// segment's preallocated index holds, not its zero tail; zero entries
// followed by real ones are entries (the checks must see them).
func TestReadIndexFilesSkipZeroTail(t *testing.T) {
	off := func(pairs ...[2]uint32) []byte {
		var b []byte
		for _, p := range pairs {
			b = binary.BigEndian.AppendUint32(b, p[0])
			b = binary.BigEndian.AppendUint32(b, p[1])
		}
		return b
	}
	tests := []struct {
		name string
		data []byte
		want []OffsetIndexEntry
	}{
		{"trimmed", off([2]uint32{3, 300}, [2]uint32{7, 700}), []OffsetIndexEntry{{103, 300}, {107, 700}}},
		{"preallocated", append(off([2]uint32{3, 300}, [2]uint32{7, 700}), make([]byte, 64)...), []OffsetIndexEntry{{103, 300}, {107, 700}}},
		{"preallocated, no entry yet", make([]byte, 4096), []OffsetIndexEntry{}},
		{"zero entry inside", append(off([2]uint32{3, 300}, [2]uint32{0, 0}, [2]uint32{7, 700}), make([]byte, 16)...), []OffsetIndexEntry{{103, 300}, {100, 0}, {107, 700}}},
		{"torn last entry", append(off([2]uint32{3, 300}), 1, 2, 3), []OffsetIndexEntry{{103, 300}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "00000000000000000100.log"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "00000000000000000100.index")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := ReadOffsetIndex(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Entries(); !slices.Equal(got, tc.want) {
				t.Fatalf("entries %v, want %v", got, tc.want)
			}
			if f.Size() != int64(len(tc.data)) {
				t.Errorf("size %d, want %d", f.Size(), len(tc.data))
			}
		})
	}

	// A time index the same way: entries, then the zero tail.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "00000000000000000100.log"), nil, 0o644)
	var b []byte
	for _, e := range [][2]int64{{1000, 3}, {2000, 7}} {
		b = binary.BigEndian.AppendUint64(b, uint64(e[0]))
		b = binary.BigEndian.AppendUint32(b, uint32(e[1]))
	}
	path := filepath.Join(dir, "00000000000000000100.timeindex")
	os.WriteFile(path, append(b, make([]byte, 10*timeEntrySize)...), 0o644)
	f, err := ReadTimeIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Entries(); len(got) != 2 || got[0] != (TimeIndexEntry{1000, 103}) || got[1] != (TimeIndexEntry{2000, 107}) {
		t.Errorf("time index entries %v", got)
	}
	if err := f.SanityCheck(); err != nil {
		t.Errorf("sanity check of a preallocated time index: %v", err)
	}
}
