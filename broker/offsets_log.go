package broker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

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
// coordinators and replica stay independent of each other.
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
	res := l.m.AppendToLeaders(acks, []replica.ProducePartition{{TP: l.tp(p), Batches: batch}})
	if err := res[0].Err; err != nil {
		return coordlog.AppendResult{}, asKafkaError(err)
	}
	out := coordlog.AppendResult{FirstOffset: res[0].Info.FirstOffset}
	if acks == -1 {
		out.Wait = func(ctx context.Context, timeout time.Duration) error {
			l.m.WaitForAcks(ctx, timeout, res)
			if res[0].Err != nil {
				return asKafkaError(res[0].Err)
			}
			return nil
		}
	}
	return out, nil
}

func (l replicaLog) partition(p int32) (*replica.Partition, error) {
	part, err := l.m.LeaderPartition(l.tp(p))
	if err != nil {
		return nil, asKafkaError(err)
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

// asKafkaError keeps Kafka error codes and names storage failures, so the
// coordinator can map them as Kafka's GroupMetadataManager does.
func asKafkaError(err error) error {
	var ke *kerr.Error
	switch {
	case errors.As(err, &ke):
		return ke
	case errors.Is(err, storage.ErrBatchTooLarge):
		return kerr.MessageTooLarge
	}
	return fmt.Errorf("%w: %v", kerr.KafkaStorageError, err)
}
