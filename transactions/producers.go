package transactions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// topicPartition prints as Java's TopicPartition: "topic-3".
type topicPartition struct {
	topic     string
	partition int32
}

func (tp topicPartition) String() string { return tp.topic + "-" + strconv.Itoa(int(tp.partition)) }

// activeProducer is one producer of a partition as DescribeProducers
// reports it; negative coordinator epoch and start offset mean none.
type activeProducer = kmsg.DescribeProducersResponseTopicPartitionActiveProducer

// partitionError is a partition's error with the broker's message, which
// is what Java's exception carries.
type partitionError struct {
	err *kerr.Error
	msg string
}

func (e *partitionError) Error() string { return e.msg }
func (e *partitionError) Unwrap() error { return e.err }

// describeProducers asks the partitions' leaders, or broker when set,
// which producers are active on tps (DescribeProducers). The answer keeps
// the broker's order of producers.
func describeProducers(ctx context.Context, cl *kgo.Client, tps []topicPartition, broker *int32) (map[topicPartition][]activeProducer, error) {
	req := kmsg.NewPtrDescribeProducersRequest()
	for _, tp := range tps {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.topic {
			t := kmsg.NewDescribeProducersRequestTopic()
			t.Topic = tp.topic
			req.Topics = append(req.Topics, t)
		}
		last := &req.Topics[len(req.Topics)-1]
		last.Partitions = append(last.Partitions, tp.partition)
	}
	var resps []*kmsg.DescribeProducersResponse
	if broker != nil {
		kr, err := cl.Broker(int(*broker)).Request(ctx, req)
		if err != nil {
			return nil, err
		}
		resps = append(resps, kr.(*kmsg.DescribeProducersResponse))
	} else {
		for _, sh := range cl.RequestSharded(ctx, req) {
			if sh.Err != nil {
				return nil, sh.Err
			}
			resps = append(resps, sh.Resp.(*kmsg.DescribeProducersResponse))
		}
	}
	out := map[topicPartition][]activeProducer{}
	for _, resp := range resps {
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				tp := topicPartition{rt.Topic, rp.Partition}
				if ke := kerr.ErrorForCode(rp.ErrorCode); ke != nil {
					var kke *kerr.Error
					errors.As(ke, &kke)
					msg := kke.Description
					if rp.ErrorMessage != nil && *rp.ErrorMessage != "" {
						msg = *rp.ErrorMessage
					}
					return nil, &partitionError{err: kke, msg: msg}
				}
				out[tp] = append(out[tp], rp.ActiveProducers...)
			}
		}
	}
	for _, tp := range tps {
		if _, ok := out[tp]; !ok {
			return nil, fmt.Errorf("no answer for partition %s", tp)
		}
	}
	return out, nil
}

var producersHeaders = []string{"ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp", "CurrentTransactionStartOffset"}

// describeProducersCmd is the describe-producers command.
func describeProducersCmd(ctx context.Context, cl *kgo.Client, o Options, out, errOut io.Writer) error {
	tp := topicPartition{o.Topic, *o.Partition}
	producers, err := describeProducers(ctx, cl, []topicPartition{tp}, o.BrokerID)
	if err != nil {
		on := "leader"
		if o.BrokerID != nil {
			on = "broker " + strconv.Itoa(int(*o.BrokerID))
		}
		return failure(errOut, "Failed to describe producers for partition "+tp.String()+" on "+on, err)
	}
	var rows [][]string
	for _, p := range producers[tp] {
		start := "None"
		if p.CurrentTxnStartOffset >= 0 {
			start = strconv.FormatInt(p.CurrentTxnStartOffset, 10)
		}
		rows = append(rows, []string{strconv.FormatInt(p.ProducerID, 10), strconv.Itoa(int(p.ProducerEpoch)),
			strconv.Itoa(int(coordinatorEpoch(p))), strconv.Itoa(int(p.LastSequence)), strconv.FormatInt(p.LastTimestamp, 10), start})
	}
	printTable(out, producersHeaders, rows)
	return nil
}

// coordinatorEpoch is Java's coordinatorEpoch().orElse(-1).
func coordinatorEpoch(p activeProducer) int32 { return max(p.CoordinatorEpoch, -1) }
