package record

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ControlType is the type in a control record's key. Types this package
// does not name (KRaft's LEADER_CHANGE and snapshot markers, future ones)
// are kept as numbers.
type ControlType int16

// The control record types of the transaction protocol.
const (
	ControlAbort  ControlType = 0
	ControlCommit ControlType = 1
)

// String is the name dump-log-segments prints (endTxnMarker: COMMIT).
func (t ControlType) String() string {
	switch t {
	case ControlAbort:
		return "ABORT"
	case ControlCommit:
		return "COMMIT"
	}
	return fmt.Sprintf("UNKNOWN(%d)", int16(t))
}

// ControlKey is the key of a control record: version int16, type int16
// (kmsg.ControlRecordKey, from Kafka's ControlRecordKey schema, reads and
// writes it).
type ControlKey struct {
	Version int16
	Type    ControlType
}

const controlKeySize = 4

// ParseControlKey decodes a control record key. Bytes after the type are
// ignored, as Kafka does, since a later key version may add fields.
func ParseControlKey(b []byte) (ControlKey, error) {
	var km kmsg.ControlRecordKey
	if err := km.ReadFrom(b); err != nil {
		return ControlKey{}, corruptf(len(b), "control key", "need %d bytes, have %d", controlKeySize, len(b))
	}
	k := ControlKey{Version: km.Version, Type: ControlType(km.Type)}
	if k.Version < 0 {
		return k, corruptf(0, "control key version", "%d is negative", k.Version)
	}
	return k, nil
}

// AppendTo appends the key's wire form.
func (k ControlKey) AppendTo(dst []byte) []byte {
	return (&kmsg.ControlRecordKey{Version: k.Version, Type: kmsg.ControlRecordKeyType(k.Type)}).AppendTo(dst)
}

// EndTxnMarker is the value of an ABORT or COMMIT control record: version
// int16, coordinatorEpoch int32 (kmsg.EndTxnMarker reads and writes it).
type EndTxnMarker struct {
	Version          int16
	CoordinatorEpoch int32
}

const endTxnMarkerSize = 6

// ParseEndTxnMarker decodes an end-transaction marker value. Bytes after
// the coordinator epoch are ignored, as for the key.
func ParseEndTxnMarker(b []byte) (EndTxnMarker, error) {
	var km kmsg.EndTxnMarker
	if err := km.ReadFrom(b); err != nil {
		return EndTxnMarker{}, corruptf(len(b), "end txn marker", "need %d bytes, have %d", endTxnMarkerSize, len(b))
	}
	m := EndTxnMarker{Version: km.Version, CoordinatorEpoch: km.CoordinatorEpoch}
	if m.Version < 0 {
		return m, corruptf(0, "end txn marker version", "%d is negative", m.Version)
	}
	return m, nil
}

// AppendTo appends the marker's wire form.
func (m EndTxnMarker) AppendTo(dst []byte) []byte {
	return (&kmsg.EndTxnMarker{Version: m.Version, CoordinatorEpoch: m.CoordinatorEpoch}).AppendTo(dst)
}

// BuildEndTxnMarker builds the control batch that ends a transaction: one
// ABORT or COMMIT record in a transactional, uncompressed control batch of
// the producer, as a partition leader appends for WriteTxnMarkers.
func BuildEndTxnMarker(baseOffset, producerID int64, producerEpoch int16, typ ControlType, coordinatorEpoch int32, ts int64) ([]byte, error) {
	b := NewBuilder(baseOffset, CodecNone)
	b.SetProducer(producerID, producerEpoch, -1)
	b.SetTransactional(true)
	b.SetControl(true)
	b.Append(ts, ControlKey{Type: typ}.AppendTo(nil), EndTxnMarker{CoordinatorEpoch: coordinatorEpoch}.AppendTo(nil), nil)
	return b.Build()
}

// maxControlBatch bounds the decompressed records of a control batch: one
// small record (markers are never compressed, but the codec bits are not
// trusted).
const maxControlBatch = 1 << 20

// ReadEndTxnMarker decodes the record of control batch b as an end-transaction
// marker. ok is false, with no error, when the batch holds no record (the
// cleaner keeps such empty batches) or its control type is neither ABORT nor
// COMMIT (KRaft's types): Kafka's producer state ignores both.
func ReadEndTxnMarker(b []byte) (typ ControlType, m EndTxnMarker, ok bool, err error) {
	_, it, err := IterRecords(b, maxControlBatch)
	if err != nil {
		return 0, m, false, err
	}
	if !it.Next() {
		return 0, m, false, it.Err()
	}
	k, err := ParseControlKey(it.Record().Key)
	if err != nil {
		return 0, m, false, err
	}
	if k.Type != ControlAbort && k.Type != ControlCommit {
		return k.Type, m, false, nil
	}
	if m, err = ParseEndTxnMarker(it.Record().Value); err != nil {
		return k.Type, m, false, err
	}
	return k.Type, m, true, nil
}
