package meta

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
)

// Embedded is one client session on an embedded store: the Store a
// single-broker kafgo runs on when no zookeeper.connect is configured. More
// sessions on the same tree come from NewSession (tests use them for
// election races; they are what several ZooKeeper clients would be). The
// file stays open and locked until the last session is closed.
type Embedded struct {
	t          *tree
	id         atomic.Int64
	feed       sessionFeed
	closed     bool                // guarded by t.sem
	ephemerals map[string]struct{} // guarded by t.sem
}

// OpenEmbedded opens (or creates) the embedded store at path, a file under
// log.dirs such as <logdir>/__kafgo_meta/meta.json, and returns its first
// session. The directory is created if missing. A file that fails its
// integrity checks is refused with an error wrapping ErrCorrupt; a file in
// use by another open store is refused too.
func OpenEmbedded(path string, logger *slog.Logger) (Store, error) {
	if logger == nil {
		logger = slog.Default()
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("meta: open embedded store %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("meta: open embedded store %q: %w", path, err)
	}
	unlock, err := lockFile(abs + ".lock")
	if err != nil {
		return nil, fmt.Errorf("meta: open embedded store %q: %w", path, err)
	}
	t := newTree(abs, logger.With("component", "meta.embedded"))
	t.unlock = unlock
	if err := t.load(); err != nil {
		unlock()
		return nil, err
	}
	t.logger.Info("meta: embedded store opened", "file", abs, "znodes", len(t.nodes), "zxid", t.zxid)
	return t.newSession(), nil
}

// newSession must be called with t.sem held or before the tree is shared.
func (t *tree) newSession() *Embedded {
	e := &Embedded{t: t, ephemerals: make(map[string]struct{})}
	id := t.nextSessionID()
	e.id.Store(id)
	t.sessions[id] = e
	t.refs++
	return e
}

// NewSession opens another session on the same tree, with its own id,
// ephemerals and watches.
func (e *Embedded) NewSession() (Store, error) {
	if err := e.enter(context.Background()); err != nil {
		return nil, fmt.Errorf("meta: new session: %w", err)
	}
	defer e.t.release()
	return e.t.newSession(), nil
}

// enter takes the tree for one call of this session.
func (e *Embedded) enter(ctx context.Context) error {
	if err := e.t.acquire(ctx); err != nil {
		return err
	}
	if e.closed {
		e.t.release()
		return ErrClosed
	}
	if err := e.t.usable(); err != nil {
		e.t.release()
		return err
	}
	return nil
}

func (e *Embedded) Create(ctx context.Context, path string, data []byte, mode CreateMode) (string, error) {
	if err := e.enter(ctx); err != nil {
		return "", fmt.Errorf("meta: create %q: %w", path, err)
	}
	defer e.t.release()
	tx := e.t.begin(e)
	created, err := tx.create(path, data, mode)
	if err == nil {
		err = tx.commit()
	}
	if err != nil {
		return "", fmt.Errorf("meta: create %q: %w", path, err)
	}
	return created, nil
}

func (e *Embedded) Get(ctx context.Context, path string) ([]byte, Stat, error) {
	data, st, _, err := e.get(ctx, path, false)
	return data, st, err
}

func (e *Embedded) GetW(ctx context.Context, path string) ([]byte, Stat, <-chan Event, error) {
	return e.get(ctx, path, true)
}

func (e *Embedded) get(ctx context.Context, path string, watch bool) ([]byte, Stat, <-chan Event, error) {
	if err := ValidatePath(path); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: get %q: %w", path, err)
	}
	if err := e.enter(ctx); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: get %q: %w", path, err)
	}
	n := e.t.nodes[path]
	if n == nil {
		// Like ZooKeeper, a failed getData leaves no watch behind.
		if err := e.leaveRead(); err != nil {
			return nil, Stat{}, nil, fmt.Errorf("meta: get %q: %w", path, err)
		}
		return nil, Stat{}, nil, fmt.Errorf("meta: get %q: %w", path, ErrNoNode)
	}
	var ch <-chan Event
	if watch {
		ch = e.t.addWatch(e.t.dataW, path, e)
	}
	data, st := clone(n.data), n.statOut()
	if err := e.leaveRead(); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: get %q: %w", path, err)
	}
	return data, st, ch, nil
}

// leaveRead releases the tree after a read and waits until every change
// the read could have seen is durable: a transaction committing meanwhile
// is visible before its sync completes (see txn.commit), and no caller may
// act on what a crash could take back.
func (e *Embedded) leaveRead() error {
	seen := e.t.log.appended.Load()
	e.t.release()
	return e.t.durable(seen)
}

func (e *Embedded) Exists(ctx context.Context, path string) (bool, Stat, error) {
	ok, st, _, err := e.exists(ctx, path, false)
	return ok, st, err
}

func (e *Embedded) ExistsW(ctx context.Context, path string) (bool, Stat, <-chan Event, error) {
	return e.exists(ctx, path, true)
}

func (e *Embedded) exists(ctx context.Context, path string, watch bool) (bool, Stat, <-chan Event, error) {
	if err := ValidatePath(path); err != nil {
		return false, Stat{}, nil, fmt.Errorf("meta: exists %q: %w", path, err)
	}
	if err := e.enter(ctx); err != nil {
		return false, Stat{}, nil, fmt.Errorf("meta: exists %q: %w", path, err)
	}
	var ch <-chan Event
	if watch {
		// One table for both cases, as ZooKeeper's server: it fires
		// NodeCreated if the znode is missing, else DataChanged/Deleted.
		ch = e.t.addWatch(e.t.dataW, path, e)
	}
	n := e.t.nodes[path]
	var st Stat
	if n != nil {
		st = n.statOut()
	}
	if err := e.leaveRead(); err != nil {
		return false, Stat{}, nil, fmt.Errorf("meta: exists %q: %w", path, err)
	}
	return n != nil, st, ch, nil
}

func (e *Embedded) Set(ctx context.Context, path string, data []byte, version int32) (Stat, error) {
	if err := e.enter(ctx); err != nil {
		return Stat{}, fmt.Errorf("meta: set %q: %w", path, err)
	}
	defer e.t.release()
	tx := e.t.begin(e)
	st, err := tx.set(path, data, version)
	if err == nil {
		err = tx.commit()
	}
	if err != nil {
		return Stat{}, fmt.Errorf("meta: set %q: %w", path, err)
	}
	return st, nil
}

func (e *Embedded) Delete(ctx context.Context, path string, version int32) error {
	if err := e.enter(ctx); err != nil {
		return fmt.Errorf("meta: delete %q: %w", path, err)
	}
	defer e.t.release()
	tx := e.t.begin(e)
	err := tx.delete(path, version)
	if err == nil {
		err = tx.commit()
	}
	if err != nil {
		return fmt.Errorf("meta: delete %q: %w", path, err)
	}
	return nil
}

func (e *Embedded) Children(ctx context.Context, path string) ([]string, Stat, error) {
	kids, st, _, err := e.children(ctx, path, false)
	return kids, st, err
}

func (e *Embedded) ChildrenW(ctx context.Context, path string) ([]string, Stat, <-chan Event, error) {
	return e.children(ctx, path, true)
}

func (e *Embedded) children(ctx context.Context, path string, watch bool) ([]string, Stat, <-chan Event, error) {
	if err := ValidatePath(path); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: children %q: %w", path, err)
	}
	if err := e.enter(ctx); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: children %q: %w", path, err)
	}
	n := e.t.nodes[path]
	if n == nil {
		if err := e.leaveRead(); err != nil {
			return nil, Stat{}, nil, fmt.Errorf("meta: children %q: %w", path, err)
		}
		return nil, Stat{}, nil, fmt.Errorf("meta: children %q: %w", path, ErrNoNode)
	}
	kids := make([]string, 0, len(n.children))
	for k := range n.children {
		kids = append(kids, k)
	}
	sort.Strings(kids)
	var ch <-chan Event
	if watch {
		ch = e.t.addWatch(e.t.childW, path, e)
	}
	st := n.statOut()
	if err := e.leaveRead(); err != nil {
		return nil, Stat{}, nil, fmt.Errorf("meta: children %q: %w", path, err)
	}
	return kids, st, ch, nil
}

func (e *Embedded) Multi(ctx context.Context, ops ...Op) ([]OpResult, error) {
	ops, bad, err := normalizeOps(ops)
	if err != nil {
		return failedMulti(ops, bad, err)
	}
	if err := e.enter(ctx); err != nil {
		return nil, fmt.Errorf("meta: multi of %d ops: %w", len(ops), err)
	}
	defer e.t.release()
	tx := e.t.begin(e)
	results := make([]OpResult, len(ops))
	for i, op := range ops {
		results[i].Path = op.opPath()
		var err error
		switch o := op.(type) {
		case CreateOp:
			results[i].Path, err = tx.create(o.Path, o.Data, o.Mode)
		case SetOp:
			results[i].Stat, err = tx.set(o.Path, o.Data, o.Version)
		case DeleteOp:
			err = tx.delete(o.Path, o.Version)
		case CheckOp:
			err = tx.check(o.Path, o.Version)
		}
		if err != nil {
			tx.rollback()
			return failedMulti(ops, i, err)
		}
	}
	if err := tx.commit(); err != nil {
		return nil, fmt.Errorf("meta: multi of %d ops: %w", len(ops), err)
	}
	return results, nil
}

func (e *Embedded) SessionID() int64 { return e.id.Load() }

func (e *Embedded) Sessions() <-chan SessionState { return e.feed.subscribe() }

// endSession is what ZooKeeper does when a session ends: the session's
// watches fire NotWatching with reason, then its ephemerals are deleted
// (firing other sessions' watches) in one transaction.
func (e *Embedded) endSession(reason error) error {
	e.t.dropWatches(e, reason)
	paths := make([]string, 0, len(e.ephemerals))
	for p := range e.ephemerals {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	tx := e.t.begin(e)
	for _, p := range paths {
		if err := tx.delete(p, -1); err != nil {
			tx.rollback()
			return fmt.Errorf("delete ephemeral %q: %w", p, err)
		}
	}
	delete(e.t.sessions, e.id.Load())
	return tx.commit()
}

// ExpireSession expires the session now, as if the server had timed it out:
// its watches fire NotWatching with ErrSessionExpired, its ephemerals are
// deleted, subscribers see SessionExpired and then SessionConnected, and
// SessionID returns a new id.
func (e *Embedded) ExpireSession(ctx context.Context) error {
	if err := e.enter(ctx); err != nil {
		return fmt.Errorf("meta: expire session: %w", err)
	}
	old := e.id.Load()
	err := e.endSession(ErrSessionExpired)
	id := e.t.nextSessionID()
	e.id.Store(id)
	e.t.sessions[id] = e
	e.t.release()
	e.t.logger.Info("meta: embedded session expired", "old", fmt.Sprintf("0x%x", old), "new", fmt.Sprintf("0x%x", id))
	e.feed.publish(SessionExpired)
	e.feed.publish(SessionConnected)
	if err != nil {
		return fmt.Errorf("meta: expire session: %w", err)
	}
	return nil
}

// Close ends the session; closing the last session of the tree releases
// the file. Closing twice is a no-op.
func (e *Embedded) Close() error {
	// Close must not fail for want of a context: wait for the tree.
	if err := e.t.acquire(context.Background()); err != nil {
		return fmt.Errorf("meta: close: %w", err)
	}
	if e.closed {
		e.t.release()
		return nil
	}
	e.closed = true
	err := e.endSession(ErrClosed)
	e.t.refs--
	var unlockErr error
	if e.t.refs == 0 {
		// The last session: fold the change log into the snapshot, so
		// the file alone holds the state when nothing is open.
		if e.t.failed == nil {
			if serr := e.t.snapshot(); serr != nil {
				e.t.failStop(serr)
				err = errors.Join(err, serr)
			}
		}
		if e.t.log != nil {
			_ = e.t.log.close()
		}
		if e.t.unlock != nil {
			unlockErr = e.t.unlock()
			e.t.unlock = nil
		}
	}
	e.t.release()
	e.feed.close()
	if err != nil {
		return fmt.Errorf("meta: close session: %w", err)
	}
	if unlockErr != nil {
		return fmt.Errorf("meta: close: release lock: %w", unlockErr)
	}
	return nil
}
