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

// notifier wakes waiters (delayed fetches, acks=all produces, DeleteRecords)
// when a partition changes in a way they care about. Waiters register a
// channel with room for one signal, so a wake-up between two checks is
// never lost and notify never blocks on a slow waiter. Filtering by event
// keeps an append (every produce) from waking the acks=all produces and
// consumer fetches that wait for the HW, and an HW move from waking
// followers' fetches that wait for data.
type notifier struct {
	mu      sync.Mutex
	waiters map[chan struct{}]event
}

func (n *notifier) add(ch chan struct{}, interest event) {
	n.mu.Lock()
	if n.waiters == nil {
		n.waiters = make(map[chan struct{}]event)
	}
	n.waiters[ch] = interest
	n.mu.Unlock()
}

func (n *notifier) remove(ch chan struct{}) {
	n.mu.Lock()
	delete(n.waiters, ch)
	n.mu.Unlock()
}

func (n *notifier) notify(ev event) {
	n.mu.Lock()
	for ch, interest := range n.waiters {
		if interest&ev == 0 {
			continue
		}
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	n.mu.Unlock()
}
