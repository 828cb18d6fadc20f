package dumplog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"kafgo/broker/storage"
)

// dumpSnapshot dumps a producer state snapshot: one line per producer with
// its last batch, as Kafka 3.0 prints its ProducerStateEntry.
func (d *dumper) dumpSnapshot(path string) {
	states, err := storage.ReadProducerSnapshot(path)
	if errors.Is(err, storage.ErrCorruptFile) {
		// Kafka prints the CorruptSnapshotException's message.
		d.problemf(path, "%v", err)
		return
	}
	if err != nil {
		d.fail(path, err)
		return
	}
	for i := range states {
		s := &states[i]
		d.printf("producerId: %d producerEpoch: %d coordinatorEpoch: %d currentTxnFirstOffset: %s ",
			s.ProducerID, s.Epoch, s.CoordinatorEpoch, javaOptionLong(s.CurrentTxnFirstOffset))
		if n := len(s.Batches); n > 0 {
			// A snapshot keeps one batch per producer: Kafka's
			// batchMetadata.headOption.
			b := s.Batches[0]
			d.printf("firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d",
				b.FirstSeq, b.LastSeq, b.LastOffset, b.LastOffset-b.FirstOffset, b.Timestamp)
		}
		d.printf("\n")
	}
}

// Transaction index (Kafka's TransactionIndex): 34-byte entries of
// version int16 (0), producerId int64, firstOffset int64, lastOffset
// int64, lastStableOffset int64, one per aborted transaction (written by
// broker/storage's txn_index.go, as by Kafka). The dump reads entry by entry
// rather than through storage.ReadTxnIndex so that it prints what precedes a
// bad entry, as Kafka's tool does.
const (
	txnEntrySize  = 34
	txnVersion    = 0
	maxTxnIdxSize = 1 << 30
)

// dumpTxnIndex dumps a .txnindex file, one line per aborted transaction.
func (d *dumper) dumpTxnIndex(path string) {
	f, err := os.Open(path)
	if err != nil {
		d.fail(path, err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		d.fail(path, err)
		return
	}
	if st.Size() > maxTxnIdxSize {
		d.problemf(path, "%s: %d bytes is larger than any transaction index", path, st.Size())
		return
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		d.fail(path, fmt.Errorf("%w: %w", errRead, err))
		return
	}
	be := binary.BigEndian
	pos := 0
	for ; len(data)-pos >= txnEntrySize; pos += txnEntrySize {
		e := data[pos:]
		if v := int16(be.Uint16(e)); v > txnVersion {
			// Kafka stops with "Unexpected aborted transaction version".
			d.problemAt(path, int64(pos), "Unexpected aborted transaction version "+itoa(int64(v)), errors.New("the current version is 0"))
			return
		}
		d.printf("version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d\n",
			int16(be.Uint16(e)), int64(be.Uint64(e[2:])), int64(be.Uint64(e[10:])), int64(be.Uint64(e[18:])), int64(be.Uint64(e[26:])))
	}
	if pos < len(data) {
		d.problemAt(path, int64(pos), "Partial transaction index entry", fmt.Errorf("%d bytes, an entry has %d", len(data)-pos, txnEntrySize))
	}
}
