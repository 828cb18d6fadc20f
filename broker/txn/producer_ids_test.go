package txn

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// storeIDs is broker's producer ids over a metadata store, as the broker
// wires them.
func storeIDs(store meta.Store, broker int32) *ProducerIDs {
	return NewProducerIDs(func(ctx context.Context) (int64, int64, error) {
		return znode.AllocateProducerIDBlock(ctx, store, broker)
	})
}

func openTestStore(t *testing.T) meta.Store {
	t.Helper()
	s, err := meta.OpenEmbedded(filepath.Join(t.TempDir(), "meta.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func nextID(t *testing.T, p *ProducerIDs) int64 {
	t.Helper()
	id, err := p.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Each broker hands out ids from its own block of 1000 reserved in
// /latest_producer_id_block, takes the next free block when one runs out,
// and a restarted broker starts after the latest block reserved.
func TestProducerIDBlocks(t *testing.T) {
	store := openTestStore(t)
	b1 := storeIDs(store, 1)
	b2 := storeIDs(store, 2)
	if id := nextID(t, b1); id != 0 {
		t.Fatalf("first id %d, want 0", id)
	}
	if id := nextID(t, b2); id != znode.ProducerIDBlockSize {
		t.Fatalf("broker 2's first id %d, want %d (the second block)", id, znode.ProducerIDBlockSize)
	}
	for want := int64(1); want < znode.ProducerIDBlockSize; want++ {
		if id := nextID(t, b1); id != want {
			t.Fatalf("id %d, want %d", id, want)
		}
	}
	// Block 0 is used up; 1000-1999 is broker 2's.
	if id := nextID(t, b1); id != 2*znode.ProducerIDBlockSize {
		t.Fatalf("first id of broker 1's second block %d, want %d", id, 2*znode.ProducerIDBlockSize)
	}
	data, _, err := store.Get(context.Background(), znode.LatestProducerIDBlockPath)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := znode.ParseProducerIDBlock(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := (znode.ProducerIDBlock{BrokerID: 1, BlockStart: 2000, BlockEnd: 2999}); latest != want {
		t.Fatalf("latest block %+v, want %+v", latest, want)
	}
	restarted := storeIDs(store, 1)
	if id := nextID(t, restarted); id != 3*znode.ProducerIDBlockSize {
		t.Fatalf("first id after a restart %d, want %d", id, 3*znode.ProducerIDBlockSize)
	}
}

// Concurrent InitProducerId calls on two brokers never share an id.
func TestProducerIDsUniqueUnderConcurrency(t *testing.T) {
	store := openTestStore(t)
	brokers := []*ProducerIDs{storeIDs(store, 1), storeIDs(store, 2)}
	const workers, perWorker = 8, 300
	ids := make([][]int64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := brokers[w%len(brokers)]
			for range perWorker {
				id, err := p.Next(context.Background())
				if err != nil {
					errs[w] = err
					return
				}
				ids[w] = append(ids[w], id)
			}
		}()
	}
	wg.Wait()
	seen := map[int64]bool{}
	for w := range workers {
		if errs[w] != nil {
			t.Fatal(errs[w])
		}
		for _, id := range ids[w] {
			if seen[id] {
				t.Fatalf("id %d handed out twice", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != workers*perWorker {
		t.Fatalf("%d ids, want %d", len(seen), workers*perWorker)
	}
}

// A failed reservation is returned, and the next call tries again.
func TestProducerIDsStoreError(t *testing.T) {
	store := openTestStore(t)
	p := storeIDs(store, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Next(ctx); err == nil {
		t.Fatal("Next with an ended context succeeded")
	}
	if id := nextID(t, p); id != 0 {
		t.Fatalf("id after a failed reservation %d, want 0", id)
	}
}
