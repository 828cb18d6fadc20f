package fetchsession

import (
	"container/list"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"kafgo/broker/partid"
)

// Protocol constants (KIP-227).
const (
	InvalidSessionID = 0  // no session
	InitialEpoch     = 0  // a full fetch creating a session
	FinalEpoch       = -1 // a full fetch without (or closing) a session

	// DefaultSlots is max.incremental.fetch.session.cache.slots' default.
	DefaultSlots = 1000
	// EvictionAge is Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS:
	// sessions unused this long are stale, and only sessions at least this
	// old may be evicted by an unprivileged newcomer.
	EvictionAge = 120 * time.Second
)

// nextEpoch is the epoch after epoch (Kafka's FetchMetadata.nextEpoch).
func nextEpoch(epoch int32) int32 {
	switch {
	case epoch < 0:
		return FinalEpoch
	case epoch == math.MaxInt32:
		return 1
	}
	return epoch + 1
}

// Partition is what a fetcher asks of one partition.
type Partition struct {
	TP                 partid.TopicPartition
	FetchOffset        int64
	LogStartOffset     int64 // the fetcher's (followers), -1 from consumers
	MaxBytes           int32
	CurrentLeaderEpoch int32
	LastFetchedEpoch   int32
}

// cached is a partition in a session: the request data, and what the last
// response said of it.
type cached struct {
	Partition
	highWatermark       int64 // -1 after an error, so the next answer includes it
	lastStableOffset    int64
	localLogStartOffset int64
}

// Session is one fetcher's session.
type Session struct {
	id         int32
	privileged bool
	creationMs int64

	mu    sync.Mutex // guards the fields below
	epoch int32      // the epoch the next incremental fetch must carry
	order *list.List // of *cached, in fetch order
	byTP  map[partid.TopicPartition]*list.Element

	// Cache bookkeeping, under the cache's lock.
	lastUsedMs  int64
	cachedSize  int  // partition count when last touched
	evictByPriv bool // in Kafka's evictableByPrivileged when last touched
	evictByAll  bool // in Kafka's evictableByAll when last touched
}

func (s *Session) sizeLocked() int { return s.order.Len() }

// evictKey orders sessions for eviction: privileged, then size, then id.
type evictKey struct {
	privileged bool
	size       int
	id         int32
}

func (k evictKey) less(o evictKey) bool {
	if k.privileged != o.privileged {
		return !k.privileged
	}
	if k.size != o.size {
		return k.size < o.size
	}
	return k.id < o.id
}

// Cache is a broker's fetch session cache.
type Cache struct {
	mu          sync.Mutex
	max         int
	evictionMs  int64
	sessions    map[int32]*Session
	partitions  int // partitions over all sessions, as of their last touch
	evictions   uint64
	incremental uint64 // incremental fetches served from a session
	newID       func() int32
}

// New makes a cache of at most slots sessions (0 turns sessions off: every
// full fetch is answered with session id 0).
func New(slots int) *Cache {
	return &Cache{
		max:        max(slots, 0),
		evictionMs: EvictionAge.Milliseconds(),
		sessions:   make(map[int32]*Session),
		newID:      func() int32 { return rand.Int32N(math.MaxInt32) + 1 },
	}
}

// Stats are the cache's figures (Kafka's NumIncrementalFetchSessions,
// NumIncrementalFetchPartitionsCached, IncrementalFetchSessionEvictionsPerSec).
type Stats struct {
	Sessions, Partitions int
	Evictions            uint64
	IncrementalFetches   uint64
}

// Stats returns the current figures.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Sessions: len(c.sessions), Partitions: c.partitions, Evictions: c.evictions, IncrementalFetches: c.incremental}
}

// get returns a session by id.
func (c *Cache) get(id int32) (*Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	return s, ok
}

// remove drops a session; false when it was not cached.
func (c *Cache) remove(id int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	if ok {
		c.removeLocked(s)
	}
	return ok
}

func (c *Cache) removeLocked(s *Session) {
	if c.sessions[s.id] != s {
		return
	}
	delete(c.sessions, s.id)
	c.partitions -= s.cachedSize
}

// touch records a use of s at nowMs with its current size, and judges its
// evictability as Kafka's touch does. size is s's partition count (the
// caller holds s.mu or is its only user).
func (c *Cache) touch(s *Session, size int, nowMs int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.touchLocked(s, size, nowMs)
}

func (c *Cache) touchLocked(s *Session, size int, nowMs int64) {
	if c.sessions[s.id] != s {
		return // evicted meanwhile
	}
	s.lastUsedMs = nowMs
	c.partitions += size - s.cachedSize
	s.cachedSize = size
	old := nowMs-s.creationMs > c.evictionMs
	s.evictByPriv = !s.privileged || old
	s.evictByAll = old
}

// maybeCreate adds a session for a full fetch of parts if there is room or
// one can be evicted; it returns the new session's id, or InvalidSessionID.
func (c *Cache) maybeCreate(privileged bool, parts []*cached, nowMs int64) int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sessions) >= c.max && !c.tryEvictLocked(privileged, len(parts), nowMs) {
		return InvalidSessionID
	}
	id := c.newID()
	for c.sessions[id] != nil || id == InvalidSessionID {
		id = c.newID()
	}
	s := &Session{id: id, privileged: privileged, creationMs: nowMs, epoch: nextEpoch(InitialEpoch),
		order: list.New(), byTP: make(map[partid.TopicPartition]*list.Element, len(parts))}
	for _, p := range parts {
		s.byTP[p.TP] = s.order.PushBack(p)
	}
	c.sessions[id] = s
	c.touchLocked(s, len(parts), nowMs)
	return id
}

// tryEvictLocked is Kafka's FetchSessionCache.tryEvict for a newcomer of
// size partitions.
func (c *Cache) tryEvictLocked(privileged bool, size int, nowMs int64) bool {
	var lru *Session
	for _, s := range c.sessions {
		if lru == nil || s.lastUsedMs < lru.lastUsedMs || (s.lastUsedMs == lru.lastUsedMs && s.id < lru.id) {
			lru = s
		}
	}
	if lru == nil {
		return false
	}
	if nowMs-lru.lastUsedMs > c.evictionMs {
		c.removeLocked(lru)
		c.evictions++
		return true
	}
	var victim *Session
	var vkey evictKey
	for _, s := range c.sessions {
		if (privileged && !s.evictByPriv) || (!privileged && !s.evictByAll) {
			continue
		}
		k := evictKey{s.privileged, s.cachedSize, s.id}
		if victim == nil || k.less(vkey) {
			victim, vkey = s, k
		}
	}
	// The newcomer's key carries id 0, below every session's: at equal
	// privilege and size it does not win.
	if victim == nil || (evictKey{privileged, size, 0}).less(vkey) {
		return false
	}
	c.removeLocked(victim)
	c.evictions++
	return true
}
