package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/internal/testing/testwait"
)

// replicated sets the high watermark to the log end, as the replica layer
// does once every in-sync replica has the data.
func replicated(l *Log) { l.SetHighWatermark(l.LogEndOffset()) }

// compactedKeysUnique reports whether no key appears twice below the active
// segment: what a finished pass leaves.
func compactedKeysUnique(t *testing.T, l *Log) bool {
	_, recs := logRecords(t, l)
	below, _ := splitAt(recs, closedEnd(l))
	seen := map[string]bool{}
	for _, r := range below {
		if seen[r.key] {
			return false
		}
		seen[r.key] = true
	}
	return len(below) > 0
}

// TestCleanerThreadsCompactAndCheckpoint: with CleanerEnable the manager's
// threads clean every compacted log, __consumer_offsets included, leave the
// others alone, and write cleaner-offset-checkpoint in Kafka's format; the
// checkpoints are read back after a restart.
func TestCleanerThreadsCompactAndCheckpoint(t *testing.T) {
	root := t.TempDir()
	d1, d2 := filepath.Join(root, "a"), filepath.Join(root, "b")
	mcfg := managerConfig(d1, d2)
	mcfg.CleanerEnable, mcfg.CleanerThreads, mcfg.CleanerBackoff = true, 2, 20*time.Millisecond
	mcfg.CleanerDedupeBufferSize = 4 << 20
	m := openTestManager(t, mcfg)
	compacted := compactConfig(2048)
	plainCfg := compacted
	plainCfg.Compact = false
	tps := []partid.TopicPartition{{Topic: "__consumer_offsets", Partition: 0}, {Topic: "__consumer_offsets", Partition: 7}, {Topic: "users", Partition: 0}}
	for _, tp := range tps {
		l, err := m.GetOrCreateLog(tp, compacted, [16]byte{})
		if err != nil {
			t.Fatal(err)
		}
		fillUpdates(t, l, record.CodecLZ4, 600, 20, 5, 1)
		replicated(l)
	}
	other, err := m.GetOrCreateLog(partid.TopicPartition{Topic: "events", Partition: 0}, plainCfg, [16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	fillUpdates(t, other, record.CodecNone, 600, 20, 5, 1)
	replicated(other)
	_, otherBefore := logRecords(t, other)
	m.Start(context.Background())
	for _, tp := range tps {
		l, _ := m.Log(tp)
		testwait.Until(t, 20*time.Second, tp.String()+" to be compacted", func() bool { return compactedKeysUnique(t, l) })
	}
	if _, after := logRecords(t, other); !slices.Equal(after, otherBefore) {
		t.Fatal("a log without cleanup.policy=compact was cleaned")
	}
	want := map[partid.TopicPartition]int64{}
	for _, tp := range tps {
		l, _ := m.Log(tp)
		want[tp] = closedEnd(l)
	}
	testwait.Until(t, 5*time.Second, "checkpoints", func() bool { return fmt.Sprint(m.Cleaner().Checkpoints()) == fmt.Sprint(want) })
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	onDisk := map[partid.TopicPartition]int64{}
	for _, d := range []string{d1, d2} {
		cp, err := ReadOffsetCheckpoint(filepath.Join(d, CleanerOffsetCheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		for tp, off := range cp {
			if l := filepath.Join(d, tp.String()); !fileExists(l) {
				t.Fatalf("%s lists %s, which lives in the other dir", d, tp)
			}
			onDisk[tp] = off
		}
	}
	if fmt.Sprint(onDisk) != fmt.Sprint(want) {
		t.Fatalf("cleaner-offset-checkpoint files hold %v, want %v", onDisk, want)
	}
	m2 := openTestManager(t, mcfg)
	defer m2.Shutdown()
	if got := m2.Cleaner().Checkpoints(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after restart the cleaner knows %v, want %v", got, want)
	}
	// Logs load with the broker defaults; the replica layer's
	// GetOrCreateLog then brings each topic's own config.
	l, _ := m2.Log(tps[0])
	if l.Config().Compact {
		t.Fatal("loaded log compacted before its topic config arrived")
	}
	if _, err := m2.GetOrCreateLog(tps[0], compacted, [16]byte{}); err != nil || !l.Config().Compact {
		t.Fatalf("GetOrCreateLog of a loaded log did not apply its config (err %v)", err)
	}
	// Nothing dirty: no pass runs.
	if _, _, ok, err := m2.Cleaner().CleanOnce(context.Background()); ok || err != nil {
		t.Fatalf("CleanOnce on clean logs: ok %v err %v", ok, err)
	}
}

// TestCleanerCheckpointFileFormat: the file is Kafka's text checkpoint.
func TestCleanerCheckpointFileFormat(t *testing.T) {
	root := t.TempDir()
	mcfg := managerConfig(root)
	m := openTestManager(t, mcfg)
	defer m.Shutdown()
	l, err := m.GetOrCreateLog(partid.TopicPartition{Topic: "t", Partition: 3}, compactConfig(1024), [16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	fillUpdates(t, l, record.CodecNone, 100, 5, 5, 1)
	if _, _, ok, err := m.Cleaner().CleanOnce(context.Background()); ok || err != nil {
		t.Fatalf("CleanOnce before the high watermark is known: ok %v err %v", ok, err)
	}
	replicated(l)
	if _, _, ok, err := m.Cleaner().CleanOnce(context.Background()); !ok || err != nil {
		t.Fatalf("CleanOnce: ok %v err %v", ok, err)
	}
	data, err := os.ReadFile(filepath.Join(root, CleanerOffsetCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("0\n1\nt 3 %d\n", closedEnd(l)); string(data) != want {
		t.Fatalf("checkpoint file %q, want %q", data, want)
	}
}

// TestCleanerSelection: which log CleanOnce picks, and when none.
func TestCleanerSelection(t *testing.T) {
	clock := newFakeClock(1_800_000_000_000)
	mcfg := managerConfig(t.TempDir())
	mcfg.Clock = clock.Now
	m := openTestManager(t, mcfg)
	defer m.Shutdown()
	c := m.Cleaner()
	newLog := func(name string, cfg LogConfig) *Log {
		l, err := m.GetOrCreateLog(partid.TopicPartition{Topic: name, Partition: 0}, cfg, [16]byte{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	cleanOnce := func() (partid.TopicPartition, bool) {
		t.Helper()
		tp, _, ok, err := c.CleanOnce(context.Background())
		if err != nil {
			t.Fatalf("CleanOnce: %v", err)
		}
		return tp, ok
	}
	now := clock.Now().UnixMilli()

	// A log never cleaned is wholly dirty (ratio 1) and qualifies.
	strict := compactConfig(1024)
	strict.MinCleanableDirtyRatio = 0.9
	a := newLog("a", strict)
	fillUpdates(t, a, record.CodecNone, 200, 10, 5, now)
	replicated(a)
	if tp, ok := cleanOnce(); !ok || tp.Topic != "a" {
		t.Fatalf("first pick %v %v, want a", tp, ok)
	}
	// a is now clean; a little new data keeps its ratio under 0.9.
	fillUpdates(t, a, record.CodecNone, 20, 10, 5, now)
	if err := a.Roll(); err != nil {
		t.Fatal(err)
	}
	replicated(a)
	if tp, ok := cleanOnce(); ok {
		t.Fatalf("picked %v with a dirty ratio under min.cleanable.dirty.ratio", tp)
	}
	// max.compaction.lag.ms makes it due however small the dirty part.
	lagged := a.Config()
	lagged.MaxCompactionLagMs = 60_000
	a.UpdateConfig(lagged)
	clock.Advance(2 * time.Minute)
	if tp, ok := cleanOnce(); !ok || tp.Topic != "a" {
		t.Fatalf("pick %v %v, want a due by max.compaction.lag.ms", tp, ok)
	}
	if tp, ok := cleanOnce(); ok {
		t.Fatalf("picked %v again with nothing dirty", tp)
	}

	// A delete horizon makes a log due without new data.
	b := newLog("b", compactConfig(1024))
	now = clock.Now().UnixMilli()
	mustAppend(t, b, keyedBatch(t, record.CodecNone, now, kv("x", "1"), kv("y", "1")), 0)
	mustAppend(t, b, keyedBatch(t, record.CodecNone, now, tomb("x")), 0)
	if err := b.Roll(); err != nil {
		t.Fatal(err)
	}
	replicated(b)
	if tp, ok := cleanOnce(); !ok || tp.Topic != "b" {
		t.Fatalf("pick %v %v, want b", tp, ok)
	}
	if _, recs := logRecords(t, b); len(recs) != 2 {
		t.Fatalf("after the first pass %v, want y and the tombstone", recs)
	}
	clock.Advance(500 * time.Millisecond)
	if tp, ok := cleanOnce(); ok {
		t.Fatalf("picked %v before the delete horizon", tp)
	}
	clock.Advance(600 * time.Millisecond)
	if tp, ok := cleanOnce(); !ok || tp.Topic != "b" {
		t.Fatalf("pick %v %v, want b due by its delete horizon", tp, ok)
	}
	if _, recs := logRecords(t, b); len(recs) != 1 || recs[0].key != "y" {
		t.Fatalf("after delete.retention.ms %v, want only y", recs)
	}
	if tp, ok := cleanOnce(); ok {
		t.Fatalf("picked %v with no horizon pending", tp)
	}
}

// TestCleanerTruncationResetsCheckpoint: data rewritten by a truncation
// below the checkpoint is dirty again.
func TestCleanerTruncationResetsCheckpoint(t *testing.T) {
	m := openTestManager(t, managerConfig(t.TempDir()))
	defer m.Shutdown()
	l, err := m.GetOrCreateLog(partid.TopicPartition{Topic: "t", Partition: 0}, compactConfig(1024), [16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	fillUpdates(t, l, record.CodecNone, 200, 10, 5, 1)
	replicated(l)
	if _, _, ok, err := m.Cleaner().CleanOnce(context.Background()); !ok || err != nil {
		t.Fatalf("CleanOnce: %v %v", ok, err)
	}
	cp := m.Cleaner().Checkpoints()[partid.TopicPartition{Topic: "t", Partition: 0}]
	if err := l.TruncateTo(cp - 10); err != nil {
		t.Fatal(err)
	}
	fillUpdates(t, l, record.CodecNone, 100, 10, 5, 1)
	replicated(l)
	job, ok := m.Cleaner().examine(partid.TopicPartition{Topic: "t", Partition: 0}, l, new(l.Config()), m.Cleaner().state[partid.TopicPartition{Topic: "t", Partition: 0}], 0)
	if !ok || job.firstDirty != l.LogStartOffset() {
		t.Fatalf("after truncation: job %+v ok %v, want dirty from the log start", job, ok)
	}
}

// TestCleanerCloseDuringPass: closing (or deleting) a log, or stopping the
// cleaner, in the middle of a pass abandons it: the log reads as before,
// no .cleaned file stays, and Close does not hang.
func TestCleanerCloseDuringPass(t *testing.T) {
	for _, how := range []string{"close", "cancel"} {
		t.Run(how, func(t *testing.T) {
			dir := partDir(t)
			cfg := compactConfig(1 << 20)
			l := openTestLog(t, dir, cfg, OpenOptions{})
			fillUpdates(t, l, record.CodecNone, 300, 10, 5, 1)
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
			_, before := logRecords(t, l)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			closed := make(chan error, 1)
			cleanerStageHook = func(hl *Log, stage string) {
				if hl != l || stage != "cleaned" {
					return
				}
				if how == "cancel" {
					cancel()
					return
				}
				go func() { closed <- l.Close() }()
				testwait.Until(t, 5*time.Second, "close to start", l.isClosed)
			}
			defer func() { cleanerStageHook = nil }()
			_, err := l.clean(ctx, cleanParams{firstDirty: 0, om: newOffsetMap(1<<20, 0.9), writeBuf: 4096})
			cleanerStageHook = nil
			if how == "cancel" {
				// Cancellation is seen between groups and batches; the one
				// group already written still commits.
				if err != nil && !errors.Is(err, errCleanAborted) {
					t.Fatalf("clean: %v", err)
				}
				if err := l.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				if !errors.Is(err, errCleanAborted) {
					t.Fatalf("clean during Close: %v, want errCleanAborted", err)
				}
				select {
				case err := <-closed:
					if err != nil {
						t.Fatal(err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Close hangs")
				}
			}
			assertNoTempFiles(t, dir)
			l2 := openTestLog(t, dir, cfg, OpenOptions{CleanShutdown: true})
			defer l2.Close()
			_, got := logRecords(t, l2)
			if how == "close" && !slices.Equal(got, before) {
				t.Fatalf("log changed by an abandoned pass")
			}
			if !slices.Equal(latestPerKey(got), latestPerKey(before)) {
				t.Fatalf("latest per key changed")
			}
		})
	}
}

// TestCleanerRetentionDuringPass: retention deleting a source segment
// while it is being cleaned abandons that group's swap.
func TestCleanerRetentionDuringPass(t *testing.T) {
	cfg := compactConfig(1 << 20)
	cfg.RetentionBytes = 1
	l := openTestLog(t, partDir(t), cfg, OpenOptions{})
	defer l.Close()
	fillUpdates(t, l, record.CodecNone, 100, 10, 5, 1)
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, keyedBatch(t, record.CodecNone, 1, kv("a", "1")), 0)
	cleanerStageHook = func(hl *Log, stage string) {
		if hl == l && stage == "cleaned" {
			if n, err := l.DeleteRetainedSegments(); n != 1 || err != nil {
				t.Errorf("retention: %d, %v", n, err)
			}
		}
	}
	defer func() { cleanerStageHook = nil }()
	_, err := l.clean(t.Context(), cleanParams{firstDirty: 0, om: newOffsetMap(1<<20, 0.9), writeBuf: 4096})
	if !errors.Is(err, errCleanAborted) {
		t.Fatalf("clean: %v, want errCleanAborted", err)
	}
	assertNoTempFiles(t, l.Dir())
	if l.NumSegments() != 1 || l.LogStartOffset() != 100 {
		t.Fatalf("%d segments, log start %d", l.NumSegments(), l.LogStartOffset())
	}
}

// TestCleanerPicksDirtiest: of two qualifying logs the one with the larger
// dirty ratio is cleaned first.
func TestCleanerPicksDirtiest(t *testing.T) {
	m := openTestManager(t, managerConfig(t.TempDir()))
	defer m.Shutdown()
	logs := map[string]*Log{}
	for _, name := range []string{"little", "much"} {
		l, err := m.GetOrCreateLog(partid.TopicPartition{Topic: name, Partition: 0}, compactConfig(1024), [16]byte{})
		if err != nil {
			t.Fatal(err)
		}
		fillUpdates(t, l, record.CodecNone, 300, 200, 5, 1)
		replicated(l)
		logs[name] = l
	}
	for range 2 {
		if _, _, ok, err := m.Cleaner().CleanOnce(context.Background()); !ok || err != nil {
			t.Fatalf("CleanOnce: %v %v", ok, err)
		}
	}
	fillUpdates(t, logs["little"], record.CodecNone, 50, 200, 5, 2)
	fillUpdates(t, logs["much"], record.CodecNone, 600, 200, 5, 2)
	replicated(logs["little"])
	replicated(logs["much"])
	for _, want := range []string{"much", "little"} {
		tp, _, ok, err := m.Cleaner().CleanOnce(context.Background())
		if !ok || err != nil || tp.Topic != want {
			t.Fatalf("cleaned %v (ok %v, err %v), want %s", tp, ok, err, want)
		}
	}
}
