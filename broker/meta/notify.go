package meta

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// NotificationExpiry is how long a change notification is kept before a
// listener removes it (ZkNodeChangeNotificationListener's default).
const NotificationExpiry = 15 * time.Minute

// watchRetry is how long a listener waits before watching its directory
// again after a failure.
const watchRetry = time.Second

// ChangeListener follows a directory of sequential change notifications
// (/config/changes, /kafka-acl-changes, ...) as Kafka's
// ZkNodeChangeNotificationListener does: each notification newer than the
// last one handled is handed over once, in sequence order, and
// notifications older than NotificationExpiry are removed.
type ChangeListener struct {
	store  Store
	path   string
	prefix string
	handle func(ctx context.Context, path string, data []byte)

	// Log, when set, is told of failures to watch the directory; nil keeps
	// them quiet (the listener retries either way).
	Log *slog.Logger

	mu   sync.Mutex
	last int64 // newest sequence handled; -1 before the first (they are numbered from 0)
}

// NewChangeListener follows the notifications named prefix<sequence> in
// dir, calling handle with each one's path and data.
func NewChangeListener(store Store, dir, prefix string, handle func(ctx context.Context, path string, data []byte)) *ChangeListener {
	return &ChangeListener{store: store, path: dir, prefix: prefix, handle: handle, last: -1}
}

// SkipExisting marks the notifications present now as handled: the caller
// reads the current state itself. The error is the store's, unwrapped.
func (l *ChangeListener) SkipExisting(ctx context.Context) error {
	children, _, err := l.store.Children(ctx, l.path)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range children {
		if seq, err := SequenceNumber(name); err == nil && seq > l.last {
			l.last = seq
		}
	}
	return nil
}

// Run handles notifications as they arrive until ctx ends.
func (l *ChangeListener) Run(ctx context.Context) {
	for ctx.Err() == nil {
		children, _, ev, err := l.store.ChildrenW(ctx, l.path)
		if err != nil {
			if ctx.Err() == nil {
				if l.Log != nil {
					l.Log.Warn("cannot watch change notifications; retrying", "path", l.path, "err", err)
				}
				if errors.Is(err, ErrNoNode) {
					_ = EnsurePath(ctx, l.store, l.path)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(watchRetry):
			}
			continue
		}
		l.Apply(ctx, children)
		select {
		case <-ctx.Done():
			return
		case <-ev:
		}
	}
}

// Apply handles the notifications among children (names in the directory)
// newer than the last handled, in sequence order, and removes expired ones.
func (l *ChangeListener) Apply(ctx context.Context, children []string) {
	for _, name := range children {
		if !strings.HasPrefix(name, l.prefix) {
			continue
		}
		seq, err := SequenceNumber(name)
		if err != nil {
			continue
		}
		path := l.path + "/" + name
		data, stat, err := l.store.Get(ctx, path)
		if err != nil {
			continue // removed by another broker's purge, or the store is away
		}
		if time.Since(time.UnixMilli(stat.Ctime)) > NotificationExpiry {
			_ = l.store.Delete(ctx, path, -1)
		}
		l.mu.Lock()
		fresh := seq > l.last
		if fresh {
			l.last = seq
		}
		l.mu.Unlock()
		if fresh {
			l.handle(ctx, path, data)
		}
	}
}
