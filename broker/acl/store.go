package acl

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/broker/principal"
)

// maxUpdateRetries bounds the optimistic-concurrency retries of one
// resource update, as AclAuthorizer.maxUpdateRetries.
const maxUpdateRetries = 10

// patternTypePath is the lower-case name in extended store paths.
func patternTypePath(pt PatternType) string { return strings.ToLower(pt.String()) }

func resourcePath(p Pattern) string {
	return znode.ACLResourcePath(patternTypePath(p.PatternType), ResourceTypeName(p.Type), p.Name)
}

// ensurePaths creates the ACL tree's fixed znodes (ZkAclStore's
// createAclPaths): each pattern type's resource type directories and the
// two change directories.
func (a *Authorizer) ensurePaths(ctx context.Context) error {
	paths := []string{znode.ACLChangesPath, znode.ExtendedACLChangesPath}
	for _, pt := range []PatternType{Literal, Prefixed} {
		for _, rt := range resourceTypes {
			paths = append(paths, znode.ACLResourceTypePath(patternTypePath(pt), ResourceTypeName(rt)))
		}
	}
	for _, p := range paths {
		if err := meta.EnsurePath(ctx, a.store, p); err != nil {
			return fmt.Errorf("acl: creating %s: %w", p, err)
		}
	}
	return nil
}

// encodeEntries writes entries as the znode's JSON.
func encodeEntries(entries []Entry) ([]byte, error) {
	z := znode.ACLs{Entries: make([]znode.ACLEntry, 0, len(entries))}
	for _, e := range entries {
		z.Entries = append(z.Entries, znode.ACLEntry{
			Principal: e.Principal, PermissionType: PermissionName(e.Permission),
			Operation: OperationName(e.Operation), Host: e.Host,
		})
	}
	return z.Marshal()
}

// decodeEntries reads a znode's JSON. An entry kafgo cannot read fails the
// whole resource: dropping a DENY silently could grant access.
func decodeEntries(data []byte) ([]Entry, error) {
	z, err := znode.ParseACLs(data)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(z.Entries))
	for _, ze := range z.Entries {
		op, ok := ParseOperation(ze.Operation)
		if !ok {
			return nil, fmt.Errorf("acl: unknown operation %q", ze.Operation)
		}
		perm, ok := ParsePermission(ze.PermissionType)
		if !ok {
			return nil, fmt.Errorf("acl: unknown permission type %q", ze.PermissionType)
		}
		p, err := principal.Parse(ze.Principal)
		if err != nil {
			return nil, fmt.Errorf("acl: %w", err)
		}
		out = appendUnique(out, Entry{Principal: p.String(), Host: ze.Host, Operation: op, Permission: perm})
	}
	return out, nil
}

// appendUnique adds e unless present: a resource's ACLs are a set.
func appendUnique(entries []Entry, e Entry) []Entry {
	if slices.Contains(entries, e) {
		return entries
	}
	return append(entries, e)
}

// sameSet reports whether two entry lists hold the same entries.
func sameSet(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range a {
		if !slices.Contains(b, e) {
			return false
		}
	}
	return true
}

// read loads one pattern's ACLs and version from the store; a missing
// znode is no ACLs at version -1.
func (a *Authorizer) read(ctx context.Context, p Pattern) (resourceACLs, error) {
	data, stat, err := a.store.Get(ctx, resourcePath(p))
	if errors.Is(err, meta.ErrNoNode) {
		return resourceACLs{version: -1}, nil
	}
	if err != nil {
		return resourceACLs{}, fmt.Errorf("acl: reading %s: %w", p, err)
	}
	entries, err := decodeEntries(data)
	if err != nil {
		return resourceACLs{}, fmt.Errorf("acl: reading %s: %w", p, err)
	}
	return resourceACLs{entries: entries, version: stat.Version}, nil
}

// errConflict is a lost optimistic-concurrency race: re-read and retry.
var errConflict = errors.New("acl: concurrent update")

// write stores next over cur: set with cur's version, create when the
// znode did not exist, delete when no entries remain. It returns the new
// version.
func (a *Authorizer) write(ctx context.Context, p Pattern, cur resourceACLs, next []Entry) (int32, error) {
	path := resourcePath(p)
	if len(next) == 0 {
		if cur.version < 0 {
			return -1, nil
		}
		err := a.store.Delete(ctx, path, cur.version)
		switch {
		case err == nil, errors.Is(err, meta.ErrNoNode):
			return -1, nil
		case errors.Is(err, meta.ErrBadVersion):
			return 0, errConflict
		}
		return 0, err
	}
	data, err := encodeEntries(next)
	if err != nil {
		return 0, err
	}
	if cur.version < 0 {
		err := meta.CreateRecursive(ctx, a.store, path, data, meta.Persistent)
		if errors.Is(err, meta.ErrNodeExists) {
			return 0, errConflict
		}
		return 0, err
	}
	stat, err := a.store.Set(ctx, path, data, cur.version)
	if errors.Is(err, meta.ErrBadVersion) || errors.Is(err, meta.ErrNoNode) {
		return 0, errConflict
	}
	return stat.Version, err
}

// update applies change to a pattern's ACLs in the store, retrying with a
// fresh read when another writer got there first, then caches the result
// and, if the ACLs changed, writes a change notification so every broker
// re-reads them (AclAuthorizer.updateResourceAcls). Callers hold mu.
func (a *Authorizer) update(ctx context.Context, p Pattern, change func([]Entry) []Entry) error {
	cur, cached := a.snapshot()[p]
	if !cached {
		var err error
		if cur, err = a.read(ctx, p); err != nil {
			return err
		}
	}
	for try := 0; ; try++ {
		// Written even when unchanged, as Kafka does: the versioned write
		// is what detects a cache that another broker's change outdated.
		next := change(cur.entries)
		version, err := a.write(ctx, p, cur, next)
		if err == nil {
			a.setCached(p, resourceACLs{entries: next, version: version})
			if sameSet(next, cur.entries) {
				return nil
			}
			a.log.Info("updated ACLs", "resource", p.String(), "acls", len(next))
			return a.notify(ctx, p)
		}
		if !errors.Is(err, errConflict) {
			return fmt.Errorf("acl: updating %s: %w", p, err)
		}
		if try >= maxUpdateRetries {
			return fmt.Errorf("acl: failed to update ACLs for %s after trying a maximum of %d times", p, maxUpdateRetries)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100*time.Millisecond + rand.N(50*time.Millisecond)):
		}
		if cur, err = a.read(ctx, p); err != nil {
			return err
		}
	}
}

// notify writes the change notification of p.
func (a *Authorizer) notify(ctx context.Context, p Pattern) error {
	data, err := znode.ACLChange{ResourceType: ResourceTypeName(p.Type), Name: p.Name, PatternType: p.PatternType.String()}.Marshal()
	if err != nil {
		return err
	}
	if _, err := a.store.Create(ctx, znode.ACLChangeSeqPath(p.PatternType == Literal), data, meta.PersistentSequential); err != nil {
		return fmt.Errorf("acl: notifying the change of %s: %w", p, err)
	}
	return nil
}

// loadAll reads every stored ACL into the cache (AclAuthorizer.loadCache).
// Resource types kafgo does not know are skipped, as Kafka skips them.
func (a *Authorizer) loadAll(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, pt := range []PatternType{Literal, Prefixed} {
		types, _, err := a.store.Children(ctx, znode.ACLStorePath(patternTypePath(pt)))
		if err != nil {
			return fmt.Errorf("acl: listing %s ACLs: %w", pt, err)
		}
		for _, tn := range types {
			rt, ok := ParseResourceType(tn)
			if !ok {
				a.log.Warn("ignoring unknown ACL resource type", "type", tn)
				continue
			}
			names, _, err := a.store.Children(ctx, znode.ACLResourceTypePath(patternTypePath(pt), tn))
			if err != nil {
				return fmt.Errorf("acl: listing %s %s ACLs: %w", pt, tn, err)
			}
			for _, name := range names {
				p := Pattern{Type: rt, Name: name, PatternType: pt}
				r, err := a.read(ctx, p)
				if err != nil {
					return err
				}
				a.setCached(p, r)
			}
		}
	}
	return nil
}

// CreateACLs stores bindings (AclAuthorizer.createAcls): each invalid one
// fails alone; the valid ones are added per resource, one store update per
// resource. The result has one error (or nil) per binding.
func (a *Authorizer) CreateACLs(ctx context.Context, bindings []Binding) []error {
	errs := make([]error, len(bindings))
	byPattern := map[Pattern][]int{}
	var order []Pattern
	for i, b := range bindings {
		if err := b.validate(); err != nil {
			errs[i] = err
			continue
		}
		if _, seen := byPattern[b.Pattern]; !seen {
			order = append(order, b.Pattern)
		}
		byPattern[b.Pattern] = append(byPattern[b.Pattern], i)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range order {
		idx := byPattern[p]
		err := a.update(ctx, p, func(cur []Entry) []Entry {
			next := append([]Entry(nil), cur...)
			for _, i := range idx {
				next = appendUnique(next, bindings[i].Entry)
			}
			return next
		})
		for _, i := range idx {
			errs[i] = err
		}
	}
	return errs
}

// Deleted is one binding a DeleteACLs filter removed, or failed to (Err).
type Deleted struct {
	Binding Binding
	Err     error
}

// DeleteACLs removes the bindings each filter matches
// (AclAuthorizer.deleteAcls). The resources looked at are the cached ones
// and, for filters naming exactly one pattern, that pattern even if not
// cached yet. A binding several filters match is reported under the first.
// The result has one list per filter.
func (a *Authorizer) DeleteACLs(ctx context.Context, filters []Filter) [][]Deleted {
	out := make([][]Deleted, len(filters))
	a.mu.Lock()
	defer a.mu.Unlock()
	resources := map[Pattern]bool{}
	for p := range a.snapshot() {
		resources[p] = true
	}
	for _, f := range filters {
		if p, ok := f.Pattern.exact(); ok {
			resources[p] = true
		}
	}
	sorted := make([]Pattern, 0, len(resources))
	for p := range resources {
		sorted = append(sorted, p)
	}
	sort.Slice(sorted, func(i, j int) bool { return less(sorted[i], sorted[j]) })
	for _, p := range sorted {
		var matchingFilters []int
		for i, f := range filters {
			if f.Pattern.Matches(p) {
				matchingFilters = append(matchingFilters, i)
			}
		}
		if len(matchingFilters) == 0 {
			continue
		}
		var removed []Deleted
		var by []int
		err := a.update(ctx, p, func(cur []Entry) []Entry {
			removed, by = nil, nil
			var keep []Entry
			for _, e := range cur {
				claimed := -1
				for _, i := range matchingFilters {
					if filters[i].Entry.Matches(e) {
						claimed = i
						break
					}
				}
				if claimed < 0 {
					keep = append(keep, e)
					continue
				}
				removed = append(removed, Deleted{Binding: Binding{Pattern: p, Entry: e}})
				by = append(by, claimed)
			}
			return keep
		})
		for k, d := range removed {
			d.Err = err
			out[by[k]] = append(out[by[k]], d)
		}
	}
	return out
}
