package acl

import (
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"kafgo/broker/meta"
	"kafgo/broker/principal"
)

// Config is the authorizer's part of the broker configuration.
type Config struct {
	// SuperUsers may do everything (super.users).
	SuperUsers []principal.Principal
	// AllowIfNoACL grants access to resources no ACL applies to
	// (allow.everyone.if.no.acl.found).
	AllowIfNoACL bool
	Logger       *slog.Logger
}

// Session is who asks: the connection's principal and the client's IP
// address (as text, e.g. "127.0.0.1").
type Session struct {
	Principal principal.Principal
	Host      string
}

// resourceACLs are one pattern's entries and its znode version (-1 when
// the znode does not exist).
type resourceACLs struct {
	entries []Entry
	version int32
}

// Authorizer is one broker's ACL authorizer. Authorization reads an
// immutable snapshot of the cached ACLs without locking; changes (through
// this broker's CreateACLs/DeleteACLs or another broker's notification)
// are made one at a time under mu and published as a new snapshot.
type Authorizer struct {
	store        meta.Store
	superUsers   map[string]bool
	allowIfNoACL bool
	log          *slog.Logger

	mu    sync.Mutex // serialises store updates and cache changes (Kafka's lock)
	cache atomic.Pointer[map[Pattern]resourceACLs]
	// changes follow the notification directories, from the newest
	// notification before Start loaded the cache.
	changes []*meta.ChangeListener
}

// New builds an authorizer over the metadata store; Start loads it.
func New(store meta.Store, cfg Config) *Authorizer {
	a := &Authorizer{store: store, superUsers: map[string]bool{}, allowIfNoACL: cfg.AllowIfNoACL, log: cfg.Logger}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("component", "authorizer")
	for _, p := range cfg.SuperUsers {
		a.superUsers[p.String()] = true
	}
	empty := map[Pattern]resourceACLs{}
	a.cache.Store(&empty)
	return a
}

func (a *Authorizer) snapshot() map[Pattern]resourceACLs { return *a.cache.Load() }

// setCached publishes a copy of the cache with p's ACLs replaced (removed
// when there are none). Callers hold mu.
func (a *Authorizer) setCached(p Pattern, r resourceACLs) {
	old := a.snapshot()
	next := make(map[Pattern]resourceACLs, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	if len(r.entries) == 0 {
		delete(next, p)
	} else {
		next[p] = r
	}
	a.cache.Store(&next)
}

// IsSuperUser reports whether p is listed in super.users.
func (a *Authorizer) IsSuperUser(p principal.Principal) bool { return a.superUsers[p.String()] }

// matching collects the entries that apply to a resource: literal ones on
// its name and on "*", and prefixed ones on every prefix of its name.
func matching(cache map[Pattern]resourceACLs, rt ResourceType, name string) []Entry {
	var out []Entry
	out = append(out, cache[Pattern{rt, WildcardResource, Literal}].entries...)
	if name != WildcardResource {
		out = append(out, cache[Pattern{rt, name, Literal}].entries...)
	}
	for l := 1; l <= len(name); l++ {
		out = append(out, cache[Pattern{rt, name[:l], Prefixed}].entries...)
	}
	return out
}

// impliedBy lists the operations whose ALLOW grants op.
func impliedBy(op Operation) []Operation {
	switch op {
	case OpDescribe:
		return []Operation{OpDescribe, OpRead, OpWrite, OpDelete, OpAlter}
	case OpDescribeConfigs:
		return []Operation{OpDescribeConfigs, OpAlterConfigs}
	}
	return []Operation{op}
}

// entryApplies reports whether e grants or refuses op to s with the given
// permission.
func entryApplies(e Entry, s Session, op Operation, perm PermissionType) bool {
	return e.Permission == perm &&
		(e.Principal == s.Principal.String() || e.Principal == WildcardPrincipal) &&
		(e.Operation == op || e.Operation == OpAll) &&
		hostMatches(e.Host, s.Host)
}

// Authorize decides whether s may perform op on the resource (type, name)
// with AclAuthorizer's rules (see the package doc).
func (a *Authorizer) Authorize(s Session, op Operation, rt ResourceType, name string) bool {
	if a.IsSuperUser(s.Principal) {
		return true
	}
	acls := matching(a.snapshot(), rt, name)
	if len(acls) == 0 {
		return a.allowIfNoACL
	}
	for _, e := range acls {
		if entryApplies(e, s, op, Deny) {
			return false
		}
	}
	for _, implied := range impliedBy(op) {
		for _, e := range acls {
			if entryApplies(e, s, implied, Allow) {
				return true
			}
		}
	}
	return false
}

// AuthorizeByResourceType is Kafka's authorizeByResourceType: whether s
// may perform op on at least one resource of the type, i.e. some literal
// or prefixed ALLOW of op (or ALL) for s is not dominated by a DENY: a
// literal DENY of the same name or "*", or a prefixed DENY of a prefix of
// it. InitProducerId uses it for idempotent producers (Write on any topic).
func (a *Authorizer) AuthorizeByResourceType(s Session, op Operation, rt ResourceType) bool {
	if a.IsSuperUser(s.Principal) {
		return true
	}
	var allowLit, allowPre, denyLit, denyPre []string
	for p, r := range a.snapshot() {
		if p.Type != rt {
			continue
		}
		for _, e := range r.entries {
			switch {
			case entryApplies(e, s, op, Deny) && p.PatternType == Literal:
				denyLit = append(denyLit, p.Name)
			case entryApplies(e, s, op, Deny) && p.PatternType == Prefixed:
				denyPre = append(denyPre, p.Name)
			case entryApplies(e, s, op, Allow) && p.PatternType == Literal:
				allowLit = append(allowLit, p.Name)
			case entryApplies(e, s, op, Allow) && p.PatternType == Prefixed:
				allowPre = append(allowPre, p.Name)
			}
		}
	}
	if slices.Contains(denyLit, WildcardResource) {
		return false
	}
	if a.allowIfNoACL {
		return true
	}
	dominated := func(name string) bool {
		for l := 0; l <= len(name); l++ {
			if slices.Contains(denyPre, name[:l]) {
				return true
			}
		}
		return false
	}
	for _, n := range allowPre {
		if !dominated(n) {
			return true
		}
	}
	for _, n := range allowLit {
		if n == WildcardResource || (!slices.Contains(denyLit, n) && !dominated(n)) {
			return true
		}
	}
	return false
}

// ACLs lists the cached bindings the filter matches, in Kafka's order
// (resource type, pattern type, name descending; entries as stored).
func (a *Authorizer) ACLs(f Filter) []Binding {
	cache := a.snapshot()
	patterns := make([]Pattern, 0, len(cache))
	for p := range cache {
		if f.Pattern.Matches(p) {
			patterns = append(patterns, p)
		}
	}
	sort.Slice(patterns, func(i, j int) bool { return less(patterns[i], patterns[j]) })
	var out []Binding
	for _, p := range patterns {
		for _, e := range cache[p].entries {
			if f.Entry.Matches(e) {
				out = append(out, Binding{Pattern: p, Entry: e})
			}
		}
	}
	return out
}
