package controller

import (
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

// Versions of the controller's requests; brokers advertise exactly these.
const (
	leaderAndISRVersion   = 5
	updateMetadataVersion = 7
	stopReplicaVersion    = 3
)

// batch collects the requests one controller event produces, so each broker
// gets at most one LeaderAndIsr, one UpdateMetadata and one StopReplica per
// event, sent in that order (Kafka's ControllerBrokerRequestBatch).
type batch struct {
	c        *Controller
	lai      map[int32]map[tp]bool // broker -> partition -> isNew
	um       map[tp]bool
	umAll    bool
	deleting map[tp]bool // sent with leader -2
	stops    map[int32][]stopItem
	onStop   map[int32]func(kmsg.Response, error)
}

type stopItem struct {
	p   tp
	del bool
}

func (c *Controller) newBatch() *batch {
	return &batch{
		c:        c,
		lai:      map[int32]map[tp]bool{},
		um:       map[tp]bool{},
		deleting: map[tp]bool{},
		stops:    map[int32][]stopItem{},
		onStop:   map[int32]func(kmsg.Response, error){},
	}
}

// leaderAndISR sends p's current state to brokers, and p to everyone's
// metadata.
func (b *batch) leaderAndISR(brokers []int32, p tp, isNew bool) {
	for _, id := range brokers {
		m, ok := b.lai[id]
		if !ok {
			m = map[tp]bool{}
			b.lai[id] = m
		}
		m[p] = m[p] || isNew
	}
	b.um[p] = true
}

func (b *batch) updateMetadata(p tp) { b.um[p] = true }

// fullMetadata sends every partition to every live broker (a broker joined,
// one died, or a new controller took over).
func (b *batch) fullMetadata() { b.umAll = true }

func (b *batch) markDeleting(p tp) { b.deleting[p] = true }

func (b *batch) stopReplica(broker int32, p tp, del bool, done func(kmsg.Response, error)) {
	b.stops[broker] = append(b.stops[broker], stopItem{p, del})
	if done != nil {
		b.onStop[broker] = done
	}
}

// send queues the batch's requests. The returned channel closes once every
// one of them has been answered by its broker, or dropped because the broker
// left or this controller resigned: a caller that must not answer before the
// cluster has acted (controlled shutdown) waits on it, outside the event
// loop.
func (b *batch) send() <-chan struct{} {
	c, st := b.c, b.c.st
	all := make(chan struct{})
	if st == nil {
		close(all)
		return all
	}
	var pending sync.WaitGroup
	queue := func(id int32, req kmsg.Request, done func(kmsg.Response, error)) {
		pending.Add(1)
		c.chans.send(id, req, done, pending.Done)
	}
	for _, id := range sortedKeys(b.lai) {
		info, ok := st.live[id]
		if !ok {
			continue
		}
		queue(id, b.leaderAndISRRequest(info, b.lai[id]), nil)
	}
	if b.umAll || len(b.um) > 0 || len(b.deleting) > 0 {
		for _, id := range st.liveIDs() {
			queue(id, b.updateMetadataRequest(), nil)
		}
	}
	for _, id := range sortedKeys(b.stops) {
		info, ok := st.live[id]
		if !ok {
			continue
		}
		queue(id, b.stopReplicaRequest(info, b.stops[id]), b.onStop[id])
	}
	go func() {
		pending.Wait()
		close(all)
	}()
	return all
}

func sortedKeys[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (b *batch) leaderAndISRRequest(target *brokerInfo, parts map[tp]bool) *kmsg.LeaderAndISRRequest {
	st := b.c.st
	req := kmsg.NewPtrLeaderAndISRRequest()
	req.Version = leaderAndISRVersion
	req.ControllerID = b.c.cfg.BrokerID
	req.ControllerEpoch = st.epoch
	req.BrokerEpoch = target.epoch
	byTopic := map[string]int{}
	leaders := map[int32]bool{}
	for _, p := range sortedTPs(parts) {
		ps := st.partState(p)
		t := st.topics[p.Topic]
		if ps == nil || t == nil {
			continue
		}
		i := partid.TopicSlot(byTopic, p.Topic, func() {
			ts := kmsg.NewLeaderAndISRRequestTopicState()
			ts.Topic = p.Topic
			ts.TopicID = t.id
			req.TopicStates = append(req.TopicStates, ts)
		})
		s := kmsg.NewLeaderAndISRRequestTopicPartition()
		s.Topic = p.Topic
		s.Partition = p.Partition
		s.ControllerEpoch = ps.controllerEpoch
		s.Leader = ps.leader
		s.LeaderEpoch = ps.leaderEpoch
		s.ISR = slices.Clone(ps.isr)
		s.ZKVersion = ps.zkVersion
		s.Replicas = slices.Clone(st.replicas(p))
		s.AddingReplicas = slices.Clone(t.adding[p.Partition])
		s.RemovingReplicas = slices.Clone(t.removing[p.Partition])
		s.IsNew = parts[p]
		req.TopicStates[i].PartitionStates = append(req.TopicStates[i].PartitionStates, s)
		if ps.leader >= 0 {
			leaders[ps.leader] = true
		}
	}
	for _, id := range sortedKeys(leaders) {
		info, ok := st.live[id]
		if !ok {
			continue
		}
		if e, ok := info.endpoint(b.c.cfg.InterBrokerListener); ok {
			l := kmsg.NewLeaderAndISRRequestLiveLeader()
			l.BrokerID, l.Host, l.Port = id, e.host, e.port
			req.LiveLeaders = append(req.LiveLeaders, l)
		}
	}
	return req
}

func (b *batch) updateMetadataRequest() *kmsg.UpdateMetadataRequest {
	st := b.c.st
	req := kmsg.NewPtrUpdateMetadataRequest()
	req.Version = updateMetadataVersion
	req.ControllerID = b.c.cfg.BrokerID
	req.ControllerEpoch = st.epoch
	req.BrokerEpoch = -1
	for _, id := range st.liveIDs() {
		info := st.live[id]
		lb := kmsg.NewUpdateMetadataRequestLiveBroker()
		lb.ID = id
		lb.Rack = info.rack
		for _, e := range info.endpoints {
			ep := kmsg.NewUpdateMetadataRequestLiveBrokerEndpoint()
			ep.Port, ep.Host, ep.ListenerName, ep.SecurityProtocol = e.port, e.host, e.listener, 0
			lb.Endpoints = append(lb.Endpoints, ep)
		}
		req.LiveBrokers = append(req.LiveBrokers, lb)
	}
	parts := b.um
	if b.umAll {
		parts = map[tp]bool{}
		for _, p := range st.partitions() {
			parts[p] = true
		}
	}
	byTopic := map[string]int{}
	add := func(p tp, leader int32) {
		ps := st.partState(p)
		t := st.topics[p.Topic]
		if t == nil || (ps == nil || !ps.exists) && leader != -2 {
			return
		}
		i := partid.TopicSlot(byTopic, p.Topic, func() {
			ts := kmsg.NewUpdateMetadataRequestTopicState()
			ts.Topic = p.Topic
			ts.TopicID = t.id
			req.TopicStates = append(req.TopicStates, ts)
		})
		s := kmsg.NewUpdateMetadataRequestTopicPartition()
		s.Topic = p.Topic
		s.Partition = p.Partition
		s.Leader = leader
		if ps != nil {
			s.ControllerEpoch = ps.controllerEpoch
			s.LeaderEpoch = ps.leaderEpoch
			s.ISR = slices.Clone(ps.isr)
			s.ZKVersion = ps.zkVersion
		}
		s.Replicas = slices.Clone(st.replicas(p))
		s.OfflineReplicas = st.offlineReplicas(p)
		req.TopicStates[i].PartitionStates = append(req.TopicStates[i].PartitionStates, s)
	}
	for _, p := range sortedTPs(parts) {
		if b.deleting[p] || st.deleting[p.Topic] != nil {
			continue
		}
		add(p, st.partState(p).leaderOr(-1))
	}
	for _, p := range sortedTPs(b.deleting) {
		add(p, -2)
	}
	return req
}

func (ps *partState) leaderOr(def int32) int32 {
	if ps == nil {
		return def
	}
	return ps.leader
}

func (b *batch) stopReplicaRequest(target *brokerInfo, items []stopItem) *kmsg.StopReplicaRequest {
	st := b.c.st
	req := kmsg.NewPtrStopReplicaRequest()
	req.Version = stopReplicaVersion
	req.ControllerID = b.c.cfg.BrokerID
	req.ControllerEpoch = st.epoch
	req.BrokerEpoch = target.epoch
	byTopic := map[string]int{}
	for _, it := range items {
		i := partid.TopicSlot(byTopic, it.p.Topic, func() {
			t := kmsg.NewStopReplicaRequestTopic()
			t.Topic = it.p.Topic
			req.Topics = append(req.Topics, t)
		})
		s := kmsg.NewStopReplicaRequestTopicPartitionState()
		s.Partition = it.p.Partition
		s.LeaderEpoch = -2 // LeaderEpochDuringDelete: skip the epoch check
		if ps := st.partState(it.p); ps != nil && !it.del {
			s.LeaderEpoch = ps.leaderEpoch
		}
		s.Delete = it.del
		req.Topics[i].PartitionStates = append(req.Topics[i].PartitionStates, s)
	}
	return req
}

func sortedTPs(m map[tp]bool) []tp {
	out := make([]tp, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b tp) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition - b.Partition)
	})
	return out
}
