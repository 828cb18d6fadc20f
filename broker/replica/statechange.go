package replica

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/partid"
	"kafgo/internal/uuid"
)

// HandleLeaderAndISR applies a controller's LeaderAndIsr (v2+ layout): the
// partitions this broker now leads start serving, the ones it follows get a
// fetcher that first truncates to where the leader's epochs say.
func (m *Manager) HandleLeaderAndISR(req *kmsg.LeaderAndISRRequest) *kmsg.LeaderAndISRResponse {
	m.stateChangeMu.Lock()
	defer m.stateChangeMu.Unlock()
	resp := req.ResponseKind().(*kmsg.LeaderAndISRResponse)

	m.mu.Lock()
	stale := req.ControllerEpoch < m.controllerEpoch
	staleBroker := req.BrokerEpoch >= 0 && m.brokerEpoch >= 0 && req.BrokerEpoch < m.brokerEpoch
	if !stale && !staleBroker {
		m.controllerEpoch = req.ControllerEpoch
	}
	m.mu.Unlock()
	switch {
	case stale:
		resp.ErrorCode = kerr.StaleControllerEpoch.Code
		return resp
	case staleBroker:
		resp.ErrorCode = kerr.StaleBrokerEpoch.Code
		return resp
	}
	m.fetchers.rememberLeaders(req.LiveLeaders)

	now := m.now()
	cfgs := map[string]PartitionConfig{}
	var leading, following, failed int
	for _, ts := range req.TopicStates {
		rt := kmsg.NewLeaderAndISRResponseTopic()
		rt.TopicID = ts.TopicID
		for _, ps := range ts.PartitionStates {
			tp := partid.TopicPartition{Topic: ts.Topic, Partition: ps.Partition}
			rp := kmsg.NewLeaderAndISRResponseTopicPartition()
			rp.Topic = ts.Topic
			rp.Partition = ps.Partition
			if m.isStopping() {
				rp.ErrorCode = kerr.NotLeaderForPartition.Code
			} else {
				rp.ErrorCode = m.applyPartitionState(tp, ts.TopicID, ps, now, cfgs)
			}
			switch {
			case rp.ErrorCode != 0:
				failed++
			case ps.Leader == m.brokerID:
				leading++
			default:
				following++
			}
			rt.Partitions = append(rt.Partitions, rp)
			resp.Partitions = append(resp.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	m.log.Info("LeaderAndIsr applied", "controller_epoch", req.ControllerEpoch, "leading", leading, "following", following, "failed", failed)
	return resp
}

func (m *Manager) applyPartitionState(tp partid.TopicPartition, topicID uuid.UUID, ps kmsg.LeaderAndISRRequestTopicPartition, now time.Time, cfgs map[string]PartitionConfig) int16 {
	hosted := false
	for _, r := range ps.Replicas {
		if r == m.brokerID {
			hosted = true
		}
	}
	if !hosted {
		// Kafka ignores states for partitions not assigned to this broker.
		return kerr.UnknownTopicOrPartition.Code
	}
	p, err := m.getOrCreatePartition(tp, topicID, cfgs)
	if err != nil {
		m.log.Error("cannot create partition", "partition", tp.String(), "err", err)
		return kafkaerr.Code(err).Code
	}
	st := leaderState{
		topicID:         topicID,
		leader:          ps.Leader,
		leaderEpoch:     ps.LeaderEpoch,
		partitionEpoch:  ps.ZKVersion,
		controllerEpoch: ps.ControllerEpoch,
		isr:             ps.ISR,
		replicas:        ps.Replicas,
	}
	if !p.acceptsState(st) {
		m.log.Info("ignoring stale partition state", "partition", tp.String(), "leader_epoch", ps.LeaderEpoch, "partition_epoch", ps.ZKVersion)
		return kerr.StaleControllerEpoch.Code
	}
	if ps.Leader == m.brokerID {
		m.fetchers.remove(tp)
		if err := p.makeLeader(st, now); err != nil {
			m.log.Error("cannot become leader", "partition", tp.String(), "err", err)
			return kafkaerr.Code(err).Code
		}
		m.log.Debug("leading partition", "partition", tp.String(), "leader_epoch", ps.LeaderEpoch, "isr", ps.ISR)
		m.leadershipChanged(tp, true, ps.LeaderEpoch)
		return 0
	}
	m.fetchers.remove(tp)
	p.makeFollower(st)
	if ps.Leader >= 0 {
		m.fetchers.add(p, ps.Leader, ps.LeaderEpoch)
	}
	m.log.Debug("following partition", "partition", tp.String(), "leader", ps.Leader, "leader_epoch", ps.LeaderEpoch)
	m.leadershipChanged(tp, false, ps.LeaderEpoch)
	return 0
}

func (m *Manager) leadershipChanged(tp partid.TopicPartition, leader bool, epoch int32) {
	if m.cfg.OnLeadershipChange != nil {
		m.cfg.OnLeadershipChange(tp, leader, epoch)
	}
}

// HandleStopReplica stops fetching for the named partitions and, when asked,
// deletes them (topic deletion, reassignment away).
func (m *Manager) HandleStopReplica(req *kmsg.StopReplicaRequest) *kmsg.StopReplicaResponse {
	m.stateChangeMu.Lock()
	defer m.stateChangeMu.Unlock()
	resp := req.ResponseKind().(*kmsg.StopReplicaResponse)
	m.mu.Lock()
	stale := req.ControllerEpoch < m.controllerEpoch
	if !stale {
		m.controllerEpoch = req.ControllerEpoch
	}
	m.mu.Unlock()
	if stale {
		resp.ErrorCode = kerr.StaleControllerEpoch.Code
		return resp
	}
	for _, t := range req.Topics {
		for _, ps := range t.PartitionStates {
			tp := partid.TopicPartition{Topic: t.Topic, Partition: ps.Partition}
			rp := kmsg.NewStopReplicaResponsePartition()
			rp.Topic = t.Topic
			rp.Partition = ps.Partition
			rp.ErrorCode = m.stopReplica(tp, ps.Delete)
			resp.Partitions = append(resp.Partitions, rp)
		}
	}
	return resp
}

func (m *Manager) stopReplica(tp partid.TopicPartition, del bool) int16 {
	m.fetchers.remove(tp)
	m.mu.Lock()
	p, ok := m.partitions[tp]
	if ok && del {
		delete(m.partitions, tp)
		delete(m.initialHW, tp)
		m.cfg.Metrics.TopicSet().Release(tp.Topic)
	}
	m.mu.Unlock()
	if ok {
		p.stopServing()
		m.leadershipChanged(tp, false, -1)
	}
	if !del {
		return 0
	}
	if _, exists := m.logs.Log(tp); exists {
		if err := m.logs.DeleteLog(tp); err != nil {
			m.log.Error("cannot delete partition", "partition", tp.String(), "err", err)
			return kafkaerr.Code(err).Code
		}
	}
	return 0
}
