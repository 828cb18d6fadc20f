package storage

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"kafgo/broker/record"
)

// trec is a test record: a nil key is keyless, a nil value a tombstone.
type trec struct {
	key, val []byte
}

func kv(k, v string) trec   { return trec{key: []byte(k), val: []byte(v)} }
func tomb(k string) trec    { return trec{key: []byte(k)} }
func keyless(v string) trec { return trec{val: []byte(v)} }

// keyedBatch builds a batch of recs with timestamps ts, ts+1, ...
func keyedBatch(t testing.TB, codec record.Codec, ts int64, recs ...trec) []byte {
	t.Helper()
	b := record.NewBuilder(0, codec)
	for i, r := range recs {
		b.Append(ts+int64(i), r.key, r.val, nil)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// logRec is a record as a reader of the log sees it.
type logRec struct {
	off   int64
	key   string
	val   string // "<nil>" for a tombstone
	ts    int64
	keyed bool
}

func (r logRec) String() string { return fmt.Sprintf("%d:%s=%s@%d", r.off, r.key, r.val, r.ts) }

// decodeBatches decodes every record of data (whole batches).
func decodeBatches(t testing.TB, data []byte) ([]record.BatchHeader, []logRec) {
	t.Helper()
	var hs []record.BatchHeader
	var out []logRec
	for _, raw := range splitBatchesT(t, data) {
		b, err := record.ParseBatch(raw, 1<<30)
		if err != nil {
			t.Fatalf("decode batch: %v", err)
		}
		hs = append(hs, b.BatchHeader)
		for i := range b.Records {
			r := &b.Records[i]
			lr := logRec{off: b.OffsetOf(r), key: string(r.Key), val: string(r.Value), ts: b.TimestampOf(r), keyed: r.Key != nil}
			if r.Value == nil {
				lr.val = "<nil>"
			}
			out = append(out, lr)
		}
	}
	return hs, out
}

// logRecords reads the whole log through Read and decodes every record.
func logRecords(t testing.TB, l *Log) ([]record.BatchHeader, []logRec) {
	t.Helper()
	var data []byte
	for _, raw := range readAllUnchecked(t, l) {
		data = append(data, raw...)
	}
	return decodeBatches(t, data)
}

// latestPerKey is what compaction must preserve: the last record of every
// key, in offset order (keyless records are not kept).
func latestPerKey(recs []logRec) []logRec {
	last := map[string]logRec{}
	for _, r := range recs {
		if r.keyed {
			last[r.key] = r
		}
	}
	out := make([]logRec, 0, len(last))
	for _, r := range last {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b logRec) int { return int(a.off - b.off) })
	return out
}

// cleanTestLog runs one pass on l with a fresh map of mapBytes, from
// checkpoint, and returns the result.
func cleanTestLog(t testing.TB, l *Log, checkpoint int64, mapBytes int64) cleanResult {
	t.Helper()
	res, err := l.clean(context.Background(), cleanParams{firstDirty: checkpoint, om: newOffsetMap(mapBytes, 0.9), writeBuf: 64 << 10})
	if err != nil {
		t.Fatalf("clean: %v", err)
	}
	return res
}

// compactConfig is a compacted log config with small segments.
func compactConfig(segBytes int64) LogConfig {
	c := testConfig()
	c.SegmentBytes = segBytes
	c.IndexIntervalBytes = 256
	c.RetentionMs, c.RetentionBytes = -1, -1
	c.Compact = true
	c.DeleteRetentionMs = 1000
	c.MinCleanableDirtyRatio = 0.01
	return c
}

// fillUpdates appends n keyed updates over keys keys (value "v<i>"), one
// batch of per records each, with timestamps from ts.
func fillUpdates(t testing.TB, l *Log, codec record.Codec, n, keys, per int, ts int64) {
	t.Helper()
	for i := 0; i < n; i += per {
		var recs []trec
		for j := i; j < min(i+per, n); j++ {
			recs = append(recs, kv(fmt.Sprintf("k%03d", j%keys), fmt.Sprintf("v%d", j)))
		}
		mustAppend(t, l, keyedBatch(t, codec, ts+int64(i), recs...), 0)
	}
}

// closedEnd is the base offset of the active segment: what a pass may clean.
func closedEnd(l *Log) int64 {
	b := l.SegmentBaseOffsets()
	return b[len(b)-1]
}

// splitAt separates records below off from the rest.
func splitAt(recs []logRec, off int64) (below, rest []logRec) {
	i := slices.IndexFunc(recs, func(r logRec) bool { return r.off >= off })
	if i < 0 {
		return recs, nil
	}
	return recs[:i], recs[i:]
}

// expectCompacted checks that after cleaning the closed part of the log
// holds exactly the latest record of each key of the original closed part
// that is not newer elsewhere, and the active part is untouched.
func expectCompacted(t testing.TB, before, after []logRec, end int64) {
	t.Helper()
	// A record below end survives iff no later record (anywhere below
	// end) has its key.
	lastBelow := map[string]int64{}
	for _, r := range before {
		if r.off < end {
			lastBelow[r.key] = r.off
		}
	}
	var want []logRec
	for _, r := range before {
		if r.off >= end || (r.keyed && lastBelow[r.key] == r.off) {
			want = append(want, r)
		}
	}
	if !slices.Equal(after, want) {
		t.Fatalf("after cleaning:\n got %d records %v\nwant %d records %v", len(after), clip(after), len(want), clip(want))
	}
}

func clip(r []logRec) []logRec {
	if len(r) > 30 {
		return r[:30]
	}
	return r
}

var noHorizon = int64(math.MaxInt64)
