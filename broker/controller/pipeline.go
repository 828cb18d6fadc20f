package controller

import (
	"errors"
	"slices"
	"sync"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// storeParallelism bounds the store requests the controller has in flight
// at once when it writes or reads many partitions: a ZooKeeper server
// pipelines them on the session's connection and commits concurrent writes
// in one log sync, the embedded store shares one sync among them. One at a
// time, ten thousand partition states cost ten thousand round trips and
// syncs; Kafka's controller batches them the same way (its async ZooKeeper
// requests).
const storeParallelism = 128

// parallel runs fn(0..n-1) on up to storeParallelism goroutines and
// returns when all are done. fn must only talk to the store: the
// controller's state belongs to the event goroutine, which applies the
// results afterwards.
func parallel(n int, fn func(i int)) {
	if n == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(n, storeParallelism) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// stateChange is one partition state to write: a new partition's first
// state (create) or a controller-made change of an existing one.
type stateChange struct {
	p      tp
	next   *partState
	create bool

	// Outcome, filled by the store phase.
	version int32
	err     error
	fenced  bool
	exists  bool // create: the state znode was there already
}

// writeStates writes the changes concurrently, each fenced by the
// controller epoch (and an update by the state's version, the partition
// epoch), then, on the event goroutine, records in memory those that
// succeeded and handles the others as one write would: a fence makes the
// controller stand down, a state someone else created is adopted, any
// other failure is logged and the state reloaded. It returns which
// succeeded.
func (c *Controller) writeStates(changes []*stateChange) []bool {
	ok := make([]bool, len(changes))
	if c.fencedOut || len(changes) == 0 {
		return ok
	}
	epochVersion := c.st.epochZkVersion
	// Each topic's partitions parent first, once per topic.
	parents := map[string]bool{}
	for _, ch := range changes {
		if ch.create && !parents[ch.p.Topic] {
			parents[ch.p.Topic] = true
		}
	}
	if len(parents) > 0 {
		topics := slices.Sorted(func(yield func(string) bool) {
			for t := range parents {
				if !yield(t) {
					return
				}
			}
		})
		errs := make([]error, len(topics))
		parallel(len(topics), func(i int) {
			ctx, cancel := c.ctx()
			defer cancel()
			errs[i] = meta.EnsurePath(ctx, c.store, znode.TopicPartitionsPath(topics[i]))
		})
		for i, err := range errs {
			if err != nil {
				c.fail("create partitions path of "+topics[i], err)
			}
		}
	}
	parallel(len(changes), func(i int) { c.storeState(changes[i], epochVersion) })
	for i, ch := range changes {
		switch {
		case ch.fenced:
			c.fencedOut = true
		case c.fencedOut:
		case ch.err == nil:
			ch.next.exists = true
			ch.next.zkVersion = ch.version
			c.st.topics[ch.p.Topic].states[ch.p.Partition] = ch.next
			ok[i] = true
		case ch.create && ch.exists:
			// Someone initialised it before us (an earlier term): adopt it.
			ok[i] = c.reloadState(ch.p)
		case ch.create:
			c.fail("create state "+ch.p.String(), ch.err)
		default:
			c.fail("update state "+ch.p.String(), ch.err)
			c.reloadState(ch.p)
		}
	}
	return ok
}

// storeState is the store part of one change (any goroutine).
func (c *Controller) storeState(ch *stateChange, epochVersion int32) {
	ctx, cancel := c.ctx()
	defer cancel()
	data, err := encodeState(ch.next)
	if err != nil {
		ch.err = err
		return
	}
	check := meta.CheckOp{Path: znode.ControllerEpochPath, Version: epochVersion}
	statePath := znode.PartitionStatePath(ch.p.Topic, ch.p.Partition)
	if !ch.create {
		results, err := c.store.Multi(ctx, check, meta.SetOp{Path: statePath, Data: data, Version: ch.next.zkVersion})
		ch.fenced, ch.err = fenced(results, err), err
		if err == nil {
			ch.version = results[1].Stat.Version
		}
		return
	}
	// The partition's znode and its state in one transaction; where the
	// partition's znode exists already (a create that failed half way in
	// an earlier term), the state alone.
	results, err := c.store.Multi(ctx, check,
		meta.CreateOp{Path: znode.PartitionPath(ch.p.Topic, ch.p.Partition), Mode: meta.Persistent},
		meta.CreateOp{Path: statePath, Data: data, Mode: meta.Persistent})
	if errors.Is(err, meta.ErrNodeExists) && !fenced(results, err) {
		results, err = c.store.Multi(ctx, check, meta.CreateOp{Path: statePath, Data: data, Mode: meta.Persistent})
	}
	ch.fenced, ch.err = fenced(results, err), err
	ch.exists = errors.Is(err, meta.ErrNodeExists)
	ch.version = 0
}
