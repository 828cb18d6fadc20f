package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/storage/vfs"
)

// The fault sweep (issue 17): a scripted workload of appends with
// flush.messages=1, rolls, flushes, checkpoints and compaction runs on the
// strict in-memory file system, once to count its writes, syncs,
// truncations, renames and allocations, then once per n with the n-th of
// them failing. After each run the machine "loses power" (only synced data
// and synced directory entries survive) or the process dies (the page cache
// survives), and the log dir is opened again. Every record whose append
// was acknowledged is there (or, compaction allowed, a later record of its
// key); nothing that was never appended is; every batch reads whole and
// checks its CRC, and every offset index lookup lands on its batch; no
// append is acknowledged after the failure; and no file whose sync failed is
// synced again.

const sweepRoot = "/data"

var sweepTP = partid.TopicPartition{Topic: "sweep", Partition: 0}

// sweepKinds are the operations the sweep fails.
var sweepKinds = []vfs.OpKind{vfs.OpWrite, vfs.OpSync, vfs.OpTruncate, vfs.OpRename, vfs.OpAllocate}

func sweepLogConfig() LogConfig {
	c := compactConfig(900)
	c.SegmentIndexBytes = 4096
	c.IndexIntervalBytes = 128
	c.FlushMessages = 1
	return c
}

func sweepManagerConfig(fsys vfs.FS) ManagerConfig {
	return ManagerConfig{LogDirs: []string{sweepRoot}, BrokerID: 1, DefaultLog: sweepLogConfig(), Logger: quietLogger(), FS: fsys}
}

// sweepInjector fails the n-th matching operation and counts the syncs that
// run after a failure.
type sweepInjector struct {
	c          *vfs.Counter
	mu         sync.Mutex
	syncsAfter []vfs.Op
}

func (s *sweepInjector) MaybeError(op vfs.Op) error {
	if op.Kind == vfs.OpSync && len(s.c.Fired()) > 0 {
		s.mu.Lock()
		s.syncsAfter = append(s.syncsAfter, op)
		s.mu.Unlock()
	}
	return s.c.MaybeError(op)
}

// sweepValue and sweepKey name append i's record.
func sweepValue(i int) string { return "v" + strconv.Itoa(i) }
func sweepKey(i int) string   { return "k" + strconv.Itoa(i%6) }

// runSweepWorkload runs the script on fsys and returns the appends
// acknowledged (offset -> append number). It stops caring about errors once
// the first one happened, but an append acknowledged after it is a failure.
func runSweepWorkload(t *testing.T, fsys vfs.FS) map[int64]int {
	t.Helper()
	acked := map[int64]int{}
	m, err := OpenManager(sweepManagerConfig(fsys))
	if err != nil {
		return acked
	}
	defer m.Shutdown()
	l, err := m.GetOrCreateLog(sweepTP, sweepLogConfig(), [16]byte{1})
	if err != nil {
		return acked
	}
	failed := false
	for i := 0; i < 60; i++ {
		b := keyedBatch(t, record.CodecNone, int64(1000+i), kv(sweepKey(i), sweepValue(i)))
		info, err := l.AppendAsLeader(b, int32(i/20))
		switch {
		case err == nil && failed:
			t.Fatalf("append %d acknowledged (offset %d) after the log failed", i, info.FirstOffset)
		case err == nil:
			acked[info.FirstOffset] = i
		default:
			failed = true
			if !errors.Is(err, ErrStorage) {
				t.Fatalf("append %d: %v, want ErrStorage", i, err)
			}
		}
		switch i % 20 {
		case 9:
			l.Flush()
			m.writeCheckpoints(m.Logs())
			m.WriteHighWatermarks(map[partid.TopicPartition]int64{sweepTP: l.LogEndOffset()})
		case 14:
			l.SetHighWatermark(l.LogEndOffset())
			l.Roll()
			l.clean(context.Background(), cleanParams{firstDirty: 0, om: newOffsetMap(1<<16, 0.9), writeBuf: 4096})
		}
	}
	return acked
}

// checkRecovered opens the log dir of fsys and checks it against acked.
func checkSweepRecovered(t *testing.T, fsys vfs.FS, acked map[int64]int, what string) {
	t.Helper()
	m, err := OpenManager(sweepManagerConfig(fsys))
	if err != nil {
		t.Fatalf("%s: open after the crash: %v", what, err)
	}
	defer m.Shutdown()
	l, ok := m.Log(sweepTP)
	if !ok {
		if len(acked) > 0 {
			t.Fatalf("%s: the log is gone, %d records were acknowledged", what, len(acked))
		}
		return
	}
	_, recs := logRecords(t, l) // every batch whole, CRCs checked
	at := map[int64]logRec{}
	lastByKey := map[string]int64{}
	prev := int64(-1)
	for _, r := range recs {
		if r.off <= prev {
			t.Fatalf("%s: offsets do not increase: %d after %d", what, r.off, prev)
		}
		prev = r.off
		i, err := strconv.Atoi(strings.TrimPrefix(r.val, "v"))
		if err != nil || r.key != sweepKey(i) {
			t.Fatalf("%s: record %v was never appended", what, r)
		}
		if want, ok := acked[r.off]; ok && want != i {
			t.Fatalf("%s: offset %d holds append %d, append %d was acknowledged there", what, r.off, i, want)
		}
		at[r.off] = r
		lastByKey[r.key] = r.off
	}
	for off, i := range acked {
		if _, ok := at[off]; ok {
			continue
		}
		if last, ok := lastByKey[sweepKey(i)]; ok && last > off {
			continue // compacted away by a later record of its key
		}
		t.Fatalf("%s: acknowledged append %d at offset %d is lost (log %d..%d)", what, i, off, l.LogStartOffset(), l.LogEndOffset())
	}
	// The indexes lead every read to its batch.
	for off := range at {
		info, err := l.Read(off, 1, l.LogEndOffset(), true)
		if err != nil || info.Size == 0 {
			t.Fatalf("%s: read at %d: %+v, %v", what, off, info, err)
		}
		data, err := l.ReadBytes(off, 1, l.LogEndOffset())
		if err != nil {
			t.Fatalf("%s: read at %d: %v", what, off, err)
		}
		h, err := record.ParseBatchHeader(data)
		if err != nil || h.BaseOffset > off || h.LastOffset() < off {
			t.Fatalf("%s: read at %d returned batch %+v, %v", what, off, h, err)
		}
	}
	// And the recovered log takes appends again.
	if _, err := l.AppendAsLeader(keyedBatch(t, record.CodecNone, 5000, kv("after", "crash")), 9); err != nil {
		t.Fatalf("%s: append after recovery: %v", what, err)
	}
}

func newSweepFS(t *testing.T) *vfs.MemFS {
	mem := vfs.NewMem()
	if err := mem.MkdirAll(sweepRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	mem.SyncAll()
	return mem
}

func TestFaultSweep(t *testing.T) {
	// Count the operations of a clean run.
	count := &vfs.Counter{Kinds: sweepKinds}
	clean := newSweepFS(t)
	acked := runSweepWorkload(t, vfs.WithErrors(clean, count))
	total := count.Seen()
	if len(acked) != 60 {
		t.Fatalf("the clean run acknowledged %d of 60 appends", len(acked))
	}
	checkSweepRecovered(t, clean.Crash(), acked, "clean run")
	t.Logf("%d writes, syncs, truncations, renames and allocations in the workload", total)
	for n := 1; n <= total; n++ {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			mem := newSweepFS(t)
			inj := &sweepInjector{c: &vfs.Counter{N: n, Kinds: sweepKinds}}
			acked := runSweepWorkload(t, vfs.WithErrors(mem, inj))
			fired := inj.c.Fired()
			if len(fired) == 0 {
				// A background flush after a roll may cover what an
				// append's own sync would have: the count varies by a
				// few between runs.
				t.Skipf("this run made fewer than %d operations", n)
			}
			what := fmt.Sprintf("%s failed, %d acknowledged", fired[0], len(acked))
			// fsyncgate: a file (or directory) whose sync failed is
			// never synced again. (A sync of another file already under
			// way in another goroutine, the roll's background flush or
			// the cleaner, may still end after the failure.)
			if fired[0].Kind == vfs.OpSync {
				for _, op := range inj.syncsAfter {
					if op.Path == fired[0].Path {
						t.Fatalf("%s: synced again after the failed sync: %v", what, inj.syncsAfter)
					}
				}
			}
			t.Run("power loss", func(t *testing.T) { checkSweepRecovered(t, mem.Crash(), acked, what) })
			t.Run("process crash", func(t *testing.T) { checkSweepRecovered(t, mem, acked, what) })
		})
	}
}
