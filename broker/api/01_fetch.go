package api

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/fetchsession"
	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/wire"
)

// Fetch (key 1).
// Consumers read up to the HW, or with isolation_level 1 (READ_COMMITTED,
// v4+) up to the LSO with the aborted transactions of what they read;
// followers (replica_id >= 0, brokers only) read up to the LEO. Every v4+
// answer carries the LSO. The record bytes go out with sendfile. A fetch
// that finds less than min_bytes waits until enough arrives or max_wait
// passes (an LSO move wakes it: it moves with the HW). v2/v3
// responses are down-converted to magic 0/1 message sets. v12 followers get
// diverging_epoch when their last fetched epoch ended earlier on the leader.
// v7+ fetches use incremental fetch sessions (KIP-227, broker/fetchsession):
// a full fetch gets a session id, and fetches within the session send and
// get back only the partitions that changed.
// Authorization (Kafka 2.8, CVE-2018-1288): a fetch with a replica id
// needs ClusterAction on the cluster, else every partition is
// TOPIC_AUTHORIZATION_FAILED; a consumer needs Read on each topic, else its
// partitions are TOPIC_AUTHORIZATION_FAILED and are not read.
// A consumer over its fetch quota is answered empty with the throttle time,
// and its session is left as if nothing was sent, as in Kafka.
// Fetch goes down to v2 (with down-conversion to legacy message sets):
// librdkafka uses magic 1 (MsgVer1) only with Fetch v2.
func init() { regKey(kmsg.NewPtrFetchRequest(), 2, 12, (*Server).handleFetch) }

func (s *Server) handleFetch(c *Call) Reply {
	req := c.Req.(*kmsg.FetchRequest)
	version := req.Version

	// Only brokers may fetch as replicas (DESIGN: a consumer claiming a
	// replica id would read past the HW). Brokers reach us on the
	// inter-broker listener and name a live broker id, or (restarting
	// before the metadata lists them again) an assigned replica of a
	// partition they fetch: checked below, once the session has said
	// which partitions those are.
	replicaID := req.ReplicaID
	replicaAllowed := replicaID < 0 || s.authorizeCluster(c, acl.OpClusterAction)
	if replicaID >= 0 && c.Conn != nil && c.Conn.Listener != s.d.InterBrokerListener {
		replicaID = -1
	}

	fr := replica.FetchRequest{
		MaxWait:       time.Duration(req.MaxWaitMillis) * time.Millisecond,
		MinBytes:      req.MinBytes,
		MaxBytes:      req.MaxBytes,
		ReadCommitted: version >= 4 && req.IsolationLevel == 1,
	}
	if version < 3 {
		fr.MaxBytes = 0
	}
	var parts []fetchsession.Partition
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fetchsession.Partition{
				TP:                 partid.TopicPartition{Topic: t.Topic, Partition: p.Partition},
				FetchOffset:        p.FetchOffset,
				LogStartOffset:     p.LogStartOffset,
				MaxBytes:           p.PartitionMaxBytes,
				CurrentLeaderEpoch: epochOrNone(version >= 9, p.CurrentLeaderEpoch),
				LastFetchedEpoch:   epochOrNone(version >= 12, p.LastFetchedEpoch),
			})
		}
	}
	var session *fetchsession.Context
	if version >= 7 {
		session = s.sessions.NewContext(req.SessionID, req.SessionEpoch, replicaID >= 0 && replicaAllowed, parts, forgottenPartitions(req), time.Now().UnixMilli())
		if session.Kind == fetchsession.Failed {
			return func() Result { return Result{Raw: encodeFetchResponse(version, errCode(session.Err), 0, nil)} }
		}
		parts = session.Partitions
	}
	if replicaID >= 0 && replicaAllowed {
		if _, live := s.d.Cache.View().Broker(replicaID); !live && !s.anyPartitionReplica(replicaID, parts) {
			replicaID = -1
		}
	}
	fr.ReplicaID = replicaID

	// Replica fetches are inter-broker traffic, exempt from client quotas.
	c.quota.exempt = replicaID >= 0
	if quotaMax := s.fetchQuotaMaxBytes(c); quotaMax > 0 {
		if fr.MaxBytes <= 0 || fr.MaxBytes > quotaMax {
			fr.MaxBytes = quotaMax
		}
		fr.MinBytes = min(fr.MinBytes, fr.MaxBytes)
	}
	var readable map[string]bool
	if replicaID < 0 && replicaAllowed {
		readable = s.authorizedNames(c, acl.OpRead, acl.Topic, namesOf(parts, func(p *fetchsession.Partition) string { return p.TP.Topic }))
	}
	// refused marks, in parts order, the partitions answered
	// TOPIC_AUTHORIZATION_FAILED without being read.
	refused := make([]bool, len(parts))
	for i, p := range parts {
		if !replicaAllowed || (replicaID < 0 && !readable[p.TP.Topic]) {
			refused[i] = true
			continue
		}
		fr.Partitions = append(fr.Partitions, replica.FetchPartition{TP: p.TP, FetchOffset: p.FetchOffset, LogStartOffset: p.LogStartOffset,
			MaxBytes: p.MaxBytes, CurrentLeaderEpoch: p.CurrentLeaderEpoch, LastFetchedEpoch: p.LastFetchedEpoch})
	}
	return func() Result {
		var results []replica.FetchResult
		if len(fr.Partitions) > 0 || len(parts) == 0 {
			// Refused partitions alone are answered at once, as Kafka
			// answers when nothing is left to read.
			ctx, cancel := context.WithTimeout(context.Background(), fr.MaxWait+s.d.RequestTimeout)
			defer cancel()
			results = s.d.Replicas.Fetch(ctx, fr)
		}
		results = withRefused(parts, refused, results)
		if version < 4 {
			resp := s.downConvertedFetch(req, results)
			raw := &wire.Response{Body: resp.AppendTo(nil)}
			if throttle := s.chargeFetch(c, responseSize(raw, false)); throttle > 0 {
				return s.throttledFetch(req, throttle)
			}
			c.countFetchErrors(results)
			return Result{Raw: raw}
		}
		if session == nil {
			raw := encodeFetchResponse(version, 0, 0, results)
			if throttle := s.chargeFetch(c, responseSize(raw, version >= 12)); throttle > 0 {
				return s.throttledFetch(req, throttle)
			}
			c.countFetchErrors(results)
			return Result{Raw: raw}
		}
		sr := sessionResults(results)
		if _, _, _, charged := s.quotaSubject(c); charged {
			// Sized by what the session would send, before it records
			// anything as sent.
			raw := encodeFetchResponse(version, 0, 0, pick(results, session.Peek(sr)))
			if throttle := s.chargeFetch(c, responseSize(raw, version >= 12)); throttle > 0 {
				res := s.throttledFetch(req, throttle)
				res.Resp.(*kmsg.FetchResponse).SessionID = session.ThrottledSessionID()
				return res
			}
		}
		id, send, err := session.Respond(sr, time.Now().UnixMilli())
		if err != nil {
			return Result{Raw: encodeFetchResponse(version, errCode(err), id, nil)}
		}
		c.countFetchErrors(results)
		return Result{Raw: encodeFetchResponse(version, 0, id, pick(results, send))}
	}
}

// throttledFetch is the empty answer of a fetch over its client's quota.
func (s *Server) throttledFetch(req *kmsg.FetchRequest, throttle time.Duration) Result {
	resp := req.ResponseKind().(*kmsg.FetchResponse)
	resp.ThrottleMillis = throttleMillis(throttle)
	return Result{Resp: resp}
}

// pick returns the results at the indices a session sends, in order.
func pick(results []replica.FetchResult, send []int) []replica.FetchResult {
	if len(send) == len(results) {
		return results
	}
	kept := make([]replica.FetchResult, len(send))
	for i, j := range send {
		kept[i] = results[j]
	}
	return kept
}

// withRefused puts the refused partitions' TOPIC_AUTHORIZATION_FAILED
// answers between the read ones, in parts order.
func withRefused(parts []fetchsession.Partition, refused []bool, read []replica.FetchResult) []replica.FetchResult {
	if len(read) == len(parts) {
		return read
	}
	out := make([]replica.FetchResult, 0, len(parts))
	next := 0
	for i, p := range parts {
		if refused[i] {
			out = append(out, replica.FetchResult{TP: p.TP, Err: kerr.TopicAuthorizationFailed, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1})
		} else if next < len(read) {
			out = append(out, read[next])
			next++
		}
	}
	return out
}

// forgottenPartitions lists a v7+ Fetch's forgotten_topics_data.
func forgottenPartitions(req *kmsg.FetchRequest) []partid.TopicPartition {
	var out []partid.TopicPartition
	for _, t := range req.ForgottenTopics {
		for _, p := range t.Partitions {
			out = append(out, partid.TopicPartition{Topic: t.Topic, Partition: p})
		}
	}
	return out
}

// sessionResults is what a fetch session needs of each result to decide
// whether an incremental answer carries it.
func sessionResults(results []replica.FetchResult) []fetchsession.Result {
	out := make([]fetchsession.Result, len(results))
	for i, r := range results {
		out[i] = fetchsession.Result{HasRecords: r.Err == nil && r.Bytes > 0, Failed: r.Err != nil, Always: r.Diverging,
			HighWatermark: r.HighWatermark, LastStableOffset: r.LastStableOffset, LogStartOffset: r.LogStartOffset}
	}
	return out
}

// anyPartitionReplica reports whether id is an assigned replica of a fetched
// partition: a follower restarting may fetch before the controller's
// UpdateMetadata lists it as live again.
func (s *Server) anyPartitionReplica(id int32, parts []fetchsession.Partition) bool {
	view := s.d.Cache.View()
	for _, p := range parts {
		if st, ok := view.Partition(p.TP.Topic, p.TP.Partition); ok && slices.Contains(st.Replicas, id) {
			return true
		}
	}
	return false
}

func epochOrNone(has bool, e int32) int32 {
	if !has {
		return -1
	}
	return e
}

// downConvertedFetch answers Fetch v2/v3, whose clients read only magic 0/1
// message sets: the records are read into memory and down-converted (the
// price Kafka also pays for old consumers; no zero-copy here).
func (s *Server) downConvertedFetch(req *kmsg.FetchRequest, results []replica.FetchResult) *kmsg.FetchResponse {
	resp := req.ResponseKind().(*kmsg.FetchResponse)
	idx := map[string]int{}
	for _, r := range results {
		i := partid.TopicSlot(idx, r.TP.Topic, func() {
			t := kmsg.NewFetchResponseTopic()
			t.Topic = r.TP.Topic
			resp.Topics = append(resp.Topics, t)
		})
		p := kmsg.NewFetchResponseTopicPartition()
		p.Partition = r.TP.Partition
		p.HighWatermark = r.HighWatermark
		err := r.Err
		if err == nil {
			var data []byte
			data, err = readRegions(r.Regions, r.Bytes)
			if err == nil {
				p.RecordBatches, err = record.DownConvert(data, 64<<20)
			}
		}
		p.ErrorCode = errCode(err)
		resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, p)
	}
	return resp
}

func readRegions(regions []storage.FileRegion, total int64) ([]byte, error) {
	out := make([]byte, 0, total)
	for _, reg := range regions {
		start := len(out)
		out = out[:start+int(reg.Size)]
		if _, err := reg.File.ReadAt(out[start:], reg.Position); err != nil {
			return nil, fmt.Errorf("api: reading fetched records: %w", err)
		}
	}
	return out, nil
}
