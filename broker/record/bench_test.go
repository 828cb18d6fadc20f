package record

import "testing"

// benchBatch is 100 records with 100-byte values, the size the brief
// measures; SetBytes counts the uncompressed records section so MB/s is
// comparable across codecs.
func benchBatch(c Codec) (*Batch, int) {
	recs := manyRecords(100, 100)
	b := &Batch{BatchHeader: BatchHeader{Attributes: int16(c), LastOffsetDelta: 99, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, Records: recs}
	return b, len(encodeSection(recs))
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range allCodecs {
		b.Run(c.String(), func(b *testing.B) {
			batch, n := benchBatch(c)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				var err error
				if dst, err = batch.AppendTo(dst[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range allCodecs {
		b.Run(c.String(), func(b *testing.B) {
			batch, n := benchBatch(c)
			raw, err := batch.AppendTo(nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseBatch(raw, 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, c := range allCodecs {
		b.Run(c.String(), func(b *testing.B) {
			batch, n := benchBatch(c)
			raw, err := batch.AppendTo(nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ValidateBatch(raw, 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
