package record

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/snappy/xerial"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kmsgRecords encodes records with franz-go's kmsg.Record, computing each
// record's Length the only way kmsg allows: encode once, measure.
func kmsgRecords(recs []Record) []byte {
	var out []byte
	for _, r := range recs {
		kr := kmsg.Record{Attributes: r.Attributes, TimestampDelta64: r.TimestampDelta, OffsetDelta: r.OffsetDelta, Key: r.Key, Value: r.Value}
		for _, h := range r.Headers {
			kr.Headers = append(kr.Headers, kmsg.Header{Key: h.Key, Value: h.Value})
		}
		kr.Length = int32(len(kr.AppendTo(nil)) - 1) // Length 0 took one byte
		out = kr.AppendTo(out)
	}
	return out
}

// kmsgBatch encodes a batch with kmsg.RecordBatch, with the CRC computed
// here by the stdlib over bytes 21.. of kmsg's own output.
func kmsgBatch(h BatchHeader, records []byte) []byte {
	kb := kmsg.RecordBatch{
		FirstOffset: h.BaseOffset, Length: int32(49 + len(records)), PartitionLeaderEpoch: h.PartitionLeaderEpoch,
		Magic: 2, Attributes: h.Attributes, LastOffsetDelta: h.LastOffsetDelta,
		FirstTimestamp: h.FirstTimestamp, MaxTimestamp: h.MaxTimestamp, ProducerID: h.ProducerID,
		ProducerEpoch: h.ProducerEpoch, FirstSequence: h.BaseSequence, NumRecords: h.RecordCount, Records: records,
	}
	out := kb.AppendTo(nil)
	kb.CRC = int32(crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return kb.AppendTo(nil)
}

func TestInteropKmsgByteIdentical(t *testing.T) {
	headers := []BatchHeader{
		{BaseOffset: 0, PartitionLeaderEpoch: -1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
		{BaseOffset: 1 << 40, PartitionLeaderEpoch: 12, Attributes: AttrTransactional | AttrTimestampType, ProducerID: 99, ProducerEpoch: 7, BaseSequence: 2147483000},
		{BaseOffset: 5, Attributes: AttrDeleteHorizonSet | AttrControl | AttrTransactional, ProducerID: 1, ProducerEpoch: 0, BaseSequence: 0},
	}
	for i, base := range headers {
		for _, c := range allCodecs {
			t.Run(fmt.Sprintf("%d/%v", i, c), func(t *testing.T) {
				recs := sampleRecords()
				h := base
				h.Attributes |= int16(c)
				h.LastOffsetDelta, h.FirstTimestamp, h.MaxTimestamp = int32(len(recs)-1), 1_700_000_000_000, 1_700_000_000_999
				ours, err := (&Batch{BatchHeader: h, Records: recs}).AppendTo(nil)
				if err != nil {
					t.Fatal(err)
				}
				h.RecordCount = int32(len(recs))
				section := kmsgRecords(recs)
				if c == CodecNone {
					if !bytes.Equal(ours[BatchHeaderSize:], section) {
						t.Fatal("records section differs from kmsg.Record encoding")
					}
				} else {
					// Compressed output is ours by design; what must match
					// is every header byte around it.
					section = ours[BatchHeaderSize:]
				}
				theirs := kmsgBatch(h, section)
				if !bytes.Equal(ours, theirs) {
					t.Fatalf("batch differs from kmsg.RecordBatch:\nours   %x\ntheirs %x", ours[:BatchHeaderSize], theirs[:BatchHeaderSize])
				}

				// franz-go reads ours.
				var kb kmsg.RecordBatch
				if err := kb.ReadFrom(ours); err != nil {
					t.Fatal(err)
				}
				if kb.FirstOffset != h.BaseOffset || kb.Attributes != h.Attributes || kb.NumRecords != h.RecordCount || uint32(kb.CRC) != ComputeCRC(ours) {
					t.Fatalf("kmsg read %+v", kb)
				}
				// And we read theirs.
				got, err := ParseBatch(theirs, testLimit)
				if err != nil {
					t.Fatal(err)
				}
				if d := diffRecords(recs, got.Records); d != "" {
					t.Fatal(d)
				}
			})
		}
	}
}

func TestInteropKmsgReadsOurRecords(t *testing.T) {
	recs := sampleRecords()
	sec := encodeSection(recs)
	for i, pos := 0, 0; pos < len(sec); i++ {
		l, n := binary.Varint(sec[pos:])
		var kr kmsg.Record
		if err := kr.ReadFrom(sec[pos : pos+n+int(l)]); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		r := recs[i]
		if kr.TimestampDelta64 != r.TimestampDelta || kr.OffsetDelta != r.OffsetDelta || !equalBytesNull(kr.Key, r.Key) ||
			!equalBytesNull(kr.Value, r.Value) || len(kr.Headers) != len(r.Headers) {
			t.Fatalf("record %d: kmsg read %+v, want %+v", i, kr, r)
		}
		pos += n + int(l)
	}
}

var kgoCodecs = map[Codec]kgo.CompressionCodec{
	CodecGzip: kgo.GzipCompression(), CodecSnappy: kgo.SnappyCompression(),
	CodecLZ4: kgo.Lz4Compression(), CodecZstd: kgo.ZstdCompression(),
}

// batchAround wraps an already compressed records section in a header.
func batchAround(c Codec, count int, section []byte) []byte {
	h := BatchHeader{Attributes: int16(c), LastOffsetDelta: int32(count - 1), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, RecordCount: int32(count)}
	return kmsgBatch(h, section)
}

func manyRecords(n, size int) []Record {
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{OffsetDelta: int32(i), TimestampDelta: int64(i), Key: []byte(fmt.Sprint(i)), Value: payload(uint64(i), size)}
	}
	return recs
}

func TestInteropFranzGoCompressors(t *testing.T) {
	for _, n := range []int{1, 100, 2000} {
		recs := manyRecords(n, 100)
		plain := encodeSection(recs)
		for c, kc := range kgoCodecs {
			t.Run(fmt.Sprintf("%v/%d", c, n), func(t *testing.T) {
				comp, err := kgo.DefaultCompressor(kc)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				section, used := comp.Compress(&buf, plain)
				if int8(used) != int8(c) {
					t.Fatalf("franz-go used codec %d", used)
				}
				got, err := ParseBatch(batchAround(c, n, section), testLimit)
				if err != nil {
					t.Fatalf("franz-go %v batch: %v", c, err)
				}
				if d := diffRecords(recs, got.Records); d != "" {
					t.Fatal(d)
				}

				// franz-go decompresses what we compress.
				ours, err := compress(c, nil, plain)
				if err != nil {
					t.Fatal(err)
				}
				back, err := kgo.DefaultDecompressor().Decompress(ours, kgo.CompressionCodecType(c))
				if err != nil || !bytes.Equal(back, plain) {
					t.Fatalf("franz-go decompressing ours: %v", err)
				}
			})
		}
	}
}

// javaStyle are the encodings Java clients and brokers produce, built with
// libraries independent of our encoders.
func javaStyle(t *testing.T, plain []byte) map[string]struct {
	c    Codec
	data []byte
} {
	gz := func(level int, members int) []byte {
		var buf bytes.Buffer
		per := len(plain)/members + 1
		for rest := plain; len(rest) > 0; {
			part := rest[:min(per, len(rest))]
			rest = rest[len(part):]
			w, _ := stdgzip.NewWriterLevel(&buf, level)
			w.Write(part)
			w.Close()
		}
		return buf.Bytes()
	}
	xerialChunks := func(chunk int, enc func([]byte, []byte) []byte) []byte {
		out := append([]byte{}, xerialMagic...)
		out = append(out, 0, 0, 0, 1, 0, 0, 0, 1)
		for rest := plain; len(rest) > 0; {
			part := rest[:min(chunk, len(rest))]
			rest = rest[len(part):]
			block := enc(nil, part)
			out = binary.BigEndian.AppendUint32(out, uint32(len(block)))
			out = append(out, block...)
		}
		return out
	}
	zs := func(stream bool, opts ...zstd.EOption) []byte {
		if !stream {
			e, err := zstd.NewWriter(nil, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			return e.EncodeAll(plain, nil)
		}
		var buf bytes.Buffer
		e, err := zstd.NewWriter(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		e.Write(plain)
		e.Close()
		return buf.Bytes()
	}
	two := func(a, b []byte) []byte { return append(append([]byte{}, a...), b...) }
	half := len(plain) / 2
	zsHalf := func(p []byte) []byte {
		e, _ := zstd.NewWriter(nil)
		defer e.Close()
		return e.EncodeAll(p, nil)
	}
	return map[string]struct {
		c    Codec
		data []byte
	}{
		"gzip default":            {CodecGzip, gz(stdgzip.DefaultCompression, 1)},
		"gzip best speed":         {CodecGzip, gz(stdgzip.BestSpeed, 1)},
		"gzip stored":             {CodecGzip, gz(stdgzip.NoCompression, 1)},
		"gzip two members":        {CodecGzip, gz(stdgzip.DefaultCompression, 2)},
		"snappy xerial (library)": {CodecSnappy, xerial.Encode(nil, plain)},
		"snappy xerial 8k chunks": {CodecSnappy, xerialChunks(8<<10, s2.EncodeSnappy)},
		"snappy xerial better":    {CodecSnappy, xerialChunks(32<<10, snappy.Encode)},
		"snappy raw block":        {CodecSnappy, s2.EncodeSnappy(nil, plain)},
		"snappy raw block better": {CodecSnappy, snappy.Encode(nil, plain)},
		"lz4 default frame":       {CodecLZ4, pierrecLZ4(t, plain)},
		"lz4 64k no checksums":    {CodecLZ4, pierrecLZ4(t, plain, lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false))},
		"lz4 block checksums":     {CodecLZ4, pierrecLZ4(t, plain, lz4.BlockChecksumOption(true))},
		"lz4 content size":        {CodecLZ4, pierrecLZ4(t, plain, lz4.SizeOption(uint64(len(plain))), lz4.BlockSizeOption(lz4.Block256Kb))},
		"lz4 everything":          {CodecLZ4, pierrecLZ4(t, plain, lz4.SizeOption(uint64(len(plain))), lz4.BlockChecksumOption(true), lz4.ChecksumOption(true), lz4.BlockSizeOption(lz4.Block1Mb))},
		"lz4 high compression":    {CodecLZ4, pierrecLZ4(t, plain, lz4.CompressionLevelOption(lz4.Level9))},
		"zstd EncodeAll":          {CodecZstd, zs(false)},
		"zstd stream, no size":    {CodecZstd, zs(true, zstd.WithWindowSize(1<<21))},
		"zstd best, no crc":       {CodecZstd, zs(false, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderCRC(false))},
		"zstd single segment":     {CodecZstd, zs(false, zstd.WithSingleSegment(true))},
		"zstd two frames":         {CodecZstd, two(zsHalf(plain[:half]), zsHalf(plain[half:]))},
	}
}

func TestInteropIndependentEncoders(t *testing.T) {
	recs := manyRecords(800, 100) // about 85 KB: several xerial chunks and lz4 blocks
	plain := encodeSection(recs)
	for name, enc := range javaStyle(t, plain) {
		t.Run(name, func(t *testing.T) {
			got, err := ParseBatch(batchAround(enc.c, len(recs), enc.data), testLimit)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffRecords(recs, got.Records); d != "" {
				t.Fatal(d)
			}
			if _, err := ValidateBatch(batchAround(enc.c, len(recs), enc.data), testLimit); err != nil {
				t.Fatal(err)
			}
		})
	}
}
