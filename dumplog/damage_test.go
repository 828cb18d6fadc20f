package dumplog

import (
	"encoding/binary"
	"os"
	"path/filepath"

	"kafgo/broker/record"
)

// damage is one broken copy of the plain log's first segment: each named
// file is the plain one passed through its edit (nil: copied as is).
type damage struct {
	dir   string
	files map[string]func([]byte) []byte
}

// The plain segment's layout, which the edits below rely on (checked by
// TestDamagedLayout): batches start at these bytes, the .index holds
// (6, 206) (10, 447) (14, 663) and the .timeindex (…011, 6) (…031, 10)
// (…050, 14).
var plainBatchStarts = []int{0, 85, 206, 326, 447, 555, 663}

const plainLogSize = 761

func damages() []damage {
	be := binary.BigEndian
	keep := func(b []byte) []byte { return b }
	return []damage{
		// A crash tore the last batch; the indexes still name it.
		{dir: "torn", files: map[string]func([]byte) []byte{
			".log":       func(b []byte) []byte { return b[:len(b)-20] },
			".index":     keep,
			".timeindex": keep,
		}},
		// One flipped CRC byte (records intact), and one flipped byte
		// inside the gzip batch's compressed records.
		{dir: "crc", files: map[string]func([]byte) []byte{
			".log": func(b []byte) []byte {
				b[plainBatchStarts[1]+crcOffset] ^= 0xff
				b[plainBatchStarts[2]+record.BatchHeaderSize+20] ^= 0x55
				return b
			},
		}},
		// A batch whose magic byte is not a known format.
		{dir: "badmagic", files: map[string]func([]byte) []byte{
			".log": func(b []byte) []byte { b[plainBatchStarts[3]+16] = 7; return b },
		}},
		// Index entries that disagree with the log, and a time index with
		// a wrong timestamp, an offset inside a batch and a timestamp
		// going backwards.
		{dir: "wrongindex", files: map[string]func([]byte) []byte{
			".log": keep,
			".index": func(b []byte) []byte {
				be.PutUint32(b[8:], 9)    // (10, 447) -> (9, 447)
				be.PutUint32(b[20:], 555) // (14, 663) -> (14, 555)
				return b
			},
			".timeindex": func(b []byte) []byte {
				be.PutUint64(b[0:], uint64(baseTime+15))  // log says +11
				be.PutUint32(b[20:], 9)                   // offset 10 -> 9
				be.PutUint64(b[24:], uint64(baseTime+10)) // log says +50, and +31 came before
				return b
			},
		}},
		// A torn index entry (the broker's sanity check fails) and an
		// empty time index.
		{dir: "badindex", files: map[string]func([]byte) []byte{
			".log":       keep,
			".index":     func(b []byte) []byte { return append(b, 0, 0, 1) },
			".timeindex": func([]byte) []byte { return nil },
		}},
		// A time index whose offset index is missing: the check scans
		// from the segment's start.
		{dir: "noindex", files: map[string]func([]byte) []byte{
			".log":       keep,
			".timeindex": keep,
		}},
		// The indexes of an active segment, still preallocated: zero
		// entries after the real ones.
		{dir: "prealloc", files: map[string]func([]byte) []byte{
			".log":       keep,
			".index":     func(b []byte) []byte { return append(b, make([]byte, 5*8)...) },
			".timeindex": func(b []byte) []byte { return append(b, make([]byte, 4*12)...) },
		}},
	}
}

// writeDamaged writes the broken copies of the plain log's first segment,
// an empty segment whose index is empty, an index without its log and a
// log with a bad name.
func writeDamaged(plain, root string) error {
	for _, dm := range damages() {
		for ext, edit := range dm.files {
			b, err := os.ReadFile(filepath.Join(plain, segName+ext))
			if err != nil {
				return err
			}
			if err := writeFile(filepath.Join(root, dm.dir, segName+ext), edit(b)); err != nil {
				return err
			}
		}
	}
	for _, ext := range []string{".log", ".index"} {
		if err := writeFile(filepath.Join(root, "empty", "00000000000000000100"+ext), nil); err != nil {
			return err
		}
	}
	// An index without its .log, and a log whose name is no segment's.
	if err := writeFile(filepath.Join(root, "nolog", segName+".index"), nil); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(root, "badname", "not-a-segment.log"), nil); err != nil {
		return err
	}
	return writeTxnIndexes(filepath.Join(root, "txn"))
}

// txnEntry encodes a transaction index entry (see snapshot.go).
func txnEntry(version int16, pid, first, last, lso int64) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(version))
	for _, v := range []int64{pid, first, last, lso} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// writeTxnIndexes writes a good transaction index, one with a partial
// last entry and one with a version from the future.
func writeTxnIndexes(dir string) error {
	files := map[string][]byte{
		segName:                concatBytes(txnEntry(0, 2000, 20, 25, 20), txnEntry(0, 2001, 30, 31, 26)),
		"00000000000000000050": concatBytes(txnEntry(0, 3000, 50, 52, 50), make([]byte, 10)),
		"00000000000000000060": txnEntry(1, 4000, 60, 61, 60),
	}
	for name, b := range files {
		if err := writeFile(filepath.Join(dir, name+".txnindex"), b); err != nil {
			return err
		}
	}
	return nil
}
