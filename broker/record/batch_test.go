package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

func TestBuilderHeaderFields(t *testing.T) {
	tests := []struct {
		name  string
		setup func(b *Builder)
		check func(t *testing.T, h BatchHeader)
	}{
		{"defaults", func(*Builder) {}, func(t *testing.T, h BatchHeader) {
			if h.ProducerID != -1 || h.ProducerEpoch != -1 || h.BaseSequence != -1 || h.PartitionLeaderEpoch != -1 {
				t.Errorf("producer fields %d/%d/%d epoch %d, want -1s", h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.PartitionLeaderEpoch)
			}
			if h.Attributes&^AttrCompressionMask != 0 {
				t.Errorf("attributes %#x, want only codec bits", h.Attributes)
			}
			if h.LastSequence() != -1 {
				t.Errorf("LastSequence %d, want -1", h.LastSequence())
			}
		}},
		{"producer", func(b *Builder) { b.SetProducer(77, 3, 2147483646) }, func(t *testing.T, h BatchHeader) {
			if h.ProducerID != 77 || h.ProducerEpoch != 3 || h.BaseSequence != 2147483646 {
				t.Errorf("producer %d/%d/%d", h.ProducerID, h.ProducerEpoch, h.BaseSequence)
			}
			// Three records from MaxInt32-1 wrap: MaxInt32-1, MaxInt32, 0.
			if h.LastSequence() != 0 {
				t.Errorf("LastSequence %d, want 0 (wrapped)", h.LastSequence())
			}
		}},
		{"leader epoch", func(b *Builder) { b.SetPartitionLeaderEpoch(9) }, func(t *testing.T, h BatchHeader) {
			if h.PartitionLeaderEpoch != 9 {
				t.Errorf("epoch %d", h.PartitionLeaderEpoch)
			}
		}},
		{"transactional", func(b *Builder) { b.SetTransactional(true) }, func(t *testing.T, h BatchHeader) {
			if !h.IsTransactional() || h.IsControl() {
				t.Errorf("attributes %#x", h.Attributes)
			}
		}},
		{"control", func(b *Builder) { b.SetControl(true) }, func(t *testing.T, h BatchHeader) {
			if !h.IsControl() {
				t.Errorf("attributes %#x", h.Attributes)
			}
		}},
		{"log append time", func(b *Builder) { b.SetLogAppendTime(5000) }, func(t *testing.T, h BatchHeader) {
			if !h.LogAppendTime() || h.MaxTimestamp != 5000 {
				t.Errorf("attributes %#x max %d", h.Attributes, h.MaxTimestamp)
			}
			if ts := h.TimestampOf(&Record{TimestampDelta: 1}); ts != 5000 {
				t.Errorf("TimestampOf %d, want maxTimestamp", ts)
			}
		}},
		{"delete horizon", func(b *Builder) { b.SetDeleteHorizon(400) }, func(t *testing.T, h BatchHeader) {
			if ms, ok := h.DeleteHorizon(); !ok || ms != 400 || h.FirstTimestamp != 400 {
				t.Errorf("horizon %d %v first %d", ms, ok, h.FirstTimestamp)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(42, CodecLZ4)
			tt.setup(b)
			b.Append(1000, []byte("a"), []byte("1"), nil)
			b.Append(990, nil, []byte("2"), nil)
			b.Append(1020, []byte("c"), nil, nil)
			raw, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseBatch(raw, testLimit)
			if err != nil {
				t.Fatal(err)
			}
			h := got.BatchHeader
			if h.BaseOffset != 42 || h.LastOffsetDelta != 2 || h.RecordCount != 3 || h.Codec() != CodecLZ4 || h.Magic != 2 {
				t.Errorf("base %d lastDelta %d count %d codec %v magic %d", h.BaseOffset, h.LastOffsetDelta, h.RecordCount, h.Codec(), h.Magic)
			}
			if h.Size() != len(raw) || int(h.BatchLength) != len(raw)-LogOverhead {
				t.Errorf("size %d, batch is %d bytes", h.Size(), len(raw))
			}
			if _, horizon := h.DeleteHorizon(); !horizon {
				if h.FirstTimestamp != 1000 {
					t.Errorf("firstTimestamp %d, want the first record's 1000", h.FirstTimestamp)
				}
			}
			if !h.LogAppendTime() && h.MaxTimestamp != 1020 {
				t.Errorf("maxTimestamp %d, want 1020", h.MaxTimestamp)
			}
			for i, want := range []int64{1000, 990, 1020} {
				if h.LogAppendTime() {
					break
				}
				if ts := h.TimestampOf(&got.Records[i]); ts != want {
					t.Errorf("record %d timestamp %d, want %d", i, ts, want)
				}
				if off := h.OffsetOf(&got.Records[i]); off != 42+int64(i) {
					t.Errorf("record %d offset %d", i, off)
				}
			}
			tt.check(t, h)
		})
	}
}

func TestBuilderEmpty(t *testing.T) {
	if _, err := NewBuilder(0, CodecNone).Build(); err == nil {
		t.Fatal("built an empty batch")
	}
}

func TestBatchRoundTripEveryCodec(t *testing.T) {
	for _, c := range allCodecs {
		t.Run(c.String(), func(t *testing.T) {
			in := &Batch{BatchHeader: BatchHeader{
				BaseOffset: 7, PartitionLeaderEpoch: 4, Attributes: int16(c) | AttrTransactional,
				LastOffsetDelta: 9, FirstTimestamp: 100, MaxTimestamp: 200,
				ProducerID: 5, ProducerEpoch: 1, BaseSequence: 10,
			}, Records: sampleRecords()}
			raw, err := in.AppendTo([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(raw, []byte("prefix")) {
				t.Fatal("AppendTo dropped dst")
			}
			raw = raw[len("prefix"):]
			out, err := ParseBatch(raw, testLimit)
			if err != nil {
				t.Fatal(err)
			}
			h := out.BatchHeader
			want := in.BatchHeader
			want.BatchLength, want.Magic, want.CRC, want.RecordCount = int32(len(raw)-12), 2, ComputeCRC(raw), int32(len(in.Records))
			if h != want {
				t.Errorf("header\n got %+v\nwant %+v", h, want)
			}
			if d := diffRecords(in.Records, out.Records); d != "" {
				t.Fatal(d)
			}
			// Re-encoding the decoded batch gives the same bytes (codecs are
			// deterministic for the same input and settings).
			again, err := out.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, raw) {
				t.Errorf("re-encoded batch differs (%d vs %d bytes)", len(again), len(raw))
			}
		})
	}
}

func TestBatchEncodeRejectsUnknownCodec(t *testing.T) {
	b := &Batch{BatchHeader: BatchHeader{Attributes: 5}, Records: []Record{{}}}
	if _, err := b.AppendTo(nil); err == nil {
		t.Fatal("encoded codec 5")
	}
}

func TestCRCCoverage(t *testing.T) {
	raw := buildSample(t, CodecNone, 3, 10)
	for i := range raw {
		mut := bytes.Clone(raw)
		mut[i] ^= 0x01
		err := VerifyCRC(mut)
		covered := i >= offAttributes || (i >= offCRC && i < offAttributes)
		if covered && err == nil {
			t.Errorf("flipping byte %d kept the CRC valid", i)
		}
		if !covered && err != nil {
			t.Errorf("flipping byte %d (outside the CRC) broke it: %v", i, err)
		}
	}
}

func TestHeaderRewrites(t *testing.T) {
	raw := buildSample(t, CodecGzip, 3, 10)
	SetBaseOffset(raw, 123456)
	SetPartitionLeaderEpoch(raw, 17)
	SetMaxTimestamp(raw, true, 99)
	b, err := ParseBatch(raw, testLimit)
	if err != nil {
		t.Fatal(err)
	}
	if b.BaseOffset != 123456 || b.PartitionLeaderEpoch != 17 || !b.LogAppendTime() || b.MaxTimestamp != 99 {
		t.Fatalf("header %+v", b.BatchHeader)
	}
	if b.LastOffset() != 123458 || b.NextOffset() != 123459 {
		t.Fatalf("last %d next %d", b.LastOffset(), b.NextOffset())
	}
	SetMaxTimestamp(raw, false, 5)
	if h, _ := ParseBatchHeader(raw); h.LogAppendTime() || h.MaxTimestamp != 5 || VerifyCRC(raw) != nil {
		t.Fatalf("after reset: %+v crc %v", h, VerifyCRC(raw))
	}
}

func TestSequenceOf(t *testing.T) {
	h := BatchHeader{BaseSequence: 2147483647}
	if s := h.SequenceOf(&Record{OffsetDelta: 1}); s != 0 {
		t.Errorf("sequence %d, want wrap to 0", s)
	}
	h.BaseSequence = -1
	if s := h.SequenceOf(&Record{OffsetDelta: 1}); s != -1 {
		t.Errorf("sequence %d, want -1", s)
	}
}

func TestParseBatchErrors(t *testing.T) {
	good := buildSample(t, CodecNone, 3, 10)
	gz := buildSample(t, CodecGzip, 3, 10)
	fix := func(b []byte) []byte { binary.BigEndian.PutUint32(b[offCRC:], ComputeCRC(b)); return b }
	mutate := func(src []byte, f func(b []byte)) []byte { b := bytes.Clone(src); f(b); return b }
	tests := []struct {
		name  string
		in    []byte
		kind  Kind
		cause error
		sub   string
		off   int
	}{
		{"empty", nil, KindCorrupt, ErrTruncated, "need 61 bytes", 0},
		{"short header", good[:40], KindCorrupt, ErrTruncated, "have 40", 40},
		{"torn records", good[:len(good)-1], KindCorrupt, ErrTruncated, "only", len(good) - 1},
		{"trailing bytes", append(bytes.Clone(good), 0), KindCorrupt, nil, "bytes were given", len(good)},
		{"legacy magic", mutate(good, func(b []byte) { b[offMagic] = 1 }), KindCorrupt, ErrOtherMagic, "magic", offMagic},
		{"unknown magic", mutate(good, func(b []byte) { b[offMagic] = 9 }), KindCorrupt, nil, "magic", offMagic},
		{"tiny batchLength", mutate(good, func(b []byte) { binary.BigEndian.PutUint32(b[8:], 10) }), KindCorrupt, nil, "below the v2 minimum", offBatchLength},
		{"negative lastOffsetDelta", mutate(good, func(b []byte) { binary.BigEndian.PutUint32(b[offLastOffsetDelta:], 0xffffffff) }), KindCorrupt, nil, "negative", offLastOffsetDelta},
		{"crc", mutate(good, func(b []byte) { b[len(b)-1] ^= 1 }), KindCorrupt, nil, "crc", offCRC},
		{"unknown codec", mutate(good, func(b []byte) { b[offAttributes+1] |= 6; fix(b) }), KindCorrupt, nil, "unknown compression codec", offAttributes},
		{"gzip garbage", mutate(gz, func(b []byte) { b[BatchHeaderSize] ^= 0xff; fix(b) }), KindCorrupt, nil, "decompressing gzip", BatchHeaderSize},
		{"count too high", mutate(good, func(b []byte) { binary.BigEndian.PutUint32(b[offRecordCount:], 4); fix(b) }), KindInvalid, nil, "declares 4 records", len(good)},
		{"count too low", mutate(good, func(b []byte) { binary.BigEndian.PutUint32(b[offRecordCount:], 2); fix(b) }), KindInvalid, nil, "more follow", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseBatch(tt.in, testLimit)
			if err == nil {
				t.Fatal("no error")
			}
			wantErr(t, err, tt.kind, tt.sub, tt.off)
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("error %v does not wrap %v", err, tt.cause)
			}
			if (tt.kind == KindCorrupt) != errors.Is(err, ErrCorrupt) || (tt.kind == KindInvalid) != errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is disagrees with kind %v", tt.kind)
			}
			if KindOf(err) != tt.kind {
				t.Errorf("KindOf %v", KindOf(err))
			}
		})
	}
}

func TestCompressedRecordErrorsAreMarked(t *testing.T) {
	// A zstd batch whose inner section has a corrupt record reports the
	// position within the decompressed section.
	sec := append(encodeSection([]Record{{Value: []byte("x")}}), 0xff)
	comp, err := compress(CodecZstd, nil, sec)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, BatchHeaderSize, BatchHeaderSize+len(comp))
	b = append(b, comp...)
	h := BatchHeader{BatchLength: int32(len(b) - 12), Magic: 2, Attributes: int16(CodecZstd), RecordCount: 1}
	h.put(b)
	binary.BigEndian.PutUint32(b[offCRC:], ComputeCRC(b))
	_, err = ParseBatch(b, testLimit)
	var e *Error
	if !errors.As(err, &e) || !e.Decompressed || e.Offset != BatchHeaderSize+len(sec)-1 {
		t.Fatalf("error %v, want a decompressed-section offset %d", err, BatchHeaderSize+len(sec)-1)
	}
	if want := "(decompressed)"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("message %q lacks %q", err, want)
	}
}

func TestIterRecords(t *testing.T) {
	raw := buildSample(t, CodecSnappy, 20, 50)
	h, it, err := IterRecords(raw, testLimit)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.Next() {
		if want := []byte("key-" + itoa10(n)); !bytes.Equal(it.Record().Key, want) {
			t.Fatalf("record %d key %q, want %q", n, it.Record().Key, want)
		}
		n++
	}
	if it.Err() != nil || n != int(h.RecordCount) {
		t.Fatalf("%d records, err %v", n, it.Err())
	}
	bad := bytes.Clone(raw)
	bad[len(bad)-1] ^= 1
	if _, _, err := IterRecords(bad, testLimit); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt batch: %v", err)
	}
}

func itoa10(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa10(n/10) + string(rune('0'+n%10))
}
