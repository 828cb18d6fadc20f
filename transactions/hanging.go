package transactions

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// maxBatch bounds the partitions of one DescribeProducers, as Kafka's tool
// does.
const maxBatch = 500

var hangingHeaders = []string{"Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch", "StartOffset", "LastTimestamp", "Duration(min)"}

// openTxn is a transaction open on a partition.
type openTxn struct {
	tp topicPartition
	p  activeProducer
}

// findHanging is the find-hanging command: transactions open on the
// partitions searched for longer than --max-transaction-timeout whose
// coordinator does not know them (no transactional id has the producer id,
// the id is gone, or its transaction no longer includes the partition).
func findHanging(ctx context.Context, cl *kgo.Client, adm *kadm.Client, o Options, out, errOut io.Writer) error {
	if o.Topic == "" && o.BrokerID == nil {
		return failure(errOut, "The `find-hanging` command requires either --topic or --broker-id to limit the scope of the search", nil)
	}
	if o.Partition != nil && o.Topic == "" {
		return failure(errOut, "The --partition argument requires --topic to be provided", nil)
	}
	maxTimeout := time.Duration(o.MaxTransactionTimeout) * time.Minute
	tps, err := partitionsToSearch(ctx, adm, o, errOut)
	if err != nil {
		return err
	}
	now := o.now().UnixMilli()
	var candidates []openTxn
	for batch := range slices.Chunk(tps, maxBatch) {
		producers, err := describeProducers(ctx, cl, batch, o.BrokerID)
		if err != nil {
			// Java prints the Optional<Integer> broker id.
			on := "Optional.empty"
			if o.BrokerID != nil {
				on = "Optional[" + strconv.Itoa(int(*o.BrokerID)) + "]"
			}
			return failure(errOut, "Failed to describe producers for "+strconv.Itoa(len(batch))+" partitions on broker "+on, err)
		}
		for _, tp := range batch {
			for _, p := range producers[tp] {
				if p.CurrentTxnStartOffset >= 0 && now-p.LastTimestamp > maxTimeout.Milliseconds() {
					candidates = append(candidates, openTxn{tp, p})
				}
			}
		}
	}
	var hanging []openTxn
	if len(candidates) > 0 {
		if hanging, err = unknownToCoordinators(ctx, adm, candidates, errOut); err != nil {
			return err
		}
	}
	slices.SortFunc(hanging, func(a, b openTxn) int {
		return cmp.Or(strings.Compare(a.tp.topic, b.tp.topic), cmp.Compare(a.tp.partition, b.tp.partition), cmp.Compare(a.p.ProducerID, b.p.ProducerID))
	})
	rows := make([][]string, 0, len(hanging))
	for _, h := range hanging {
		rows = append(rows, []string{h.tp.topic, strconv.Itoa(int(h.tp.partition)), strconv.FormatInt(h.p.ProducerID, 10),
			strconv.Itoa(int(h.p.ProducerEpoch)), strconv.Itoa(int(coordinatorEpoch(h.p))), strconv.FormatInt(max(h.p.CurrentTxnStartOffset, -1), 10),
			strconv.FormatInt(h.p.LastTimestamp, 10), strconv.FormatInt((now-h.p.LastTimestamp)/time.Minute.Milliseconds(), 10)})
	}
	printTable(out, hangingHeaders, rows)
	return nil
}

// partitionsToSearch is --topic [--partition], else every partition (of
// every topic, internal ones included) with a replica on --broker-id.
func partitionsToSearch(ctx context.Context, adm *kadm.Client, o Options, errOut io.Writer) ([]topicPartition, error) {
	if o.Topic != "" && o.Partition != nil {
		return []topicPartition{{o.Topic, *o.Partition}}, nil
	}
	var topics []string
	if o.Topic != "" {
		topics = []string{o.Topic}
	} else {
		listed, err := adm.ListTopicsWithInternal(ctx)
		if err != nil {
			return nil, failure(errOut, "Failed to list topics", err)
		}
		topics = listed.Names()
	}
	var tps []topicPartition
	for batch := range slices.Chunk(topics, maxBatch) {
		described, err := adm.ListTopicsWithInternal(ctx, batch...)
		if err == nil {
			err = described.Error()
		}
		if err != nil {
			return nil, failure(errOut, "Failed to describe "+strconv.Itoa(len(batch))+" topics", err)
		}
		for _, t := range described.Sorted() {
			for _, p := range t.Partitions.Sorted() {
				if o.BrokerID == nil || slices.Contains(p.Replicas, *o.BrokerID) {
					tps = append(tps, topicPartition{t.Topic, p.Partition})
				}
			}
		}
	}
	return tps, nil
}

// unknownToCoordinators keeps the candidates no coordinator will finish:
// their producer id has no transactional id, or its transaction does not
// include their partition.
func unknownToCoordinators(ctx context.Context, adm *kadm.Client, candidates []openTxn, errOut io.Writer) ([]openTxn, error) {
	var pids []int64
	for _, c := range candidates {
		if !slices.Contains(pids, c.p.ProducerID) {
			pids = append(pids, c.p.ProducerID)
		}
	}
	listed, err := adm.ListTransactions(ctx, pids, nil)
	if err != nil {
		return nil, failure(errOut, "Failed to list transactions for "+strconv.Itoa(len(pids))+" producers", err)
	}
	idOf := map[int64]string{}
	for _, l := range listed {
		if slices.Contains(pids, l.ProducerID) {
			idOf[l.ProducerID] = l.TxnID
		}
	}
	var ids []string
	for _, id := range idOf {
		ids = append(ids, id)
	}
	descs := kadm.DescribedTransactions{}
	if len(ids) > 0 {
		if descs, err = adm.DescribeTransactions(ctx, ids...); err != nil {
			return nil, failure(errOut, "Failed to describe "+strconv.Itoa(len(ids))+" transactions", err)
		}
		for _, d := range descs {
			if d.Err != nil && !errors.Is(d.Err, kerr.TransactionalIDNotFound) {
				return nil, failure(errOut, "Failed to describe "+strconv.Itoa(len(ids))+" transactions", d.Err)
			}
		}
	}
	return hangingOf(candidates, idOf, descs), nil
}

// hangingOf is Kafka's filterHangingTransactions: an open transaction is
// hanging when no transactional id has its producer id, when the id is
// not found, or when its coordinator's transaction does not include the
// partition (the coordinator will never write that marker).
func hangingOf(candidates []openTxn, idOf map[int64]string, descs kadm.DescribedTransactions) []openTxn {
	var hanging []openTxn
	for _, c := range candidates {
		id, ok := idOf[c.p.ProducerID]
		if !ok {
			hanging = append(hanging, c)
			continue
		}
		d, ok := descs[id]
		if !ok || d.Err != nil {
			hanging = append(hanging, c)
			continue
		}
		if _, in := d.Topics[c.tp.topic][c.tp.partition]; !in {
			hanging = append(hanging, c)
		}
	}
	return hanging
}
