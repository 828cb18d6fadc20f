package storage

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"kafgo/broker/record"
)

// batchAt builds a batch at base offset base; opts adjust the builder.
func batchAt(t *testing.T, base int64, codec record.Codec, ts int64, recs []trec, opts ...func(*record.Builder)) []byte {
	t.Helper()
	b := record.NewBuilder(base, codec)
	b.SetPartitionLeaderEpoch(7)
	for _, o := range opts {
		o(b)
	}
	for i, r := range recs {
		b.Append(ts+int64(i)*10, r.key, r.val, nil)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func withProducer(pid int64, epoch int16, seq int32) func(*record.Builder) {
	return func(b *record.Builder) { b.SetProducer(pid, epoch, seq) }
}

func withHorizon(ms int64) func(*record.Builder) {
	return func(b *record.Builder) { b.SetDeleteHorizon(ms) }
}

func withAppendTime(ms int64) func(*record.Builder) {
	return func(b *record.Builder) { b.SetLogAppendTime(ms) }
}

// TestCleanerFilterRules runs single batches through the filter against a
// map and checks what is written: which records, with which offsets and
// timestamps, and which header fields.
func TestCleanerFilterRules(t *testing.T) {
	const now, retention = 50_000, 1000
	// The map: latest offsets of the dirty section.
	latest := map[string]int64{"a": 12, "b": 11, "t": 13}
	type want struct {
		fate    batchFate
		recs    []string // "offset:key=value"
		horizon int64    // -1: no horizon bit
		count   int32
	}
	a, b, c, tk := kv("a", "1"), kv("b", "2"), kv("c", "3"), tomb("t")
	cases := []struct {
		name  string
		batch func(t *testing.T) []byte
		want  want
	}{
		{"latest per key kept, older dropped", func(t *testing.T) []byte {
			return batchAt(t, 10, record.CodecNone, 1000, []trec{a, b, kv("a", "x")})
		}, want{fateRebuilt, []string{"11:b=2", "12:a=x"}, -1, 2}},
		{"key absent from the map kept", func(t *testing.T) []byte {
			return batchAt(t, 10, record.CodecNone, 1000, []trec{c})
		}, want{fateCopied, []string{"10:c=3"}, -1, 1}},
		{"keyless dropped", func(t *testing.T) []byte {
			return batchAt(t, 5, record.CodecNone, 1000, []trec{keyless("z"), c})
		}, want{fateRebuilt, []string{"6:c=3"}, -1, 1}},
		{"tombstone kept with a new horizon", func(t *testing.T) []byte {
			return batchAt(t, 13, record.CodecNone, 1000, []trec{tk})
		}, want{fateRebuilt, []string{"13:t=<nil>"}, now + retention, 1}},
		{"tombstone under a pending horizon copied", func(t *testing.T) []byte {
			return batchAt(t, 13, record.CodecNone, 1000, []trec{tk}, withHorizon(now+1))
		}, want{fateCopied, []string{"13:t=<nil>"}, now + 1, 1}},
		{"tombstone past its horizon dropped", func(t *testing.T) []byte {
			return batchAt(t, 13, record.CodecNone, 1000, []trec{tk, c}, withHorizon(now))
		}, want{fateRebuilt, []string{"14:c=3"}, -1, 1}},
		{"batch beyond the map copied as it is", func(t *testing.T) []byte {
			return batchAt(t, 100, record.CodecNone, 1000, []trec{keyless("z"), a})
		}, want{fateCopied, []string{"100:=z", "101:a=1"}, -1, 2}},
		{"everything superseded: dropped", func(t *testing.T) []byte {
			return batchAt(t, 0, record.CodecNone, 1000, []trec{a, b})
		}, want{fateDropped, nil, -1, 0}},
		{"everything superseded, producer's last batch: empty batch", func(t *testing.T) []byte {
			return batchAt(t, 0, record.CodecGzip, 1000, []trec{a, b}, withProducer(9, 3, 40))
		}, want{fateEmptied, nil, -1, 0}},
		{"everything superseded, an older batch of the producer: dropped", func(t *testing.T) []byte {
			return batchAt(t, 2, record.CodecNone, 1000, []trec{a}, withProducer(9, 3, 38))
		}, want{fateDropped, nil, -1, 0}},
		{"last record removed: lastOffsetDelta kept", func(t *testing.T) []byte {
			return batchAt(t, 8, record.CodecNone, 1000, []trec{c, b, a})
		}, want{fateRebuilt, []string{"8:c=3"}, -1, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			om := newOffsetMap(1<<20, 0.9)
			for k, off := range latest {
				om.put([]byte(k), off)
			}
			var st CleanStats
			f := &batchFilter{om: om, end: 14 + 1, now: now, deleteRetention: retention, horizon: noHorizon, stats: &st,
				producerLast: map[int64]producerTail{9: {lastData: 1}}, txns: newCleanedTxns(nil)}
			in := tc.batch(t)
			inH, _ := record.ParseBatchHeader(in)
			out, fate, err := f.filter(nil, in)
			if err != nil {
				t.Fatal(err)
			}
			if fate != tc.want.fate {
				t.Fatalf("fate %d, want %d", fate, tc.want.fate)
			}
			if fate == fateDropped {
				if len(out) != 0 {
					t.Fatalf("dropped batch wrote %d bytes", len(out))
				}
				return
			}
			if fate == fateCopied && !slices.Equal(out, in) {
				t.Fatal("copied batch differs from the input")
			}
			hs, recs := decodeBatches(t, out)
			if len(hs) != 1 {
				t.Fatalf("%d batches written", len(hs))
			}
			h := hs[0]
			var got []string
			for _, r := range recs {
				got = append(got, fmt.Sprintf("%d:%s=%s", r.off, r.key, r.val))
			}
			if !slices.Equal(got, tc.want.recs) {
				t.Fatalf("records %v, want %v", got, tc.want.recs)
			}
			// Offsets and identity are never renumbered.
			if h.BaseOffset != inH.BaseOffset || h.LastOffsetDelta != inH.LastOffsetDelta || h.PartitionLeaderEpoch != inH.PartitionLeaderEpoch ||
				h.ProducerID != inH.ProducerID || h.ProducerEpoch != inH.ProducerEpoch || h.BaseSequence != inH.BaseSequence {
				t.Fatalf("header %+v does not keep the identity of %+v", h, inH)
			}
			if h.RecordCount != tc.want.count {
				t.Fatalf("recordCount %d, want %d", h.RecordCount, tc.want.count)
			}
			hz, ok := h.DeleteHorizon()
			if tc.want.horizon < 0 && ok || tc.want.horizon >= 0 && (!ok || hz != tc.want.horizon) {
				t.Fatalf("horizon (%d, %v), want %d", hz, ok, tc.want.horizon)
			}
			if fate == fateEmptied {
				if h.Codec() != record.CodecNone || h.FirstTimestamp != inH.MaxTimestamp || h.MaxTimestamp != inH.MaxTimestamp {
					t.Fatalf("empty batch header %+v from %+v", h, inH)
				}
			}
			if fate == fateRebuilt && h.Codec() != inH.Codec() {
				t.Fatalf("codec %v, want %v", h.Codec(), inH.Codec())
			}
		})
	}
}

// TestCleanerFilterKeepsTimestamps: a rebuilt batch keeps every surviving
// record's timestamp, with or without a horizon in firstTimestamp, and its
// maxTimestamp becomes the largest kept one (CreateTime) or stays
// (LogAppendTime).
func TestCleanerFilterKeepsTimestamps(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       []func(*record.Builder)
		recs       []trec
		wantTs     []int64
		wantMax    int64
		appendTime bool
	}{
		{"create time, first and last dropped", nil, []trec{kv("a", "old"), kv("b", "1"), tomb("c"), kv("a", "new2")}, []int64{1010, 1020}, 1020, false},
		{"log append time", []func(*record.Builder){withAppendTime(9999)}, []trec{kv("a", "old"), kv("b", "1")}, []int64{9999}, 9999, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			om := newOffsetMap(1<<20, 0.9)
			om.put([]byte("a"), 100) // both a's are superseded
			var st CleanStats
			f := &batchFilter{om: om, end: 50, now: 5000, deleteRetention: 100, horizon: noHorizon, stats: &st, txns: newCleanedTxns(nil)}
			in := batchAt(t, 0, record.CodecLZ4, 1000, tc.recs, tc.opts...)
			out, fate, err := f.filter(nil, in)
			if err != nil || fate != fateRebuilt {
				t.Fatalf("fate %d, err %v", fate, err)
			}
			hs, recs := decodeBatches(t, out)
			var ts []int64
			for _, r := range recs {
				ts = append(ts, r.ts)
			}
			if !slices.Equal(ts, tc.wantTs) {
				t.Fatalf("timestamps %v, want %v", ts, tc.wantTs)
			}
			if hs[0].MaxTimestamp != tc.wantMax || hs[0].LogAppendTime() != tc.appendTime {
				t.Fatalf("maxTimestamp %d appendTime %v, want %d %v", hs[0].MaxTimestamp, hs[0].LogAppendTime(), tc.wantMax, tc.appendTime)
			}
			if f.horizon != noHorizon && f.horizon != 5100 {
				t.Fatalf("pending horizon %d", f.horizon)
			}
		})
	}
}

// TestCleanerFilterRecompressesEachCodec: a partially kept compressed batch
// is written with the same codec and decodes to the kept records.
func TestCleanerFilterRecompressesEachCodec(t *testing.T) {
	for _, codec := range []record.Codec{record.CodecNone, record.CodecGzip, record.CodecSnappy, record.CodecLZ4, record.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			var recs []trec
			for i := 0; i < 200; i++ {
				recs = append(recs, kv(fmt.Sprintf("k%d", i%20), fmt.Sprintf("value-%d-%s", i, "padding padding padding")))
			}
			in := batchAt(t, 1000, codec, 1, recs)
			om := newOffsetMap(1<<20, 0.9)
			for i := 0; i < 200; i++ {
				om.put([]byte(fmt.Sprintf("k%d", i%20)), 1000+int64(i))
			}
			var st CleanStats
			f := &batchFilter{om: om, end: 5000, now: 1, horizon: noHorizon, stats: &st, txns: newCleanedTxns(nil)}
			out, fate, err := f.filter(nil, in)
			if err != nil || fate != fateRebuilt {
				t.Fatalf("fate %d, err %v", fate, err)
			}
			hs, got := decodeBatches(t, out)
			if hs[0].Codec() != codec {
				t.Fatalf("written with %v", hs[0].Codec())
			}
			if len(got) != 20 || got[0].off != 1180 || got[19].off != 1199 {
				t.Fatalf("kept %v", got)
			}
			for i, r := range got {
				if want := fmt.Sprintf("value-%d-%s", 180+i, "padding padding padding"); r.val != want {
					t.Fatalf("record %d value %q, want %q", i, r.val, want)
				}
			}
			if codec != record.CodecNone && len(out) >= len(in) {
				t.Fatalf("%d bytes written for a tenth of a %d-byte batch", len(out), len(in))
			}
		})
	}
}

// TestCleanerFilterCorruptBatch: a batch whose CRC does not match is an
// error, never a panic or a silent copy.
func TestCleanerFilterCorruptBatch(t *testing.T) {
	for _, base := range []int64{0, 100} { // rebuilt and copied paths
		in := batchAt(t, base, record.CodecNone, 1, []trec{kv("a", "1")})
		in[len(in)-1] ^= 0xff
		var st CleanStats
		f := &batchFilter{om: newOffsetMap(1<<16, 0.9), end: 50, horizon: noHorizon, stats: &st, txns: newCleanedTxns(nil)}
		if _, _, err := f.filter(nil, in); err == nil {
			t.Fatalf("base %d: corrupt batch accepted", base)
		}
		if _, _, err := f.filter(nil, in[:30]); err == nil {
			t.Fatalf("base %d: truncated batch accepted", base)
		}
	}
}

func TestSatAdd(t *testing.T) {
	for _, tc := range [][3]int64{{1, 2, 3}, {math.MaxInt64 - 1, 5, math.MaxInt64}, {5, 0, 5}} {
		if got := satAdd(tc[0], tc[1]); got != tc[2] {
			t.Errorf("satAdd(%d, %d) = %d, want %d", tc[0], tc[1], got, tc[2])
		}
	}
}
