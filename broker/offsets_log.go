package broker

import (
	"context"
	"fmt"
	"time"

	"kafgo/broker/coordlog"
	"kafgo/broker/partid"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
)

// internalTopicLog is a coordinator's coordlog.Log: the partitions of its
// internal topic (__consumer_offsets, __transaction_state) through the
// broker's replica manager. Appends go through the leader path (so they are
// replicated and fenced by leadership like any produce) and acks=all waits
// for the ISR. It lives here, where the parts meet, so that the
// coordinators and replica stay independent of each other. Errors go back as
// the replica manager gives them; the coordinators map them with kafkaerr's
// table, as every handler does. Appends carry the coordinator origin:
// transactional offset commits (KIP-98) are written with the producer's id
// and epoch but sequence 0 every time, as Kafka's group coordinator writes
// them, so they are fenced by epoch but not sequence-checked nor
// deduplicated. Reads return control batches (transaction markers) as
// written.
func internalTopicLog(m *replica.Manager, topic string) coordlog.Log {
	return replicaLog{m: m, topic: topic}
}

type replicaLog struct {
	m     *replica.Manager
	topic string
}

func (l replicaLog) tp(p int32) partid.TopicPartition {
	return partid.TopicPartition{Topic: l.topic, Partition: p}
}

func (l replicaLog) Append(p int32, acks int16, batch []byte) (coordlog.AppendResult, error) {
	res := l.m.AppendToLeaders(acks, []replica.ProducePartition{{TP: l.tp(p), Batches: batch, Origin: storage.OriginCoordinator}})
	if err := res[0].Err; err != nil {
		return coordlog.AppendResult{}, err
	}
	out := coordlog.AppendResult{FirstOffset: res[0].Info.FirstOffset}
	if acks == -1 {
		out.Wait = func(ctx context.Context, timeout time.Duration) error {
			l.m.WaitForAcks(ctx, timeout, res)
			if res[0].Err != nil {
				return res[0].Err
			}
			return nil
		}
	}
	return out, nil
}

func (l replicaLog) partition(p int32) (*replica.Partition, error) {
	part, err := l.m.LeaderPartition(l.tp(p))
	if err != nil {
		return nil, err
	}
	return part, nil
}

func (l replicaLog) Read(p int32, offset int64, maxBytes int32, end int64) ([]byte, error) {
	part, err := l.partition(p)
	if err != nil {
		return nil, err
	}
	b, err := part.Log().ReadBytes(offset, maxBytes, end)
	if err != nil {
		return nil, fmt.Errorf("broker: reading %s at %d: %w", l.tp(p), offset, err)
	}
	return b, nil
}

func (l replicaLog) Bounds(p int32) (int64, int64, error) {
	part, err := l.partition(p)
	if err != nil {
		return 0, 0, err
	}
	return part.Log().LogStartOffset(), part.Log().LogEndOffset(), nil
}
