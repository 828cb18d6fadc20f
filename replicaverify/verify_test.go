package replicaverify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"kafgo/internal/cliutil"
	"kafgo/internal/testing/clitest"
	"kafgo/internal/topicpart"
)

// v2Batch is a record batch header (and nothing more) with the fields the
// tool reads: base offset, length, magic, CRC, last offset delta.
func v2Batch(base int64, count int32, crc uint32) []byte {
	b := make([]byte, 61)
	binary.BigEndian.PutUint64(b, uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	b[16] = 2
	binary.BigEndian.PutUint32(b[17:], crc)
	binary.BigEndian.PutUint32(b[23:], uint32(count-1))
	return b
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// testdata/verify.golden is written by hand from ReplicaVerificationTool's
// println texts (Kafka 3.9).
func TestVerifyGolden(t *testing.T) {
	t0 := topicpart.TP{Topic: "t", Partition: 0}
	t1 := topicpart.TP{Topic: "t", Partition: 1}
	at := time.Date(2024, 1, 2, 3, 4, 5, 678e6, time.UTC)
	now := func() time.Time { return at }
	stamp := func() string { return formatTime(now()) }
	st := &state{
		expected:   map[topicpart.TP]int{t0: 2, t1: 2},
		offsets:    map[topicpart.TP]int64{t0: 0, t1: 0},
		lastReport: at.Add(-time.Hour),
		round: map[topicpart.TP]map[int32]fetched{
			// t-0: equal first batch, checksums differ in the second (both
			// below the HW), third batch beyond replica 2's HW.
			t0: {
				1: {hw: 8, records: cat(v2Batch(0, 2, 7), v2Batch(2, 3, 0xdeadbeef), v2Batch(5, 3, 9))},
				2: {hw: 5, records: cat(v2Batch(0, 2, 7), v2Batch(2, 3, 0x12345678), v2Batch(5, 3, 9))},
			},
			// t-1: one replica answered nothing (a failed fetch).
			t1: {1: {hw: 5, records: v2Batch(0, 5, 1)}, 2: {hw: -1}},
		},
	}
	var out bytes.Buffer
	if err := st.verify(&out, stamp, now, time.Minute); err != nil {
		t.Fatal(err)
	}
	if st.offsets[t0] != 5 || st.offsets[t1] != 0 {
		t.Fatalf("verified offsets %v", st.offsets)
	}
	// Next round: the replicas disagree on where a batch ends.
	st.round[t0] = map[int32]fetched{1: {hw: 20, records: v2Batch(5, 5, 1)}, 2: {hw: 20, records: v2Batch(5, 3, 1)}}
	err := st.verify(&out, stamp, now, time.Minute)
	var ce *cliutil.CommandError
	if !errors.As(err, &ce) || !errors.Is(err, errDiverged) {
		t.Fatalf("error %v", err)
	}
	clitest.Golden(t, "verify.golden", out.Bytes())
}

func TestBatchesStopsAtPartialBatch(t *testing.T) {
	full := cat(v2Batch(0, 2, 1), v2Batch(2, 1, 2))
	got := batches(append(full, v2Batch(3, 1, 3)[:30]...))
	if len(got) != 2 || got[1].lastOffset != 2 || got[1].nextOffset != 3 || got[1].checksum != 2 {
		t.Fatalf("%+v", got)
	}
}
