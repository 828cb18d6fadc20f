package txn

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/clusterview"
	"kafgo/broker/coordlog"
)

// shard is one __transaction_state partition this broker leads.
type shard struct {
	partition int32
	epoch     int32 // coordinator epoch: the partition's leader epoch
	loading   bool
	// ctx ends (cancel) when leadership is lost: a load in progress and
	// the shard's pending work stop.
	ctx    context.Context
	cancel context.CancelFunc
	txns   map[string]*txnMeta
}

// Coordinator is the transaction coordinator of one broker (Kafka's
// TransactionCoordinator, TransactionStateManager and
// TransactionMarkerChannelManager): it owns the transactional ids of the
// __transaction_state partitions this broker leads.
//
// Lock order: a txnMeta's mu may be held while taking c.mu or the marker
// manager's mu, never the reverse.
type Coordinator struct {
	cfg       Config
	log       coordlog.Log
	placement *coordlog.Placement
	nextPID   func(ctx context.Context) (int64, error)
	markers   *markerManager
	logger    *slog.Logger

	mu      sync.RWMutex
	shards  map[int32]*shard
	stopped bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	done   chan struct{}
}

// New builds a coordinator over the __transaction_state partitions in log;
// cache (nil in tests) tells the topic's partition count once it exists,
// nextPID allocates producer ids (unique across the cluster), sender
// delivers transaction markers to partition leaders.
func New(cfg Config, log coordlog.Log, cache *clusterview.Cache, nextPID func(context.Context) (int64, error), sender MarkerSender) *Coordinator {
	cfg.setDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	c := &Coordinator{
		cfg:       cfg,
		log:       log,
		placement: coordlog.NewPlacement(TopicName, cfg.NumPartitions, cache),
		nextPID:   nextPID,
		logger:    cfg.Logger.With("component", "txn-coordinator"),
		shards:    map[int32]*shard{},
		ctx:       ctx,
		cancel:    cancel,
		done:      make(chan struct{}),
	}
	c.markers = newMarkerManager(c, sender)
	return c
}

// Start runs the marker sender and the periodic abort of timed-out
// transactions and expiration of idle transactional ids.
func (c *Coordinator) Start() {
	c.goBackground(c.markers.run)
	c.goBackground(func() { c.every(c.cfg.AbortInterval, c.AbortTimedOut) })
	c.goBackground(func() { c.every(c.cfg.ExpireInterval, c.ExpireTransactionalIDs) })
}

func (c *Coordinator) every(d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// goBackground runs f in a goroutine Stop waits for, unless stopped. The
// Add happens under c.mu, which Stop takes before it waits.
func (c *Coordinator) goBackground(f func()) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.stopped {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// Stop unloads every partition and waits for background work: writes in
// flight fail with NOT_COORDINATOR.
func (c *Coordinator) Stop() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	for p, sh := range c.shards {
		sh.cancel()
		delete(c.shards, p)
	}
	c.mu.Unlock()
	close(c.done)
	c.cancel()
	c.wg.Wait()
}

// Done is closed when the coordinator stops.
func (c *Coordinator) Done() <-chan struct{} { return c.done }

// Placement maps transactional ids to __transaction_state partitions.
func (c *Coordinator) Placement() *coordlog.Placement { return c.placement }

func (c *Coordinator) nowMs() int64 { return c.cfg.Now().UnixMilli() }

// shardFor is the loaded shard of a transactional id, or the coordinator
// error: NOT_COORDINATOR when another broker leads its partition (or this
// coordinator stopped), COORDINATOR_LOAD_IN_PROGRESS while it loads.
func (c *Coordinator) shardFor(id string) (*shard, *kerr.Error) {
	p := c.placement.PartitionFor(id)
	c.mu.RLock()
	defer c.mu.RUnlock()
	sh, ok := c.shards[p]
	switch {
	case c.stopped || !ok:
		return nil, kerr.NotCoordinator
	case sh.loading:
		return nil, kerr.CoordinatorLoadInProgress
	}
	return sh, nil
}

// owns reports whether sh is still the loaded shard of its partition: a
// write made for an older leadership must not change the metadata.
func (c *Coordinator) owns(sh *shard) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return !c.stopped && c.shards[sh.partition] == sh && !sh.loading
}

// lockMeta returns a transactional id's metadata locked, or nil (and no
// error) when it has none. create, when set, makes the metadata for an
// unknown id (it may block: it allocates a producer id). Metadata removed
// by expiration while we waited for its lock is looked up again.
func (c *Coordinator) lockMeta(id string, create func() (*txnMeta, *kerr.Error)) (*txnMeta, *kerr.Error) {
	for {
		sh, err := c.shardFor(id)
		if err != nil {
			return nil, err
		}
		c.mu.RLock()
		m := sh.txns[id]
		c.mu.RUnlock()
		if m == nil {
			if create == nil {
				return nil, nil
			}
			fresh, err := create()
			if err != nil {
				return nil, err
			}
			c.mu.Lock()
			if cur, ok := c.shards[sh.partition]; !ok || cur != sh || sh.loading {
				c.mu.Unlock()
				continue // leadership changed meanwhile: look again
			}
			if m = sh.txns[id]; m == nil {
				fresh.sh = sh
				sh.txns[id] = fresh
				m = fresh
			}
			c.mu.Unlock()
		}
		m.mu.Lock()
		if !m.removed {
			return m, nil
		}
		m.mu.Unlock()
	}
}

// activeShards snapshots the loaded shards, and whether any is loading.
func (c *Coordinator) activeShards() (out []*shard, loading bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, sh := range c.shards {
		if sh.loading {
			loading = true
			continue
		}
		out = append(out, sh)
	}
	return out, loading
}

// metasOf snapshots a shard's transactional ids.
func (c *Coordinator) metasOf(sh *shard) []*txnMeta {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*txnMeta, 0, len(sh.txns))
	for _, m := range sh.txns {
		out = append(out, m)
	}
	return out
}
