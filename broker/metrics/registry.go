package metrics

import (
	"sync/atomic"
	"time"
)

// Registry is one broker's counters. Components take what they need from
// it at construction; a nil *Registry turns every hook into a no-op, for
// components built without one (tests).
type Registry struct {
	Topics   *Topics
	Requests *Requests

	// ReplicaManager: ISR changes the controller accepted for partitions
	// this broker leads, and proposals it refused or that failed.
	isrShrinks, isrExpands, failedISRUpdates atomic.Uint64

	// ControllerStats: the active controller's leader election runs
	// (handling a broker change, Kafka's LeaderElectionRateAndTimeMs) and
	// unclean elections.
	LeaderElection   Histogram
	uncleanElections atomic.Uint64

	// LogFlushStats: fsyncs of a log's unflushed segments.
	LogFlush Histogram

	started time.Time
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{Topics: NewTopics(), Requests: NewRequests(), started: time.Now()}
}

// Started is when the registry was made: the start of every rate's
// first window.
func (r *Registry) Started() time.Time { return r.started }

// TopicSet is r's per-topic counters (nil for a nil registry, which hands
// out a throwaway handle).
func (r *Registry) TopicSet() *Topics {
	if r == nil {
		return nil
	}
	return r.Topics
}

// RequestSet is r's per-request counters, nil for a nil registry.
func (r *Registry) RequestSet() *Requests {
	if r == nil {
		return nil
	}
	return r.Requests
}

// ISRChanged records an accepted ISR change from old to new size.
func (r *Registry) ISRChanged(oldSize, newSize int) {
	switch {
	case r == nil:
	case newSize < oldSize:
		r.isrShrinks.Add(1)
	case newSize > oldSize:
		r.isrExpands.Add(1)
	}
}

// ISRUpdateFailed records an ISR change the controller refused or that
// could not reach it.
func (r *Registry) ISRUpdateFailed() {
	if r != nil {
		r.failedISRUpdates.Add(1)
	}
}

// UncleanElection records an out-of-sync replica elected leader.
func (r *Registry) UncleanElection() {
	if r != nil {
		r.uncleanElections.Add(1)
	}
}

// ObserveLeaderElection records one leader election run's duration.
func (r *Registry) ObserveLeaderElection(d time.Duration) {
	if r != nil {
		r.LeaderElection.Observe(d)
	}
}

// ObserveFlush records one log flush's duration.
func (r *Registry) ObserveFlush(d time.Duration) {
	if r != nil {
		r.LogFlush.Observe(d)
	}
}

// Counters are the broker-wide counters.
type Counters struct {
	ISRShrinks, ISRExpands, FailedISRUpdates, UncleanElections uint64
}

// Counters reads them.
func (r *Registry) Counters() Counters {
	if r == nil {
		return Counters{}
	}
	return Counters{
		ISRShrinks: r.isrShrinks.Load(), ISRExpands: r.isrExpands.Load(),
		FailedISRUpdates: r.failedISRUpdates.Load(), UncleanElections: r.uncleanElections.Load(),
	}
}
