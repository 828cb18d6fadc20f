package storage

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"kafgo/broker/storage/vfs"
)

// A write that fails part way (ENOSPC) leaves the log exactly as it was
// (no offset, no bytes, no producer or epoch state) and fails it for good
// (fail-stop, Kafka's log dir failure): a retry, a read and a flush get
// ErrStorage and touch nothing; close syncs nothing. A restart recovers the
// log as it was before the failed write and it takes appends again.
func TestFailedWriteFailsTheLogUnchanged(t *testing.T) {
	dir := partDir(t)
	// The second write of a .log fails with ENOSPC after half its bytes
	// reached the file.
	inj := &vfs.Counter{N: 2, Kinds: []vfs.OpKind{vfs.OpWrite}, Match: vfs.PathContains(logExt), Errno: syscall.ENOSPC}
	l := openTestLog(t, dir, testConfig(), OpenOptions{FS: vfs.WithErrors(vfs.Default, inj)})
	mustAppend(t, l, idem(1, 0, 0, 2).bytes(), 0)
	seg := l.active()
	sizeBefore := seg.size.Load()
	_, err := l.AppendAsLeader(idem(1, 0, 2, 3).bytes(), 5)
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrStorage) {
		t.Fatalf("err %v, want ENOSPC as ErrStorage", err)
	}
	if l.LogEndOffset() != 2 || seg.size.Load() != sizeBefore {
		t.Fatalf("log end %d size %d after a failed write", l.LogEndOffset(), seg.size.Load())
	}
	if st, _ := os.Stat(seg.logPath); st.Size() != sizeBefore {
		t.Errorf("file is %d bytes, want the partial write cut back to %d", st.Size(), sizeBefore)
	}
	if e, _ := l.Epochs().LatestEpoch(); e != 0 {
		t.Errorf("epoch of the failed append stayed: %d", e)
	}
	if p, _ := l.Producers().Producer(1); p.LastSequence() != 1 {
		t.Errorf("producer state moved: %+v", p)
	}
	writes := inj.Seen()
	if _, err := l.AppendAsLeader(idem(1, 0, 2, 3).bytes(), 5); !errors.Is(err, ErrStorage) {
		t.Fatalf("retry after the failure: %v, want ErrStorage", err)
	}
	if _, err := l.Read(0, 1<<20, 100, true); !errors.Is(err, ErrStorage) {
		t.Fatalf("read after the failure: %v, want ErrStorage", err)
	}
	if err := l.Flush(); !errors.Is(err, ErrStorage) {
		t.Fatalf("flush after the failure: %v, want ErrStorage", err)
	}
	if inj.Seen() != writes {
		t.Fatalf("a failed log wrote %d more times", inj.Seen()-writes)
	}
	if err := l.Close(); !errors.Is(err, ErrStorage) {
		t.Fatalf("close of a failed log: %v, want ErrStorage", err)
	}
	l2 := openTestLog(t, dir, testConfig(), OpenOptions{})
	defer l2.Close()
	if hs := readAll(t, l2, 0); len(hs) != 1 || l2.LogEndOffset() != 2 {
		t.Fatalf("after reopen %d batches, end %d", len(hs), l2.LogEndOffset())
	}
	info, err := l2.AppendAsLeader(idem(1, 0, 2, 3).bytes(), 5)
	if err != nil || info.FirstOffset != 2 || info.Duplicate {
		t.Fatalf("append after the restart: %+v, %v", info, err)
	}
}

// When no disk blocks can be reserved for an index entry (ENOSPC) the
// append fails before anything is written, and the log fails.
func TestIndexReservationFailure(t *testing.T) {
	cfg := testConfig()
	cfg.IndexIntervalBytes = 0
	inj := &vfs.Counter{N: 1, Kinds: []vfs.OpKind{vfs.OpAllocate}, Errno: syscall.ENOSPC}
	dir := partDir(t)
	l := openTestLog(t, dir, cfg, OpenOptions{FS: vfs.WithErrors(vfs.Default, inj)})
	mustAppend(t, l, plain(1, 10, 1).bytes(), 0)
	_, err := l.AppendAsLeader(plain(1, 10, 2).bytes(), 0)
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrStorage) {
		t.Fatalf("err %v, want ENOSPC as ErrStorage", err)
	}
	if l.LogEndOffset() != 1 || l.active().offIdx.n.Load() != 0 || l.active().size.Load() != int64(len(plain(1, 10, 1).bytes())) {
		t.Fatalf("log end %d, %d index entries, %d bytes", l.LogEndOffset(), l.active().offIdx.n.Load(), l.active().size.Load())
	}
	if _, err := l.AppendAsLeader(plain(1, 10, 2).bytes(), 0); !errors.Is(err, ErrStorage) {
		t.Fatalf("append after the failure: %v", err)
	}
	l.Close()
	l2 := openTestLog(t, dir, cfg, OpenOptions{})
	defer l2.Close()
	if _, err := l2.AppendAsLeader(plain(1, 10, 2).bytes(), 0); err != nil {
		t.Fatal(err)
	}
	if hs := readAll(t, l2, 0); len(hs) != 2 {
		t.Fatalf("%d batches after the restart", len(hs))
	}
}

func TestInvalidAppends(t *testing.T) {
	cfg := testConfig()
	cfg.SegmentBytes = 1000
	good := plain(1, 10, 1).bytes()
	badCRC := plain(1, 10, 1).bytes()
	badCRC[17] ^= 1 // storage does not check CRCs of leader appends: the caller validated
	tests := []struct {
		name     string
		data     []byte
		follower bool
		want     error
	}{
		{"trailing bytes", append(append([]byte(nil), good...), 1, 2, 3), false, ErrInvalidBatch},
		{"torn batch", good[:len(good)-1], false, ErrInvalidBatch},
		{"bad magic", func() []byte { b := append([]byte(nil), good...); b[16] = 1; return b }(), false, ErrInvalidBatch},
		{"bigger than a segment", plain(1, 1000, 1).bytes(), false, ErrBatchTooLarge},
		{"bad record framing", func() []byte { b := append([]byte(nil), good...); b[61] = 0x7f; return b }(), false, ErrInvalidBatch},
		{"follower below the end", good, true, ErrUnexpectedAppendOffset},
		{"follower offsets going back", concat(func() []byte { b := plain(1, 5, 1); b.base = 5; return b.bytes() }(), good), true, ErrOffsetsOutOfOrder},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openTestLog(t, partDir(t), cfg, OpenOptions{})
			defer l.Close()
			b := plain(2, 5, 1)
			if _, err := l.AppendAsFollower(b.bytes()); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.follower {
				_, err = l.AppendAsFollower(tc.data)
			} else {
				_, err = l.AppendAsLeader(tc.data, 0)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if l.LogEndOffset() != 2 {
				t.Errorf("log end moved to %d", l.LogEndOffset())
			}
		})
	}
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	if info, err := l.AppendAsLeader(nil, 0); err != nil || info.NumBatches != 0 || l.LogEndOffset() != 0 {
		t.Errorf("empty append: %+v, %v", info, err)
	}
	l.Close()
	if _, err := l.AppendAsLeader(good, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
}

func TestFlushPolicies(t *testing.T) {
	t.Run("flush.messages", func(t *testing.T) {
		cfg := testConfig()
		cfg.FlushMessages = 3
		l := openTestLog(t, partDir(t), cfg, OpenOptions{})
		defer l.Close()
		mustAppend(t, l, plain(2, 5, 1).bytes(), 0)
		if l.RecoveryPoint() != 0 {
			t.Errorf("flushed after 2 of 3 messages: recovery point %d", l.RecoveryPoint())
		}
		mustAppend(t, l, plain(1, 5, 1).bytes(), 0)
		if l.RecoveryPoint() != 3 {
			t.Errorf("recovery point %d after 3 messages, want 3", l.RecoveryPoint())
		}
	})
	t.Run("flush.ms", func(t *testing.T) {
		cfg := testConfig()
		cfg.FlushMs = 1000
		clk := newFakeClock(50_000)
		l := openTestLog(t, partDir(t), cfg, OpenOptions{Clock: clk.Now})
		defer l.Close()
		mustAppend(t, l, plain(2, 5, 1).bytes(), 0)
		// The last flush counts from the open, at 50 000 ms.
		if err := l.flushIfDue(50_999); err != nil || l.RecoveryPoint() != 0 {
			t.Errorf("flushed early: %v, recovery point %d", err, l.RecoveryPoint())
		}
		if err := l.flushIfDue(51_000); err != nil || l.RecoveryPoint() != 2 {
			t.Errorf("not flushed when due: %v, recovery point %d", err, l.RecoveryPoint())
		}
	})
	t.Run("default leaves it to the page cache", func(t *testing.T) {
		l := openTestLog(t, partDir(t), testConfig(), OpenOptions{})
		defer l.Close()
		mustAppend(t, l, plain(2, 5, 1).bytes(), 0)
		if err := l.flushIfDue(1 << 62); err != nil || l.RecoveryPoint() != 0 {
			t.Errorf("recovery point %d, %v", l.RecoveryPoint(), err)
		}
		if err := l.Flush(); err != nil || l.RecoveryPoint() != 2 {
			t.Errorf("explicit flush: recovery point %d, %v", l.RecoveryPoint(), err)
		}
	})
}

// TestFlushMessagesGroupCommit: with flush.messages=1 every append returns
// only once it is durable (the recovery point has passed it), and
// concurrent appends share fsyncs: an append that a flush in progress did
// not cover waits for the next one, which covers every append made
// meanwhile, so there are far fewer fsyncs of the log than appends. With
// small segments the appends roll the log, and the ordered flush after
// each roll keeps the same guarantee.
func TestFlushMessagesGroupCommit(t *testing.T) {
	for _, segBytes := range []int64{0, 4096} {
		t.Run(fmt.Sprint("segment.bytes=", segBytes), func(t *testing.T) { testFlushMessagesGroupCommit(t, segBytes) })
	}
}

func testFlushMessagesGroupCommit(t *testing.T, segBytes int64) {
	var syncs atomic.Int64
	cfg := testConfig()
	cfg.FlushMessages = 1
	if segBytes > 0 {
		cfg.SegmentBytes = segBytes
	}
	// 2 ms: a disk's fsync, so appends pile up.
	l := openTestLog(t, partDir(t), cfg, OpenOptions{FS: logSyncCounter(&syncs, 2*time.Millisecond)})
	defer l.Close()
	const producers, each = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, producers)
	for range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				info, err := l.AppendAsLeader(plain(1, 50, 1).bytes(), 0)
				if err != nil {
					errs <- err
					return
				}
				if rp := l.RecoveryPoint(); rp <= info.LastOffset {
					errs <- fmt.Errorf("append of offset %d returned before it was flushed (recovery point %d)", info.LastOffset, rp)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n := syncs.Load()
	t.Logf("%d appends, %d segments, %d fsyncs of the log", producers*each, l.NumSegments(), n)
	if n == 0 || n > producers*each/2 {
		t.Fatalf("%d fsyncs for %d concurrent appends: no group commit", n, producers*each)
	}
}
