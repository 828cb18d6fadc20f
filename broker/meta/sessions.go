package meta

import "sync"

// sessionFeed fans session state changes out to every Sessions()
// subscriber. Each subscriber has its own unbounded queue and forwarding
// goroutine, so a slow or absent reader never blocks the store, and no
// change is dropped: losing a SessionExpired would leave a broker without
// its registration.
type sessionFeed struct {
	mu     sync.Mutex
	subs   []*sessionSub
	closed bool
}

type sessionSub struct {
	out   chan SessionState
	mu    sync.Mutex
	queue []SessionState
	wake  chan struct{} // capacity 1: "queue is non-empty"
	done  chan struct{} // closed when the feed closes
}

// subscribe returns a channel of the changes published from now on. After
// the feed is closed it returns an already-closed channel.
func (f *sessionFeed) subscribe() <-chan SessionState {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &sessionSub{
		out:  make(chan SessionState),
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	if f.closed {
		close(s.out)
		return s.out
	}
	f.subs = append(f.subs, s)
	go s.forward()
	return s.out
}

func (f *sessionFeed) publish(st SessionState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	for _, s := range f.subs {
		s.mu.Lock()
		s.queue = append(s.queue, st)
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// close ends every subscription: their channels are closed and changes not
// yet received are dropped, since nothing can act on them after Close.
func (f *sessionFeed) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	for _, s := range f.subs {
		close(s.done)
	}
	f.subs = nil
}

func (s *sessionSub) forward() {
	defer close(s.out)
	for {
		s.mu.Lock()
		var next SessionState
		have := len(s.queue) > 0
		if have {
			next = s.queue[0]
			s.queue = s.queue[1:]
		}
		s.mu.Unlock()
		if !have {
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		select {
		case s.out <- next:
		case <-s.done:
			return
		}
	}
}
