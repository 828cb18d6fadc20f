package api

import (
	"reflect"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/metrics"
	"kafgo/broker/partid"
	"kafgo/broker/replica"
	"kafgo/broker/wire"
)

// callMetrics is one request's RequestMetrics bookkeeping: the stats of
// its request type and the times of its phases (metrics.RequestStats
// defines them). rs is nil when the broker keeps no metrics or the call is
// in process; every hook then returns at once.
type callMetrics struct {
	rs      *metrics.RequestStats
	version int16
	times   metrics.RequestTimes
	// counted is set by a handler that tallied its response's errors
	// itself (Fetch, whose answer is pre-encoded).
	counted bool
	// tally counts the response's error codes; it lives here, in the
	// call's one allocation, rather than escaping on its own.
	tally metrics.ErrorTally
}

// ResponseSent implements wire.SentHook: the request is complete.
func (m *callMetrics) ResponseSent() { m.rs.Done(m.version, &m.times, time.Since(m.times.Received)) }

// beginMetrics starts a served call's metrics: its handler started at
// started and took handled.
func (s *Server) beginMetrics(c *Call, started time.Time, handled time.Duration) {
	if c.Received.IsZero() {
		return // not read from a connection
	}
	follower := false
	if f, ok := c.Req.(*kmsg.FetchRequest); ok {
		follower = f.ReplicaID >= 0
	}
	rs := s.d.Metrics.RequestSet().For(c.Header.APIKey, follower)
	if rs == nil {
		return
	}
	queued := started.Sub(c.Received)
	c.metrics = callMetrics{rs: rs, version: c.Header.APIVersion, times: metrics.RequestTimes{
		Received: c.Received, Started: queued, Served: queued + handled,
	}}
}

// resolving marks the reply starting (the writer reached the request).
func (c *Call) resolving() {
	if c.metrics.rs != nil {
		c.metrics.times.Resolving = time.Since(c.Received)
	}
}

// resolved marks the reply done: it counts the response's error codes,
// notes the throttle, and hooks the send so the request completes when
// wire has written it.
func (c *Call) resolved(res Result, resp *wire.Response) *wire.Response {
	m := &c.metrics
	if m.rs == nil {
		return resp
	}
	m.times.Resolved = time.Since(m.times.Received)
	m.times.Throttle = c.quota.throttle
	if !m.counted && res.Resp != nil {
		m.tally = m.rs.NewErrorTally()
		countErrors(&m.tally, res.Resp)
		m.tally.Flush()
	}
	resp.Sent = m
	return resp
}

// errorTally returns a tally for a handler that counts its own response's
// errors, and marks them counted; ok is false without metrics.
func (c *Call) errorTally() (t metrics.ErrorTally, ok bool) {
	if c.metrics.rs == nil {
		return t, false
	}
	c.metrics.counted = true
	return c.metrics.rs.NewErrorTally(), true
}

// countFetchErrors tallies a fetch answer as Kafka's FetchResponse
// errorCounts does: the top-level error (NONE) and each partition's.
func (c *Call) countFetchErrors(results []replica.FetchResult) {
	t, ok := c.errorTally()
	if !ok {
		return
	}
	t.Add(0)
	for i := range results {
		t.Add(errCode(results[i].Err))
	}
	t.Flush()
}

// countErrors adds every error_code field of resp, as Kafka's
// AbstractResponse.errorCounts does (one per partition, topic, group or
// resource that carries one). Produce and Metadata, the frequent ones, are
// walked directly; the others by a reflection walker built once per type.
func countErrors(t *metrics.ErrorTally, resp kmsg.Response) {
	switch r := resp.(type) {
	case *kmsg.ProduceResponse:
		for i := range r.Topics {
			for j := range r.Topics[i].Partitions {
				t.Add(r.Topics[i].Partitions[j].ErrorCode)
			}
		}
	case *kmsg.MetadataResponse:
		for i := range r.Topics {
			t.Add(r.Topics[i].ErrorCode)
			for j := range r.Topics[i].Partitions {
				t.Add(r.Topics[i].Partitions[j].ErrorCode)
			}
		}
	default:
		v := reflect.ValueOf(resp)
		if w := walkerFor(v.Type()); w != nil {
			w(v, t)
		}
	}
}

// errWalker visits the ErrorCode fields of a value of one type.
type errWalker func(v reflect.Value, t *metrics.ErrorTally)

var errWalkers sync.Map // reflect.Type -> errWalker (nil when the type has none)

func walkerFor(typ reflect.Type) errWalker {
	if w, ok := errWalkers.Load(typ); ok {
		return w.(errWalker)
	}
	w := buildWalker(typ, map[reflect.Type]bool{})
	errWalkers.Store(typ, w)
	return w
}

// buildWalker returns nil for types with no ErrorCode field anywhere
// inside (so whole subtrees are skipped); inProgress stops recursive types.
func buildWalker(typ reflect.Type, inProgress map[reflect.Type]bool) errWalker {
	switch typ.Kind() {
	case reflect.Pointer:
		elem := buildWalker(typ.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, t *metrics.ErrorTally) {
			if !v.IsNil() {
				elem(v.Elem(), t)
			}
		}
	case reflect.Slice:
		elem := buildWalker(typ.Elem(), inProgress)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value, t *metrics.ErrorTally) {
			for i := range v.Len() {
				elem(v.Index(i), t)
			}
		}
	case reflect.Struct:
		if inProgress[typ] {
			return nil
		}
		inProgress[typ] = true
		defer delete(inProgress, typ)
		var parts []errWalker
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Name == "ErrorCode" && f.Type.Kind() == reflect.Int16 {
				parts = append(parts, func(v reflect.Value, t *metrics.ErrorTally) { t.Add(int16(v.Field(i).Int())) })
				continue
			}
			if w := buildWalker(f.Type, inProgress); w != nil {
				parts = append(parts, func(v reflect.Value, t *metrics.ErrorTally) { w(v.Field(i), t) })
			}
		}
		if len(parts) == 0 {
			return nil
		}
		return func(v reflect.Value, t *metrics.ErrorTally) {
			for _, p := range parts {
				p(v, t)
			}
		}
	}
	return nil
}

// produceRefused counts a partition the produce handler refused before
// appending (replica.Manager counts the appends), on its topic's counters
// when this broker hosts the topic.
func (s *Server) produceRefused(tp partid.TopicPartition, p *replica.Partition, err error, bytes int) {
	var ts *metrics.TopicStats
	if p != nil {
		ts = p.TopicStats()
	} else if local, ok := s.d.Metrics.TopicSet().Lookup(tp.Topic); ok {
		ts = local
	}
	if ts != nil {
		ts.ProduceFailed(errCode(err), bytes)
	}
}
