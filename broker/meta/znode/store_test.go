package znode_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/uuid"
)

// backends are the two stores the store-backed tests run on. newStore
// returns a factory of sessions on one fresh tree.
var backends = []struct {
	name     string
	newStore func(t *testing.T) func(t *testing.T) meta.Store
}{
	{"embedded", func(t *testing.T) func(t *testing.T) meta.Store {
		e := openStore(t)
		return func(t *testing.T) meta.Store { return session(t, e) }
	}},
	{"zookeeper", func(t *testing.T) func(t *testing.T) meta.Store {
		zk := testcluster.StartZooKeeper(t)
		return func(t *testing.T) meta.Store {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s, err := meta.DialZooKeeper(ctx, zk.Connect()+"/kafka", 10*time.Second, quiet())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}},
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func openStore(t *testing.T) *meta.Embedded {
	t.Helper()
	s, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.(*meta.Embedded)
}

func session(t *testing.T, e *meta.Embedded) meta.Store {
	t.Helper()
	s, err := e.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestEnsurePersistentPaths(t *testing.T) {
	ctx := testCtx(t)
	s := openStore(t)
	if err := znode.EnsurePersistentPaths(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := znode.EnsurePersistentPaths(ctx, s); err != nil { // idempotent
		t.Fatalf("second run: %v", err)
	}
	for _, p := range znode.PersistentPaths {
		ok, _, err := s.Exists(ctx, p)
		if err != nil || !ok {
			t.Fatalf("%s missing: %v", p, err)
		}
	}
}

func TestGetOrCreateClusterIDRace(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { testClusterIDRace(t, b.newStore(t)) })
	}
}

func testClusterIDRace(t *testing.T, open func(t *testing.T) meta.Store) {
	ctx := testCtx(t)
	e := open(t)
	const brokers = 6
	ids := make([]string, brokers)
	errs := make([]error, brokers)
	var wg sync.WaitGroup
	for i := range brokers {
		s := open(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = znode.GetOrCreateClusterID(ctx, s)
		}()
	}
	wg.Wait()
	for i := range brokers {
		if errs[i] != nil {
			t.Fatalf("broker %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("brokers disagree on the cluster id: %v", ids)
		}
	}
	if _, err := uuid.Parse(ids[0]); err != nil || len(ids[0]) != 22 {
		t.Fatalf("cluster id %q is not a 22-char Kafka uuid: %v", ids[0], err)
	}
	data, _, err := e.Get(ctx, znode.ClusterIDPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"version":"1","id":"` + ids[0] + `"}`; string(data) != want {
		t.Fatalf("/cluster/id = %s, want %s", data, want)
	}
	again, err := znode.GetOrCreateClusterID(ctx, e)
	if err != nil || again != ids[0] {
		t.Fatalf("existing id read back as %q, %v", again, err)
	}
}

func TestAllocateProducerIDBlocks(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { testAllocateProducerIDBlocks(t, b.newStore) })
	}
}

func testAllocateProducerIDBlocks(t *testing.T, newStore func(t *testing.T) func(t *testing.T) meta.Store) {
	ctx := testCtx(t)
	open := newStore(t)
	e := open(t)

	// A fresh cluster, /latest_producer_id_block created empty at start-up.
	if err := znode.EnsurePersistentPaths(ctx, e); err != nil {
		t.Fatal(err)
	}
	start, end, err := znode.AllocateProducerIDBlock(ctx, e, 1)
	if err != nil || start != 0 || end != 999 {
		t.Fatalf("first block = [%d, %d], %v; want [0, 999]", start, end, err)
	}
	data, _, err := e.Get(ctx, znode.LatestProducerIDBlockPath)
	if err != nil || string(data) != `{"version":1,"broker":1,"block_start":"0","block_end":"999"}` {
		t.Fatalf("znode = %s, %v", data, err)
	}

	// Concurrent allocators on different sessions (brokers), two of them
	// for the same broker id: no block is handed out twice, none skipped.
	const allocators, perAllocator = 4, 15
	type block struct{ start, end int64 }
	var mu sync.Mutex
	var blocks []block
	var wg sync.WaitGroup
	errc := make(chan error, allocators)
	for i := range allocators {
		s := open(t)
		broker := int32(i % 3)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perAllocator {
				st, en, err := znode.AllocateProducerIDBlock(ctx, s, broker)
				if err != nil {
					errc <- err
					return
				}
				mu.Lock()
				blocks = append(blocks, block{st, en})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].start < blocks[j].start })
	if len(blocks) != allocators*perAllocator {
		t.Fatalf("%d blocks, want %d", len(blocks), allocators*perAllocator)
	}
	next := int64(1000)
	for _, b := range blocks {
		if b.start != next || b.end != b.start+znode.ProducerIDBlockSize-1 {
			t.Fatalf("block [%d, %d], want it to start at %d and span %d ids", b.start, b.end, next, znode.ProducerIDBlockSize)
		}
		next = b.end + 1
	}

	// Without the znode at all, allocation creates it.
	fresh := newStore(t)(t)
	if start, end, err := znode.AllocateProducerIDBlock(ctx, fresh, 7); err != nil || start != 0 || end != 999 {
		t.Fatalf("allocation without the znode = [%d, %d], %v", start, end, err)
	}
}

func TestAllocateProducerIDExhausted(t *testing.T) {
	ctx := testCtx(t)
	s := openStore(t)
	last := znode.ProducerIDBlock{BrokerID: 1, BlockStart: 9223372036854774000, BlockEnd: 9223372036854775000}
	enc, err := last.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.CreateRecursive(ctx, s, znode.LatestProducerIDBlockPath, enc, meta.Persistent); err != nil {
		t.Fatal(err)
	}
	if _, _, err := znode.AllocateProducerIDBlock(ctx, s, 1); err != znode.ErrProducerIDsExhausted {
		t.Fatalf("err = %v, want ErrProducerIDsExhausted", err)
	}
}

func TestNewIDs(t *testing.T) {
	id, err := znode.NewClusterID()
	if err != nil || len(id) != 22 {
		t.Fatalf("NewClusterID = %q, %v", id, err)
	}
	tid, err := znode.NewTopicID()
	if err != nil || tid.IsZero() {
		t.Fatalf("NewTopicID = %v, %v", tid, err)
	}
	// A topic id survives the topic znode round trip.
	a := znode.TopicAssignment{TopicID: tid, Partitions: map[int32][]int32{0: {1}}}
	enc, err := a.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := znode.ParseTopicAssignment(enc)
	if err != nil || back.TopicID != tid || back.Version != 3 {
		t.Fatalf("round trip %s = %+v, %v", enc, back, err)
	}
}
