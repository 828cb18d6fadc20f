package replica

import "sync"

// event is what changed on a partition, for waiters that only care about
// some changes.
type event uint8

const (
	// evAppend: the LEO moved. Followers' fetches read up to it.
	evAppend event = 1 << iota
	// evHW: the HW (and with it the LSO) moved. Consumers' fetches read
	// up to it and acks=all produces wait for it.
	evHW
	// evState: leadership, the ISR, a log start offset (the leader's or a
	// follower's) changed: every waiter looks again.
	evState

	evAll = evAppend | evHW | evState
)

// watcher is told of a partition's changes it registered interest in. It
// runs on the changing goroutine, possibly under the partition's lock, so
// it must be quick and take no partition or manager lock.
type watcher interface {
	changed(ev event)
}

// wakeChan is the plain watcher: a channel with room for one signal, so a
// wake-up between two checks is never lost and notify never blocks on a
// slow waiter.
type wakeChan chan struct{}

func (w wakeChan) changed(event) {
	select {
	case w <- struct{}{}:
	default:
	}
}

// notifier tells waiters (delayed fetches, acks=all produces, DeleteRecords)
// when a partition changes in a way they care about. Filtering by event
// keeps an append (every produce) from waking the acks=all produces and
// consumer fetches that wait for the HW, and an HW move from waking
// followers' fetches that wait for data. A delayed fetch's watcher decides
// on the spot whether the change completes it (Kafka's tryComplete on the
// appending thread), so the many fetches waiting on a busy partition are
// not woken on every append only to go back to sleep.
type notifier struct {
	mu       sync.Mutex
	watchers map[watcher]event
}

func (n *notifier) add(w watcher, interest event) {
	n.mu.Lock()
	if n.watchers == nil {
		n.watchers = make(map[watcher]event)
	}
	n.watchers[w] = interest
	n.mu.Unlock()
}

func (n *notifier) remove(w watcher) {
	n.mu.Lock()
	delete(n.watchers, w)
	n.mu.Unlock()
}

func (n *notifier) notify(ev event) {
	n.mu.Lock()
	for w, interest := range n.watchers {
		if interest&ev != 0 {
			w.changed(ev)
		}
	}
	n.mu.Unlock()
}
