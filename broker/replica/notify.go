package replica

import "sync"

// notifier wakes waiters (delayed fetches, acks=all produces) when a
// partition's LEO or HW moves. Waiters register a channel with room for one
// signal, so a wake-up between two checks is never lost and notify never
// blocks on a slow waiter.
type notifier struct {
	mu      sync.Mutex
	waiters map[chan struct{}]struct{}
}

func (n *notifier) add(ch chan struct{}) {
	n.mu.Lock()
	if n.waiters == nil {
		n.waiters = make(map[chan struct{}]struct{})
	}
	n.waiters[ch] = struct{}{}
	n.mu.Unlock()
}

func (n *notifier) remove(ch chan struct{}) {
	n.mu.Lock()
	delete(n.waiters, ch)
	n.mu.Unlock()
}

func (n *notifier) notify() {
	n.mu.Lock()
	for ch := range n.waiters {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	n.mu.Unlock()
}
