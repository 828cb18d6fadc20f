package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kafgo/broker/record"
)

// TestCleanerConcurrentReadsAndAppends: appends (with rolls) and readers
// run while passes clean the log over and over. Readers only ever see whole
// batches with valid CRCs and increasing offsets, and per key the versions
// they see never go back; the writer is never blocked for long; at the end
// the log holds the latest value of every key.
func TestCleanerConcurrentReadsAndAppends(t *testing.T) {
	cfg := compactConfig(8 << 10)
	cfg.FileDeleteDelayMs = 3000 // longer than any read holds a region
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	const keys, per = 50, 5

	var (
		wg      sync.WaitGroup
		done    atomic.Bool
		passes  atomic.Int64
		latest  sync.Map // key -> version written last
		maxStop atomic.Int64
	)
	deadline := time.Now().Add(2 * time.Second)
	wg.Add(1)
	go func() { // writer
		defer wg.Done()
		defer done.Store(true)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 4000 && time.Now().Before(deadline); i++ {
			var recs []trec
			for j := 0; j < per; j++ {
				k := fmt.Sprintf("k%02d", rng.IntN(keys))
				v := i*per + j
				recs = append(recs, kv(k, strconv.Itoa(v)))
				latest.Store(k, v)
			}
			codec := record.Codec(i % 5)
			start := time.Now()
			if _, err := l.AppendAsLeader(keyedBatch(t, codec, int64(i), recs...), 0); err != nil {
				t.Errorf("append %d: %v", i, err)
				return
			}
			if d := time.Since(start); d.Nanoseconds() > maxStop.Load() {
				maxStop.Store(d.Nanoseconds())
			}
		}
	}()
	wg.Add(1)
	go func() { // cleaner
		defer wg.Done()
		om := newOffsetMap(1<<20, 0.9)
		checkpoint := int64(0)
		for !done.Load() {
			res, err := l.clean(t.Context(), cleanParams{firstDirty: checkpoint, om: om, writeBuf: 16 << 10})
			if err != nil && !errors.Is(err, errCleanAborted) {
				t.Errorf("clean: %v", err)
				return
			}
			if err == nil {
				checkpoint = res.checkpoint
				passes.Add(1)
			}
		}
	}()
	var scans atomic.Int64
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() { // readers: whole scans from the start
			defer wg.Done()
			for !done.Load() {
				if !scanCompacted(t, l) {
					return
				}
				scans.Add(1)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if passes.Load() < 3 || scans.Load() < 3 {
		t.Fatalf("%d passes and %d scans ran concurrently; want at least 3 of each", passes.Load(), scans.Load())
	}
	t.Logf("%d cleaning passes, %d reader scans, longest append %v", passes.Load(), scans.Load(), time.Duration(maxStop.Load()))
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	cleanTestLog(t, l, 0, 1<<20)
	_, recs := logRecords(t, l)
	got := map[string]int{}
	for _, r := range recs {
		if _, dup := got[r.key]; dup {
			t.Fatalf("key %s appears twice after the final pass", r.key)
		}
		got[r.key], _ = strconv.Atoi(r.val)
	}
	latest.Range(func(k, v any) bool {
		if got[k.(string)] != v.(int) {
			t.Errorf("key %s: log has %d, last written %d", k, got[k.(string)], v)
		}
		return true
	})
}

// scanCompacted reads the whole log once through Read and checks what a
// consumer of a compacted log may rely on.
func scanCompacted(t *testing.T, l *Log) bool {
	seen := map[string]int{}
	next := l.LogStartOffset()
	for next < l.LogEndOffset() {
		info, err := l.Read(next, 64<<10, l.LogEndOffset(), true)
		if err != nil {
			t.Errorf("Read(%d): %v", next, err)
			return false
		}
		if info.Size == 0 {
			t.Errorf("Read(%d) returned nothing below the end %d", next, info.LogEndOffset)
			return false
		}
		for _, reg := range info.Regions {
			buf := make([]byte, reg.Size)
			if _, err := reg.File.ReadAt(buf, reg.Position); err != nil {
				t.Errorf("ReadAt: %v", err)
				return false
			}
			for p := 0; p < len(buf); {
				h, err := record.ParseBatchHeader(buf[p:])
				if err != nil || h.Size() > len(buf)-p {
					t.Errorf("torn batch at byte %d of a region read at %d: %v", p, next, err)
					return false
				}
				b, err := record.ParseBatch(buf[p:p+h.Size()], 1<<24)
				if err != nil {
					t.Errorf("batch at %d: %v", h.BaseOffset, err)
					return false
				}
				if h.LastOffset() < next {
					t.Errorf("batch [%d, %d] comes after offset %d was read", h.BaseOffset, h.LastOffset(), next)
					return false
				}
				for i := range b.Records {
					r := &b.Records[i]
					if b.OffsetOf(r) < next {
						continue // before the read position (first batch)
					}
					v, _ := strconv.Atoi(string(r.Value))
					if prev, ok := seen[string(r.Key)]; ok && v < prev {
						t.Errorf("key %s: version %d read after %d", r.Key, v, prev)
						return false
					}
					seen[string(r.Key)] = v
				}
				next = h.NextOffset()
				p += h.Size()
			}
		}
	}
	return true
}
