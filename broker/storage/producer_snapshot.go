package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path/filepath"
	"slices"

	"kafgo/broker/storage/vfs"
)

// Producer snapshot file, version 1 (Kafka's ProducerStateManager):
//
//	version  int16 = 1
//	crc      uint32   CRC-32C of every byte after this field
//	count    int32
//	count × 46-byte entries:
//	  producer_id int64, epoch int16, last_sequence int32, last_offset int64,
//	  offset_delta int32, timestamp int64, coordinator_epoch int32,
//	  current_txn_first_offset int64
//
// Only each producer's last batch is kept, so after a restart the dedup
// window is one batch until new batches arrive (as in Kafka).
const (
	snapshotVersion    = 1
	snapshotHeaderSize = 2 + 4 + 4
	snapshotEntrySize  = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8
	maxSnapshotBytes   = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteProducerSnapshot atomically writes a snapshot of producers to path.
func WriteProducerSnapshot(path string, producers []ProducerState) error {
	return writeFileAtomic(vfs.Default, path, encodeProducerSnapshot(producers))
}

func encodeProducerSnapshot(producers []ProducerState) []byte {
	b := make([]byte, snapshotHeaderSize+len(producers)*snapshotEntrySize)
	binary.BigEndian.PutUint16(b, snapshotVersion)
	binary.BigEndian.PutUint32(b[6:], uint32(len(producers)))
	p := b[snapshotHeaderSize:]
	for i := range producers {
		st := &producers[i]
		lastSeq, lastOff, delta := int32(-1), int64(-1), int32(0)
		if n := len(st.Batches); n > 0 {
			lb := st.Batches[n-1]
			lastSeq, lastOff, delta = lb.LastSeq, lb.LastOffset, int32(lb.LastOffset-lb.FirstOffset)
		}
		binary.BigEndian.PutUint64(p[0:], uint64(st.ProducerID))
		binary.BigEndian.PutUint16(p[8:], uint16(st.Epoch))
		binary.BigEndian.PutUint32(p[10:], uint32(lastSeq))
		binary.BigEndian.PutUint64(p[14:], uint64(lastOff))
		binary.BigEndian.PutUint32(p[22:], uint32(delta))
		binary.BigEndian.PutUint64(p[26:], uint64(st.LastTimestamp))
		binary.BigEndian.PutUint32(p[34:], uint32(st.CoordinatorEpoch))
		binary.BigEndian.PutUint64(p[38:], uint64(st.CurrentTxnFirstOffset))
		p = p[snapshotEntrySize:]
	}
	binary.BigEndian.PutUint32(b[2:], crc32.Checksum(b[6:], castagnoli))
	return b
}

// ReadProducerSnapshot reads a snapshot file.
func ReadProducerSnapshot(path string) ([]ProducerState, error) {
	return readProducerSnapshot(vfs.Default, path)
}

func readProducerSnapshot(fsys vfs.FS, path string) ([]ProducerState, error) {
	data, err := readSmallFile(fsys, path, maxSnapshotBytes)
	if err != nil {
		return nil, err
	}
	return decodeProducerSnapshot(path, data)
}

func decodeProducerSnapshot(path string, b []byte) ([]ProducerState, error) {
	if len(b) < snapshotHeaderSize {
		return nil, fmt.Errorf("storage: snapshot %s: %d bytes, the header needs %d: %w", path, len(b), snapshotHeaderSize, ErrCorruptFile)
	}
	if v := int16(binary.BigEndian.Uint16(b)); v != snapshotVersion {
		return nil, fmt.Errorf("storage: snapshot %s byte 0: version %d, want %d: %w", path, v, snapshotVersion, ErrCorruptFile)
	}
	if stored, got := binary.BigEndian.Uint32(b[2:]), crc32.Checksum(b[6:], castagnoli); stored != got {
		return nil, fmt.Errorf("storage: snapshot %s byte 2: crc %d, computed %d: %w", path, stored, got, ErrCorruptFile)
	}
	count := int64(int32(binary.BigEndian.Uint32(b[6:])))
	if count < 0 || count*snapshotEntrySize != int64(len(b)-snapshotHeaderSize) {
		return nil, fmt.Errorf("storage: snapshot %s byte 6: %d entries do not fill the %d bytes that follow: %w", path, count, len(b)-snapshotHeaderSize, ErrCorruptFile)
	}
	out := make([]ProducerState, count)
	p := b[snapshotHeaderSize:]
	for i := range out {
		st := ProducerState{
			ProducerID:            int64(binary.BigEndian.Uint64(p[0:])),
			Epoch:                 int16(binary.BigEndian.Uint16(p[8:])),
			LastTimestamp:         int64(binary.BigEndian.Uint64(p[26:])),
			CoordinatorEpoch:      int32(binary.BigEndian.Uint32(p[34:])),
			CurrentTxnFirstOffset: int64(binary.BigEndian.Uint64(p[38:])),
		}
		lastSeq := int32(binary.BigEndian.Uint32(p[10:]))
		lastOff := int64(binary.BigEndian.Uint64(p[14:]))
		delta := int32(binary.BigEndian.Uint32(p[22:]))
		if delta < 0 {
			return nil, fmt.Errorf("storage: snapshot %s byte %d: negative offset delta %d: %w", path, snapshotHeaderSize+i*snapshotEntrySize+22, delta, ErrCorruptFile)
		}
		if lastOff >= 0 {
			st.Batches = []ProducerBatch{{
				FirstSeq: decrementSequence(lastSeq, delta), LastSeq: lastSeq,
				FirstOffset: lastOff - int64(delta), LastOffset: lastOff,
				Timestamp: st.LastTimestamp,
			}}
		}
		out[i] = st
		p = p[snapshotEntrySize:]
	}
	return out, nil
}

// decrementSequence undoes record.IncrementSequence (Kafka's
// DefaultRecordBatch.decrementSequence).
func decrementSequence(seq, n int32) int32 {
	if seq < 0 {
		return seq
	}
	if seq < n {
		return 1<<31 - 1 - (n - seq) + 1
	}
	return seq - n
}

func (m *ProducerStateManager) snapshotPath(offset int64) string {
	return filepath.Join(m.dir, offsetFileName(offset, snapshotExt))
}

// snapshotOffsets lists the snapshot files of the directory, ascending.
func (m *ProducerStateManager) snapshotOffsets() ([]int64, error) {
	ents, err := m.fs.ReadDir(m.dir)
	if err != nil {
		return nil, fmt.Errorf("storage: list %s: %w", m.dir, err)
	}
	var out []int64
	for _, e := range ents {
		if off, ok := parseOffsetFileName(e.Name(), snapshotExt); ok && e.Type().IsRegular() {
			out = append(out, off)
		}
	}
	slices.Sort(out)
	return out, nil
}

// SnapshotOffsets lists the offsets of the snapshot files present.
func (m *ProducerStateManager) SnapshotOffsets() []int64 {
	offs, err := m.snapshotOffsets()
	if err != nil {
		return nil
	}
	return offs
}

// takeSnapshot writes the current state as <offset>.snapshot, the state of
// every batch below offset.
func (m *ProducerStateManager) takeSnapshot(offset int64) error {
	return writeFileAtomicSync(m.fs, m.snapshotPath(offset), encodeProducerSnapshot(m.Producers()), m.dirSync)
}

// loadLatestSnapshot replaces the state with the newest readable snapshot at
// or below limit and returns its offset; the open transactions are those of
// its entries with a current transaction. Unreadable snapshots are deleted
// and the next older one is tried, as Kafka does. ok is false when none is
// usable; the state is then empty.
func (m *ProducerStateManager) loadLatestSnapshot(limit int64) (offset int64, ok bool) {
	offs, err := m.snapshotOffsets()
	if err != nil {
		m.logger.Warn("storage: cannot list producer snapshots", "dir", m.dir, "err", err)
	}
	for i := len(offs) - 1; i >= 0; i-- {
		if offs[i] > limit {
			continue
		}
		path := m.snapshotPath(offs[i])
		states, err := readProducerSnapshot(m.fs, path)
		if err != nil {
			m.logger.Warn("storage: deleting unreadable producer snapshot", "file", path, "err", err)
			if rerr := m.fs.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				m.logger.Warn("storage: cannot delete producer snapshot", "file", path, "err", rerr)
			}
			continue
		}
		m.mu.Lock()
		m.producers = make(map[int64]*ProducerState, len(states))
		m.txns = txnSet{}
		for j := range states {
			m.producers[states[j].ProducerID] = &states[j]
			// An open transaction is open again (Kafka's
			// loadProducerEntry), so the LSO stays before it.
			if first := states[j].CurrentTxnFirstOffset; first >= 0 {
				m.txns.begin(states[j].ProducerID, first)
			}
		}
		m.mapEnd = offs[i]
		m.mu.Unlock()
		return offs[i], true
	}
	return -1, false
}

// deleteSnapshots removes the snapshot files whose offset satisfies drop.
func (m *ProducerStateManager) deleteSnapshots(drop func(int64) bool) error {
	offs, err := m.snapshotOffsets()
	if err != nil {
		return err
	}
	var errs []error
	for _, off := range offs {
		if !drop(off) {
			continue
		}
		if err := m.fs.Remove(m.snapshotPath(off)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("storage: remove snapshot: %w", err))
		}
	}
	return errors.Join(errs...)
}
