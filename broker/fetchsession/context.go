package fetchsession

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/partid"
)

// Kind is how a Fetch is served.
type Kind int

const (
	// Sessionless: a full fetch answered with session id 0 (epoch -1, or a
	// session that lost its last partition).
	Sessionless Kind = iota
	// Full: a full fetch (epoch 0) that asks for a new session.
	Full
	// Incremental: a fetch within a session.
	Incremental
	// Failed: an incremental fetch naming an unknown session or the wrong
	// epoch; answered with Context.Err and no partitions.
	Failed
)

// Context is how one Fetch is served: which partitions to read, in which
// order, and (Respond) what the answer carries.
type Context struct {
	Kind Kind
	// Err is FETCH_SESSION_ID_NOT_FOUND or INVALID_FETCH_SESSION_EPOCH
	// when Kind is Failed.
	Err error
	// Partitions are the partitions to read, in order: the request's for a
	// full fetch, the session's for an incremental one.
	Partitions []Partition

	cache      *Cache
	privileged bool
	session    *Session
	epoch      int32 // Incremental: the session's epoch once this fetch is served
}

// NewContext starts serving a Fetch with the given session fields,
// partitions (in request order) and forgotten partitions. privileged marks
// a follower's fetch. nowMs is the broker's clock.
func (c *Cache) NewContext(sessionID, epoch int32, privileged bool, parts []Partition, forgotten []partid.TopicPartition, nowMs int64) *Context {
	if epoch == InitialEpoch || epoch == FinalEpoch {
		// A full fetch closes the session it names, if any.
		if sessionID != InvalidSessionID {
			c.remove(sessionID)
		}
		kind := Full
		if epoch == FinalEpoch {
			kind = Sessionless
		}
		return &Context{Kind: kind, Partitions: parts, cache: c, privileged: privileged}
	}
	s, ok := c.get(sessionID)
	if !ok {
		return &Context{Kind: Failed, Err: kerr.FetchSessionIDNotFound}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.epoch != epoch {
		return &Context{Kind: Failed, Err: kerr.InvalidFetchSessionEpoch}
	}
	for _, p := range parts {
		if el, ok := s.byTP[p.TP]; ok {
			el.Value.(*cached).Partition = p
			continue
		}
		// New to the session: nothing was sent about it yet.
		s.byTP[p.TP] = s.order.PushBack(&cached{Partition: p, highWatermark: -1, lastStableOffset: -1, localLogStartOffset: -1})
	}
	for _, tp := range forgotten {
		if el, ok := s.byTP[tp]; ok {
			s.order.Remove(el)
			delete(s.byTP, tp)
		}
	}
	if s.sizeLocked() == 0 {
		c.remove(s.id)
		return &Context{Kind: Sessionless, Partitions: parts, cache: c, privileged: privileged}
	}
	c.touch(s, s.sizeLocked(), nowMs)
	s.epoch = nextEpoch(s.epoch)
	x := &Context{Kind: Incremental, cache: c, privileged: privileged, session: s, epoch: s.epoch,
		Partitions: make([]Partition, 0, s.sizeLocked())}
	for el := s.order.Front(); el != nil; el = el.Next() {
		x.Partitions = append(x.Partitions, el.Value.(*cached).Partition)
	}
	c.mu.Lock()
	c.incremental++
	c.mu.Unlock()
	return x
}

// Result is what the fetch found for one partition of Context.Partitions.
type Result struct {
	HasRecords       bool
	Failed           bool // answered with an error
	Always           bool // must be sent whatever changed (a diverging epoch)
	HighWatermark    int64
	LastStableOffset int64
	LogStartOffset   int64
}

// mustSend reports whether an incremental answer must carry the partition:
// records, an error, or a high watermark, last stable offset or log start
// offset other than the last sent. (Kafka compares the high watermark and
// log start offset; the last stable offset moves only with the high
// watermark, and comparing it too keeps a read_committed consumer from ever
// missing a move.)
func (p *cached) mustSend(r Result) bool {
	return r.HasRecords || r.Always || r.Failed ||
		p.highWatermark != r.HighWatermark || p.lastStableOffset != r.LastStableOffset || p.localLogStartOffset != r.LogStartOffset
}

// update records r as sent and reports whether an incremental answer must
// carry the partition (mustSend).
func (p *cached) update(r Result) bool {
	must := p.mustSend(r)
	p.highWatermark, p.lastStableOffset, p.localLogStartOffset = r.HighWatermark, r.LastStableOffset, r.LogStartOffset
	if r.Failed {
		// Sent again once the error clears.
		p.highWatermark = -1
	}
	return must
}

// Peek is Respond without its effects: the indices of the results the
// answer would send, with nothing recorded as sent and no session created.
// A broker that may answer empty instead (a client over its fetch quota,
// which Kafka answers without updating the session) sizes the answer with
// it first.
func (x *Context) Peek(results []Result) []int {
	if x.Kind != Incremental {
		return all(len(results))
	}
	s := x.session
	s.mu.Lock()
	defer s.mu.Unlock()
	var send []int
	for i, r := range results {
		if el, ok := s.byTP[x.Partitions[i].TP]; ok && el.Value.(*cached).mustSend(r) {
			send = append(send, i)
		}
	}
	return send
}

// ThrottledSessionID is the session id of an answer sent empty because the
// client is throttled: an incremental fetch keeps its session (its epoch has
// moved on), a full one creates none, as in Kafka.
func (x *Context) ThrottledSessionID() int32 {
	if x.Kind == Incremental {
		return x.session.id
	}
	return InvalidSessionID
}

// Respond takes the fetch's results (one per Partitions entry, in order)
// and returns the session id the answer carries and the indices of the
// results it sends, in order. A full fetch creates its session here (with
// what this answer says of each partition); an incremental one sends only
// what changed and moves partitions that returned records to the end of
// the session. err is INVALID_FETCH_SESSION_EPOCH when another fetch used
// the session meanwhile; the answer then carries the error and no
// partitions.
func (x *Context) Respond(results []Result, nowMs int64) (sessionID int32, send []int, err error) {
	switch x.Kind {
	case Failed:
		return InvalidSessionID, nil, x.Err
	case Sessionless:
		return InvalidSessionID, all(len(results)), nil
	case Full:
		parts := make([]*cached, 0, len(results))
		seen := make(map[partid.TopicPartition]bool, len(results))
		for i, r := range results {
			p := x.Partitions[i]
			if seen[p.TP] {
				continue
			}
			seen[p.TP] = true
			cp := &cached{Partition: p, highWatermark: r.HighWatermark, lastStableOffset: r.LastStableOffset, localLogStartOffset: r.LogStartOffset}
			if r.Failed {
				cp.highWatermark = -1
			}
			parts = append(parts, cp)
		}
		return x.cache.maybeCreate(x.privileged, parts, nowMs), all(len(results)), nil
	}
	s := x.session
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.epoch != x.epoch {
		return s.id, nil, kerr.InvalidFetchSessionEpoch
	}
	for i, r := range results {
		el, ok := s.byTP[x.Partitions[i].TP]
		if !ok || !el.Value.(*cached).update(r) {
			continue
		}
		send = append(send, i)
		if r.HasRecords {
			s.order.MoveToBack(el)
		}
	}
	return s.id, send, nil
}

func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
