package acl

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
)

// changeDirs are the two notification directories: literal patterns'
// changes, and the others' (Kafka's extended ACL change store).
var changeDirs = []struct {
	path  string
	parse func([]byte) (znode.ACLChange, error)
}{
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
	var listeners []*meta.ChangeListener
	for _, d := range changeDirs {
		l := meta.NewChangeListener(a.store, d.path, znode.ACLChangePrefix, func(ctx context.Context, path string, data []byte) {
			change, err := d.parse(data)
			if err != nil {
				a.log.Warn("ignoring unreadable ACL change notification", "path", path, "err", err)
				return
			}
			if err := a.refresh(ctx, change); err != nil {
				a.log.Error("cannot apply ACL change notification; keeping the cached ACLs", "path", path, "resource", change.String(), "err", err)
			}
		})
		l.Log = a.log
		if err := l.SkipExisting(ctx); err != nil {
			return fmt.Errorf("acl: listing %s: %w", d.path, err)
		}
		listeners = append(listeners, l)
	}
	if err := a.loadAll(ctx); err != nil {
		return err
	}
	a.changes = listeners
	return nil
}

// Follow applies change notifications until ctx ends: for each new one the
// named resource is re-read from the store. Call it after Start.
func (a *Authorizer) Follow(ctx context.Context) {
	var wg sync.WaitGroup
	for _, l := range a.changes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run(ctx)
		}()
	}
	wg.Wait()
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
