package group

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/record"
)

// kv is one record to write; a nil value is a tombstone.
type kv struct{ key, value []byte }

// buildBatch makes one batch of records stamped ts, compressed with
// offsets.topic.compression.codec (the topic itself keeps what it is given,
// compression.type=producer, as Kafka's does).
func (c *Coordinator) buildBatch(recs []kv, ts int64) ([]byte, error) {
	b := record.NewBuilder(0, c.cfg.Codec)
	for _, r := range recs {
		b.Append(ts, r.key, r.value, nil)
	}
	return b.Build()
}

// keyOf encodes a key. It fails only for strings over 32767 bytes, which
// lockGroup refuses for group ids and the API layer for topics (they must
// exist), so a failure here is a bug reported as UNKNOWN_SERVER_ERROR.
func keyOf(k offsetsrec.Key) ([]byte, error) { return k.AppendTo(nil) }

// groupValue is the group metadata record of g (v3, Kafka 2.3+) with the
// given assignment; a group without members is written with none.
func (c *Coordinator) groupValue(g *group, assignment map[string][]byte) ([]byte, error) {
	v := offsetsrec.GroupValue{
		Version:               offsetsrec.GroupV3,
		Generation:            g.generation,
		Protocol:              g.protocol,
		CurrentStateTimestamp: g.stateTime,
	}
	if g.protocolType != nil {
		v.ProtocolType = *g.protocolType
	}
	if g.leader != "" {
		l := g.leader
		v.Leader = &l
	}
	for _, m := range g.sortedMembers() {
		mv := offsetsrec.MemberValue{
			MemberID:         m.id,
			GroupInstanceID:  m.instanceID,
			ClientID:         m.clientID,
			ClientHost:       m.clientHost,
			RebalanceTimeout: int32(m.rebalanceTimeout.Milliseconds()),
			SessionTimeout:   int32(m.sessionTimeout.Milliseconds()),
			Assignment:       assignment[m.id],
		}
		if g.protocol != nil {
			mv.Subscription = m.metadata(*g.protocol)
		}
		if mv.Subscription == nil {
			mv.Subscription = []byte{}
		}
		if mv.Assignment == nil {
			mv.Assignment = []byte{}
		}
		v.Members = append(v.Members, mv)
	}
	return v.AppendTo(nil)
}

// storeGroup writes g's metadata and calls done under the group lock once
// it is replicated (Kafka's GroupMetadataManager.storeGroup), with the
// error mapped as Kafka maps it for JoinGroup/SyncGroup clients.
func (c *Coordinator) storeGroup(g *group, assignment map[string][]byte, done func(*kerr.Error)) {
	val, err := c.groupValue(g, assignment)
	if err != nil {
		c.logger.Error("cannot encode group metadata", "group", g.id, "err", err)
		done(kerr.UnknownServerError)
		return
	}
	key, err := keyOf(offsetsrec.GroupKey(g.id))
	var batch []byte
	if err == nil {
		batch, err = c.buildBatch([]kv{{key, val}}, c.now().UnixMilli())
	}
	if err != nil {
		c.logger.Error("cannot build group metadata batch", "group", g.id, "err", err)
		done(kerr.UnknownServerError)
		return
	}
	res, err := c.log.Append(g.partition, c.cfg.RequiredAcks, batch)
	if err != nil {
		done(storeGroupError(err))
		return
	}
	c.goAfterWrite(g, res, func(err error) {
		if err != nil {
			c.logger.Warn("group metadata write failed", "group", g.id, "err", err)
		}
		done(storeGroupError(err))
	})
}

// storeGroupError maps a write error for group-membership answers.
func storeGroupError(err error) *kerr.Error {
	ke := kafkaerr.Code(err)
	switch ke {
	case nil:
		return nil
	case kerr.UnknownTopicOrPartition, kerr.NotEnoughReplicas, kerr.NotEnoughReplicasAfterAppend:
		return kerr.CoordinatorNotAvailable
	case kerr.NotLeaderForPartition, kerr.KafkaStorageError:
		return kerr.NotCoordinator
	case kerr.RequestTimedOut:
		// The write may still succeed; the members rejoin either way.
		return kerr.RebalanceInProgress
	case kerr.CoordinatorNotAvailable, kerr.NotCoordinator:
		return ke
	}
	return kerr.UnknownServerError
}

// commitError maps a write error for OffsetCommit answers.
func commitError(err error) *kerr.Error {
	ke := kafkaerr.Code(err)
	switch ke {
	case kerr.UnknownTopicOrPartition, kerr.NotEnoughReplicas, kerr.NotEnoughReplicasAfterAppend:
		return kerr.CoordinatorNotAvailable
	case kerr.NotLeaderForPartition, kerr.KafkaStorageError:
		return kerr.NotCoordinator
	case kerr.MessageTooLarge, kerr.RecordListTooLarge, kerr.InvalidFetchSize:
		return kerr.InvalidCommitOffsetSize
	}
	return ke
}

// writeTombstones appends tombstones for the given offsets and, when
// withGroup, the group's metadata; done runs under the group lock after
// replication (nil done: nobody waits, as for expiry).
func (c *Coordinator) writeTombstones(g *group, tps []TopicPartition, withGroup bool, done func(error)) {
	slices.SortFunc(tps, func(a, b TopicPartition) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition - b.Partition)
	})
	var recs []kv
	var err error
	add := func(k offsetsrec.Key) {
		b, kerr := keyOf(k)
		if kerr != nil {
			err = kerr
			return
		}
		recs = append(recs, kv{key: b})
	}
	for _, tp := range tps {
		add(offsetsrec.OffsetKey(g.id, tp.Topic, tp.Partition))
	}
	if withGroup {
		add(offsetsrec.GroupKey(g.id))
	}
	if len(recs) == 0 && err == nil {
		if done != nil {
			done(nil)
		}
		return
	}
	var batch []byte
	if err == nil {
		batch, err = c.buildBatch(recs, c.now().UnixMilli())
	}
	if err == nil {
		var res AppendResult
		if res, err = c.log.Append(g.partition, c.cfg.RequiredAcks, batch); err == nil {
			if done != nil {
				c.goAfterWrite(g, res, done)
			}
			return
		}
	}
	c.logger.Warn("cannot write tombstones", "group", g.id, "offsets", len(tps), "group_tombstone", withGroup, "err", err)
	if done != nil {
		done(err)
	}
}
