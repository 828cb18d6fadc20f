package record

import (
	"bytes"
	"testing"
)

// Seeds live in testdata/fuzz/<Target>/ (see seeds_test.go, which writes
// them with -update-seeds). The limit is small so every run stays fast.
const fuzzLimit = 1 << 18

func FuzzParseBatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBatch(data, fuzzLimit)
		_, verr := ValidateBatch(data, fuzzLimit)
		if err != nil {
			if KindOf(err) == 0 {
				t.Fatalf("error outside the package's type: %v", err)
			}
			if verr == nil {
				t.Fatalf("ValidateBatch accepted a batch ParseBatch rejects: %v", err)
			}
			return
		}
		if verr != nil && KindOf(verr) == 0 {
			t.Fatalf("validation error outside the package's type: %v", verr)
		}
		// A parsed batch is one whole batch to the iterator too.
		it := NewBatchIter(data)
		if !it.Next() || !bytes.Equal(it.Raw(), data) || it.Next() || it.Err() != nil {
			t.Fatalf("iterator disagrees with ParseBatch: %v", it.Err())
		}
		// decode -> encode -> decode keeps header and records, and
		// encoding is then stable.
		enc, err := b.AppendTo(nil)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		b2, err := ParseBatch(enc, fuzzLimit)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		h1, h2 := b.BatchHeader, b2.BatchHeader
		h1.BatchLength, h1.CRC, h2.BatchLength, h2.CRC = 0, 0, 0, 0
		if h1 != h2 {
			t.Fatalf("header changed:\n%+v\n%+v", h1, h2)
		}
		if d := diffRecords(b.Records, b2.Records); d != "" {
			t.Fatal(d)
		}
		enc2, err := b2.AppendTo(nil)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable: %v", err)
		}
		if b.Codec() == CodecNone && len(enc) > len(data) {
			t.Fatalf("minimal encoding grew from %d to %d bytes", len(data), len(enc))
		}
	})
}

func FuzzDecodeRecords(f *testing.F) {
	f.Fuzz(func(t *testing.T, section []byte, count int32) {
		recs, err := DecodeRecords(section, count)
		it := NewRecordIter(section, count)
		n := 0
		for ; it.Next(); n++ {
			if err == nil {
				if d := diffRecords(recs[n:n+1], []Record{*it.Record()}); d != "" {
					t.Fatalf("iterator record %d: %s", n, d)
				}
			}
		}
		if (err == nil) != (it.Err() == nil) || (err != nil && err.Error() != it.Err().Error()) {
			t.Fatalf("DecodeRecords error %v, iterator error %v", err, it.Err())
		}
		if err != nil {
			if KindOf(err) == 0 {
				t.Fatalf("error outside the package's type: %v", err)
			}
			return
		}
		if n != int(count) || len(recs) != int(count) {
			t.Fatalf("%d records by iterator, %d decoded, count %d", n, len(recs), count)
		}
		enc := encodeSection(recs)
		if len(enc) > len(section) {
			t.Fatalf("minimal encoding grew from %d to %d bytes", len(section), len(enc))
		}
		again, err := DecodeRecords(enc, count)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if d := diffRecords(recs, again); d != "" {
			t.Fatal(d)
		}
	})
}

func FuzzLegacyIter(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		it := NewLegacyIter(data)
		last := -1
		for i := 0; it.Next(); i++ {
			if it.Pos() <= last {
				t.Fatalf("position went from %d to %d", last, it.Pos())
			}
			last = it.Pos()
			m := it.Message()
			if len(it.Raw()) != m.Size {
				t.Fatalf("raw %d bytes, size %d", len(it.Raw()), m.Size)
			}
			// The legacy format has no variable-length integers, so a
			// message re-encoded by an independent encoder (kmsg) is
			// byte-identical whenever its CRC was right.
			if m.ValidCRC() {
				enc := legacyMsg(m.Magic, m.Offset, m.Attributes, m.Timestamp, m.Key, m.Value, false)
				if !bytes.Equal(enc, it.Raw()) {
					t.Fatalf("message %d re-encodes differently", i)
				}
			}
			inner, err := m.Inner(fuzzLimit)
			if err != nil {
				if KindOf(err) == 0 {
					t.Fatalf("error outside the package's type: %v", err)
				}
				continue
			}
			for _, in := range inner {
				if in.Codec() != CodecNone || in.Magic != m.Magic {
					t.Fatalf("inner message with codec %v magic %d in a magic %d wrapper", in.Codec(), in.Magic, m.Magic)
				}
			}
		}
		if err := it.Err(); err != nil {
			if KindOf(err) == 0 {
				t.Fatalf("error outside the package's type: %v", err)
			}
		} else if it.Pos() != len(data) {
			t.Fatalf("clean end at %d of %d bytes", it.Pos(), len(data))
		}
	})
}

// FuzzDecompress takes the codec from the first byte.
func FuzzDecompress(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		c := Codec(data[0]%4 + 1)
		const limit = 1 << 16
		out, err := decompress(c, MagicV2, nil, data[1:], limit)
		if err != nil {
			return
		}
		if len(out) > limit {
			t.Fatalf("%v: %d bytes out, limit %d", c, len(out), limit)
		}
		comp, err := compress(c, nil, out)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decompress(c, MagicV2, nil, comp, limit)
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("%v round trip: %v", c, err)
		}
	})
}
