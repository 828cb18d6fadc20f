package metrics

import (
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Request phases, Kafka's RequestMetrics time histograms, mapped onto
// kafgo's goroutine-per-connection model (broker/admin's doc.go says the
// same for operators):
//
//	Received   the request's frame has been read and its header parsed
//	Started    its API handler starts (decoding the body first)
//	Served     the handler returned; what remains waits in the reply
//	Resolving  the connection's writer reaches it (earlier responses sent)
//	Resolved   the reply is ready (acks=all wait, fetch long-poll over)
//	Sent       the response is written to the socket
//
//	RequestQueueTimeMs   Started - Received: kafgo reads and serves on the
//	                     connection's goroutine, so there is no queue; this
//	                     is hand-off time and stays near zero.
//	LocalTimeMs          Served - Started: the handler's own work (decode,
//	                     validation, log append, authorization).
//	ResponseQueueTimeMs  Resolving - Served: waiting for the writer to reach
//	                     it, behind the connection's earlier responses.
//	RemoteTimeMs         Resolved - Resolving: the deferred reply, Kafka's
//	                     purgatory: acks=all replication, a fetch's read and
//	                     min.bytes long-poll, a JoinGroup waiting for the
//	                     rebalance.
//	ResponseSendTimeMs   Sent - Resolved: encoding and writing the response,
//	                     sendfile included.
//	TotalTimeMs          Sent - Received.
//	ThrottleTimeMs       the client quota throttle the response carried.
type RequestStats struct {
	Name string // Kafka's request tag: Produce, FetchConsumer, ...

	versions [maxVersion + 1]atomic.Uint64
	errors   [numErrSlots]atomic.Uint64

	TotalTime, RequestQueueTime, LocalTime, ResponseQueueTime, RemoteTime, ResponseSendTime, ThrottleTime Histogram
}

// maxVersion bounds the versions counted one by one; later ones share the
// last slot (no API is near it).
const maxVersion = 31

// Error codes -1 .. numErrSlots-2 are counted one by one; anything outside
// that range shares the last slot, reported as UNKNOWN_SERVER_ERROR.
const numErrSlots = 160

// RequestTimes are the phase times of one request, as offsets from
// Received: time.Since on a time with a monotonic reading reads only the
// monotonic clock, half the cost of time.Now.
type RequestTimes struct {
	Received                             time.Time
	Started, Served, Resolving, Resolved time.Duration // since Received
	Throttle                             time.Duration
}

// Done records a request whose response was sent at sent (since
// Received): its version, and each phase's time.
func (r *RequestStats) Done(version int16, t *RequestTimes, sent time.Duration) {
	r.versions[min(max(int(version), 0), maxVersion)].Add(1)
	r.TotalTime.Observe(sent)
	r.RequestQueueTime.Observe(t.Started)
	r.LocalTime.Observe(t.Served - t.Started)
	r.ResponseQueueTime.Observe(t.Resolving - t.Served)
	r.RemoteTime.Observe(t.Resolved - t.Resolving)
	r.ResponseSendTime.Observe(sent - t.Resolved)
	r.ThrottleTime.Observe(t.Throttle)
}

func errSlot(code int16) int {
	i := int(code) + 1
	if i < 0 || i >= numErrSlots-1 {
		return numErrSlots - 1
	}
	return i
}

// Errors adds n responses' worth of error code (0 is NONE), Kafka's
// ErrorsPerSec, which counts every error field of a response: one per
// partition of a produce or fetch.
func (r *RequestStats) Errors(code int16, n uint64) {
	if n > 0 {
		r.errors[errSlot(code)].Add(n)
	}
}

// ErrorTally accumulates a response's error codes and adds them in runs,
// so an all-NONE response costs one atomic add.
type ErrorTally struct {
	r    *RequestStats
	code int16
	n    uint64
}

// NewErrorTally starts a tally for r.
func (r *RequestStats) NewErrorTally() ErrorTally { return ErrorTally{r: r} }

// Add counts one error field.
func (t *ErrorTally) Add(code int16) {
	if t.n > 0 && code != t.code {
		t.r.Errors(t.code, t.n)
		t.n = 0
	}
	t.code = code
	t.n++
}

// Flush adds what is left.
func (t *ErrorTally) Flush() {
	t.r.Errors(t.code, t.n)
	t.n = 0
}

// RequestSnapshot is one request type's counts.
type RequestSnapshot struct {
	Name     string
	Versions map[int16]uint64 // requests per API version
	Errors   map[int16]uint64 // error fields per code; codes out of range appear as -1

	TotalTime, RequestQueueTime, LocalTime, ResponseQueueTime, RemoteTime, ResponseSendTime, ThrottleTime HistogramSnapshot
}

// Snapshot reads r.
func (r *RequestStats) Snapshot() RequestSnapshot {
	s := RequestSnapshot{Name: r.Name, Versions: map[int16]uint64{}, Errors: map[int16]uint64{}}
	for v := range r.versions {
		if n := r.versions[v].Load(); n > 0 {
			s.Versions[int16(v)] += n
		}
	}
	for i := range r.errors {
		if n := r.errors[i].Load(); n > 0 {
			code := int16(i - 1)
			if i == numErrSlots-1 {
				code = -1
			}
			s.Errors[code] += n
		}
	}
	s.TotalTime, s.RequestQueueTime, s.LocalTime = r.TotalTime.Snapshot(), r.RequestQueueTime.Snapshot(), r.LocalTime.Snapshot()
	s.ResponseQueueTime, s.RemoteTime = r.ResponseQueueTime.Snapshot(), r.RemoteTime.Snapshot()
	s.ResponseSendTime, s.ThrottleTime = r.ResponseSendTime.Snapshot(), r.ThrottleTime.Snapshot()
	return s
}

// Requests holds one RequestStats per request name, made up front so the
// request path only indexes an array.
type Requests struct {
	byKey         []*RequestStats // index: API key; Fetch is FetchConsumer
	fetchFollower *RequestStats
}

// maxKey bounds the API keys with their own stats (kmsg knows fewer).
const maxKey = 128

// fetchKey is the Fetch API, whose metrics Kafka splits by who fetches.
const fetchKey = 1

// NewRequests makes the stats of every API key kmsg knows.
func NewRequests() *Requests {
	r := &Requests{byKey: make([]*RequestStats, maxKey)}
	for k := range int16(maxKey) {
		name := kmsg.NameForKey(k)
		if name == "" || name == "Unknown" {
			continue
		}
		if k == fetchKey {
			name = "FetchConsumer"
		}
		r.byKey[k] = &RequestStats{Name: name}
	}
	r.fetchFollower = &RequestStats{Name: "FetchFollower"}
	return r
}

// For returns the stats of an API key (a follower's Fetch has its own),
// nil for keys without any or a nil *Requests.
func (r *Requests) For(key int16, followerFetch bool) *RequestStats {
	if r == nil || key < 0 || int(key) >= len(r.byKey) {
		return nil
	}
	if key == fetchKey && followerFetch {
		return r.fetchFollower
	}
	return r.byKey[key]
}

// Snapshot reads every request type that has served a request.
func (r *Requests) Snapshot() []RequestSnapshot {
	if r == nil {
		return nil
	}
	var out []RequestSnapshot
	for _, rs := range append(append([]*RequestStats(nil), r.byKey...), r.fetchFollower) {
		if rs == nil || rs.TotalTime.Count() == 0 && !rs.hasErrors() {
			continue
		}
		out = append(out, rs.Snapshot())
	}
	return out
}

// WithFetchTotal adds Kafka's "Fetch" series to snaps: Kafka records every
// Fetch under "Fetch" as well as under who fetched (RequestChannel's
// metricNames), so dashboards built on either find theirs. It is the sum of
// FetchConsumer and FetchFollower, made at read time so the request path
// records once; exporters call it, summaries that add up every request
// type do not.
func WithFetchTotal(snaps []RequestSnapshot) []RequestSnapshot {
	all := RequestSnapshot{Name: "Fetch", Versions: map[int16]uint64{}, Errors: map[int16]uint64{}}
	found := false
	for _, s := range snaps {
		if s.Name == "FetchConsumer" || s.Name == "FetchFollower" {
			all.add(s)
			found = true
		}
	}
	if !found {
		return snaps
	}
	return append(snaps, all)
}

// add sums o into s (same histogram bounds).
func (s *RequestSnapshot) add(o RequestSnapshot) {
	for v, n := range o.Versions {
		s.Versions[v] += n
	}
	for c, n := range o.Errors {
		s.Errors[c] += n
	}
	for _, h := range []struct{ dst, src *HistogramSnapshot }{
		{&s.TotalTime, &o.TotalTime}, {&s.RequestQueueTime, &o.RequestQueueTime}, {&s.LocalTime, &o.LocalTime},
		{&s.ResponseQueueTime, &o.ResponseQueueTime}, {&s.RemoteTime, &o.RemoteTime},
		{&s.ResponseSendTime, &o.ResponseSendTime}, {&s.ThrottleTime, &o.ThrottleTime},
	} {
		h.dst.add(*h.src)
	}
}

func (r *RequestStats) hasErrors() bool {
	for i := range r.errors {
		if r.errors[i].Load() > 0 {
			return true
		}
	}
	return false
}

// LocalTimeTotal is the handler time of every request type: what
// RequestHandlerAvgIdlePercent measures the handlers' busy time by.
func (r *Requests) LocalTimeTotal() time.Duration {
	if r == nil {
		return 0
	}
	var d time.Duration
	for _, rs := range r.byKey {
		if rs != nil {
			d += rs.LocalTime.Sum()
		}
	}
	return d + r.fetchFollower.LocalTime.Sum()
}
