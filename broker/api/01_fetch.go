package api

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/wire"
)

// Fetch (key 1), v2-v12.
// Consumers read up to the HW, or with isolation_level 1 (READ_COMMITTED,
// v4+) up to the LSO with the aborted transactions of what they read;
// followers (replica_id >= 0, brokers only) read up to the LEO. Every v4+
// answer carries the LSO. The record bytes go out with sendfile. A fetch
// that finds less than min_bytes waits until enough arrives or max_wait
// passes (an LSO move wakes it: it moves with the HW). v2/v3
// responses are down-converted to magic 0/1 message sets. v12 followers get
// diverging_epoch when their last fetched epoch ended earlier on the leader.
// Authorization (Kafka 2.8, CVE-2018-1288): a fetch with a replica id
// needs ClusterAction on the cluster, else every partition is
// TOPIC_AUTHORIZATION_FAILED; a consumer needs Read on each topic, else its
// partitions are TOPIC_AUTHORIZATION_FAILED and are not read.

func (s *Server) handleFetch(c *Call) Reply {
	req := c.Req.(*kmsg.FetchRequest)
	version := req.Version

	// Only brokers may fetch as replicas (DESIGN: a consumer claiming a
	// replica id would read past the HW). Brokers reach us on the
	// inter-broker listener and name a live broker id.
	replicaID := req.ReplicaID
	replicaAllowed := replicaID < 0 || s.authorizeCluster(c, acl.OpClusterAction)
	if replicaID >= 0 && replicaAllowed {
		if c.Conn != nil && c.Conn.Listener != s.d.InterBrokerListener {
			replicaID = -1
		} else if _, live := s.d.Cache.View().Broker(replicaID); !live {
			if _, hosted := s.anyPartitionReplica(replicaID, req); !hosted {
				replicaID = -1
			}
		}
	}

	// Replica fetches are inter-broker traffic, exempt from client quotas.
	c.quota.exempt = replicaID >= 0
	fr := replica.FetchRequest{
		ReplicaID:     replicaID,
		MaxWait:       time.Duration(req.MaxWaitMillis) * time.Millisecond,
		MinBytes:      req.MinBytes,
		MaxBytes:      req.MaxBytes,
		ReadCommitted: version >= 4 && req.IsolationLevel == 1,
	}
	if version < 3 {
		fr.MaxBytes = 0
	}
	if quotaMax := s.fetchQuotaMaxBytes(c); quotaMax > 0 {
		if fr.MaxBytes <= 0 || fr.MaxBytes > quotaMax {
			fr.MaxBytes = quotaMax
		}
		fr.MinBytes = min(fr.MinBytes, fr.MaxBytes)
	}
	var readable map[string]bool
	if replicaID < 0 && replicaAllowed {
		readable = s.authorizedNames(c, acl.OpRead, acl.Topic, namesOf(req.Topics, func(t *kmsg.FetchRequestTopic) string { return t.Topic }))
	}
	// refused marks, in request order, the partitions answered
	// TOPIC_AUTHORIZATION_FAILED without being read.
	var refused []bool
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			deny := !replicaAllowed || (replicaID < 0 && !readable[t.Topic])
			refused = append(refused, deny)
			if deny {
				continue
			}
			fr.Partitions = append(fr.Partitions, replica.FetchPartition{
				TP:                 partid.TopicPartition{Topic: t.Topic, Partition: p.Partition},
				FetchOffset:        p.FetchOffset,
				LogStartOffset:     p.LogStartOffset,
				MaxBytes:           p.PartitionMaxBytes,
				CurrentLeaderEpoch: epochOrNone(version >= 9, p.CurrentLeaderEpoch),
				LastFetchedEpoch:   epochOrNone(version >= 12, p.LastFetchedEpoch),
			})
		}
	}
	if req.SessionID != 0 || req.SessionEpoch > 0 {
		// We never create fetch sessions (KIP-227 allows answering every
		// fetch in full), so an incremental fetch names an unknown session.
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		resp.ErrorCode = kerr.FetchSessionIDNotFound.Code
		return now(resp)
	}
	return func() Result {
		var results []replica.FetchResult
		if len(fr.Partitions) > 0 || len(refused) == 0 {
			// Refused partitions alone are answered at once, as Kafka
			// answers when nothing is left to read.
			ctx, cancel := context.WithTimeout(context.Background(), fr.MaxWait+s.d.RequestTimeout)
			defer cancel()
			results = s.d.Replicas.Fetch(ctx, fr)
		}
		results = withRefused(req, refused, results)
		var res Result
		var size int
		if version < 4 {
			resp := s.downConvertedFetch(req, results)
			res.Raw = &wire.Response{Body: resp.AppendTo(nil)}
			size = responseSize(res.Raw, false)
		} else {
			res.Raw = encodeFetchResponse(version, results)
			size = responseSize(res.Raw, version >= 12)
		}
		if throttle := s.chargeFetch(c, size); throttle > 0 {
			// Over a quota: answered empty, with the throttle time.
			resp := req.ResponseKind().(*kmsg.FetchResponse)
			resp.ThrottleMillis = throttleMillis(throttle)
			return Result{Resp: resp}
		}
		c.countFetchErrors(results)
		return res
	}
}

// withRefused puts the refused partitions' TOPIC_AUTHORIZATION_FAILED
// answers between the read ones, in request order.
func withRefused(req *kmsg.FetchRequest, refused []bool, read []replica.FetchResult) []replica.FetchResult {
	if len(read) == len(refused) {
		return read
	}
	out := make([]replica.FetchResult, 0, len(refused))
	i, next := 0, 0
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if refused[i] {
				out = append(out, replica.FetchResult{
					TP:  partid.TopicPartition{Topic: t.Topic, Partition: p.Partition},
					Err: kerr.TopicAuthorizationFailed, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1,
				})
			} else if next < len(read) {
				out = append(out, read[next])
				next++
			}
			i++
		}
	}
	return out
}

// anyPartitionReplica reports whether id is an assigned replica of a fetched
// partition: a follower restarting may fetch before the controller's
// UpdateMetadata lists it as live again.
func (s *Server) anyPartitionReplica(id int32, req *kmsg.FetchRequest) (partid.TopicPartition, bool) {
	view := s.d.Cache.View()
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if st, ok := view.Partition(t.Topic, p.Partition); ok {
				for _, r := range st.Replicas {
					if r == id {
						return partid.TopicPartition{Topic: t.Topic, Partition: p.Partition}, true
					}
				}
			}
		}
	}
	return partid.TopicPartition{}, false
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
		i, ok := idx[r.TP.Topic]
		if !ok {
			i = len(resp.Topics)
			idx[r.TP.Topic] = i
			t := kmsg.NewFetchResponseTopic()
			t.Topic = r.TP.Topic
			resp.Topics = append(resp.Topics, t)
		}
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
