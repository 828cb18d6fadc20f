package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Format conversion between legacy message sets and v2 batches, for the
// protocol versions that predate RecordBatch: Produce v2 carries magic 0/1
// message sets, which the broker up-converts into one v2 batch before
// appending to its v2 log; Fetch v2/v3 answers must be magic 1 message sets,
// which it down-converts to on the way out (Kafka does both, KIP-31/32).

// UpConvert turns a magic 0 or 1 message set into one v2 batch holding the
// same records (compressed wrappers unpacked, at most maxDecompressed bytes
// each) and compressed with the wrapper's codec, as Kafka's LogValidator
// does. Messages with a bad CRC make it fail with a KindCorrupt error.
func UpConvert(set []byte, maxDecompressed int) ([]byte, error) {
	it := NewLegacyIter(set)
	codec := CodecNone
	var b *Builder
	n := 0
	for it.Next() {
		m := it.Message()
		if !m.ValidCRC() {
			return nil, corruptf(it.Pos()+legacyOffCRC, "crc", "legacy message at byte %d fails its CRC", it.Pos())
		}
		if b == nil {
			codec = m.Codec()
			b = NewBuilder(0, codec)
		}
		// The broker assigns the offsets, so the producer's wrapper and
		// relative offsets are ignored (Kafka's validator ignores them too).
		inner := []LegacyMessage{m}
		if m.Codec() != CodecNone {
			var err error
			if inner, err = m.innerMessages(maxDecompressed); err != nil {
				return nil, err
			}
		}
		for i := range inner {
			ts := inner[i].Timestamp
			b.Append(ts, inner[i].Key, inner[i].Value, nil)
			n++
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, invalidf(0, "messageSet", "no messages")
	}
	return b.Build()
}

// DownConvert rewrites v2 batches as an uncompressed magic 1 message set:
// every record becomes a message with its absolute offset and timestamp.
// Control batches are dropped (consumers never see them) and record headers
// are lost: magic 1 has none, as in Kafka's down-conversion.
func DownConvert(batches []byte, maxDecompressed int) ([]byte, error) {
	out := make([]byte, 0, len(batches))
	it := NewBatchIter(batches)
	for it.Next() {
		h := it.Header()
		if h.IsControl() {
			continue
		}
		batch, err := ParseBatch(it.Raw(), maxDecompressed)
		if err != nil {
			return nil, fmt.Errorf("record: down-converting the batch at offset %d: %w", h.BaseOffset, err)
		}
		for i := range batch.Records {
			r := &batch.Records[i]
			out = appendLegacyV1(out, h.OffsetOf(r), h.TimestampOf(r), h.LogAppendTime(), r.Key, r.Value)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// appendLegacyV1 appends one uncompressed magic 1 message: offset, size,
// CRC-32 (IEEE) of magic..end, magic, attributes, timestamp, key, value.
func appendLegacyV1(dst []byte, offset, ts int64, logAppendTime bool, key, value []byte) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(offset))
	dst = binary.BigEndian.AppendUint32(dst, 0) // size, patched below
	dst = binary.BigEndian.AppendUint32(dst, 0) // crc, patched below
	dst = append(dst, 1)
	var attrs byte
	if logAppendTime {
		attrs |= AttrTimestampType
	}
	dst = append(dst, attrs)
	dst = binary.BigEndian.AppendUint64(dst, uint64(ts))
	dst = appendLegacyBytes(dst, key)
	dst = appendLegacyBytes(dst, value)
	binary.BigEndian.PutUint32(dst[start+offBatchLength:], uint32(len(dst)-start-LogOverhead))
	binary.BigEndian.PutUint32(dst[start+legacyOffCRC:], crc32.ChecksumIEEE(dst[start+offMagic:]))
	return dst
}

func appendLegacyBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.BigEndian.AppendUint32(dst, 0xffffffff)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}
