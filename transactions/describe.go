package transactions

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

var describeHeaders = []string{"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState",
	"TransactionTimeoutMs", "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"}

// describe is the describe command: one transactional id's state at its
// coordinator. The start time and duration print None when no
// transaction is open.
func describe(ctx context.Context, adm *kadm.Client, o Options, out, errOut io.Writer) error {
	id := o.TransactionalID
	what := "Failed to describe transaction state of transactional-id `" + id + "`"
	described, err := adm.DescribeTransactions(ctx, id)
	if err != nil {
		return failure(errOut, what, err)
	}
	d, err := described.On(id, nil)
	if err == nil {
		err = d.Err
	}
	if err != nil {
		return failure(errOut, what, err)
	}
	start, duration := "None", "None"
	if d.StartTimestamp >= 0 {
		start = strconv.FormatInt(d.StartTimestamp, 10)
		duration = strconv.FormatInt(o.now().UnixMilli()-d.StartTimestamp, 10)
	}
	var tps []string
	for _, tp := range d.Topics.Sorted() {
		for _, p := range tp.Partitions {
			tps = append(tps, tp.Topic+"-"+strconv.Itoa(int(p)))
		}
	}
	printTable(out, describeHeaders, [][]string{{
		strconv.Itoa(int(d.Coordinator)), id, strconv.FormatInt(d.ProducerID, 10), strconv.Itoa(int(d.ProducerEpoch)),
		d.State, strconv.Itoa(int(d.TimeoutMillis)), start, duration, strings.Join(tps, ","),
	}})
	return nil
}
