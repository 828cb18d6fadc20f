package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultSessionTimeout is Kafka 2.x's zookeeper.session.timeout.ms default.
const DefaultSessionTimeout = 18 * time.Second

// maxPacket bounds a single ZooKeeper response the client will allocate for
// (go-zookeeper is unbounded by default). The server's own jute.maxbuffer
// default is 1 MiB; this leaves room for large child lists.
const maxPacket = 16 << 20

// minHandshake is the least time a connect handshake is given, however
// short the session timeout and however many servers there are.
const minHandshake = time.Second

// closeWait bounds how long Close waits for go-zookeeper's loop to finish;
// it sends a close request and gives up after about a second on its own.
const closeWait = 5 * time.Second

// zkStore is the Store over a ZooKeeper ensemble via go-zookeeper.
type zkStore struct {
	conn   *zk.Conn
	chroot string
	acl    []zk.ACL
	logger *slog.Logger
	dialer *zkDialer
	feed   sessionFeed

	closed    atomic.Bool
	closeOnce sync.Once
	loopDone  chan struct{} // closed when go-zookeeper's event loop ends

	stateMu   sync.Mutex
	state     SessionState // last state reported; 0 before the first session
	firstUp   chan struct{}
	firstOnce sync.Once
}

// DialZooKeeper connects to ZooKeeper. connect is Kafka's zookeeper.connect:
// "host:port[,host:port...][/chroot]". It waits for the first session until
// ctx ends or for one session timeout, whichever is first (Kafka's
// zookeeper.connection.timeout.ms defaults to the session timeout), then
// creates the chroot if it is missing. sessionTimeout <= 0 means
// DefaultSessionTimeout; the server may negotiate it into its
// [minSessionTimeout, maxSessionTimeout] range.
//
// Every call on the returned Store honours its ctx: a call that cannot
// complete returns the context's error, and for a write the outcome is then
// unknown (as with ErrConnectionLoss). go-zookeeper's logging goes to logger
// at debug level; session changes are logged at info/warn.
func DialZooKeeper(ctx context.Context, connect string, sessionTimeout time.Duration, logger *slog.Logger) (Store, error) {
	if logger == nil {
		logger = slog.Default()
	}
	servers, chroot, err := parseConnect(connect)
	if err != nil {
		return nil, err
	}
	if sessionTimeout <= 0 {
		sessionTimeout = DefaultSessionTimeout
	}
	z := &zkStore{
		chroot:   chroot,
		acl:      zk.WorldACL(zk.PermAll),
		logger:   logger.With("component", "meta.zookeeper"),
		dialer:   &zkDialer{handshake: max(sessionTimeout/time.Duration(len(servers)), minHandshake)},
		loopDone: make(chan struct{}),
		firstUp:  make(chan struct{}),
	}
	conn, events, err := zk.Connect(servers, sessionTimeout,
		zk.WithLogger(zkLogger{logger}),
		zk.WithLogInfo(false),
		zk.WithDialer(z.dialer.dial),
		zk.WithEventCallback(z.onEvent),
		zk.WithMaxBufferSize(maxPacket),
	)
	if err != nil {
		return nil, fmt.Errorf("meta: dial zookeeper %q: %w", connect, err)
	}
	z.conn = conn
	go func() {
		// The callback sees every event; this only notices the loop's end.
		for range events {
		}
		close(z.loopDone)
	}()

	timer := time.NewTimer(sessionTimeout)
	defer timer.Stop()
	select {
	case <-z.firstUp:
	case <-ctx.Done():
		z.abandon()
		return nil, fmt.Errorf("meta: dial zookeeper %q: no session: %w: %w", connect, ErrConnectionLoss, ctx.Err())
	case <-timer.C:
		z.abandon()
		return nil, fmt.Errorf("meta: dial zookeeper %q: no session within %v: %w", connect, sessionTimeout, ErrConnectionLoss)
	}
	if err := z.ensureChroot(ctx); err != nil {
		z.Close()
		return nil, err
	}
	z.logger.Info("meta: zookeeper session established", "connect", connect,
		"session", fmt.Sprintf("0x%x", conn.SessionID()))
	return z, nil
}

// abandon closes a store that never had a session. There is no session to
// close on the server, so rather than let go-zookeeper wait out the
// handshake in flight (up to a session timeout), its connection is cut.
func (z *zkStore) abandon() {
	z.dialer.abort()
	z.Close()
}

// onEvent is go-zookeeper's synchronous callback; it must not block. It turns
// the client's connection states into ours: HasSession -> Connected,
// Disconnected (after a session) -> Disconnected, Expired -> Expired. The
// client reconnects on its own after an expiry with a fresh session, which
// then arrives as HasSession.
func (z *zkStore) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession || z.closed.Load() {
		return
	}
	var next SessionState
	switch ev.State {
	case zk.StateHasSession:
		next = SessionConnected
	case zk.StateDisconnected:
		next = SessionDisconnected
	case zk.StateExpired:
		next = SessionExpired
	default:
		return
	}
	z.stateMu.Lock()
	defer z.stateMu.Unlock()
	prev := z.state
	if prev == next {
		return
	}
	// Before the first session and between an expiry and the next session
	// the client cycles through Disconnected while it dials; those are not
	// changes of an established session.
	if next == SessionDisconnected && prev != SessionConnected {
		return
	}
	z.state = next
	switch next {
	case SessionConnected:
		z.firstOnce.Do(func() { close(z.firstUp) })
		if prev != 0 {
			z.logger.Info("meta: zookeeper session connected", "session", fmt.Sprintf("0x%x", z.dialer.sessionID()))
		}
	case SessionDisconnected:
		z.logger.Warn("meta: zookeeper disconnected", "server", ev.Server)
	case SessionExpired:
		z.logger.Warn("meta: zookeeper session expired; establishing a new session")
	}
	if prev != 0 {
		z.feed.publish(next)
	}
}

// call runs one go-zookeeper request, which has no context of its own, in a
// goroutine so the caller can leave when ctx ends. The abandoned request
// finishes or fails on go-zookeeper's side (its results are never read), so
// nothing leaks beyond the connection's lifetime.
func (z *zkStore) call(ctx context.Context, fn func() error) error {
	if z.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// mapErr turns go-zookeeper's errors into the package's sentinels.
func (z *zkStore) mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrClosed):
		return err
	case errors.Is(err, zk.ErrNoNode):
		return ErrNoNode
	case errors.Is(err, zk.ErrNodeExists):
		return ErrNodeExists
	case errors.Is(err, zk.ErrBadVersion):
		return ErrBadVersion
	case errors.Is(err, zk.ErrNotEmpty):
		return ErrNotEmpty
	case errors.Is(err, zk.ErrNoChildrenForEphemerals):
		return ErrNoChildrenForEphemerals
	case errors.Is(err, zk.ErrSessionExpired):
		return ErrSessionExpired
	case errors.Is(err, zk.ErrInvalidPath), errors.Is(err, zk.ErrBadArguments):
		return ErrInvalidPath
	case errors.Is(err, zk.ErrClosing):
		if z.closed.Load() {
			return ErrClosed
		}
		return ErrConnectionLoss
	case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer), errors.Is(err, zk.ErrSessionMoved):
		return ErrConnectionLoss
	}
	return err
}

func (z *zkStore) wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("meta: %s %q: %w", op, path, z.mapErr(err))
}

// watch adapts a go-zookeeper watch channel (one event, then closed) to ours.
func (z *zkStore) watch(path string, src <-chan zk.Event) <-chan Event {
	out := make(chan Event, 1)
	go func() {
		defer close(out)
		ev, ok := <-src
		if !ok {
			out <- Event{Type: EventNotWatching, Path: path, Err: ErrClosed}
			return
		}
		out <- z.event(path, ev)
	}()
	return out
}

func (z *zkStore) event(path string, ev zk.Event) Event {
	switch ev.Type {
	case zk.EventNodeCreated:
		return Event{Type: EventNodeCreated, Path: path}
	case zk.EventNodeDeleted:
		return Event{Type: EventNodeDeleted, Path: path}
	case zk.EventNodeDataChanged:
		return Event{Type: EventNodeDataChanged, Path: path}
	case zk.EventNodeChildrenChanged:
		return Event{Type: EventNodeChildrenChanged, Path: path}
	}
	reason := ErrClosed
	if errors.Is(ev.Err, zk.ErrSessionExpired) {
		reason = ErrSessionExpired
	}
	return Event{Type: EventNotWatching, Path: path, Err: reason}
}

func fromZKStat(s *zk.Stat) Stat {
	if s == nil {
		return Stat{}
	}
	return Stat{
		Czxid: s.Czxid, Mzxid: s.Mzxid, Pzxid: s.Pzxid,
		Ctime: s.Ctime, Mtime: s.Mtime,
		Version: s.Version, Cversion: s.Cversion,
		EphemeralOwner: s.EphemeralOwner,
		DataLength:     s.DataLength, NumChildren: s.NumChildren,
		Aversion: s.Aversion,
	}
}

func (z *zkStore) Create(ctx context.Context, path string, data []byte, mode CreateMode) (string, error) {
	if err := checkCreate(path, mode); err != nil {
		return "", fmt.Errorf("meta: create %q: %w", path, err)
	}
	var created string
	err := z.call(ctx, func() error {
		var err error
		created, err = z.conn.Create(z.full(path), data, int32(mode), z.acl)
		return err
	})
	if err != nil {
		return "", z.wrap("create", path, err)
	}
	return z.rel(created), nil
}

func (z *zkStore) Get(ctx context.Context, path string) ([]byte, Stat, error) {
	if err := ValidatePath(path); err != nil {
		return nil, Stat{}, fmt.Errorf("meta: get %q: %w", path, err)
	}
	var data []byte
	var st *zk.Stat
	err := z.call(ctx, func() error {
		var err error
		data, st, err = z.conn.Get(z.full(path))
		return err
	})
	if err != nil {
		return nil, Stat{}, z.wrap("get", path, err)
	}
	return data, fromZKStat(st), nil
}

func (z *zkStore) GetW(ctx context.Context, path string) ([]byte, Stat, <-chan Event, error) {
	if err := ValidatePath(path); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: get %q: %w", path, err)
	}
	var data []byte
	var st *zk.Stat
	var ch <-chan Event
	err := z.call(ctx, func() error {
		d, s, w, err := z.conn.GetW(z.full(path))
		if err != nil {
			return err
		}
		data, st, ch = d, s, z.watch(path, w)
		return nil
	})
	if err != nil {
		return nil, Stat{}, nil, z.wrap("get", path, err)
	}
	return data, fromZKStat(st), ch, nil
}

func (z *zkStore) Exists(ctx context.Context, path string) (bool, Stat, error) {
	if err := ValidatePath(path); err != nil {
		return false, Stat{}, fmt.Errorf("meta: exists %q: %w", path, err)
	}
	var ok bool
	var st *zk.Stat
	err := z.call(ctx, func() error {
		var err error
		ok, st, err = z.conn.Exists(z.full(path))
		return err
	})
	if err != nil {
		return false, Stat{}, z.wrap("exists", path, err)
	}
	if !ok {
		return false, Stat{}, nil
	}
	return true, fromZKStat(st), nil
}

func (z *zkStore) ExistsW(ctx context.Context, path string) (bool, Stat, <-chan Event, error) {
	if err := ValidatePath(path); err != nil {
		return false, Stat{}, nil, fmt.Errorf("meta: exists %q: %w", path, err)
	}
	var ok bool
	var st *zk.Stat
	var ch <-chan Event
	err := z.call(ctx, func() error {
		o, s, w, err := z.conn.ExistsW(z.full(path))
		if err != nil {
			return err
		}
		ok, st, ch = o, s, z.watch(path, w)
		return nil
	})
	if err != nil {
		return false, Stat{}, nil, z.wrap("exists", path, err)
	}
	if !ok {
		return false, Stat{}, ch, nil
	}
	return true, fromZKStat(st), ch, nil
}

func (z *zkStore) Set(ctx context.Context, path string, data []byte, version int32) (Stat, error) {
	if err := ValidatePath(path); err != nil {
		return Stat{}, fmt.Errorf("meta: set %q: %w", path, err)
	}
	var st *zk.Stat
	err := z.call(ctx, func() error {
		var err error
		st, err = z.conn.Set(z.full(path), data, version)
		return err
	})
	if err != nil {
		return Stat{}, z.wrap("set", path, err)
	}
	return fromZKStat(st), nil
}

func (z *zkStore) Delete(ctx context.Context, path string, version int32) error {
	if err := checkDelete(path); err != nil {
		return fmt.Errorf("meta: delete %q: %w", path, err)
	}
	return z.wrap("delete", path, z.call(ctx, func() error {
		return z.conn.Delete(z.full(path), version)
	}))
}

func (z *zkStore) Children(ctx context.Context, path string) ([]string, Stat, error) {
	if err := ValidatePath(path); err != nil {
		return nil, Stat{}, fmt.Errorf("meta: children %q: %w", path, err)
	}
	var kids []string
	var st *zk.Stat
	err := z.call(ctx, func() error {
		var err error
		kids, st, err = z.conn.Children(z.full(path))
		return err
	})
	if err != nil {
		return nil, Stat{}, z.wrap("children", path, err)
	}
	sort.Strings(kids)
	return kids, fromZKStat(st), nil
}

func (z *zkStore) ChildrenW(ctx context.Context, path string) ([]string, Stat, <-chan Event, error) {
	if err := ValidatePath(path); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: children %q: %w", path, err)
	}
	var kids []string
	var st *zk.Stat
	var ch <-chan Event
	err := z.call(ctx, func() error {
		k, s, w, err := z.conn.ChildrenW(z.full(path))
		if err != nil {
			return err
		}
		kids, st, ch = k, s, z.watch(path, w)
		return nil
	})
	if err != nil {
		return nil, Stat{}, nil, z.wrap("children", path, err)
	}
	sort.Strings(kids)
	return kids, fromZKStat(st), ch, nil
}

func (z *zkStore) Multi(ctx context.Context, ops ...Op) ([]OpResult, error) {
	ops, bad, err := normalizeOps(ops)
	if err != nil {
		return failedMulti(ops, bad, err)
	}
	reqs := make([]any, len(ops))
	for i, op := range ops {
		switch o := op.(type) {
		case CreateOp:
			reqs[i] = &zk.CreateRequest{Path: z.full(o.Path), Data: o.Data, Acl: z.acl, Flags: int32(o.Mode)}
		case SetOp:
			reqs[i] = &zk.SetDataRequest{Path: z.full(o.Path), Data: o.Data, Version: o.Version}
		case DeleteOp:
			reqs[i] = &zk.DeleteRequest{Path: z.full(o.Path), Version: o.Version}
		case CheckOp:
			reqs[i] = &zk.CheckVersionRequest{Path: z.full(o.Path), Version: o.Version}
		}
	}
	var resp []zk.MultiResponse
	err = z.call(ctx, func() error {
		var err error
		resp, err = z.conn.Multi(reqs...)
		return err
	})
	if err != nil {
		// An op-level failure comes back with one response per op, the
		// failing one carrying the real code (earlier ones carry OK, later
		// ones RUNTIMEINCONSISTENCY); anything else is a transport failure.
		if len(resp) == len(ops) {
			for i, r := range resp {
				if r.Error != nil {
					return failedMulti(ops, i, z.mapErr(r.Error))
				}
			}
		}
		return nil, fmt.Errorf("meta: multi of %d ops: %w", len(ops), z.mapErr(err))
	}
	if len(resp) != len(ops) {
		return nil, fmt.Errorf("meta: multi of %d ops: server answered %d results", len(ops), len(resp))
	}
	results := make([]OpResult, len(ops))
	for i, op := range ops {
		results[i].Path = op.opPath()
		switch op.(type) {
		case CreateOp:
			results[i].Path = z.rel(resp[i].String)
		case SetOp:
			results[i].Stat = fromZKStat(resp[i].Stat)
		}
	}
	return results, nil
}

func (z *zkStore) SessionID() int64 { return z.conn.SessionID() }

func (z *zkStore) Sessions() <-chan SessionState { return z.feed.subscribe() }

// Close sends ZooKeeper's close-session request, so the session's ephemeral
// znodes vanish at once rather than after the session timeout, and waits
// (bounded) for go-zookeeper to wind down, which fires NotWatching on every
// outstanding watch.
func (z *zkStore) Close() error {
	z.closeOnce.Do(func() {
		z.closed.Store(true)
		z.conn.Close()
		select {
		case <-z.loopDone:
		case <-time.After(closeWait):
			z.logger.Warn("meta: zookeeper client did not stop in time", "waited", closeWait)
		}
		z.feed.close()
	})
	return nil
}
