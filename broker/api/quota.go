package api

import (
	"math"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clientquota"
	"kafgo/broker/wire"
)

// callQuota is one request's client quota accounting, carried from Serve
// into its Pending.
type callQuota struct {
	exempt  bool          // inter-broker traffic: never charged (a replica's fetch)
	size    int           // request bytes, header and body (Kafka's sizeInBytes)
	handled time.Duration // time Serve spent decoding and handling it
	// charged is set by a handler that settled its quotas itself (Fetch,
	// which must decide before it answers) with the throttle it chose;
	// settleQuotas sets throttle for the others.
	charged  bool
	throttle time.Duration
}

// clusterActions are the inter-broker APIs, exempt from the request quota
// as Kafka exempts its ClusterAction APIs.
var clusterActions = map[int16]bool{
	4:  true, // LeaderAndIsr
	5:  true, // StopReplica
	6:  true, // UpdateMetadata
	7:  true, // ControlledShutdown
	27: true, // WriteTxnMarkers
	56: true, // AlterPartition
}

const (
	produceKey = 0
	fetchKey   = 1
)

// requestSize is a request's size as Kafka counts it for the producer
// byte rate: the frame after its length, header included.
func requestSize(req *wire.Request) int {
	n := 2 + 2 + 4 // api key, version, correlation id
	if req.Header.APIKey == 7 && req.Header.APIVersion == 0 {
		return n + len(req.Body) // header v0 has no client id
	}
	n += 2
	if req.Header.ClientID != nil {
		n += len(*req.Header.ClientID)
	}
	if req.Header.Flexible {
		n++ // an empty tagged-field section
	}
	return n + len(req.Body)
}

// quotaSubject is who a call's quotas are kept for: the principal's name
// and the client id; ok is false when the call is not charged at all
// (no quotas, an in-process call, inter-broker traffic).
func (s *Server) quotaSubject(c *Call) (q *clientquota.Manager, user, clientID string, ok bool) {
	q = s.d.ClientQuotas
	if q == nil || c.Conn == nil || c.quota.exempt || clusterActions[c.Header.APIKey] {
		return nil, "", "", false
	}
	return q, c.Conn.Principal().Name, c.ClientID(), true
}

// settleQuotas charges a served request to its client's quotas (Kafka's
// KafkaApis): Produce to the producer byte rate by request size and, but
// for acks=0, to the request quota; Fetch settled itself
// (chargeFetch); every other API to the request quota by handler time.
// Over a quota, the larger throttle time goes into the response's
// throttle_time_ms, is recorded on that quota's throttle-time sensor, and
// mutes the connection: the response is sent at once and the client's
// next request waits until the time passes (KIP-219).
func (s *Server) settleQuotas(c *Call, res *Result) {
	q, user, clientID, ok := s.quotaSubject(c)
	if !ok {
		return
	}
	var throttle time.Duration
	switch {
	case c.quota.charged:
		throttle = c.quota.throttle
	case c.Header.APIKey == produceKey:
		bw := q.RecordAndThrottle(clientquota.Produce, user, clientID, float64(c.quota.size))
		var rq time.Duration
		if req, _ := c.Req.(*kmsg.ProduceRequest); req == nil || req.Acks != 0 {
			rq = q.RecordAndThrottle(clientquota.Request, user, clientID, clientquota.Percentage(c.quota.handled))
		}
		throttle = s.throttled(q, user, clientID, clientquota.Produce, bw, rq)
	default:
		rq := q.RecordAndThrottle(clientquota.Request, user, clientID, clientquota.Percentage(c.quota.handled))
		throttle = s.throttled(q, user, clientID, clientquota.Request, 0, rq)
	}
	c.quota.throttle = throttle // for the request metrics' ThrottleTimeMs
	if throttle <= 0 {
		return
	}
	if tr, ok := res.Resp.(kmsg.SetThrottleResponse); ok {
		tr.SetThrottle(throttleMillis(throttle))
	}
	c.Conn.MuteUntil(time.Now().Add(throttle))
}

// throttled picks the larger of a bandwidth and a request throttle and
// records it on its own quota's throttle-time sensor, as Kafka does.
func (s *Server) throttled(q *clientquota.Manager, user, clientID string, bwType clientquota.Type, bw, rq time.Duration) time.Duration {
	switch {
	case bw > rq:
		q.Throttled(bwType, user, clientID, bw)
		return bw
	case rq > 0:
		q.Throttled(clientquota.Request, user, clientID, rq)
		return rq
	}
	return 0
}

func throttleMillis(d time.Duration) int32 {
	return int32(min(d.Milliseconds(), math.MaxInt32))
}

// fetchQuotaMaxBytes bounds a consumer fetch to what its quota lets pass
// in one window (Kafka's getMaxValueInQuotaWindow), so a low quota still
// lets a large batch through one at a time instead of throttling every
// fetch; 0 when no quota limits it.
func (s *Server) fetchQuotaMaxBytes(c *Call) int32 {
	q, user, clientID, ok := s.quotaSubject(c)
	if !ok {
		return 0
	}
	v := q.MaxValueInWindow(clientquota.Fetch, user, clientID)
	if v >= math.MaxInt32 {
		return 0
	}
	return int32(max(v, 1))
}

// chargeFetch settles a consumer fetch's quotas before it is answered
// (Kafka's handleFetchRequest): the request quota by handler time, the
// consumer byte rate by the response size. Over either, the fetch is
// answered empty with the throttle time, and its bytes are taken back
// from the byte rate since they are not sent. It returns the throttle.
func (s *Server) chargeFetch(c *Call, responseSize int) time.Duration {
	q, user, clientID, ok := s.quotaSubject(c)
	if !ok {
		return 0
	}
	rq := q.RecordAndThrottle(clientquota.Request, user, clientID, clientquota.Percentage(c.quota.handled))
	bw := q.RecordAndThrottle(clientquota.Fetch, user, clientID, float64(responseSize))
	if max(bw, rq) > 0 {
		q.Unrecord(clientquota.Fetch, user, clientID, float64(responseSize))
	}
	c.quota.charged = true
	c.quota.throttle = s.throttled(q, user, clientID, clientquota.Fetch, bw, rq)
	return c.quota.throttle
}

// responseSize is the size of a response as sent, after its length: the
// response header (correlation id, and a tagged-field byte when flexible)
// and the body.
func responseSize(r *wire.Response, flexible bool) int {
	n := 4 + len(r.Body)
	if flexible {
		n++
	}
	for _, p := range r.Parts {
		if p.File != nil {
			n += int(p.Length)
		} else {
			n += len(p.Bytes)
		}
	}
	return n
}
