package record

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
)

// Batch is a decoded RecordBatch v2: its header and every record.
type Batch struct {
	BatchHeader
	Records []Record
}

// ParseBatch decodes one whole batch: b must be exactly the batch (as
// BatchIter.Raw returns it). It checks the framing and the CRC, decompresses
// the records section (at most maxDecompressed bytes; a compressed batch
// needs a positive limit) and decodes every record, requiring exactly
// recordCount of them and nothing after. It does not apply the produce-path
// rules on offsets (see ValidateBatch), since compacted batches break them.
//
// Record keys and values alias b, or for a compressed batch a buffer owned
// by the result.
func ParseBatch(b []byte, maxDecompressed int) (*Batch, error) {
	h, section, err := openBatch(b, maxDecompressed, nil)
	if err != nil {
		return nil, err
	}
	recs, err := decodeRecords(section, h.RecordCount, h.Codec() != CodecNone)
	if err != nil {
		return nil, err
	}
	return &Batch{BatchHeader: h, Records: recs}, nil
}

// openBatch checks a whole batch's header, size and CRC and returns its
// header and records section, decompressed into dst[:0] when compressed.
func openBatch(b []byte, maxDecompressed int, dst []byte) (BatchHeader, []byte, error) {
	h, err := ParseBatchHeader(b)
	if err != nil {
		return h, nil, err
	}
	if size := h.Size(); len(b) < size {
		return h, nil, truncatedf(len(b), "batchLength", "batch of %d bytes, only %d present", size, len(b))
	} else if len(b) > size {
		return h, nil, corruptf(size, "batchLength", "batch ends at byte %d but %d bytes were given", size, len(b))
	}
	if err := VerifyCRC(b); err != nil {
		return h, nil, err
	}
	section, err := recordsSection(&h, b, maxDecompressed, dst)
	return h, section, err
}

// recordsSection returns the records of a batch whose framing is checked,
// decompressing when the attributes name a codec.
func recordsSection(h *BatchHeader, b []byte, maxDecompressed int, dst []byte) ([]byte, error) {
	c := h.Codec()
	if c == CodecNone {
		return b[BatchHeaderSize:], nil
	}
	if c > CodecZstd {
		return nil, corruptf(offAttributes, "attributes", "unknown compression codec %d", int8(c))
	}
	out, err := decompress(c, MagicV2, dst[:0], b[BatchHeaderSize:], maxDecompressed)
	if err != nil {
		return nil, &Error{Kind: KindCorrupt, Offset: BatchHeaderSize, Field: "records",
			Detail: "decompressing " + c.String(), Err: err}
	}
	return out, nil
}

// scratch buffers hold a compressed batch's records before compression and
// the decompressed records during validation.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// maxScratch keeps an occasional huge batch from pinning its buffer.
const maxScratch = 4 << 20

func putScratch(p *[]byte) {
	if cap(*p) <= maxScratch {
		scratch.Put(p)
	}
}

// AppendTo appends the batch in wire form. The header fields are written as
// they are, codec and all other attribute bits included, except the ones
// that follow from the bytes: batchLength, magic (2), crc and recordCount.
// lastOffsetDelta and the timestamps are not recomputed, so a compacted
// batch keeps them; Builder computes them for new batches.
func (b *Batch) AppendTo(dst []byte) ([]byte, error) {
	c := b.Codec()
	if c > CodecZstd {
		return dst, fmt.Errorf("record: encode batch: unknown compression codec %d in attributes", int8(c))
	}
	if len(b.Records) > math.MaxInt32 {
		return dst, fmt.Errorf("record: encode batch: %d records do not fit an int32 count", len(b.Records))
	}
	start := len(dst)
	var hdr [BatchHeaderSize]byte
	dst = append(dst, hdr[:]...)
	if c == CodecNone {
		for i := range b.Records {
			dst = appendRecord(dst, &b.Records[i])
		}
	} else {
		buf := scratch.Get().(*[]byte)
		raw := (*buf)[:0]
		for i := range b.Records {
			raw = appendRecord(raw, &b.Records[i])
		}
		var err error
		dst, err = compress(c, dst, raw)
		*buf = raw
		putScratch(buf)
		if err != nil {
			return dst[:start], err
		}
	}
	length := len(dst) - start - LogOverhead
	if length > math.MaxInt32 {
		return dst[:start], fmt.Errorf("record: encode batch: %d bytes do not fit the int32 batchLength", length)
	}
	h := b.BatchHeader
	h.BatchLength = int32(length)
	h.Magic = MagicV2
	h.RecordCount = int32(len(b.Records))
	out := dst[start:]
	h.put(out)
	binary.BigEndian.PutUint32(out[offCRC:], ComputeCRC(out))
	return dst, nil
}
