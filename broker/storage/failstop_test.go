package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"kafgo/broker/partid"
	"kafgo/broker/storage/vfs"
)

// syncWatch fails the n-th sync of a .log and counts the syncs of every
// .log after that failure: a fail-stop log makes none (fsyncgate).
type syncWatch struct {
	n         int
	delay     time.Duration
	seen      atomic.Int64
	failed    atomic.Bool
	afterFail atomic.Int64
}

func (w *syncWatch) MaybeError(op vfs.Op) error {
	if op.Kind != vfs.OpSync || !strings.HasSuffix(op.Path, logExt) {
		return nil
	}
	if w.failed.Load() {
		w.afterFail.Add(1)
		return nil // a retried fsync "succeeds" over lost pages
	}
	time.Sleep(w.delay)
	if w.seen.Add(1) == int64(w.n) {
		w.failed.Store(true)
		return &vfs.InjectedError{Op: op, Errno: syscall.EIO}
	}
	return nil
}

// TestFailedSyncIsNeverRetried: with flush.messages=1 and concurrent
// appenders sharing syncs (group commit), a failed fsync fails every
// append waiting on it and every later one with ErrStorage; no fsync of
// the log runs after it; the recovery point stays below the first append
// that was not acknowledged; and no acknowledged append has an offset the
// failed sync was to cover.
func TestFailedSyncIsNeverRetried(t *testing.T) {
	for _, segBytes := range []int64{0, 2048} {
		t.Run(fmt.Sprint("segment.bytes=", segBytes), func(t *testing.T) {
			w := &syncWatch{n: 6, delay: time.Millisecond}
			cfg := testConfig()
			cfg.FlushMessages = 1
			if segBytes > 0 {
				cfg.SegmentBytes = segBytes
			}
			l := openTestLog(t, partDir(t), cfg, OpenOptions{FS: vfs.WithErrors(vfs.Default, w)})
			defer l.Close()
			var mu sync.Mutex
			var acked []int64
			var failures atomic.Int64
			var wg sync.WaitGroup
			for range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 15 {
						info, err := l.AppendAsLeader(plain(1, 50, 1).bytes(), 0)
						if err != nil {
							if !errors.Is(err, ErrStorage) {
								t.Errorf("append: %v, want ErrStorage", err)
							}
							failures.Add(1)
							continue
						}
						mu.Lock()
						acked = append(acked, info.LastOffset)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if !w.failed.Load() {
				t.Fatalf("the workload never reached the failing sync (%d syncs)", w.seen.Load())
			}
			if n := w.afterFail.Load(); n != 0 {
				t.Fatalf("%d fsyncs of the log after one failed", n)
			}
			if failures.Load() == 0 {
				t.Fatal("no append saw the failure")
			}
			rp := l.RecoveryPoint()
			for _, off := range acked {
				if off >= rp {
					t.Fatalf("offset %d acknowledged at or beyond the recovery point %d, which no successful sync reached", off, rp)
				}
			}
			if err := l.Err(); !errors.Is(err, ErrStorage) || !errors.Is(err, syscall.EIO) {
				t.Fatalf("Err() = %v, want ErrStorage wrapping EIO", err)
			}
			t.Logf("%d acknowledged, %d failed, recovery point %d", len(acked), failures.Load(), rp)
		})
	}
}

// TestDirFailureTakesTheDirOffline: an I/O error in one log takes its whole
// dir offline (Kafka's log dir failure): every log in the dir fails, logs
// in the other dir go on, the failure is reported once on DirFailures, new
// partitions go to the live dir, checkpoints and the clean-shutdown marker
// are no longer written in the failed dir, and with every dir offline no
// log can be created.
func TestDirFailureTakesTheDirOffline(t *testing.T) {
	root := t.TempDir()
	d1, d2 := filepath.Join(root, "a"), filepath.Join(root, "b")
	inj := &vfs.Counter{N: 1, Kinds: []vfs.OpKind{vfs.OpWrite}, Match: vfs.PathContains(filepath.Join(d1, "bad-0"))}
	cfg := managerConfig(d1, d2)
	cfg.FS = vfs.WithErrors(vfs.Default, inj)
	m := openTestManager(t, cfg)
	defer m.Shutdown()
	create := func(topic string) *Log {
		t.Helper()
		l, err := m.GetOrCreateLog(partid.TopicPartition{Topic: topic, Partition: 0}, cfg.DefaultLog, [16]byte{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	// Fewest partitions, ties to the first listed: d1, d2, d1.
	bad, other, sibling := create("bad"), create("other"), create("sibling")
	if filepath.Dir(bad.Dir()) != d1 || filepath.Dir(other.Dir()) != d2 || filepath.Dir(sibling.Dir()) != d1 {
		t.Fatalf("placement: %s %s %s", bad.Dir(), other.Dir(), sibling.Dir())
	}
	mustAppend(t, sibling, plain(1, 10, 1).bytes(), 0)
	if _, err := bad.AppendAsLeader(plain(1, 10, 1).bytes(), 0); !errors.Is(err, ErrStorage) {
		t.Fatalf("append with a failing write: %v", err)
	}
	select {
	case f := <-m.DirFailures():
		if f.Dir != d1 || !errors.Is(f.Err, vfs.ErrInjected) {
			t.Fatalf("reported %+v", f)
		}
	default:
		t.Fatal("no dir failure reported")
	}
	if _, err := sibling.AppendAsLeader(plain(1, 10, 1).bytes(), 0); !errors.Is(err, ErrStorage) {
		t.Fatalf("a log in the failed dir appended: %v", err)
	}
	if _, err := sibling.Read(0, 1<<20, 10, true); !errors.Is(err, ErrStorage) {
		t.Fatalf("a log in the failed dir was read: %v", err)
	}
	mustAppend(t, other, plain(1, 10, 1).bytes(), 0)
	if off := m.OfflineDirs(); len(off) != 1 || off[0].Dir != d1 {
		t.Fatalf("offline dirs %+v", off)
	}
	if live := m.LiveDirs(); len(live) != 1 || live[0] != d2 {
		t.Fatalf("live dirs %v", live)
	}
	if l := create("new"); filepath.Dir(l.Dir()) != d2 {
		t.Fatalf("a new log went to %s, not the live dir", l.Dir())
	}
	before, _ := os.ReadFile(filepath.Join(d1, RecoveryPointCheckpointFile))
	if err := m.writeCheckpoints(m.Logs()); err != nil {
		t.Fatalf("checkpoints: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(d1, RecoveryPointCheckpointFile)); string(after) != string(before) {
		t.Fatalf("the failed dir's checkpoint was rewritten")
	}
	if err := m.FailDir(d2, errors.New("operator")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.GetOrCreateLog(partid.TopicPartition{Topic: "none", Partition: 0}, cfg.DefaultLog, [16]byte{}); !errors.Is(err, ErrStorage) {
		t.Fatalf("create with every dir offline: %v", err)
	}
	m.Shutdown()
	for _, d := range []string{d1, d2} {
		if fileExists(vfs.Default, filepath.Join(d, CleanShutdownFile)) {
			t.Errorf("clean-shutdown marker written in the failed dir %s", d)
		}
	}
}

// TestFailedRollFlushFailsTheLog: the background flush that follows a roll
// fails; the log fails, so the next append is refused rather than written
// over a segment whose sync failed.
func TestFailedRollFlushFailsTheLog(t *testing.T) {
	w := &syncWatch{n: 1}
	cfg := testConfig()
	cfg.SegmentBytes = 500
	l := openTestLog(t, partDir(t), cfg, OpenOptions{FS: vfs.WithErrors(vfs.Default, w)})
	defer l.Close()
	for i := 0; i < 100 && !w.failed.Load(); i++ {
		if _, err := l.AppendAsLeader(plain(1, 50, 1).bytes(), 0); err != nil {
			break
		}
		l.bg.Wait() // the roll's background flush
	}
	if !w.failed.Load() {
		t.Fatal("no roll flush ran")
	}
	if _, err := l.AppendAsLeader(plain(1, 50, 1).bytes(), 0); !errors.Is(err, ErrStorage) {
		t.Fatalf("append after a failed roll flush: %v", err)
	}
	if n := w.afterFail.Load(); n != 0 {
		t.Fatalf("%d syncs after the failed one", n)
	}
}

// TestCreateLogFailureLeavesNothing: a log that cannot be created (no
// descriptors left, EMFILE) is refused with ErrStorage, leaves no
// partition directory, and does not take the dir offline: a later attempt
// succeeds.
func TestCreateLogFailureLeavesNothing(t *testing.T) {
	d := t.TempDir()
	inj := &vfs.Counter{N: 1, Kinds: []vfs.OpKind{vfs.OpOpen}, Match: vfs.PathContains(logExt), Errno: syscall.EMFILE}
	cfg := managerConfig(d)
	cfg.FS = vfs.WithErrors(vfs.Default, inj)
	m := openTestManager(t, cfg)
	defer m.Shutdown()
	tp := partid.TopicPartition{Topic: "t", Partition: 3}
	if _, err := m.GetOrCreateLog(tp, cfg.DefaultLog, [16]byte{}); !errors.Is(err, ErrStorage) || !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("create with EMFILE: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d, tp.String())); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a half-created partition directory stayed: %v", err)
	}
	if _, ok := m.Log(tp); ok {
		t.Fatal("the manager lists the log it could not create")
	}
	if len(m.OfflineDirs()) != 0 {
		t.Fatalf("EMFILE took the dir offline: %+v", m.OfflineDirs())
	}
	l, err := m.GetOrCreateLog(tp, cfg.DefaultLog, [16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, plain(1, 10, 1).bytes(), 0)
}
