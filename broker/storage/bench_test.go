package storage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// batchOfSize returns an uncompressed batch of about size bytes made of
// records of about 1 KiB with increasing timestamps, the worst case for the
// leader's walk to the record with the largest timestamp.
func batchOfSize(size int) []byte {
	n := max(1, size/1024)
	b := plain(n, max(size/n-25, 0), 1_700_000_000_000)
	for i := range b.tsDeltas {
		b.tsDeltas[i] = int64(i)
	}
	return b.bytes()
}

// BenchmarkAppend16KiB compares AppendAsLeader of 16 KiB batches with a
// plain sequential os.File write of the same bytes, in the same run.
func BenchmarkAppend16KiB(b *testing.B) {
	batch := batchOfSize(16 << 10)
	b.Run("baseline-os-file-write", func(b *testing.B) {
		f, err := os.Create(filepath.Join(b.TempDir(), "baseline"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		b.SetBytes(int64(len(batch)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := f.Write(batch); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
	})
	b.Run("AppendAsLeader", func(b *testing.B) {
		l := openTestLog(b, filepath.Join(b.TempDir(), "bench-0"), DefaultLogConfig(), OpenOptions{})
		defer l.Close()
		b.SetBytes(int64(len(batch)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := l.AppendAsLeader(batch, 1); err != nil {
				b.Fatal(err)
			}
		}
		// Close fsyncs everything written; the baseline never syncs, so
		// keep it out of the measurement.
		b.StopTimer()
	})
}

// BenchmarkAppendInterleaved alternates one baseline write and one
// AppendAsLeader of the same 16 KiB per iteration, timing each, so both see
// the same disk and page-cache conditions: on a shared machine the
// writeback throttling that dominates these numbers drifts by several times
// between runs. It reports both costs and append throughput as a fraction
// of the baseline's (1.0 = as fast as a plain write).
func BenchmarkAppendInterleaved(b *testing.B) {
	batch := batchOfSize(16 << 10)
	f, err := os.Create(filepath.Join(b.TempDir(), "baseline"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	l := openTestLog(b, filepath.Join(b.TempDir(), "bench-0"), DefaultLogConfig(), OpenOptions{})
	defer l.Close()
	var base, app time.Duration
	b.SetBytes(2 * int64(len(batch)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := f.Write(batch); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := l.AppendAsLeader(batch, 1); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		base += t1.Sub(t0)
		app += t2.Sub(t1)
	}
	b.StopTimer() // Close fsyncs: not part of either side
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(app.Nanoseconds())/float64(b.N), "append-ns/op")
	b.ReportMetric(float64(base)/float64(app), "append/baseline-throughput")
}

// BenchmarkDurableAppend measures durable appends (flush.messages=1) of
// 1 KiB batches by concurrent producers: the Log's group commit against a
// plain writer that fsyncs every batch (writes serialised, each writer then
// fsyncing its own), in the same run. It reports appends per fsync; ns/op
// is per append. On the group-commit side more producers share each fsync,
// so appends/s grow with them while the plain writer stays at about one
// fsync per append.
func BenchmarkDurableAppend(b *testing.B) {
	batch := batchOfSize(1 << 10)
	for _, producers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("fsync-per-batch/producers=%d", producers), func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "baseline"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			var mu sync.Mutex
			var syncs atomic.Int64
			runProducers(b, producers, func() error {
				mu.Lock()
				_, err := f.Write(batch)
				mu.Unlock()
				if err != nil {
					return err
				}
				syncs.Add(1)
				return f.Sync()
			})
			b.ReportMetric(float64(b.N)/float64(syncs.Load()), "appends/fsync")
		})
		b.Run(fmt.Sprintf("group-commit/producers=%d", producers), func(b *testing.B) {
			var syncs atomic.Int64
			cfg := DefaultLogConfig()
			cfg.FlushMessages = 1
			l := openTestLog(b, filepath.Join(b.TempDir(), "bench-0"), cfg, OpenOptions{FS: logSyncCounter(&syncs, 0)})
			defer l.Close()
			runProducers(b, producers, func() error {
				_, err := l.AppendAsLeader(slices.Clone(batch), 1)
				return err
			})
			b.ReportMetric(float64(b.N)/float64(syncs.Load()), "appends/fsync")
		})
	}
}

// runProducers runs b.N calls of produce spread over n goroutines.
func runProducers(b *testing.B, n int, produce func() error) {
	b.SetBytes(1 << 10)
	b.ResetTimer()
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if err := produce(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// BenchmarkSegment1GiB builds one full 1 GiB segment (batches of 1 to 16
// KiB) once, then measures offset lookups and sequential reads against a
// raw sequential read of the same file.
func BenchmarkSegment1GiB(b *testing.B) {
	cfg := DefaultLogConfig()
	l := openTestLog(b, filepath.Join(b.TempDir(), "bench-0"), cfg, OpenOptions{})
	defer l.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var sizes []int
	for s := 1; s <= 16; s++ {
		sizes = append(sizes, s<<10)
	}
	batches := make([][]byte, len(sizes))
	for i, s := range sizes {
		batches[i] = batchOfSize(s)
	}
	for {
		bt := batches[rng.IntN(len(batches))]
		if l.active().size.Load()+int64(len(bt)) > cfg.SegmentBytes {
			break
		}
		if _, err := l.AppendAsLeader(bt, 1); err != nil {
			b.Fatal(err)
		}
	}
	if l.NumSegments() != 1 {
		b.Fatalf("%d segments", l.NumSegments())
	}
	seg := l.active()
	size := seg.size.Load()
	leo := l.LogEndOffset()
	b.Logf("segment: %d bytes, %d offsets, %d index entries", size, leo, seg.offIdx.n.Load())

	b.Run("Read-random-offset", func(b *testing.B) {
		r := rand.New(rand.NewPCG(5, 6))
		for i := 0; i < b.N; i++ {
			info, err := l.Read(r.Int64N(leo), 1, leo, true)
			if err != nil || info.Size == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("index-lookup-only", func(b *testing.B) {
		r := rand.New(rand.NewPCG(5, 6))
		for i := 0; i < b.N; i++ {
			seg.offIdx.lookup(r.Int64N(leo), size)
		}
	})
	const chunk = 1 << 20
	buf := make([]byte, chunk+(16<<10)+100)
	b.Run("baseline-raw-sequential-ReadAt-1MiB", func(b *testing.B) {
		b.SetBytes(chunk)
		pos := int64(0)
		for i := 0; i < b.N; i++ {
			if pos+chunk > size {
				pos = 0
			}
			if _, err := seg.log.ReadAt(buf[:chunk], pos); err != nil {
				b.Fatal(err)
			}
			pos += chunk
		}
	})
	b.Run("sequential-Read+ReadAt-1MiB", func(b *testing.B) {
		var total int64
		off := int64(0)
		for i := 0; i < b.N; i++ {
			if off >= leo {
				off = 0
			}
			info, err := l.Read(off, chunk, leo, true)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range info.Regions {
				if _, err := r.File.ReadAt(buf[:r.Size], r.Position); err != nil {
					b.Fatal(err)
				}
			}
			total += info.Size
			off = lastOffsetIn(buf[:info.Size]) + 1
		}
		// Report throughput by what was really read (whole batches, just
		// under 1 MiB per call).
		b.SetBytes(total / int64(b.N))
	})
}

// lastOffsetIn returns the last offset of the last batch in data.
func lastOffsetIn(data []byte) int64 {
	var last int64
	for p := 0; p < len(data); {
		h, err := parseHeaderForBench(data[p:])
		if err != nil {
			break
		}
		last = h.LastOffset()
		p += h.Size()
	}
	return last
}

// BenchmarkAppendIdempotent appends one-record idempotent batches of one
// producer (the producer-state bookkeeping of every acks=all produce);
// allocs/op shows what the bookkeeping allocates per batch.
func BenchmarkAppendIdempotent(b *testing.B) {
	l := openTestLog(b, filepath.Join(b.TempDir(), "bench-0"), DefaultLogConfig(), OpenOptions{})
	defer l.Close()
	batches := make([][]byte, 4096)
	for i := range batches {
		batches[i] = idem(7, 0, int32(i), 1).bytes()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%len(batches) == 0 {
			// Sequences wrap: a new epoch starts them at 0 again.
			for j := range batches {
				batches[j] = idem(7, int16(i/len(batches)), int32(j), 1).bytes()
			}
		}
		if _, err := l.AppendAsLeader(batches[i%len(batches)], 1); err != nil {
			b.Fatal(err)
		}
	}
}
