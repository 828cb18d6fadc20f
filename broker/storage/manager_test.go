package storage

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/broker/partid"
	"kafgo/internal/testing/testwait"
	"kafgo/internal/uuid"
)

func managerConfig(dirs ...string) ManagerConfig {
	cfg := testConfig()
	cfg.SegmentBytes = 500
	return ManagerConfig{LogDirs: dirs, BrokerID: 3, DefaultLog: cfg, Logger: quietLogger()}
}

func openTestManager(t *testing.T, cfg ManagerConfig) *Manager {
	t.Helper()
	m, err := OpenManager(cfg)
	if err != nil {
		t.Fatalf("OpenManager: %v", err)
	}
	return m
}

func TestManagerCreateShutdownReopen(t *testing.T) {
	root := t.TempDir()
	d1, d2 := filepath.Join(root, "a"), filepath.Join(root, "b")
	cfg := managerConfig(d1, d2)
	m := openTestManager(t, cfg)
	cid := m.ClusterID()
	if len(cid) != 22 {
		t.Fatalf("cluster id %q", cid)
	}
	for _, d := range []string{d1, d2} {
		mp, err := ReadMetaProperties(filepath.Join(d, MetaPropertiesFile))
		if err != nil || mp.BrokerID != 3 || mp.ClusterID != cid {
			t.Fatalf("%s meta.properties: %+v, %v", d, mp, err)
		}
	}
	topicID := [16]byte(uuid.MustNew())
	tps := []partid.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "orders", Partition: 2}, {Topic: "pay-ments", Partition: 0}}
	for i, tp := range tps {
		l, err := m.GetOrCreateLog(tp, cfg.DefaultLog, topicID)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j <= i; j++ {
			mustAppend(t, l, sized(300, int64(j)), 0)
		}
	}
	perDir := map[string]int{}
	for _, l := range m.Logs() {
		perDir[filepath.Dir(l.Dir())]++
	}
	if perDir[d1] != 2 || perDir[d2] != 2 {
		t.Errorf("partitions per dir %v, want 2 and 2", perDir)
	}
	again, err := m.GetOrCreateLog(tps[0], cfg.DefaultLog, topicID)
	if l, _ := m.Log(tps[0]); err != nil || again != l {
		t.Errorf("GetOrCreateLog of an existing log: %v", err)
	}
	if _, err := m.GetOrCreateLog(tps[0], cfg.DefaultLog, [16]byte(uuid.MustNew())); !errors.Is(err, ErrInconsistentTopicID) {
		t.Errorf("other topic id: %v", err)
	}
	if _, err := m.GetOrCreateLog(partid.TopicPartition{Topic: "../evil", Partition: 0}, cfg.DefaultLog, topicID); err == nil {
		t.Error("a topic name escaping the log dir was accepted")
	}
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{d1, d2} {
		if _, err := os.Stat(filepath.Join(d, CleanShutdownFile)); err != nil {
			t.Errorf("no clean shutdown marker in %s", d)
		}
	}
	rps := map[partid.TopicPartition]int64{}
	for _, d := range []string{d1, d2} {
		got, err := ReadOffsetCheckpoint(filepath.Join(d, RecoveryPointCheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		for tp, off := range got {
			rps[tp] = off
		}
	}
	for i, tp := range tps {
		if rps[tp] != int64(i+1) {
			t.Errorf("%v recovery point %d, want %d", tp, rps[tp], i+1)
		}
	}

	// A flipped byte inside the last batch (one per segment here): a clean
	// open does not re-read the data, so the batch is still served; an
	// unclean one re-reads from the recovery point and cuts the log there.
	// This is how the test tells the two apart.
	l3, _ := filepath.Glob(filepath.Join(root, "*", "pay-ments-0", "00000000000000000003.log"))
	data, _ := os.ReadFile(l3[0])
	data[100] ^= 0xff
	os.WriteFile(l3[0], data, 0o644)

	m2 := openTestManager(t, cfg)
	if m2.ClusterID() != cid {
		t.Errorf("cluster id changed: %s", m2.ClusterID())
	}
	for _, d := range []string{d1, d2} {
		if _, err := os.Stat(filepath.Join(d, CleanShutdownFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("marker in %s not removed after loading: %v", d, err)
		}
	}
	if len(m2.Logs()) != 4 {
		t.Fatalf("%d logs after reopen", len(m2.Logs()))
	}
	for i, tp := range tps {
		l, ok := m2.Log(tp)
		if !ok || l.LogEndOffset() != int64(i+1) || l.TopicID() != topicID {
			t.Errorf("%v after clean reopen: ok %v end %d", tp, ok, l.LogEndOffset())
		}
	}
	if l, _ := m2.Log(tps[3]); len(readAllUnchecked(t, l)) != 4 {
		t.Error("clean open did not serve the last batch as it is on disk")
	}
	// Crash: copy the dirs while the manager runs. No marker there now.
	crash := t.TempDir()
	copyDir(t, root, crash)
	if err := m2.Shutdown(); err != nil {
		t.Fatal(err)
	}
	cfg3 := managerConfig(filepath.Join(crash, "a"), filepath.Join(crash, "b"))
	m3 := openTestManager(t, cfg3)
	defer m3.Shutdown()
	l, _ := m3.Log(partid.TopicPartition{Topic: "pay-ments", Partition: 0})
	if l.LogEndOffset() != 3 {
		t.Errorf("unclean open kept the corrupt batch: end %d, want 3", l.LogEndOffset())
	}
	if l, _ := m3.Log(tps[2]); l.LogEndOffset() != 3 {
		t.Errorf("unclean open lost good data: end %d", l.LogEndOffset())
	}
}

func TestManagerRefusesForeignDirs(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, d1, d2 string)
		cfg   func(c *ManagerConfig)
		want  error
	}{
		{"broker.id mismatch", func(t *testing.T, d1, _ string) {
			WriteMetaProperties(filepath.Join(d1, MetaPropertiesFile), MetaProperties{BrokerID: 1, ClusterID: "Rz1Yl3yzQPq7lfQ0d6iJVg"}, time.Now())
		}, nil, ErrInconsistentBrokerID},
		{"cluster.id differs from the configured one", func(t *testing.T, d1, _ string) {
			WriteMetaProperties(filepath.Join(d1, MetaPropertiesFile), MetaProperties{BrokerID: 3, ClusterID: "Rz1Yl3yzQPq7lfQ0d6iJVg"}, time.Now())
		}, func(c *ManagerConfig) { c.ClusterID = "AAAAAAAAAAAAAAAAAAAAAQ" }, ErrInconsistentClusterID},
		{"two dirs of different clusters", func(t *testing.T, d1, d2 string) {
			WriteMetaProperties(filepath.Join(d1, MetaPropertiesFile), MetaProperties{BrokerID: 3, ClusterID: "Rz1Yl3yzQPq7lfQ0d6iJVg"}, time.Now())
			WriteMetaProperties(filepath.Join(d2, MetaPropertiesFile), MetaProperties{BrokerID: 3, ClusterID: "AAAAAAAAAAAAAAAAAAAAAQ"}, time.Now())
		}, nil, ErrInconsistentClusterID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			d1, d2 := filepath.Join(root, "a"), filepath.Join(root, "b")
			os.MkdirAll(d1, 0o755)
			os.MkdirAll(d2, 0o755)
			tc.setup(t, d1, d2)
			cfg := managerConfig(d1, d2)
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			m, err := OpenManager(cfg)
			if !errors.Is(err, tc.want) {
				if m != nil {
					m.Shutdown()
				}
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), MetaPropertiesFile) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
	// A matching file is accepted and its cluster id adopted.
	d := t.TempDir()
	WriteMetaProperties(filepath.Join(d, MetaPropertiesFile), MetaProperties{BrokerID: 3, ClusterID: "Rz1Yl3yzQPq7lfQ0d6iJVg"}, time.Now())
	m := openTestManager(t, managerConfig(d))
	defer m.Shutdown()
	if m.ClusterID() != "Rz1Yl3yzQPq7lfQ0d6iJVg" {
		t.Errorf("cluster id %s", m.ClusterID())
	}
}

func TestManagerDeleteLog(t *testing.T) {
	d := t.TempDir()
	// Leftovers of an earlier deletion and a stray directory.
	stale := filepath.Join(d, "old-0.0123456789abcdef0123456789abcdef-delete")
	os.MkdirAll(stale, 0o755)
	os.WriteFile(filepath.Join(stale, "00000000000000000000.log"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(d, "not a partition"), 0o755)
	m := openTestManager(t, managerConfig(d))
	defer m.Shutdown()
	testwait.Until(t, 5*time.Second, "the stale -delete dir to go", func() bool { return !fileExists(stale) })
	if len(m.Logs()) != 0 {
		t.Fatalf("logs %v", m.Logs())
	}
	tp := partid.TopicPartition{Topic: "t", Partition: 7}
	l, err := m.GetOrCreateLog(tp, m.cfg.DefaultLog, [16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, sized(100, 1), 0)
	if err := m.DeleteLog(tp); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Log(tp); ok {
		t.Error("deleted log still listed")
	}
	if _, err := l.AppendAsLeader(sized(100, 1), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("append to a deleted log: %v", err)
	}
	testwait.Until(t, 5*time.Second, "the partition dir to be removed", func() bool {
		m, _ := filepath.Glob(filepath.Join(d, "t-7*"))
		return len(m) == 0
	})
	if err := m.DeleteLog(tp); err != nil {
		t.Errorf("deleting twice: %v", err)
	}
}

func TestManagerHighWatermarks(t *testing.T) {
	root := t.TempDir()
	d1, d2 := filepath.Join(root, "a"), filepath.Join(root, "b")
	m := openTestManager(t, managerConfig(d1, d2))
	defer m.Shutdown()
	a, _ := m.GetOrCreateLog(partid.TopicPartition{Topic: "x", Partition: 0}, m.cfg.DefaultLog, [16]byte{})
	b, _ := m.GetOrCreateLog(partid.TopicPartition{Topic: "x", Partition: 1}, m.cfg.DefaultLog, [16]byte{})
	if filepath.Dir(a.Dir()) == filepath.Dir(b.Dir()) {
		t.Fatal("both logs in one dir")
	}
	hw := map[partid.TopicPartition]int64{{Topic: "x", Partition: 0}: 15, {Topic: "x", Partition: 1}: 7, {Topic: "unknown", Partition: 0}: 9}
	if err := m.WriteHighWatermarks(hw); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(filepath.Dir(a.Dir()), ReplicationOffsetCheckpointFile))
	if string(data) != "0\n1\nx 0 15\n" {
		t.Errorf("replication-offset-checkpoint %q", data)
	}
	got, err := m.ReadHighWatermarks()
	if err != nil || len(got) != 2 || got[partid.TopicPartition{Topic: "x", Partition: 0}] != 15 || got[partid.TopicPartition{Topic: "x", Partition: 1}] != 7 {
		t.Errorf("read back %v, %v", got, err)
	}
}

// Background tasks: retention deletes old segments and the checkpoint task
// writes the recovery points, on their own.
func TestManagerBackground(t *testing.T) {
	d := t.TempDir()
	cfg := managerConfig(d)
	cfg.DefaultLog.RetentionBytes = 300
	cfg.RetentionCheckInterval = 10 * time.Millisecond
	cfg.CheckpointInterval = 10 * time.Millisecond
	cfg.FlushSchedulerInterval = 10 * time.Millisecond
	m := openTestManager(t, cfg)
	defer m.Shutdown()
	l, err := m.GetOrCreateLog(partid.TopicPartition{Topic: "bg", Partition: 0}, cfg.DefaultLog, [16]byte{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		mustAppend(t, l, sized(300, int64(i)), 0)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.Start(ctx)
	m.Start(ctx) // idempotent
	testwait.Until(t, 5*time.Second, "retention", func() bool { return l.NumSegments() == 1 && l.LogStartOffset() == 5 })
	testwait.Until(t, 5*time.Second, "checkpoints", func() bool {
		rp, _ := ReadOffsetCheckpoint(filepath.Join(d, RecoveryPointCheckpointFile))
		ls, _ := ReadOffsetCheckpoint(filepath.Join(d, LogStartOffsetCheckpointFile))
		return rp[partid.TopicPartition{Topic: "bg", Partition: 0}] >= 5 && ls[partid.TopicPartition{Topic: "bg", Partition: 0}] == 5
	})
}

// A fresh log dir (or one with no partitions) has nothing to recover, so
// start-up must not claim it is recovering; a dir with partitions and no
// clean-shutdown marker is recovered and says so.
func TestManagerRecoveryMessageOnlyWithLogs(t *testing.T) {
	const recovering = "no clean shutdown marker"
	// slog's text handler serialises its writes, and the buffer is read
	// only after OpenManager and Shutdown returned.
	open := func(dirs ...string) (*Manager, *strings.Builder) {
		t.Helper()
		var buf strings.Builder
		cfg := managerConfig(dirs...)
		cfg.Logger = slog.New(slog.NewTextHandler(&buf, nil))
		return openTestManager(t, cfg), &buf
	}
	root := t.TempDir()
	d := filepath.Join(root, "data")

	m, buf := open(d)
	if strings.Contains(buf.String(), recovering) {
		t.Errorf("fresh log dir logged recovery:\n%s", buf.String())
	}
	// A crash before any partition exists: meta.properties, no marker.
	crashEmpty := filepath.Join(t.TempDir(), "data")
	copyDir(t, d, crashEmpty)
	l, err := m.GetOrCreateLog(partid.TopicPartition{Topic: "t", Partition: 0}, m.cfg.DefaultLog, [16]byte(uuid.MustNew()))
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, l, sized(100, 1), 0)
	crashWithLogs := filepath.Join(t.TempDir(), "data")
	copyDir(t, d, crashWithLogs)
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}

	m2, buf := open(crashEmpty)
	m2.Shutdown()
	if strings.Contains(buf.String(), recovering) {
		t.Errorf("log dir without partitions logged recovery:\n%s", buf.String())
	}
	m3, buf := open(d)
	m3.Shutdown()
	if strings.Contains(buf.String(), recovering) {
		t.Errorf("cleanly shut down log dir logged recovery:\n%s", buf.String())
	}
	m4, buf := open(crashWithLogs)
	m4.Shutdown()
	if !strings.Contains(buf.String(), recovering) {
		t.Errorf("unclean log dir with a partition did not log recovery:\n%s", buf.String())
	}
}
