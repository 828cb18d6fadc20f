// Package kafkadisk writes the files of an Apache Kafka 2.x log dir byte
// for byte, for tests that start kafgo on a directory "Kafka left behind".
//
// It is deliberately independent of kafgo's own encoders (broker/record,
// broker/storage, broker/group, broker/txn): each format is written here from
// Kafka 2.8's source, so a test compares kafgo's readers with Kafka's writers
// rather than with themselves. The sources, all in apache/kafka at 2.8.2:
//
//   - RecordBatch v2 and records: clients/.../record/DefaultRecordBatch.java,
//     DefaultRecord.java; CRC-32C over attributes..end; control records
//     (ControlRecordType.java: key version int16 0, type int16 0 abort /
//     1 commit) and their value (EndTransactionMarker.java: version int16
//     0, coordinator_epoch int32).
//   - Offset index (8-byte entries: relative offset int32, position int32)
//     and time index (12-byte entries: timestamp int64, relative offset
//     int32): core/.../log/OffsetIndex.scala, TimeIndex.scala; an entry
//     after each index.interval.bytes of appends (LogSegment.append), a
//     final time index entry when the segment becomes inactive or closes
//     (onBecomeInactiveSegment, close).
//   - Transaction index (34-byte AbortedTxn: version int16 0, producer_id
//     int64, first_offset int64, last_offset int64, last_stable_offset
//     int64): core/.../log/TransactionIndex.scala.
//   - Producer snapshot version 1 (version int16, crc uint32 = CRC-32C of
//     what follows it, then an int32-counted array of producer_id int64,
//     epoch int16, last_sequence int32, last_offset int64, offset_delta
//     int32, timestamp int64, coordinator_epoch int32,
//     current_txn_first_offset int64): core/.../log/ProducerStateManager.scala.
//   - Checkpoints (version line, count line, entries) and meta.properties
//     and partition.metadata: server/checkpoints, BrokerMetadataCheckpoint,
//     PartitionMetadataFile.scala (no final newline).
//   - __consumer_offsets keys and values (offset commit key version 1,
//     value versions 1 and 3; group metadata key version 2, value version 3)
//     and __transaction_state (key and value version 0,
//     TransactionLogKey/Value.json, statuses from TransactionMetadata.scala),
//     in the old non-flexible struct encoding (STRING int16 length, BYTES and
//     ARRAY int32 length, -1 for null).
package kafkadisk

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is one record of a batch.
type Record struct {
	Key, Value     []byte // nil is null
	TimestampDelta int64
}

// Batch is one RecordBatch v2.
type Batch struct {
	BaseOffset     int64
	LeaderEpoch    int32
	ProducerID     int64 // -1 for none
	ProducerEpoch  int16 // -1 for none
	BaseSequence   int32 // -1 for none
	Transactional  bool
	Control        bool
	FirstTimestamp int64
	Records        []Record
}

// LastOffset is the batch's last offset.
func (b Batch) LastOffset() int64 { return b.BaseOffset + int64(len(b.Records)) - 1 }

// MaxTimestamp is the largest record timestamp.
func (b Batch) MaxTimestamp() int64 {
	m := b.FirstTimestamp
	for _, r := range b.Records {
		m = max(m, b.FirstTimestamp+r.TimestampDelta)
	}
	return m
}

func appendVarint(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

func appendVarBytes(b, v []byte) []byte {
	if v == nil {
		return appendVarint(b, -1)
	}
	b = appendVarint(b, int64(len(v)))
	return append(b, v...)
}

// Encode writes the batch as DefaultRecordBatch does, uncompressed.
func (b Batch) Encode() []byte {
	var recs []byte
	for i, r := range b.Records {
		var body []byte
		body = append(body, 0) // attributes
		body = appendVarint(body, r.TimestampDelta)
		body = appendVarint(body, int64(i))
		body = appendVarBytes(body, r.Key)
		body = appendVarBytes(body, r.Value)
		body = appendVarint(body, 0) // headers
		recs = appendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	var attrs uint16
	if b.Transactional {
		attrs |= 0x10
	}
	if b.Control {
		attrs |= 0x20
	}
	out := make([]byte, 61, 61+len(recs))
	binary.BigEndian.PutUint64(out[0:], uint64(b.BaseOffset))
	binary.BigEndian.PutUint32(out[8:], uint32(49+len(recs)))
	binary.BigEndian.PutUint32(out[12:], uint32(b.LeaderEpoch))
	out[16] = 2
	binary.BigEndian.PutUint16(out[21:], attrs)
	binary.BigEndian.PutUint32(out[23:], uint32(len(b.Records)-1))
	binary.BigEndian.PutUint64(out[27:], uint64(b.FirstTimestamp))
	binary.BigEndian.PutUint64(out[35:], uint64(b.MaxTimestamp()))
	binary.BigEndian.PutUint64(out[43:], uint64(b.ProducerID))
	binary.BigEndian.PutUint16(out[51:], uint16(b.ProducerEpoch))
	binary.BigEndian.PutUint32(out[53:], uint32(b.BaseSequence))
	binary.BigEndian.PutUint32(out[57:], uint32(len(b.Records)))
	out = append(out, recs...)
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], castagnoli))
	return out
}

// EndTxnMarker is the control batch a transaction coordinator writes:
// commit or abort of producerID's transaction.
func EndTxnMarker(offset int64, leaderEpoch int32, producerID int64, epoch int16, commit bool, coordinatorEpoch int32, ts int64) Batch {
	key := []byte{0, 0, 0, 0}
	if commit {
		key[3] = 1
	}
	val := make([]byte, 6)
	binary.BigEndian.PutUint32(val[2:], uint32(coordinatorEpoch))
	return Batch{BaseOffset: offset, LeaderEpoch: leaderEpoch, ProducerID: producerID, ProducerEpoch: epoch, BaseSequence: -1,
		Transactional: true, Control: true, FirstTimestamp: ts, Records: []Record{{Key: key, Value: val}}}
}

// Plain is a non-transactional batch without a producer id (what the
// coordinators append to __consumer_offsets and __transaction_state).
func Plain(offset int64, leaderEpoch int32, ts int64, recs ...Record) Batch {
	return Batch{BaseOffset: offset, LeaderEpoch: leaderEpoch, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, FirstTimestamp: ts, Records: recs}
}

// AbortedTxn is one .txnindex entry.
type AbortedTxn struct {
	ProducerID                                int64
	FirstOffset, LastOffset, LastStableOffset int64
}

// ProducerEntry is one producer of a snapshot.
type ProducerEntry struct {
	ProducerID            int64
	Epoch                 int16
	LastSequence          int32
	LastOffset            int64
	OffsetDelta           int32
	Timestamp             int64
	CoordinatorEpoch      int32
	CurrentTxnFirstOffset int64 // -1 for none
}

// Segment is one segment of a partition.
type Segment struct {
	Batches []Batch
	Aborted []AbortedTxn
	// Active leaves the index files as an unclean stop leaves them:
	// preallocated (10 MiB of zeros past the entries) and without the final
	// time index entry of a rolled or closed segment.
	Active bool
}

// IndexIntervalBytes is log.index.interval.bytes (Kafka's default).
const IndexIntervalBytes = 4096

// preallocated is segment.index.bytes (10 MiB), the size of a live index.
const preallocated = 10 << 20

// Write writes the segment's files into dir, named by its base offset.
func (s Segment) Write(dir string) error {
	if len(s.Batches) == 0 {
		return fmt.Errorf("kafkadisk: empty segment")
	}
	base := s.Batches[0].BaseOffset
	var log, idx, tidx []byte
	sinceIndex := 0
	var maxTs int64 = -1
	var maxTsOffset int64
	lastTimeEntry := int64(-1)
	for _, b := range s.Batches {
		// LogSegment.append, one batch per append: track the largest
		// timestamp, then index the append (its last offset at the position
		// it starts) once more than index.interval.bytes went by since the
		// last entry; the time index takes the largest timestamp so far if
		// it grew (TimeIndex.maybeAppend).
		enc := b.Encode()
		if b.MaxTimestamp() > maxTs {
			maxTs, maxTsOffset = b.MaxTimestamp(), b.LastOffset()
		}
		if sinceIndex > IndexIntervalBytes {
			idx = binary.BigEndian.AppendUint32(idx, uint32(b.LastOffset()-base))
			idx = binary.BigEndian.AppendUint32(idx, uint32(len(log)))
			if maxTs > lastTimeEntry {
				tidx = binary.BigEndian.AppendUint64(tidx, uint64(maxTs))
				tidx = binary.BigEndian.AppendUint32(tidx, uint32(maxTsOffset-base))
				lastTimeEntry = maxTs
			}
			sinceIndex = 0
		}
		log = append(log, enc...)
		sinceIndex += len(enc)
	}
	if !s.Active && maxTs > lastTimeEntry {
		tidx = binary.BigEndian.AppendUint64(tidx, uint64(maxTs))
		tidx = binary.BigEndian.AppendUint32(tidx, uint32(maxTsOffset-base))
	}
	if s.Active {
		idx = append(idx, make([]byte, preallocated-len(idx))...)
		tidx = append(tidx, make([]byte, preallocated/12*12-len(tidx))...)
	}
	name := filepath.Join(dir, fmt.Sprintf("%020d", base))
	files := map[string][]byte{".log": log, ".index": idx, ".timeindex": tidx}
	if len(s.Aborted) > 0 {
		var t []byte
		for _, a := range s.Aborted {
			t = binary.BigEndian.AppendUint16(t, 0)
			t = binary.BigEndian.AppendUint64(t, uint64(a.ProducerID))
			t = binary.BigEndian.AppendUint64(t, uint64(a.FirstOffset))
			t = binary.BigEndian.AppendUint64(t, uint64(a.LastOffset))
			t = binary.BigEndian.AppendUint64(t, uint64(a.LastStableOffset))
		}
		files[".txnindex"] = t
	}
	for ext, data := range files {
		if err := os.WriteFile(name+ext, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteSnapshot writes <dir>/<offset>.snapshot, entries sorted by producer id.
func WriteSnapshot(dir string, offset int64, entries []ProducerEntry) error {
	sort.Slice(entries, func(i, j int) bool { return entries[i].ProducerID < entries[j].ProducerID })
	var body []byte
	body = binary.BigEndian.AppendUint32(body, uint32(len(entries)))
	for _, e := range entries {
		body = binary.BigEndian.AppendUint64(body, uint64(e.ProducerID))
		body = binary.BigEndian.AppendUint16(body, uint16(e.Epoch))
		body = binary.BigEndian.AppendUint32(body, uint32(e.LastSequence))
		body = binary.BigEndian.AppendUint64(body, uint64(e.LastOffset))
		body = binary.BigEndian.AppendUint32(body, uint32(e.OffsetDelta))
		body = binary.BigEndian.AppendUint64(body, uint64(e.Timestamp))
		body = binary.BigEndian.AppendUint32(body, uint32(e.CoordinatorEpoch))
		body = binary.BigEndian.AppendUint64(body, uint64(e.CurrentTxnFirstOffset))
	}
	out := binary.BigEndian.AppendUint16(nil, 1)
	out = binary.BigEndian.AppendUint32(out, crc32.Checksum(body, castagnoli))
	out = append(out, body...)
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%020d.snapshot", offset)), out, 0o644)
}

// Checkpoint is the text of a checkpoint file.
func Checkpoint(lines ...string) []byte {
	return []byte(fmt.Sprintf("0\n%d\n", len(lines)) + strings.Join(append(lines, ""), "\n"))
}

// MetaProperties is meta.properties version 0 as Properties.store writes it.
func MetaProperties(brokerID int32, clusterID string) []byte {
	return []byte(fmt.Sprintf("#\n#Wed Dec 02 12:00:00 UTC 2026\ncluster.id=%s\nversion=0\nbroker.id=%d\n", clusterID, brokerID))
}

// PartitionMetadata is partition.metadata (Kafka 2.8, no final newline).
func PartitionMetadata(topicID string) []byte {
	return []byte("version: 0\ntopic_id: " + topicID)
}

// Struct encoding helpers (non-flexible).
type structBuf []byte

func (s structBuf) i8(v int8) structBuf   { return append(s, byte(v)) }
func (s structBuf) i16(v int16) structBuf { return binary.BigEndian.AppendUint16(s, uint16(v)) }
func (s structBuf) i32(v int32) structBuf { return binary.BigEndian.AppendUint32(s, uint32(v)) }
func (s structBuf) i64(v int64) structBuf { return binary.BigEndian.AppendUint64(s, uint64(v)) }
func (s structBuf) str(v string) structBuf {
	return append(s.i16(int16(len(v))), v...)
}
func (s structBuf) nullableStr(v *string) structBuf {
	if v == nil {
		return s.i16(-1)
	}
	return s.str(*v)
}

// OffsetCommitKey is the __consumer_offsets key of a commit (version 1).
func OffsetCommitKey(group, topic string, partition int32) []byte {
	return structBuf(nil).i16(1).str(group).str(topic).i32(partition)
}

// OffsetCommitValueV3 is an offset commit value, version 3 (IBP 2.1+).
func OffsetCommitValueV3(offset int64, leaderEpoch int32, metadata string, commitTs int64) []byte {
	return structBuf(nil).i16(3).i64(offset).i32(leaderEpoch).str(metadata).i64(commitTs)
}

// OffsetCommitValueV1 is an offset commit value, version 1 (IBP < 2.1, or
// a commit with a client-given retention).
func OffsetCommitValueV1(offset int64, metadata string, commitTs, expireTs int64) []byte {
	return structBuf(nil).i16(1).i64(offset).str(metadata).i64(commitTs).i64(expireTs)
}

// GroupMetadataKey is the __consumer_offsets key of a group (version 2).
func GroupMetadataKey(group string) []byte { return structBuf(nil).i16(2).str(group) }

// EmptyGroupValueV3 is the group metadata (version 3) of a group with no
// members, as written when its last member leaves.
func EmptyGroupValueV3(protocolType string, generation int32, stateTs int64) []byte {
	return structBuf(nil).i16(3).str(protocolType).i32(generation).nullableStr(nil).nullableStr(nil).i64(stateTs).i32(0)
}

// Transaction states (TransactionMetadata.scala).
const (
	TxnEmpty          int8 = 0
	TxnOngoing        int8 = 1
	TxnPrepareCommit  int8 = 2
	TxnPrepareAbort   int8 = 3
	TxnCompleteCommit int8 = 4
	TxnCompleteAbort  int8 = 5
)

// TxnKey is the __transaction_state key (version 0).
func TxnKey(transactionalID string) []byte { return structBuf(nil).i16(0).str(transactionalID) }

// TxnValue is the __transaction_state value (version 0). partitions nil
// is written as a null array, as Kafka writes it for the Empty state.
func TxnValue(producerID int64, epoch int16, timeoutMs int32, state int8, partitions map[string][]int32, lastUpdateTs, startTs int64) []byte {
	s := structBuf(nil).i16(0).i64(producerID).i16(epoch).i32(timeoutMs).i8(state)
	if partitions == nil {
		s = s.i32(-1)
	} else {
		topics := make([]string, 0, len(partitions))
		for t := range partitions {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		s = s.i32(int32(len(topics)))
		for _, t := range topics {
			s = s.str(t).i32(int32(len(partitions[t])))
			for _, p := range partitions[t] {
				s = s.i32(p)
			}
		}
	}
	return s.i64(lastUpdateTs).i64(startTs)
}

// CoordinatorPartition is Kafka's partition for a group or transactional
// id: Utils.abs(String.hashCode) % partitions.
func CoordinatorPartition(id string, partitions int32) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(id)) {
		h = 31*h + int32(u)
	}
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % partitions
}
