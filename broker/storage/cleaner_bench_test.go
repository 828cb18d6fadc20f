package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"kafgo/broker/record"
)

// BenchmarkCleanerPass1GiB times one full cleaning pass over a 1 GiB
// compacted log (KAFGO_CLEAN_BENCH_MB overrides the size) of 100-record
// batches over 200k keys, about 20 versions of each (uncompressed; more
// with lz4, which packs about 1.7 times as many records), with Kafka's default
// 128 MiB dedupe buffer. The reported MB/s is input cleaned per second:
// the mapping read plus the rewrite, end to end. Building the log is not
// timed. Run it alone: go test -run '^$' -bench CleanerPass -benchtime 1x
func BenchmarkCleanerPass1GiB(b *testing.B) {
	size := int64(1 << 30)
	if v, err := strconv.Atoi(os.Getenv("KAFGO_CLEAN_BENCH_MB")); err == nil && v > 0 {
		size = int64(v) << 20
	}
	for _, codec := range []record.Codec{record.CodecNone, record.CodecLZ4} {
		b.Run(codec.String(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				l := buildBenchLog(b, codec, size)
				in := l.Size()
				b.SetBytes(in)
				b.StartTimer()
				res, err := l.clean(context.Background(), cleanParams{firstDirty: 0, om: newOffsetMap(128<<20, 0.9), writeBuf: 256 << 10})
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				st := res.stats
				b.ReportMetric(float64(in)/(1<<20)/st.Duration.Seconds(), "MB/s-cleaned")
				b.Logf("%s: %d MiB in %d segments -> %d MiB (%d of %d records kept) in %v: %.0f MB/s",
					codec, in>>20, st.Segments, st.BytesWritten>>20, st.RecordsKept, st.RecordsRead, st.Duration,
					float64(in)/(1<<20)/st.Duration.Seconds())
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// buildBenchLog writes about size bytes of keyed updates, then rolls so
// that everything is cleanable.
func buildBenchLog(b *testing.B, codec record.Codec, size int64) *Log {
	cfg := compactConfig(128 << 20)
	cfg.SegmentIndexBytes = 10 << 20
	cfg.IndexIntervalBytes = 4096
	l := openTestLog(b, filepath.Join(b.TempDir(), "bench-0"), cfg, OpenOptions{})
	const templates, per = 2000, 100 // 200k distinct keys
	rng := rand.New(rand.NewPCG(1, 2))
	batches := make([][]byte, templates)
	for t := range batches {
		bl := record.NewBuilder(0, codec)
		for r := 0; r < per; r++ {
			// 200-byte values, half random: lz4 gets about 1.7:1.
			val := make([]byte, 200)
			for i := range val {
				if i < 100 {
					val[i] = byte(rng.Uint32())
				} else {
					val[i] = byte('a' + i%26)
				}
			}
			bl.Append(1_700_000_000_000, []byte(fmt.Sprintf("key-%07d", t*per+r)), val, nil)
		}
		out, err := bl.Build()
		if err != nil {
			b.Fatal(err)
		}
		batches[t] = out
	}
	for i := 0; l.Size() < size; i++ {
		if _, err := l.AppendAsLeader(batches[i%templates], 0); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Roll(); err != nil {
		b.Fatal(err)
	}
	return l
}
