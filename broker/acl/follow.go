package acl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// notificationExpiry is how long a change notification is kept before a
// broker removes it (ZkNodeChangeNotificationListener's default).
const notificationExpiry = 15 * time.Minute

// changeStore is one of the two notification directories.
type changeStore struct {
	path  string
	parse func([]byte) (znode.ACLChange, error)
}

var changeStores = []changeStore{
	{znode.ACLChangesPath, znode.ParseLiteralACLChange},
	{znode.ExtendedACLChangesPath, znode.ParseExtendedACLChange},
}

// Start prepares the ACL tree and loads every ACL into the cache. The
// notifications present now are marked seen first: a change written after
// that is re-read when its notification is processed, so nothing written
// between the two steps is lost. Run Follow afterwards to keep the cache
// current.
func (a *Authorizer) Start(ctx context.Context) error {
	if err := a.ensurePaths(ctx); err != nil {
		return err
	}
	seen := map[string]int64{}
	for _, cs := range changeStores {
		seen[cs.path] = -1
		children, _, err := a.store.Children(ctx, cs.path)
		if err != nil {
			return fmt.Errorf("acl: listing %s: %w", cs.path, err)
		}
		for _, name := range children {
			if seq, err := meta.SequenceNumber(name); err == nil && seq > seen[cs.path] {
				seen[cs.path] = seq
			}
		}
	}
	if err := a.loadAll(ctx); err != nil {
		return err
	}
	a.seen = seen
	return nil
}

// Follow applies change notifications until ctx ends: for each new one the
// named resource is re-read from the store. Call it after Start.
func (a *Authorizer) Follow(ctx context.Context) {
	seen := a.seen
	var wg sync.WaitGroup
	for _, cs := range changeStores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.followStore(ctx, cs, seen[cs.path])
		}()
	}
	wg.Wait()
}

func (a *Authorizer) followStore(ctx context.Context, cs changeStore, last int64) {
	for ctx.Err() == nil {
		children, _, ev, err := a.store.ChildrenW(ctx, cs.path)
		if err != nil {
			if ctx.Err() == nil {
				a.log.Warn("cannot watch ACL change notifications; retrying", "path", cs.path, "err", err)
				if errors.Is(err, meta.ErrNoNode) {
					_ = meta.EnsurePath(ctx, a.store, cs.path)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		last = a.process(ctx, cs, children, last)
		select {
		case <-ctx.Done():
			return
		case <-ev:
		}
	}
}

// process handles the notifications newer than last, in sequence order,
// and removes expired ones. It returns the newest sequence handled.
func (a *Authorizer) process(ctx context.Context, cs changeStore, children []string, last int64) int64 {
	for _, name := range children {
		if !strings.HasPrefix(name, znode.ACLChangePrefix) {
			continue
		}
		seq, err := meta.SequenceNumber(name)
		if err != nil {
			continue
		}
		path := cs.path + "/" + name
		data, stat, err := a.store.Get(ctx, path)
		if err != nil {
			continue // removed by another broker's purge, or the store is away
		}
		if time.Since(time.UnixMilli(stat.Ctime)) > notificationExpiry {
			_ = a.store.Delete(ctx, path, -1)
		}
		if seq <= last {
			continue
		}
		last = seq
		change, err := cs.parse(data)
		if err != nil {
			a.log.Warn("ignoring unreadable ACL change notification", "path", path, "err", err)
			continue
		}
		if err := a.refresh(ctx, change); err != nil {
			a.log.Error("cannot apply ACL change notification; keeping the cached ACLs", "path", path, "resource", change.String(), "err", err)
		}
	}
	return last
}

// refresh re-reads the resource a notification names
// (processAclChangeNotification).
func (a *Authorizer) refresh(ctx context.Context, c znode.ACLChange) error {
	rt, ok := ParseResourceType(c.ResourceType)
	if !ok {
		return fmt.Errorf("acl: unknown resource type %q", c.ResourceType)
	}
	var pt PatternType
	switch strings.ToUpper(c.PatternType) {
	case "LITERAL":
		pt = Literal
	case "PREFIXED":
		pt = Prefixed
	default:
		return fmt.Errorf("acl: unknown pattern type %q", c.PatternType)
	}
	p := Pattern{Type: rt, Name: c.Name, PatternType: pt}
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.read(ctx, p)
	if err != nil {
		return err
	}
	a.setCached(p, r)
	a.log.Info("processed ACL change notification", "resource", p.String(), "acls", len(r.entries))
	return nil
}
