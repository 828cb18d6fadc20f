package controller

import (
	"slices"
	"sort"

	"kafgo/broker/partid"
	"kafgo/internal/uuid"
)

type tp = partid.TopicPartition

// endpoint is a broker listener from its registration.
type endpoint struct {
	listener string
	host     string
	port     int32
}

// brokerInfo is a live broker as registered in /brokers/ids/<id>.
type brokerInfo struct {
	id        int32
	epoch     int64 // czxid of the registration znode (KIP-380)
	rack      *string
	endpoints []endpoint
}

func (b *brokerInfo) endpoint(listener string) (endpoint, bool) {
	for _, e := range b.endpoints {
		if e.listener == listener {
			return e, true
		}
	}
	return endpoint{}, false
}

// partState mirrors /brokers/topics/<t>/partitions/<p>/state.
type partState struct {
	leader          int32
	leaderEpoch     int32
	isr             []int32
	controllerEpoch int32
	zkVersion       int32
	exists          bool // the state znode exists (the partition is initialised)
}

// topicInfo is a topic's assignment and partition states.
type topicInfo struct {
	name       string
	id         uuid.UUID
	assignment map[int32][]int32
	states     map[int32]*partState
	// adding and removing are the KIP-455 reassignment fields of the topic
	// znode: while a partition moves, assignment is the union of the target
	// and the original replicas, adding the target's new ones and removing
	// the original's leaving ones (see reassign.go).
	adding   map[int32][]int32
	removing map[int32][]int32
}

func (t *topicInfo) partitionIDs() []int32 {
	ids := make([]int32, 0, len(t.assignment))
	for p := range t.assignment {
		ids = append(ids, p)
	}
	slices.Sort(ids)
	return ids
}

// state is the active controller's view of the cluster.
type state struct {
	epoch          int32
	epochZkVersion int32
	live           map[int32]*brokerInfo
	shuttingDown   map[int32]bool
	topics         map[string]*topicInfo
	// deleting holds topics queued for deletion and, per topic, the
	// replicas whose StopReplica(delete) has not been acknowledged.
	deleting map[string]map[int32]bool
}

func newState(epoch, epochZkVersion int32) *state {
	return &state{
		epoch:          epoch,
		epochZkVersion: epochZkVersion,
		live:           map[int32]*brokerInfo{},
		shuttingDown:   map[int32]bool{},
		topics:         map[string]*topicInfo{},
		deleting:       map[string]map[int32]bool{},
	}
}

func (s *state) isLive(id int32) bool { _, ok := s.live[id]; return ok }

func (s *state) liveIDs() []int32 {
	ids := make([]int32, 0, len(s.live))
	for id := range s.live {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// partitions lists every partition in topic/partition order.
func (s *state) partitions() []tp {
	names := make([]string, 0, len(s.topics))
	for n := range s.topics {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []tp
	for _, n := range names {
		for _, p := range s.topics[n].partitionIDs() {
			out = append(out, tp{Topic: n, Partition: p})
		}
	}
	return out
}

func (s *state) replicas(p tp) []int32 {
	if t, ok := s.topics[p.Topic]; ok {
		return t.assignment[p.Partition]
	}
	return nil
}

func (s *state) partState(p tp) *partState {
	if t, ok := s.topics[p.Topic]; ok {
		return t.states[p.Partition]
	}
	return nil
}

// liveReplicas returns the assigned replicas on live brokers, in order.
func (s *state) liveReplicas(p tp) []int32 {
	var out []int32
	for _, r := range s.replicas(p) {
		if s.isLive(r) {
			out = append(out, r)
		}
	}
	return out
}

func (s *state) offlineReplicas(p tp) []int32 {
	var out []int32
	for _, r := range s.replicas(p) {
		if !s.isLive(r) {
			out = append(out, r)
		}
	}
	return out
}
