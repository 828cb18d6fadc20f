package replica

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

// Versions the follower speaks to leaders.
const (
	fetchVersion                = 12
	offsetForLeaderEpochVersion = 3
	listOffsetsVersion          = 5
)

// fetchState is one partition in a fetcher.
type fetchState struct {
	p          *Partition
	epoch      int32 // the leader epoch the controller gave us
	truncating bool  // ask the leader where our epoch ends before fetching
	outOfRange bool  // ask the leader for its offsets before fetching
	delayUntil time.Time
	// inSync: the last answer's HW was within our LEO (Kafka's
	// isReplicaInSync, lag <= 0). Replicas in sync are never throttled.
	inSync bool
}

type fetcherKey struct {
	leader int32
	id     int
}

// fetcherManager spreads followed partitions over num.replica.fetchers
// fetchers per leader, as Kafka's ReplicaFetcherManager does.
type fetcherManager struct {
	m        *Manager
	mu       sync.Mutex
	fetchers map[fetcherKey]*fetcher
	byTP     map[partid.TopicPartition]*fetcher
}

// LeaderConn is a follower's own connection to a leader (a wire.Client in
// the broker): requests on it are answered in order.
type LeaderConn interface {
	Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error)
	// RequestFunc hands the response to use and may recycle it after use
	// returns (the fetch path appends the records before that).
	RequestFunc(ctx context.Context, req kmsg.Request, use func(kmsg.Response) error) error
	Close() error
}

// LeaderDialer opens fetchers' connections to leaders. It resolves a
// leader's inter-broker address itself (the broker's address book: the
// metadata cache, then the live_leaders of the controller's last
// LeaderAndIsr, which the manager passes on with LiveLeaders) and brings
// the inter-broker listener's security.
type LeaderDialer interface {
	DialLeader(ctx context.Context, leader int32, clientID string) (LeaderConn, error)
	LiveLeaders(leaders []kmsg.LeaderAndISRRequestLiveLeader)
}

func newFetcherManager(m *Manager) *fetcherManager {
	return &fetcherManager{
		m:        m,
		fetchers: make(map[fetcherKey]*fetcher),
		byTP:     make(map[partid.TopicPartition]*fetcher),
	}
}

// rememberLeaders passes a LeaderAndIsr's live_leaders to the dialer.
func (fm *fetcherManager) rememberLeaders(ls []kmsg.LeaderAndISRRequestLiveLeader) {
	if d := fm.m.cfg.Dialer; d != nil {
		d.LiveLeaders(ls)
	}
}

func (fm *fetcherManager) add(p *Partition, leader, epoch int32) {
	h := fnv.New32a()
	h.Write([]byte(p.tp.String()))
	key := fetcherKey{leader: leader, id: int(h.Sum32() % uint32(fm.m.cfg.NumFetchers))}
	fm.mu.Lock()
	defer fm.mu.Unlock()
	f, ok := fm.fetchers[key]
	if !ok {
		f = newFetcher(fm, key)
		fm.fetchers[key] = f
		go f.run()
	}
	f.mu.Lock()
	f.parts[p.tp] = &fetchState{p: p, epoch: epoch, truncating: true}
	f.mu.Unlock()
	fm.byTP[p.tp] = f
	f.poke()
}

// remove stops fetching tp. When it returns, no fetcher touches the
// partition's log any more: the fetcher applies responses under its lock.
func (fm *fetcherManager) remove(tp partid.TopicPartition) {
	fm.mu.Lock()
	f, ok := fm.byTP[tp]
	delete(fm.byTP, tp)
	fm.mu.Unlock()
	if !ok {
		return
	}
	f.mu.Lock()
	delete(f.parts, tp)
	empty := len(f.parts) == 0
	f.mu.Unlock()
	if empty {
		fm.mu.Lock()
		if cur := fm.fetchers[f.key]; cur == f {
			f.mu.Lock()
			stillEmpty := len(f.parts) == 0
			f.mu.Unlock()
			if stillEmpty {
				delete(fm.fetchers, f.key)
				f.close()
			}
		}
		fm.mu.Unlock()
	}
}

func (fm *fetcherManager) shutdown() {
	fm.mu.Lock()
	fs := make([]*fetcher, 0, len(fm.fetchers))
	for k, f := range fm.fetchers {
		fs = append(fs, f)
		delete(fm.fetchers, k)
	}
	fm.byTP = make(map[partid.TopicPartition]*fetcher)
	fm.mu.Unlock()
	for _, f := range fs {
		f.close()
		<-f.done
	}
}

// fetcher is one connection to one leader, fetching a set of partitions.
type fetcher struct {
	fm    *fetcherManager
	m     *Manager
	key   fetcherKey
	mu    sync.Mutex // guards parts; held while applying a response
	parts map[partid.TopicPartition]*fetchState

	// session is the incremental fetch session with the leader; only
	// the run goroutine uses it.
	session fetchSession

	wake     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	// ctx ends with stop, cancelling the request in flight.
	ctx    context.Context
	cancel context.CancelFunc
}

func newFetcher(fm *fetcherManager, key fetcherKey) *fetcher {
	ctx, cancel := context.WithCancel(context.Background())
	return &fetcher{
		fm: fm, m: fm.m, key: key,
		parts:  make(map[partid.TopicPartition]*fetchState),
		wake:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
	}
}

func (f *fetcher) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *fetcher) close() {
	f.stopOnce.Do(func() {
		close(f.stop)
		f.cancel()
	})
}

// sleep waits d, a poke, or stop; false means stop.
func (f *fetcher) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-f.stop:
		return false
	case <-f.wake:
		return true
	case <-t.C:
		return true
	}
}

func (f *fetcher) run() {
	defer close(f.done)
	var client LeaderConn
	defer func() {
		if client != nil {
			client.Close()
		}
	}()
	drop := func(err error) {
		level := slog.LevelWarn
		if f.ctx.Err() != nil { // stopped on purpose (a leader change, a shutdown): no warning
			level = slog.LevelDebug
		}
		f.m.log.Log(context.Background(), level, "replica fetcher lost its leader connection", "leader", f.key.leader, "err", err)
		if client != nil {
			client.Close()
			client = nil
		}
	}
	for {
		select {
		case <-f.stop:
			return
		default:
		}
		truncs, ranges, fetches, nextWake := f.plan(f.m.now())
		if len(truncs)+len(ranges)+len(fetches) == 0 {
			if !f.sleep(nextWake) {
				return
			}
			continue
		}
		if client == nil {
			var err error
			client, err = f.dial()
			if err != nil {
				client = nil
				f.m.log.Warn("replica fetcher cannot reach leader", "leader", f.key.leader, "err", err)
				if !f.sleep(f.m.cfg.FetchBackoff) {
					return
				}
				continue
			}
		}
		var err error
		switch {
		case len(truncs) > 0:
			err = f.truncate(client, truncs)
		case len(ranges) > 0:
			err = f.resolveOutOfRange(client, ranges)
		default:
			err = f.fetch(client, fetches)
		}
		if err != nil {
			drop(err)
			if !f.sleep(f.m.cfg.FetchBackoff) {
				return
			}
		}
	}
}

func (f *fetcher) dial() (LeaderConn, error) {
	if f.m.cfg.Dialer == nil {
		return nil, fmt.Errorf("replica: no dialer to reach leader %d", f.key.leader)
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.m.cfg.RequestTimeout)
	defer cancel()
	return f.m.cfg.Dialer.DialLeader(ctx, f.key.leader, fmt.Sprintf("broker-%d-fetcher-%d", f.m.brokerID, f.key.id))
}

// plan sorts the partitions by what they need next. It returns copies of
// the states so the network round trip runs without the lock.
//
// A follower-throttled replica that is not in sync sits out while the
// follower quota is exceeded (Kafka's shouldFollowerThrottle). When that
// leaves nothing to send, the fetcher waits replica.fetch.backoff.ms, as
// Kafka's does on an empty fetch, instead of spinning on the quota.
func (f *fetcher) plan(now time.Time) (truncs, ranges, fetches []fetchState, nextWake time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	nextWake = time.Second
	q := f.m.cfg.FollowerQuota
	checked, exceeded := false, false
	for _, st := range f.parts {
		if now.Before(st.delayUntil) {
			if d := st.delayUntil.Sub(now); d < nextWake {
				nextWake = d
			}
			continue
		}
		switch {
		case st.truncating:
			truncs = append(truncs, *st)
		case st.outOfRange:
			ranges = append(ranges, *st)
		case !st.inSync && st.p.cfg.Load().FollowerThrottled.Contains(st.p.tp.Partition):
			if !checked {
				// One measurement per plan: the answer is the same for
				// every partition, and it takes the quota's lock.
				checked, exceeded = true, q.IsExceeded()
			}
			if !exceeded {
				fetches = append(fetches, *st)
				continue
			}
			q.HeldBack()
			nextWake = min(nextWake, f.m.cfg.FetchBackoff)
		default:
			fetches = append(fetches, *st)
		}
	}
	return truncs, ranges, fetches, nextWake
}

// current returns the live state for a planned one, if the partition is
// still fetched under the same leader epoch. Caller holds f.mu.
func (f *fetcher) currentLocked(planned fetchState) *fetchState {
	st, ok := f.parts[planned.p.tp]
	if !ok || st.p != planned.p || st.epoch != planned.epoch {
		return nil
	}
	return st
}

func (f *fetcher) delayLocked(st *fetchState) {
	st.delayUntil = f.m.now().Add(f.m.cfg.FetchBackoff)
}

func (f *fetcher) request(client LeaderConn, req kmsg.Request) (kmsg.Response, error) {
	ctx, cancel := f.requestContext()
	defer cancel()
	return client.Request(ctx, req)
}

// requestFunc is request for a response used only within use (see
// LeaderConn.RequestFunc): the fetch path, whose records are appended
// before use returns.
func (f *fetcher) requestFunc(client LeaderConn, req kmsg.Request, use func(kmsg.Response) error) error {
	ctx, cancel := f.requestContext()
	defer cancel()
	return client.RequestFunc(ctx, req, use)
}

// requestContext bounds a request by the request timeout plus the fetch
// wait, and ends it when the fetcher stops.
func (f *fetcher) requestContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(f.ctx, f.m.cfg.RequestTimeout+f.m.cfg.FetchWaitMax)
}
