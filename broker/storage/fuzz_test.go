package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kafgo/broker/record"
)

// Every decoder must reject bad input with an error, never panic, and
// accept what the matching encoder writes.

func FuzzParseOffsetCheckpoint(f *testing.F) {
	f.Add([]byte("0\n2\norders 0 1523\norders 1 1498\n"))
	f.Add([]byte("0\n0\n"))
	f.Add([]byte("0\n99999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseOffsetCheckpoint("fuzz", data)
		if err != nil {
			if !errors.Is(err, ErrCorruptFile) {
				t.Fatalf("error without ErrCorruptFile: %v", err)
			}
			return
		}
		back, err := parseOffsetCheckpoint("fuzz", formatOffsetCheckpoint(m))
		if err != nil || len(back) != len(m) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzParseLeaderEpochCheckpoint(f *testing.F) {
	f.Add([]byte("0\n2\n0 0\n3 1200\n"))
	f.Add([]byte("0\n1\n-5 x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := parseLeaderEpochCheckpoint("fuzz", data)
		if err != nil {
			return
		}
		back, err := parseLeaderEpochCheckpoint("fuzz", formatLeaderEpochCheckpoint(es))
		if err != nil || !equalEpochs(back, es) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzDecodeProducerSnapshot(f *testing.F) {
	f.Add(encodeProducerSnapshot([]ProducerState{{ProducerID: 1, Epoch: 2, Batches: []ProducerBatch{{FirstSeq: 0, LastSeq: 4, FirstOffset: 10, LastOffset: 14}}}}))
	f.Add(encodeProducerSnapshot(nil))
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := decodeProducerSnapshot("fuzz", data)
		if err != nil {
			return
		}
		if _, err := decodeProducerSnapshot("fuzz", encodeProducerSnapshot(ps)); err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
	})
}

func FuzzParsePartitionMetadata(f *testing.F) {
	f.Add([]byte("version: 0\ntopic_id: 3s3o9J7JRYCO1d3n7uFvHg"))
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := parsePartitionMetadata("fuzz", data)
		if err != nil {
			return
		}
		if back, err := parsePartitionMetadata("fuzz", formatPartitionMetadata(id)); err != nil || back != id {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzParseJavaProperties(f *testing.F) {
	f.Add([]byte("#\n#Wed Dec 02 12:00:00 UTC 2026\nversion=0\nbroker.id=1\ncluster.id=a\\=b\\\n  c\n"))
	f.Add([]byte("k\\u00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = parseJavaProperties("fuzz", data)
	})
}

func FuzzWalkRecordTimestamps(f *testing.F) {
	f.Add(plain(3, 10, 100).withDeltas(0, 5, -2).bytes())
	f.Add(plain(1, 0, 0).bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < record.BatchHeaderSize {
			return
		}
		h, err := record.ParseBatchHeader(data)
		if err != nil {
			return
		}
		_ = walkRecordTimestamps(data, &h, func(int64, int64) bool { return true })
	})
}

// Recovery of arbitrary segment bytes never panics and leaves a log whose
// every batch reads back with a valid CRC.
func FuzzRecoverSegment(f *testing.F) {
	f.Add(concat(plain(2, 10, 1).bytes(), plain(1, 5, 2).bytes()))
	f.Add(plain(1, 10, 1).bytes()[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		dir := filepath.Join(t.TempDir(), "f-0")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), data, 0o644)
		cfg := testConfig()
		cfg.SegmentIndexBytes = 1200
		cfg.IndexIntervalBytes = 64
		l, err := OpenLog(dir, cfg, OpenOptions{Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		hs := readAll(t, l, 0)
		if n := len(hs); n > 0 && hs[n-1].NextOffset() != l.LogEndOffset() {
			t.Fatalf("batches end at %d, log end %d", hs[n-1].NextOffset(), l.LogEndOffset())
		}
	})
}
