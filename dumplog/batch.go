package dumplog

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"kafgo/broker/record"
)

// crcOffset is where a v2 batch stores its CRC (see broker/record/doc.go).
const crcOffset = 17

// timestampType is Kafka's TimestampType.toString for a v2 batch.
func timestampType(logAppendTime bool) string {
	if logAppendTime {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// batchEntry prints a v2 batch and, under deep iteration, its records.
func (d *dumper) batchEntry(st *logState, e *entry, pos int64) {
	h := &e.batch
	crcErr := record.VerifyCRC(e.raw)
	d.printf("baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
		h.BaseOffset, h.LastOffset(), h.RecordCount, h.BaseSequence, h.LastSequence(),
		h.ProducerID, h.ProducerEpoch, h.PartitionLeaderEpoch, h.IsTransactional(), h.IsControl(),
		pos, timestampType(h.LogAppendTime()), h.MaxTimestamp, e.size(), h.Magic, h.Codec(), h.CRC, crcErr == nil)
	if crcErr != nil {
		d.problemAt(st.path, pos, "Invalid batch", atFile(crcErr, pos))
	}
	if !d.o.deep() {
		return
	}
	it, err := openRecords(e.raw, crcErr != nil, d.o.maxDecompressed())
	if err != nil {
		d.problemAt(st.path, pos, "Undecodable batch", atFile(err, pos))
		return
	}
	for it.Next() {
		d.v2Record(st, h, it.Record(), pos)
	}
	if err := it.Err(); err != nil {
		d.problemAt(st.path, pos, "Undecodable records in the batch", atFile(err, pos))
	}
}

// openRecords returns an iterator over a batch's records. Kafka's deep
// iteration does not check the CRC, so a batch whose CRC is wrong is
// decoded from a copy with the CRC recomputed: isvalid: false already
// told the reader, and the records may still be readable.
func openRecords(raw []byte, badCRC bool, maxDecompressed int) (*record.RecordIter, error) {
	if badCRC && len(raw) >= record.BatchHeaderSize {
		raw = slices.Clone(raw)
		binary.BigEndian.PutUint32(raw[crcOffset:], record.ComputeCRC(raw))
	}
	_, it, err := record.IterRecords(raw, maxDecompressed)
	return it, err
}

// v2Record prints one record line of a v2 batch.
func (d *dumper) v2Record(st *logState, h *record.BatchHeader, r *record.Record, pos int64) {
	offset := h.OffsetOf(r)
	d.recordOffset(st, offset)
	prefix := "| "
	if !d.o.SkipRecordMetadata {
		d.printf("| offset: %d %s: %d keySize: %d valueSize: %d sequence: %d headerKeys: %s",
			offset, timestampType(h.LogAppendTime()), h.TimestampOf(r), size(r.Key), size(r.Value),
			h.SequenceOf(r), headerKeys(r.Headers))
		prefix = " "
		if h.IsControl() {
			d.printControl(st, r, pos)
		}
	}
	if d.o.printData() && !h.IsControl() {
		d.printContents(st, pos, offset, prefix, r.Key, r.Value)
	}
	d.printf("\n")
}

// printControl prints what Kafka prints for a control record.
func (d *dumper) printControl(st *logState, r *record.Record, pos int64) {
	k, err := record.ParseControlKey(r.Key)
	if err != nil {
		d.problemAt(st.path, pos, "Undecodable control record in the batch", err)
		return
	}
	switch k.Type {
	case record.ControlAbort, record.ControlCommit:
		m, err := record.ParseEndTxnMarker(r.Value)
		if err != nil {
			d.problemAt(st.path, pos, "Undecodable end transaction marker in the batch", err)
			return
		}
		d.printf(" endTxnMarker: %s coordinatorEpoch: %d", k.Type, m.CoordinatorEpoch)
	default:
		d.printf(" controlType: %s(%d)", controlTypeName(k.Type), int16(k.Type))
	}
}

// controlTypeName is Kafka's ControlRecordType name for the types it
// defines beyond ABORT and COMMIT (KRaft's), UNKNOWN otherwise.
func controlTypeName(t record.ControlType) string {
	switch t {
	case 2:
		return "LEADER_CHANGE"
	case 3:
		return "SNAPSHOT_HEADER"
	case 4:
		return "SNAPSHOT_FOOTER"
	}
	return "UNKNOWN"
}

// size is Kafka's keySize/valueSize: -1 for null.
func size(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// headerKeys is Scala's headers.map(_.key).mkString("[", ",", "]").
func headerKeys(hs []record.Header) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, h := range hs {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(javaString([]byte(h.Key)))
	}
	sb.WriteByte(']')
	return sb.String()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
