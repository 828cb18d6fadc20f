package group

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/clusterview"
	"kafgo/broker/coordlog"
)

// shard is one __consumer_offsets partition this broker leads: its groups
// once loaded.
type shard struct {
	partition int32
	epoch     int32 // leader epoch the shard was loaded for
	loading   bool
	// ctx ends (cancel) when leadership is lost: a load in progress and
	// the shard's pending work stop.
	ctx    context.Context
	cancel context.CancelFunc
	groups map[string]*group
	// markers are transaction markers that landed while the shard
	// loaded, applied once it is loaded (guarded by the coordinator's mu).
	markers []txnMarker
}

// Coordinator is the group coordinator of one broker (Kafka's
// GroupCoordinator and GroupMetadataManager): it owns the groups of the
// __consumer_offsets partitions this broker leads.
//
// Lock order: a group's mu may be held while taking c.mu (to add or drop a
// group from its shard), never the reverse; timers and replication waits
// take a group's mu from their own goroutines.
type Coordinator struct {
	cfg    Config
	log    Log
	cache  *clusterview.Cache
	clock  Clock
	logger *slog.Logger

	mu      sync.RWMutex
	shards  map[int32]*shard
	stopped bool

	placement *coordlog.Placement

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	done   chan struct{}
}

// New builds a coordinator; cache (may be nil in tests) tells the real
// partition count of __consumer_offsets once it exists.
func New(cfg Config, log Log, cache *clusterview.Cache) *Coordinator {
	cfg.setDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Coordinator{
		cfg:       cfg,
		log:       log,
		cache:     cache,
		clock:     cfg.Clock,
		logger:    cfg.Logger.With("component", "group-coordinator"),
		shards:    map[int32]*shard{},
		placement: coordlog.NewPlacement(OffsetsTopic, cfg.NumPartitions, cache),
		ctx:       ctx,
		cancel:    cancel,
		done:      make(chan struct{}),
	}
}

// Start runs the periodic offset expiry.
func (c *Coordinator) Start() {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTicker(c.cfg.RetentionCheckInterval)
		defer t.Stop()
		for {
			select {
			case <-c.ctx.Done():
				return
			case <-t.C:
				c.ExpireOffsets()
			}
		}
	}()
}

// Stop unloads every group, answering pending joins and syncs with
// NOT_COORDINATOR so no connection waits on a stopped coordinator, and
// waits for background work.
func (c *Coordinator) Stop() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	shards := c.shards
	c.shards = map[int32]*shard{}
	c.mu.Unlock()
	for _, sh := range shards {
		c.unloadShard(sh)
	}
	close(c.done)
	c.cancel()
	c.wg.Wait()
}

// Done is closed when the coordinator stops.
func (c *Coordinator) Done() <-chan struct{} { return c.done }

// Placement maps group ids to __consumer_offsets partitions (the topic's
// own partition count once it exists, else the configured one).
func (c *Coordinator) Placement() *coordlog.Placement { return c.placement }

// NumPartitions is the partition count of __consumer_offsets.
func (c *Coordinator) NumPartitions() int32 { return c.placement.NumPartitions() }

// PartitionFor is the __consumer_offsets partition of a group.
func (c *Coordinator) PartitionFor(group string) int32 { return c.placement.PartitionFor(group) }

// shardFor returns the active shard of a group or the coordinator error:
// COORDINATOR_NOT_AVAILABLE when stopped, COORDINATOR_LOAD_IN_PROGRESS while
// loading, NOT_COORDINATOR when another broker leads the partition.
func (c *Coordinator) shardFor(id string) (*shard, int32, *kerr.Error) {
	p := c.PartitionFor(id)
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch sh, ok := c.shards[p]; {
	case c.stopped:
		return nil, p, kerr.CoordinatorNotAvailable
	case !ok:
		return nil, p, kerr.NotCoordinator
	case sh.loading:
		return nil, p, kerr.CoordinatorLoadInProgress
	default:
		return sh, p, nil
	}
}

// lockGroup finds a group and returns it locked, creating an Empty one when
// create is set and it does not exist; (nil, nil) means no such group. A
// group that died while we waited for its lock has left its shard, so the
// lookup is repeated: callers never see Dead groups.
func (c *Coordinator) lockGroup(id string, create bool) (*group, *kerr.Error) {
	if len(id) > math.MaxInt16 {
		// Flexible requests carry longer strings than the record schema's
		// int16 lengths can store.
		return nil, kerr.InvalidGroupID
	}
	for {
		sh, p, err := c.shardFor(id)
		if err != nil {
			return nil, err
		}
		c.mu.RLock()
		g := sh.groups[id]
		c.mu.RUnlock()
		if g == nil {
			if !create {
				return nil, nil
			}
			c.mu.Lock()
			if cur, ok := c.shards[p]; !ok || cur != sh || sh.loading {
				c.mu.Unlock()
				continue // leadership changed meanwhile: look again
			}
			if g = sh.groups[id]; g == nil {
				g = newGroup(id, p, sh, c.clock.Now())
				sh.groups[id] = g
			}
			c.mu.Unlock()
		}
		g.mu.Lock()
		if g.state != Dead {
			return g, nil
		}
		g.mu.Unlock()
	}
}

// dropGroup marks a locked group Dead and removes it from its shard.
func (c *Coordinator) dropGroup(g *group) {
	g.transition(Dead, c.clock.Now())
	c.stopGroupTimers(g)
	c.mu.Lock()
	if g.sh.groups[g.id] == g {
		delete(g.sh.groups, g.id)
	}
	c.mu.Unlock()
}

// groupsOf snapshots a shard's groups.
func (c *Coordinator) groupsOf(sh *shard) []*group {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*group, 0, len(sh.groups))
	for _, g := range sh.groups {
		out = append(out, g)
	}
	return out
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

func (c *Coordinator) now() time.Time { return c.clock.Now() }

// goAfterWrite waits for an append's replication in its own goroutine and
// then runs done under the group lock: the group is never locked while
// waiting, so one slow write stalls no other request.
func (c *Coordinator) goAfterWrite(g *group, res AppendResult, done func(err error)) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := res.Await(c.ctx, c.cfg.CommitTimeout)
		g.mu.Lock()
		defer g.mu.Unlock()
		done(err)
	}()
}
