package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

func TestValidateBatchAccepts(t *testing.T) {
	for _, c := range allCodecs {
		t.Run(c.String(), func(t *testing.T) {
			b := NewBuilder(0, c)
			b.SetProducer(3, 0, 0)
			for i := 0; i < 50; i++ {
				b.Append(int64(i), nil, payload(uint64(i), 64), []Header{{Key: "h", Value: []byte("v")}})
			}
			raw, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			h, err := ValidateBatch(raw, testLimit)
			if err != nil {
				t.Fatal(err)
			}
			if h.RecordCount != 50 || h.ProducerID != 3 {
				t.Fatalf("header %+v", h)
			}
		})
	}
}

// rebuild encodes records under a header, for batches whose header and
// records disagree in ways the Builder never produces.
func rebuild(t *testing.T, h BatchHeader, recs []Record) []byte {
	t.Helper()
	raw, err := (&Batch{BatchHeader: h, Records: recs}).AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestValidateBatchRejects(t *testing.T) {
	base := BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, LastOffsetDelta: 2, Attributes: int16(CodecSnappy)}
	recs := func(deltas ...int32) []Record {
		var out []Record
		for _, d := range deltas {
			out = append(out, Record{OffsetDelta: d, Value: []byte("v")})
		}
		return out
	}
	good := rebuild(t, base, recs(0, 1, 2))
	fixCRC := func(b []byte) []byte { binary.BigEndian.PutUint32(b[offCRC:], ComputeCRC(b)); return b }
	with := func(f func(h *BatchHeader)) BatchHeader { h := base; f(&h); return h }
	tests := []struct {
		name string
		in   []byte
		kind Kind
		sub  string
		off  int
	}{
		{"gap in offsets", rebuild(t, base, recs(0, 2, 1)), KindInvalid, "record 1 offsetDelta", -1},
		{"offsets not from zero", rebuild(t, base, recs(1, 2, 3)), KindInvalid, "record 0 offsetDelta", BatchHeaderSize},
		{"lastOffsetDelta mismatch", rebuild(t, with(func(h *BatchHeader) { h.LastOffsetDelta = 5 }), recs(0, 1, 2)), KindInvalid, "lastOffsetDelta", offLastOffsetDelta},
		{"no records", rebuild(t, with(func(h *BatchHeader) { h.LastOffsetDelta = 0 }), nil), KindInvalid, "recordCount", offRecordCount},
		{"count above records", fixCRC(func() []byte {
			b := rebuild(t, with(func(h *BatchHeader) { h.LastOffsetDelta = 3 }), recs(0, 1, 2))
			binary.BigEndian.PutUint32(b[offRecordCount:], 4)
			return b
		}()), KindInvalid, "declares 4 records", -1},
		{"control", rebuild(t, with(func(h *BatchHeader) { h.Attributes |= AttrControl }), recs(0, 1, 2)), KindInvalid, "control", offAttributes},
		{"producer without sequence", rebuild(t, with(func(h *BatchHeader) { h.ProducerID = 4 }), recs(0, 1, 2)), KindInvalid, "baseSequence", offBaseSequence},
		{"legacy magic", func() []byte { b := bytes.Clone(good); b[offMagic] = 1; return b }(), KindInvalid, "magic", offMagic},
		{"two batches", append(bytes.Clone(good), good...), KindInvalid, "one batch per partition", len(good)},
		{"crc", func() []byte { b := bytes.Clone(good); b[30] ^= 1; return b }(), KindCorrupt, "crc", offCRC},
		{"torn", good[:len(good)-3], KindCorrupt, "only", len(good) - 3},
		{"snappy garbage", fixCRC(func() []byte { b := bytes.Clone(good); b[BatchHeaderSize+xerialHeaderSize] = 0x7f; return b }()), KindCorrupt, "xerial chunk", BatchHeaderSize},
		{"over the limit", rebuild(t, with(func(h *BatchHeader) { h.LastOffsetDelta = 0 }), []Record{{Value: make([]byte, 2*testLimit)}}), KindCorrupt, "over the limit", BatchHeaderSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ValidateBatch(tt.in, testLimit)
			if err == nil {
				t.Fatal("accepted")
			}
			wantErr(t, err, tt.kind, tt.sub, tt.off)
		})
	}
	if _, err := ValidateBatch(tests[len(tests)-1].in, testLimit); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit error %v does not wrap ErrTooLarge", err)
	}
}

func TestValidateBatchAllocations(t *testing.T) {
	// The produce path runs per batch: after warm-up it should reuse its
	// decompression buffer rather than allocate per record.
	raw := buildSample(t, CodecLZ4, 100, 100)
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := ValidateBatch(raw, testLimit); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Fatalf("%v allocations per validation of 100 records", allocs)
	}
}
