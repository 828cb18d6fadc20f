package broker

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"testing"

	"kafgo/broker/config"
	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/broker/meta/znode"
	"kafgo/broker/partid"
	"kafgo/broker/storage"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testTopicConfigs is a topicConfigs on an embedded store, with the broker
// defaults and hosted standing in for the replica manager, following the
// store's change notifications; changed lists the topics it was told of.
type testTopicConfigs struct {
	*topicConfigs
	store   meta.Store
	changes *dynconfig.Changes
	changed []string
}

// set replaces a topic's overrides in the store, as AlterConfigs does.
func (tt *testTopicConfigs) set(t *testing.T, topic string, overrides map[string]string) {
	t.Helper()
	err := dynconfig.Store{Meta: tt.store}.Update(context.Background(), dynconfig.Topics, topic, func(cfg map[string]string) error {
		clear(cfg)
		maps.Copy(cfg, overrides)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newTestTopicConfigs(t *testing.T, hosted map[string]bool) *testTopicConfigs {
	t.Helper()
	store, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := znode.EnsurePersistentPaths(context.Background(), store); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load("", map[string]string{"log.retention.hours": "168"})
	if err != nil {
		t.Fatal(err)
	}
	tt := &testTopicConfigs{store: store, changes: dynconfig.NewChanges(store, nil)}
	tt.topicConfigs = newTopicConfigs(store, func() *config.Broker { return cfg }, func(topic string) bool { return hosted[topic] }, quietLogger())
	tt.follow(tt.changes, func(topic string) { tt.changed = append(tt.changed, topic) })
	return tt
}

// applyNotifications runs the change notifications now in the store, as
// follow does when its watch fires.
func applyNotifications(t *testing.T, tc *testTopicConfigs) {
	t.Helper()
	ctx := context.Background()
	children, _, err := tc.store.Children(ctx, dynconfig.ChangesPath)
	if err != nil {
		t.Fatal(err)
	}
	tc.changes.Apply(ctx, children)
}

const defaultRetentionMs = 7 * 24 * 3600 * 1000

func TestTopicConfigsRecreatedTopicStartsFromTheStore(t *testing.T) {
	ctx := context.Background()
	hosted := map[string]bool{}
	tc := newTestTopicConfigs(t, hosted)

	// The topic has an override; its partition is created here, and the
	// override is changed.
	tc.set(t, "t", map[string]string{"retention.ms": "1000"})
	got, err := tc.Load("t")
	if err != nil || got.RetentionMs != 1000 {
		t.Fatalf("Load: retention %d, %v; want 1000", got.RetentionMs, err)
	}
	hosted["t"] = true
	applyNotifications(t, tc) // the change above, already read: harmless
	tc.set(t, "t", map[string]string{"retention.ms": "2000"})
	applyNotifications(t, tc)
	if got := tc.Effective("t").RetentionMs; got != 2000 {
		t.Fatalf("after the change notification: retention %d, want 2000", got)
	}
	if len(tc.changed) == 0 || tc.changed[len(tc.changed)-1] != "t" {
		t.Fatalf("partitions not told of the change: %v", tc.changed)
	}

	// The topic is deleted (its partition leaves this broker, the
	// controller removes /config/topics/t) and created again without
	// overrides, before any notification says so.
	delete(hosted, "t")
	tc.release("t")
	if err := meta.DeleteRecursive(ctx, tc.store, dynconfig.TopicPath("t")); err != nil {
		t.Fatal(err)
	}
	if got := tc.Effective("t").RetentionMs; got != defaultRetentionMs {
		t.Fatalf("deleted topic: retention %d, want the default", got)
	}
	if _, err := tc.store.Create(ctx, dynconfig.TopicPath("t"), []byte(`{"version":1,"config":{}}`), meta.Persistent); err != nil {
		t.Fatal(err)
	}
	got, err = tc.Load("t")
	if err != nil || got.RetentionMs != defaultRetentionMs {
		t.Fatalf("re-created topic: retention %d, %v; want the default", got.RetentionMs, err)
	}
}

func TestTopicConfigsLoadReadsTheStoreOverWhatIsKept(t *testing.T) {
	ctx := context.Background()
	tc := newTestTopicConfigs(t, map[string]bool{"t": true})
	tc.set(t, "t", map[string]string{"retention.ms": "1000"})
	if _, err := tc.Load("t"); err != nil {
		t.Fatal(err)
	}
	// Changed with no notification seen yet (another broker's topic
	// re-created, say): a new partition must not start from the kept copy.
	if err := meta.DeleteRecursive(ctx, tc.store, dynconfig.TopicPath("t")); err != nil {
		t.Fatal(err)
	}
	got, err := tc.Load("t")
	if err != nil || got.RetentionMs != defaultRetentionMs {
		t.Fatalf("Load: retention %d, %v; want the default", got.RetentionMs, err)
	}
	if got := tc.Effective("t").RetentionMs; got != defaultRetentionMs {
		t.Fatalf("Effective after Load: retention %d, want the default", got)
	}
}

func TestTopicConfigsKeepOnlyHostedTopics(t *testing.T) {
	hosted := map[string]bool{"here": true}
	tc := newTestTopicConfigs(t, hosted)
	if _, err := tc.Load("here"); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{"here", "elsewhere"} {
		tc.set(t, topic, map[string]string{"retention.ms": "5000"})
	}
	applyNotifications(t, tc)
	if len(tc.changed) != 1 || tc.changed[0] != "here" {
		t.Fatalf("topics told of a change: %v, want [here]", tc.changed)
	}
	tc.mu.RLock()
	_, keptElsewhere := tc.overrides["elsewhere"]
	tc.mu.RUnlock()
	if keptElsewhere {
		t.Fatal("kept the overrides of a topic with no partition here")
	}
	// A topic not kept is read from the store.
	if got := tc.Effective("elsewhere").RetentionMs; got != 5000 {
		t.Fatalf("Effective(elsewhere): retention %d, want 5000", got)
	}
	// release keeps a topic still hosted, drops one that is not.
	tc.release("here")
	tc.mu.RLock()
	_, keptHere := tc.overrides["here"]
	tc.mu.RUnlock()
	if !keptHere {
		t.Fatal("released a topic still hosted here")
	}
	delete(hosted, "here")
	tc.release("here")
	tc.mu.RLock()
	_, keptHere = tc.overrides["here"]
	tc.mu.RUnlock()
	if keptHere {
		t.Fatal("kept a topic no longer hosted here")
	}
}

func TestTopicConfigsStoreErrors(t *testing.T) {
	tc := newTestTopicConfigs(t, map[string]bool{})
	if err := tc.store.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Load("t"); err == nil {
		t.Fatal("Load on a closed store: no error")
	}
	if _, err := tc.Stored("t"); err == nil {
		t.Fatal("Stored on a closed store: no error")
	}
	// Effective falls back to the broker defaults (and logs).
	if got := tc.Effective("t").RetentionMs; got != defaultRetentionMs {
		t.Fatalf("Effective on a closed store: retention %d, want the default", got)
	}
}

func TestTopicConfigsConfigureLogsLoadedAtStartUp(t *testing.T) {
	tc := newTestTopicConfigs(t, map[string]bool{})
	logs, err := storage.OpenManager(storage.ManagerConfig{LogDirs: []string{t.TempDir()}, BrokerID: 1, DefaultLog: storage.DefaultLogConfig(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logs.Shutdown() })
	for _, tp := range []partid.TopicPartition{{Topic: "compacted", Partition: 0}, {Topic: "compacted", Partition: 1}, {Topic: "short", Partition: 0}, {Topic: "plain", Partition: 0}} {
		if _, err := logs.GetOrCreateLog(tp, storage.DefaultLogConfig(), [16]byte{}); err != nil {
			t.Fatal(err)
		}
	}
	for topic, o := range map[string]map[string]string{"compacted": {"cleanup.policy": "compact"}, "short": {"retention.ms": "1000"}} {
		tc.set(t, topic, o)
	}
	tc.configureLoaded(logs.Logs(), 1)
	for tp, l := range logs.Logs() {
		c := l.Config()
		switch tp.Topic {
		case "compacted":
			if !c.Compact || c.RetentionMs != -1 {
				t.Errorf("%s: compact %v, retention %d; want compacted, kept forever", tp, c.Compact, c.RetentionMs)
			}
		case "short":
			if c.Compact || c.RetentionMs != 1000 {
				t.Errorf("%s: compact %v, retention %d; want retention 1000", tp, c.Compact, c.RetentionMs)
			}
		case "plain":
			if c.Compact || c.RetentionMs != defaultRetentionMs {
				t.Errorf("%s: compact %v, retention %d; want the defaults", tp, c.Compact, c.RetentionMs)
			}
		}
	}
}
