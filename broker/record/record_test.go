package record

import (
	"bytes"
	"errors"
	"testing"
)

func encodeSection(recs []Record) []byte {
	var b []byte
	for i := range recs {
		b = appendRecord(b, &recs[i])
	}
	return b
}

func TestRecordRoundTrip(t *testing.T) {
	recs := sampleRecords()
	for i := range recs {
		t.Run(string(rune('a'+i)), func(t *testing.T) {
			one := recs[i : i+1]
			sec := encodeSection(one)
			if got, want := len(sec), sizeVarlong(int64(one[0].bodySize()))+one[0].bodySize(); got != want {
				t.Fatalf("encoded %d bytes, size computed %d", got, want)
			}
			got, err := DecodeRecords(sec, 1)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffRecords(one, got); d != "" {
				t.Fatal(d)
			}
		})
	}
	t.Run("all", func(t *testing.T) {
		got, err := DecodeRecords(encodeSection(recs), int32(len(recs)))
		if err != nil {
			t.Fatal(err)
		}
		if d := diffRecords(recs, got); d != "" {
			t.Fatal(d)
		}
	})
}

func TestDecodedSlicesDoNotOverlap(t *testing.T) {
	sec := encodeSection([]Record{{Key: []byte("ab"), Value: []byte("cd")}})
	got, err := DecodeRecords(sec, 1)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(got[0].Key, 'X') // must reallocate, not overwrite the value's length
	if string(got[0].Value) != "cd" {
		t.Fatalf("append to key clobbered value: %q", got[0].Value)
	}
}

// rawRecord builds a record from parts so malformed ones can be made.
func rawRecord(length int32, body ...[]byte) []byte {
	b := appendVarint(nil, length)
	for _, p := range body {
		b = append(b, p...)
	}
	return b
}

func vi(v int32) []byte { return appendVarint(nil, v) }

func TestRecordMalformed(t *testing.T) {
	// A good record body: attrs 0, ts 0, off 0, key null, value "v", 0 headers.
	good := [][]byte{{0}, vi(0), vi(0), vi(-1), vi(1), []byte("v"), vi(0)}
	goodLen := int32(len(bytes.Join(good, nil)))
	tests := []struct {
		name  string
		sec   []byte
		count int32
		kind  Kind
		sub   string
		off   int
	}{
		{"length varint cut", []byte{0x80}, 1, KindCorrupt, "record 0 length", 61},
		{"length negative", rawRecord(-2, good...), 1, KindCorrupt, "negative", 61},
		{"length past end", rawRecord(goodLen+5, good...), 1, KindCorrupt, "only 7 remain", 61},
		{"length longer than fields", append(rawRecord(goodLen+1, good...), 0), 1, KindCorrupt, "end 1 bytes early", 61 + 1 + int(goodLen)},
		{"length shorter than fields", rawRecord(goodLen-1, good...), 1, KindCorrupt, "record 0", -1},
		{"empty body", rawRecord(0), 1, KindCorrupt, "attributes", 62},
		{"timestamp varint overlong", rawRecord(12, []byte{0}, bytes.Repeat([]byte{0xff}, 11)), 1, KindCorrupt, "timestampDelta", 63},
		{"key length below -1", rawRecord(4, []byte{0}, vi(0), vi(0), vi(-2)), 1, KindCorrupt, "keyLength", 65},
		{"key longer than record", rawRecord(5, []byte{0}, vi(0), vi(0), vi(50), []byte("x")), 1, KindCorrupt, "50 bytes but only 1 remain", 65},
		{"value length cut", rawRecord(4, []byte{0}, vi(0), vi(0), vi(-1)), 1, KindCorrupt, "valueLength", 66},
		{"header count negative", rawRecord(6, []byte{0}, vi(0), vi(0), vi(-1), vi(-1), vi(-1)), 1, KindCorrupt, "headerCount", 67},
		{"header count huge", rawRecord(10, []byte{0}, vi(0), vi(0), vi(-1), vi(-1), appendVarint(nil, 1<<30)), 1, KindCorrupt, "cannot fit", 67},
		{"header key null", rawRecord(8, []byte{0}, vi(0), vi(0), vi(-1), vi(-1), vi(1), vi(-1), vi(-1)), 1, KindCorrupt, "not nullable", 68},
		{"header key past end", rawRecord(8, []byte{0}, vi(0), vi(0), vi(-1), vi(-1), vi(1), vi(9), vi(-1)), 1, KindCorrupt, "header 0 keyLength", 68},
		{"header value past end", rawRecord(9, []byte{0}, vi(0), vi(0), vi(-1), vi(-1), vi(1), vi(0), vi(4), []byte("x")), 1, KindCorrupt, "header 0 valueLength", 69},
		{"fewer records than count", rawRecord(goodLen, good...), 2, KindInvalid, "declares 2 records but the records section holds 1", 61 + int(goodLen) + 1},
		{"more records than count", append(rawRecord(goodLen, good...), rawRecord(goodLen, good...)...), 1, KindInvalid, "more follow", 61 + int(goodLen) + 1},
		{"garbage after records", append(rawRecord(goodLen, good...), 0xff), 1, KindCorrupt, "1 bytes of garbage", 61 + int(goodLen) + 1},
		{"negative count", nil, -1, KindInvalid, "recordCount", offRecordCount},
		{"zero count, empty", nil, 0, 0, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := DecodeRecords(tt.sec, tt.count)
			if tt.kind == 0 {
				if err != nil || len(recs) != 0 {
					t.Fatalf("got %v, %v; want no records, no error", recs, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("decoded %d records, want an error", len(recs))
			}
			wantErr(t, err, tt.kind, tt.sub, tt.off)
			// The iterator must agree with the whole-section decoder.
			it := NewRecordIter(tt.sec, tt.count)
			for it.Next() {
			}
			if it.Err() == nil || it.Err().Error() != err.Error() {
				t.Errorf("iterator error %v, DecodeRecords error %v", it.Err(), err)
			}
		})
	}
}

func TestRecordIterReusesHeaders(t *testing.T) {
	recs := []Record{
		{Value: []byte("a"), Headers: []Header{{Key: "h1", Value: []byte("x")}}},
		{OffsetDelta: 1, Value: []byte("b"), Headers: []Header{{Key: "h2", Value: nil}}},
		{OffsetDelta: 2, Value: []byte("c")},
	}
	it := NewRecordIter(encodeSection(recs), 3)
	var got []Record
	for it.Next() {
		r := *it.Record()
		r.Headers = append([]Header(nil), r.Headers...)
		got = append(got, r)
		if it.Index() != len(got)-1 {
			t.Fatalf("Index %d after %d records", it.Index(), len(got))
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if d := diffRecords(recs, got); d != "" {
		t.Fatal(d)
	}
}

func TestDecodeRecordsHugeCountDoesNotAllocate(t *testing.T) {
	// A count of 2^31-1 over 7 bytes must fail, not reserve 2^31 records.
	sec := encodeSection([]Record{{}})
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := DecodeRecords(sec, 1<<31-1); !errors.Is(err, ErrInvalid) {
			t.Fatalf("err %v, want ErrInvalid", err)
		}
	})
	if allocs > 10 {
		t.Fatalf("%v allocations", allocs)
	}
}
