package storage

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"kafgo/broker/record"
)

// built encodes a batch with the record package's builder (real
// compression, LogAppendTime), failing the test on error.
func built(t testing.TB, codec record.Codec, appendTime int64, ts ...int64) []byte {
	t.Helper()
	b := record.NewBuilder(0, codec)
	if appendTime >= 0 {
		b.SetLogAppendTime(appendTime)
	}
	for i, x := range ts {
		b.Append(x, []byte{'k', byte(i)}, bytes.Repeat([]byte{byte(i)}, 30), nil)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// shallowFixture appends, as leader, batches whose largest timestamp is not
// on their last record (uncompressed and compressed), with ties across and
// inside batches, and one LogAppendTime batch; every append after a
// segment's first gets index entries, and the log rolls once. It returns
// the open log.
func shallowFixture(t *testing.T, dir string, cfg LogConfig) *Log {
	t.Helper()
	l := openTestLog(t, dir, cfg, OpenOptions{})
	appends := [][]byte{
		plain(3, 20, 1000).withDeltas(0, 50, 10).bytes(),      // 0..2, max 1050 at 1
		plain(4, 20, 1000).withDeltas(60, 60, 70, 65).bytes(), // 3..6, max 1070 at 5
		built(t, record.CodecGzip, -1, 1100, 1200, 1150),      // 7..9, max 1200 at 8
		plain(3, 20, 1200).withDeltas(0, 0, 0).bytes(),        // 10..12, ties the max: no entry
		built(t, record.CodecNone, 1500, 1, 2),                // 13..14, LogAppendTime 1500
		plain(2, 20, 1600).withDeltas(5, 0).bytes(),           // 15..16, max 1605 at 15
	}
	for i, b := range appends {
		mustAppend(t, l, b, 0)
		if i == 2 {
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if l.NumSegments() != 2 {
		t.Fatalf("fixture has %d segments, want 2", l.NumSegments())
	}
	return l
}

func shallowConfig() LogConfig {
	cfg := testConfig()
	cfg.IndexIntervalBytes = 0
	return cfg
}

// The time index names, as Kafka 2.x's shallow offset, the last offset of
// the batch holding the largest timestamp so far (the earliest such batch),
// never a record inside it: that is what Kafka's recovery and followers
// write and what kafka-dump-log's time index check expects.
func TestTimeIndexOffsetsAreBatchLastOffsets(t *testing.T) {
	l := shallowFixture(t, partDir(t), shallowConfig())
	defer l.Close()
	segs := l.segments()
	// Segment 0 (sealed at the roll): entries at the 2nd and 3rd appends,
	// then the final one; the 3rd append's 1200 is new, so the final entry
	// adds nothing.
	want0 := [][2]int64{{1070, 6}, {1200, 9}}
	// Segment 1: the roll's first append gets no entry; 1500 (LogAppendTime)
	// and 1605 do.
	want1 := [][2]int64{{1500, 14}, {1605, 16}}
	if got := segs[0].timeIdx.entries(); !equalPairs(got, want0) {
		t.Errorf("sealed segment time index = %v, want %v", got, want0)
	}
	if got := segs[1].timeIdx.entries(); !equalPairs(got, want1) {
		t.Errorf("active segment time index = %v, want %v", got, want1)
	}
	checkShallowTimeIndex(t, l)
}

// Recovery rebuilds the time index from batch headers; it must come out as
// the appends wrote it, byte for byte.
func TestTimeIndexRecoveredEqualsWritten(t *testing.T) {
	dir := partDir(t)
	l := shallowFixture(t, dir, shallowConfig())
	crash := filepath.Join(t.TempDir(), "topic-0")
	copyDir(t, dir, crash)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	r := openTestLog(t, crash, shallowConfig(), OpenOptions{RecoveryPoint: 0})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"00000000000000000000", "00000000000000000010"} {
		written, err1 := os.ReadFile(filepath.Join(dir, base+".timeindex"))
		recovered, err2 := os.ReadFile(filepath.Join(crash, base+".timeindex"))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(written, recovered) {
			t.Errorf("%s.timeindex: written %x, recovered %x", base, written, recovered)
		}
	}
}

// Timestamp lookups answer with records, as Kafka's: the first record at or
// above the target (inside compressed batches too), and for -3 the first
// record carrying the largest timestamp.
func TestTimestampLookupsWithShallowIndex(t *testing.T) {
	l := shallowFixture(t, partDir(t), shallowConfig())
	defer l.Close()
	tests := []struct {
		ts, wantOff, wantTs int64
	}{
		{1040, 1, 1050},
		{1055, 3, 1060},
		{1069, 5, 1070},
		{1101, 8, 1200}, // compressed: the record, not the batch's base
		{1100, 7, 1100},
		{1199, 8, 1200},
		{1201, 13, 1500}, // LogAppendTime: its first record
		{1600, 15, 1605},
		{1605, 15, 1605},
	}
	for _, tc := range tests {
		off, ts, found, err := l.OffsetForTimestamp(tc.ts)
		if err != nil || !found || off != tc.wantOff || ts != tc.wantTs {
			t.Errorf("OffsetForTimestamp(%d) = %d@%d found %v err %v, want %d@%d", tc.ts, ts, off, found, err, tc.wantTs, tc.wantOff)
		}
	}
	if ts, off, err := l.MaxTimestamp(); err != nil || ts != 1605 || off != 15 {
		t.Errorf("MaxTimestamp = %d@%d (%v), want 1605@15", ts, off, err)
	}
}

// -3 inside a compressed batch and a LogAppendTime batch: the first record
// with the batch's largest timestamp.
func TestMaxTimestampRecordInsideBatch(t *testing.T) {
	tests := []struct {
		name  string
		batch func(t *testing.T) []byte
		want  int64
	}{
		{"gzip", func(t *testing.T) []byte { return built(t, record.CodecGzip, -1, 5, 9, 7, 9) }, 1},
		{"log append time", func(t *testing.T) []byte { return built(t, record.CodecNone, 50, 5, 9, 7) }, 0},
		{"uncompressed", func(t *testing.T) []byte { return plain(4, 10, 5).withDeltas(0, 4, 2, 4).bytes() }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, leader := range []bool{true, false} {
				l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
				var err error
				if leader {
					_, err = l.AppendAsLeader(tc.batch(t), 0)
				} else {
					_, err = l.AppendAsFollower(tc.batch(t))
				}
				if err != nil {
					t.Fatal(err)
				}
				if _, off, err := l.MaxTimestamp(); err != nil || off != tc.want {
					t.Errorf("leader %v: MaxTimestamp offset %d (%v), want %d", leader, off, err, tc.want)
				}
				l.Close()
			}
		})
	}
}

// checkShallowTimeIndex checks every time index entry of every segment the
// way kafka-dump-log does, and more: its offset is the last offset of a
// batch, the largest timestamp up to that batch is the entry's, and no
// earlier batch already had it.
func checkShallowTimeIndex(t *testing.T, l *Log) {
	t.Helper()
	for _, s := range l.segments() {
		lastOff := map[int64]int64{} // batch last offset -> largest timestamp so far
		firstAt := map[int64]int64{} // timestamp -> last offset of the first batch reaching it
		maxTs := int64(noTimestamp)
		sc := newBatchScanner(s.log, s.name, 0, s.size.Load())
		for {
			h, _, _, err := sc.next(false)
			if err != nil {
				break
			}
			if h.MaxTimestamp > maxTs {
				maxTs = h.MaxTimestamp
				firstAt[maxTs] = h.LastOffset()
			}
			lastOff[h.LastOffset()] = maxTs
		}
		for _, e := range s.timeIdx.entries() {
			ts, ok := lastOff[e[1]]
			if !ok || ts != e[0] || firstAt[ts] != e[1] {
				t.Errorf("segment %d: time index entry %d@%d; batches end at %v, first reaching each timestamp %v", s.base, e[0], e[1], lastOff, firstAt)
			}
		}
	}
}

// The cleaner's rewritten segments index the same way as appends and
// recovery.
func TestTimeIndexOfCleanedSegments(t *testing.T) {
	cfg := compactConfig(1024)
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	for i := 0; i < 60; i++ {
		codec := []record.Codec{record.CodecNone, record.CodecGzip}[i%2]
		b := record.NewBuilder(0, codec)
		ts := int64(1_000_000 + 10*i)
		for j, d := range []int64{0, 7, 3, 7} { // the largest timestamp inside, tied
			b.Append(ts+d, []byte{'k', byte((4*i + j) % 23)}, []byte("value"), nil)
		}
		data, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, l, data, 0)
	}
	if l.NumSegments() < 3 {
		t.Fatalf("%d segments, want several", l.NumSegments())
	}
	checkShallowTimeIndex(t, l)
	res := cleanTestLog(t, l, 0, 1<<20)
	cleanTestLog(t, l, res.checkpoint, 1<<20)
	checkShallowTimeIndex(t, l)
	for _, s := range l.segments()[:l.NumSegments()-1] {
		if len(s.timeIdx.entries()) == 0 {
			t.Errorf("cleaned segment %d has no time index entry", s.base)
		}
	}
}
