package replica

import (
	"math"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

// fetchSession is a fetcher's side of an incremental fetch session with its
// leader (KIP-227; Kafka's FetchSessionHandler). The first fetch is full
// (epoch 0) and asks for a session; within the session a fetch names only
// the partitions that are new or whose position changed, and forgets those
// no longer fetched, so a fetcher following thousands of quiet partitions
// sends and receives almost nothing. Any session error, or a lost
// connection, makes the next fetch full again.
type fetchSession struct {
	id    int32 // 0: none
	epoch int32 // of the next fetch; 0 = full
	sent  map[partid.TopicPartition]sessionPartition
	// pending is what the fetch in flight leaves the session holding,
	// kept once its answer arrives.
	pending map[partid.TopicPartition]sessionPartition
}

// sessionPartition is what a fetch told the leader of a partition.
type sessionPartition struct {
	fetchOffset, logStartOffset   int64
	maxBytes                      int32
	leaderEpoch, lastFetchedEpoch int32
}

func (p sessionPartition) fill(rp *kmsg.FetchRequestTopicPartition) {
	rp.FetchOffset, rp.LogStartOffset, rp.PartitionMaxBytes = p.fetchOffset, p.logStartOffset, p.maxBytes
	rp.CurrentLeaderEpoch, rp.LastFetchedEpoch = p.leaderEpoch, p.lastFetchedEpoch
}

// build fills req's session fields, partitions and forgotten topics for a
// fetch of want (in order).
func (s *fetchSession) build(req *kmsg.FetchRequest, want []partid.TopicPartition, data map[partid.TopicPartition]sessionPartition) {
	req.SessionID, req.SessionEpoch = s.id, s.epoch
	full := s.epoch == 0
	s.pending = data
	byTopic := map[string]int{}
	add := func(tp partid.TopicPartition) {
		i := partid.TopicSlot(byTopic, tp.Topic, func() {
			t := kmsg.NewFetchRequestTopic()
			t.Topic = tp.Topic
			req.Topics = append(req.Topics, t)
		})
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition = tp.Partition
		data[tp].fill(&rp)
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
	}
	for _, tp := range want {
		if prev, ok := s.sent[tp]; full || !ok || prev != data[tp] {
			add(tp)
		}
	}
	if full {
		return
	}
	forgotten := map[string]int{}
	for tp := range s.sent {
		if _, ok := data[tp]; ok {
			continue
		}
		i := partid.TopicSlot(forgotten, tp.Topic, func() {
			ft := kmsg.NewFetchRequestForgottenTopic()
			ft.Topic = tp.Topic
			req.ForgottenTopics = append(req.ForgottenTopics, ft)
		})
		req.ForgottenTopics[i].Partitions = append(req.ForgottenTopics[i].Partitions, tp.Partition)
	}
}

// handle records the answer to the fetch build prepared, and reports
// whether its partitions may be applied.
func (s *fetchSession) handle(resp *kmsg.FetchResponse) bool {
	switch {
	case resp.ErrorCode == kerr.FetchSessionIDNotFound.Code:
		// Evicted, or the leader restarted: start over.
		s.reset(0)
		return false
	case resp.ErrorCode != 0:
		// Out of step (INVALID_FETCH_SESSION_EPOCH): close it and start a
		// new one with the next, full, fetch.
		s.reset(s.id)
		return false
	case resp.SessionID == 0:
		// No session (the leader's cache is full), or the leader closed it:
		// the next fetch is full and asks again.
		s.reset(0)
		return true
	}
	if s.epoch == 0 || resp.SessionID != s.id {
		s.id, s.epoch = resp.SessionID, 1
	} else if s.epoch == math.MaxInt32 {
		s.epoch = 1
	} else {
		s.epoch++
	}
	s.sent, s.pending = s.pending, nil
	return true
}

// reset makes the next fetch full; a non-zero id names the session it
// closes on the leader.
func (s *fetchSession) reset(id int32) {
	s.id, s.epoch, s.sent, s.pending = id, 0, nil, nil
}
