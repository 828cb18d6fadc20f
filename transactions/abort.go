package transactions

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// abortSpec is Kafka's AbortTransactionSpec.
type abortSpec struct {
	tp               topicPartition
	producerID       int64
	producerEpoch    int16
	coordinatorEpoch int32
}

func (s abortSpec) String() string {
	return fmt.Sprintf("AbortTransactionSpec(topicPartition=%s, producerId=%d, producerEpoch=%d, coordinatorEpoch=%d)",
		s.tp, s.producerID, s.producerEpoch, s.coordinatorEpoch)
}

// abort is the abort command: it writes an ABORT marker for a hanging
// transaction to the partition's leader (Admin.abortTransaction). The
// transaction is named by its start offset (3.0+ brokers: the producer is
// found with DescribeProducers) or by producer id, epoch and coordinator
// epoch.
func abort(ctx context.Context, cl *kgo.Client, adm *kadm.Client, o Options, errOut io.Writer) error {
	tp := topicPartition{o.Topic, *o.Partition}
	if o.StartOffset == nil && o.ProducerID == nil {
		return failure(errOut, "The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or above) "+
			"or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)", nil)
	}
	var spec abortSpec
	if o.StartOffset == nil {
		if o.ProducerEpoch == nil {
			return failure(errOut, "Missing required argument --producer-epoch", nil)
		}
		if o.CoordinatorEpoch == nil {
			return failure(errOut, "Missing required argument --coordinator-epoch", nil)
		}
		// A transaction that hung before its first marker has coordinator
		// epoch -1 in DescribeProducers; 0 is at most any leader epoch.
		spec = abortSpec{tp, *o.ProducerID, *o.ProducerEpoch, max(*o.CoordinatorEpoch, 0)}
	} else {
		producers, err := describeProducers(ctx, cl, []topicPartition{tp}, nil)
		if err != nil {
			return failure(errOut, "Failed to validate producer state for partition "+tp.String(), err)
		}
		found := false
		for _, p := range producers[tp] {
			if p.CurrentTxnStartOffset >= 0 && p.CurrentTxnStartOffset == *o.StartOffset {
				spec = abortSpec{tp, p.ProducerID, int16(p.ProducerEpoch), max(p.CoordinatorEpoch, 0)}
				found = true
				break
			}
		}
		if !found {
			return failure(errOut, fmt.Sprintf("Could not find any open transactions starting at offset %d on partition %s", *o.StartOffset, tp), nil)
		}
	}
	resps, err := adm.WriteTxnMarkers(ctx, kadm.TxnMarkers{
		ProducerID: spec.producerID, ProducerEpoch: spec.producerEpoch, CoordinatorEpoch: spec.coordinatorEpoch,
		Topics: kadm.TopicsSet{tp.topic: {tp.partition: {}}},
	})
	if err == nil {
		err = errors.New("the leader did not answer for the partition")
		resps.EachPartition(func(p kadm.TxnMarkersPartitionResponse) {
			if p.Topic == tp.topic && p.Partition == tp.partition {
				err = p.Err
			}
		})
	}
	if err != nil {
		return failure(errOut, "Failed to abort transaction "+spec.String(), err)
	}
	return nil
}
