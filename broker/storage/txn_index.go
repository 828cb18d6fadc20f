package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"

	"kafgo/broker/storage/vfs"
)

// Transaction index (Kafka's TransactionIndex), "<base>.txnindex": the
// aborted transactions whose ABORT marker lies in the segment, in marker
// order, as 34-byte entries with no file header:
//
//	version int16 = 0, producerId int64, firstOffset int64,
//	lastOffset int64 (the marker's offset), lastStableOffset int64
//
// lastStableOffset is the LSO when the marker was written: the first offset
// of the earliest transaction of another producer still open then, else the
// marker's offset + 1. A reader collecting the aborted transactions of a
// fetch stops at the first entry whose LSO reaches the end of the fetched
// data: no later entry can overlap it. The file is created with the first
// entry, so most segments have none.
const (
	txnEntrySize    = 34
	txnIndexVersion = 0
	maxTxnIndexSize = 1 << 30
)

// AbortedTxn is one entry of a transaction index.
type AbortedTxn struct {
	ProducerID       int64
	FirstOffset      int64 // the transaction's first offset in this partition
	LastOffset       int64 // the offset of its ABORT marker
	LastStableOffset int64 // the LSO when the marker was appended
}

func (a AbortedTxn) appendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, txnIndexVersion)
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.ProducerID))
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.FirstOffset))
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.LastOffset))
	return binary.BigEndian.AppendUint64(dst, uint64(a.LastStableOffset))
}

// decodeTxnEntries decodes whole entries of b (a multiple of the entry
// size); a version above 0 is an error, as Kafka's reader throws.
func decodeTxnEntries(name string, b []byte, dst []AbortedTxn) ([]AbortedTxn, error) {
	be := binary.BigEndian
	for p := 0; p+txnEntrySize <= len(b); p += txnEntrySize {
		e := b[p:]
		if v := int16(be.Uint16(e)); v != txnIndexVersion {
			return dst, fmt.Errorf("storage: %s byte %d: aborted transaction version %d, want %d: %w", name, p, v, txnIndexVersion, ErrCorruptFile)
		}
		dst = append(dst, AbortedTxn{
			ProducerID:       int64(be.Uint64(e[2:])),
			FirstOffset:      int64(be.Uint64(e[10:])),
			LastOffset:       int64(be.Uint64(e[18:])),
			LastStableOffset: int64(be.Uint64(e[26:])),
		})
	}
	return dst, nil
}

// ReadTxnIndex reads every entry of a .txnindex file.
func ReadTxnIndex(path string) ([]AbortedTxn, error) {
	data, err := readSmallFile(vfs.Default, path, maxTxnIndexSize)
	if err != nil {
		return nil, err
	}
	if len(data)%txnEntrySize != 0 {
		return nil, fmt.Errorf("storage: %s: %d bytes are not whole %d-byte entries: %w", path, len(data), txnEntrySize, ErrCorruptFile)
	}
	return decodeTxnEntries(path, data, nil)
}

// txnIndex is the transaction index of one segment.
//
// Concurrency follows the segment's: the Log's mutex serialises mutations;
// readers take no lock and read at most size bytes, stored only after the
// entries are written (and lowered before the file is cut).
type txnIndex struct {
	fs      vfs.FS
	path    string                     // current path; writer only (renames)
	name    string                     // the path at open, for readers' messages
	f       atomic.Pointer[cachedFile] // nil until the file exists
	size    atomic.Int64
	lastOff int64 // last entry's lastOffset, -1 when empty; writer only
}

// openTxnIndex opens the index at path if the file exists; a missing file
// is an empty index, created by the first append.
func openTxnIndex(fsys vfs.FS, path string) (*txnIndex, error) {
	x := &txnIndex{fs: fsys, path: path, name: path, lastOff: -1}
	f, err := fsys.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return x, nil
	}
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storage: stat %s: %w", path, err)
	}
	if st.Size() > maxTxnIndexSize {
		f.Close()
		return nil, fmt.Errorf("storage: %s is %d bytes, larger than any transaction index: %w", path, st.Size(), ErrCorruptFile)
	}
	x.f.Store(newCachedFile(fsys, path, os.O_RDWR, f))
	x.size.Store(st.Size())
	if es, err := x.entries(); err == nil && len(es) > 0 {
		x.lastOff = es[len(es)-1].LastOffset
	}
	return x, nil
}

// entries reads every whole entry below the published size.
func (x *txnIndex) entries() ([]AbortedTxn, error) {
	size := x.size.Load() / txnEntrySize * txnEntrySize
	f := x.f.Load()
	if size == 0 || f == nil {
		return nil, nil
	}
	buf := make([]byte, size)
	if n, err := f.ReadAt(buf, 0); int64(n) < size {
		return nil, fmt.Errorf("storage: read %s: %d of %d bytes: %w", x.name, n, size, err)
	}
	return decodeTxnEntries(x.name, buf, make([]AbortedTxn, 0, size/txnEntrySize))
}

// collect adds to dst the entries overlapping a fetch of [from, upper) (a
// marker at or after from and a first offset below upper). complete is set
// once an entry's LSO reaches upper: later entries, here or in later
// segments, cannot overlap (Kafka's collectAbortedTxns).
func (x *txnIndex) collect(from, upper int64, dst []AbortedTxn) ([]AbortedTxn, bool, error) {
	es, err := x.entries()
	if err != nil {
		return dst, false, err
	}
	for _, e := range es {
		if e.LastOffset >= from && e.FirstOffset < upper {
			dst = append(dst, e)
		}
		if e.LastStableOffset >= upper {
			return dst, true, nil
		}
	}
	return dst, false, nil
}

// append writes entries at the end, creating the file when needed. Marker
// offsets must increase; a failed write is cut back and nothing published.
func (x *txnIndex) append(es []AbortedTxn) error {
	if len(es) == 0 {
		return nil
	}
	buf := make([]byte, 0, len(es)*txnEntrySize)
	last := x.lastOff
	for _, e := range es {
		if e.LastOffset <= last {
			return fmt.Errorf("storage: %s: aborted transaction ending at %d does not follow %d", x.path, e.LastOffset, last)
		}
		last = e.LastOffset
		buf = e.appendTo(buf)
	}
	f := x.f.Load()
	if f == nil {
		nf, err := x.fs.OpenFile(x.path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("storage: create %s: %w", x.path, err)
		}
		f = newCachedFile(x.fs, x.path, os.O_RDWR, nf)
		x.f.Store(f)
	}
	pos := x.size.Load()
	if n, err := f.WriteAt(buf, pos); err != nil || n < len(buf) {
		if terr := f.Truncate(pos); terr != nil {
			err = errors.Join(err, terr)
		}
		return fmt.Errorf("storage: write %s at byte %d: %w", x.path, pos, err)
	}
	x.lastOff = last
	x.size.Store(pos + int64(len(buf)))
	return nil
}

// truncateTo drops the entries whose marker is at or after offset.
func (x *txnIndex) truncateTo(offset int64) error {
	es, err := x.entries()
	if err != nil {
		return err
	}
	keep := len(es)
	for keep > 0 && es[keep-1].LastOffset >= offset {
		keep--
	}
	return x.cut(es[:keep])
}

// reset drops every entry (the index is being rebuilt).
func (x *txnIndex) reset() error { return x.cut(nil) }

// cut shrinks the index to the given leading entries.
func (x *txnIndex) cut(kept []AbortedTxn) error {
	size := int64(len(kept)) * txnEntrySize
	f := x.f.Load()
	if f == nil || size == x.size.Load() {
		return nil
	}
	x.size.Store(size)
	x.lastOff = -1
	if len(kept) > 0 {
		x.lastOff = kept[len(kept)-1].LastOffset
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("storage: truncate %s to %d bytes: %w", x.path, size, err)
	}
	return nil
}

// sanityCheck is run on a clean open: whole entries of version 0, markers
// increasing and inside the segment [base, upper) (upper -1 = unbounded).
func (x *txnIndex) sanityCheck(base, upper int64) error {
	if x.size.Load()%txnEntrySize != 0 {
		return fmt.Errorf("storage: %s: %d bytes are not whole entries: %w", x.path, x.size.Load(), ErrCorruptFile)
	}
	es, err := x.entries()
	if err != nil {
		return err
	}
	prev := int64(-1)
	for i, e := range es {
		if e.LastOffset < base || (upper >= 0 && e.LastOffset >= upper) || e.LastOffset <= prev || e.FirstOffset > e.LastOffset {
			return fmt.Errorf("storage: %s entry %d: aborted transaction %+v does not fit the segment [%d, %d): %w", x.path, i, e, base, upper, ErrCorruptFile)
		}
		prev = e.LastOffset
	}
	return nil
}

func (x *txnIndex) sync() error {
	if f := x.f.Load(); f != nil {
		// Background flushes call this without the log's lock: name, not
		// path, which renames change.
		if err := f.Sync(); err != nil {
			return fmt.Errorf("storage: fsync %s: %w", x.name, err)
		}
	}
	return nil
}

// exists reports whether the index has a file.
func (x *txnIndex) exists() bool { return x.f.Load() != nil }

// rename moves the file (if any) to path; the descriptor stays valid.
func (x *txnIndex) rename(path string) error {
	if f := x.f.Load(); f != nil {
		if err := f.rename(path); err != nil {
			return fmt.Errorf("storage: rename %s: %w", x.path, err)
		}
	}
	x.path = path
	return nil
}

func (x *txnIndex) remove() error {
	if err := x.fs.Remove(x.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: remove %s: %w", x.path, err)
	}
	return nil
}

func (x *txnIndex) close() error {
	if f := x.f.Load(); f != nil {
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			return fmt.Errorf("storage: close %s: %w", x.name, err)
		}
	}
	return nil
}
