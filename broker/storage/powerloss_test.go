package storage

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/storage/vfs"
)

// Power-loss test (issue 17): the workload runs on the strict in-memory
// file system and the power is cut at a random operation: what the disk
// holds then is the synced data and the synced directory entries only
// (optionally with a torn, partly written-back tail), and from that moment
// every operation fails, as on a dead machine. The log dir is then opened
// from that image. With flush.messages=1 every acknowledged record is
// there; with the default flush policy the log is a clean prefix of what
// was appended (no hole, no garbage, nothing past a torn tail), holding at
// least what an explicit flush had covered, and its indexes pass the
// sanity check and lead every lookup to its batch.

// powerCut takes the crash image at the n-th operation and fails it and
// every later one.
type powerCut struct {
	mem   *vfs.MemFS
	n     int
	torn  *rand.Rand
	mu    sync.Mutex
	seen  int
	image *vfs.MemFS
}

func (p *powerCut) MaybeError(op vfs.Op) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen++
	if p.seen == p.n {
		if p.torn != nil {
			p.image = p.mem.CrashTorn(p.torn)
		} else {
			p.image = p.mem.Crash()
		}
	}
	if p.image != nil {
		return &vfs.InjectedError{Op: op, Errno: syscall.EIO}
	}
	return nil
}

var powerTP = partid.TopicPartition{Topic: "power", Partition: 0}

func powerLogConfig(flushMessages int64) LogConfig {
	c := testConfig()
	c.SegmentBytes = 1200
	c.SegmentIndexBytes = 4096
	c.IndexIntervalBytes = 150
	c.FlushMessages = flushMessages
	return c
}

// runPowerWorkload appends records "v<i>" (several per batch, sometimes),
// rolls, flushes and writes checkpoints; it returns the appends
// acknowledged (first offset -> i, one record each... see below) and the
// number of appends an explicit flush had made durable.
func runPowerWorkload(t *testing.T, fsys vfs.FS, cfg LogConfig) (acked map[int64]int, flushed int64) {
	t.Helper()
	acked = map[int64]int{}
	m, err := OpenManager(ManagerConfig{LogDirs: []string{sweepRoot}, BrokerID: 1, DefaultLog: cfg, Logger: quietLogger(), FS: fsys})
	if err != nil {
		return acked, 0
	}
	defer m.Shutdown()
	l, err := m.GetOrCreateLog(powerTP, cfg, [16]byte{2})
	if err != nil {
		return acked, 0
	}
	for i := 0; i < 80; i++ {
		b := keyedBatch(t, record.CodecNone, int64(1000+i), kv("k", "v"+strconv.Itoa(i)))
		info, err := l.AppendAsLeader(b, int32(i/30))
		if err != nil {
			if !errors.Is(err, ErrStorage) {
				t.Fatalf("append %d: %v", i, err)
			}
			break // the power is out
		}
		if info.FirstOffset != int64(i) {
			t.Fatalf("append %d got offset %d", i, info.FirstOffset)
		}
		acked[info.FirstOffset] = i
		switch i % 25 {
		case 11:
			if l.Flush() == nil {
				flushed = l.RecoveryPoint()
			}
			m.writeCheckpoints(m.Logs())
		case 19:
			l.Roll()
		}
	}
	return acked, flushed
}

// checkPowerRecovered opens the image and checks it; prefix demands that
// the log be exactly appends 0..n-1 for some n >= mustHave.
func checkPowerRecovered(t *testing.T, image *vfs.MemFS, cfg LogConfig, acked map[int64]int, mustHave int64, prefix bool) {
	t.Helper()
	m, err := OpenManager(ManagerConfig{LogDirs: []string{sweepRoot}, BrokerID: 1, DefaultLog: cfg, Logger: quietLogger(), FS: image})
	if err != nil {
		t.Fatalf("open after the power loss: %v\n%s", err, image)
	}
	defer m.Shutdown()
	l, ok := m.Log(powerTP)
	if !ok {
		if len(acked) > 0 && (!prefix || mustHave > 0) {
			t.Fatalf("the log is gone; %d appends acknowledged, %d flushed\n%s", len(acked), mustHave, image)
		}
		return
	}
	_, recs := logRecords(t, l) // whole batches, valid CRCs
	for i, r := range recs {
		v, err := strconv.Atoi(r.val[1:])
		if err != nil || r.key != "k" {
			t.Fatalf("record %v was never appended", r)
		}
		if int64(v) != r.off {
			t.Fatalf("offset %d holds append %d", r.off, v)
		}
		if prefix && r.off != int64(i) {
			t.Fatalf("hole: record %d of the log is at offset %d", i, r.off)
		}
	}
	if prefix && int64(len(recs)) < mustHave {
		t.Fatalf("%d records after the power loss, %d were flushed", len(recs), mustHave)
	}
	if !prefix {
		present := map[int64]bool{}
		for _, r := range recs {
			present[r.off] = true
		}
		for off, i := range acked {
			if !present[off] {
				t.Fatalf("acknowledged append %d at offset %d is lost (log ends at %d)", i, off, l.LogEndOffset())
			}
		}
	}
	if l.LogEndOffset() != int64(len(recs)) {
		t.Fatalf("log end %d with %d records", l.LogEndOffset(), len(recs))
	}
	for _, s := range l.segments() {
		if err := s.checkIndexes(false); err != nil {
			t.Fatalf("index after recovery: %v", err)
		}
	}
	for _, r := range recs {
		data, err := l.ReadBytes(r.off, 1, l.LogEndOffset())
		if err != nil {
			t.Fatal(err)
		}
		if h, err := record.ParseBatchHeader(data); err != nil || h.BaseOffset != r.off {
			t.Fatalf("read at %d returned %+v, %v", r.off, h, err)
		}
	}
	if _, err := l.AppendAsLeader(keyedBatch(t, record.CodecNone, 9000, kv("k", "v"+strconv.FormatInt(l.LogEndOffset(), 10))), 7); err != nil {
		t.Fatalf("append after recovery: %v", err)
	}
}

func TestPowerLoss(t *testing.T) {
	for _, mode := range []struct {
		name          string
		flushMessages int64
		torn          bool
	}{
		{"flush.messages=1", 1, false},
		{"flush.messages=1 torn", 1, true},
		{"default flush", math.MaxInt64, false},
		{"default flush torn", math.MaxInt64, true},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cfg := powerLogConfig(mode.flushMessages)
			count := &vfs.Counter{}
			runPowerWorkload(t, vfs.WithErrors(newSweepFS(t), count), cfg)
			total := count.Seen()
			rng := rand.New(rand.NewPCG(17, uint64(mode.flushMessages)))
			trials := 60
			if testing.Short() {
				trials = 15
			}
			for trial := 0; trial < trials; trial++ {
				n := 1 + rng.IntN(total)
				t.Run(fmt.Sprintf("cut at op %d", n), func(t *testing.T) {
					mem := newSweepFS(t)
					cut := &powerCut{mem: mem, n: n}
					if mode.torn {
						cut.torn = rand.New(rand.NewPCG(uint64(n), 5))
					}
					acked, flushed := runPowerWorkload(t, vfs.WithErrors(mem, cut), cfg)
					if cut.image == nil {
						t.Skipf("the run made fewer than %d operations", n)
					}
					checkPowerRecovered(t, cut.image, cfg, acked, flushed, mode.flushMessages != 1)
				})
			}
		})
	}
}
