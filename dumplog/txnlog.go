package dumplog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"kafgo/broker/txn/txnrec"
)

// txnLogParser is Kafka's TransactionLogMessageParser
// (--transaction-log-decoder) for __transaction_state records, printing
// what TransactionLog.formatRecordKeyAndValue prints.
type txnLogParser struct{}

var errNoTxnKey = errors.New("failed to decode message using transaction log decoder (message had a missing key)")

func (txnLogParser) parse(key, value []byte) (contents, error) {
	if key == nil {
		return contents{}, errNoTxnKey
	}
	id, err := txnrec.ParseKey(key)
	if err != nil {
		return contents{}, fmt.Errorf("dumplog: transaction log decoder: %w", err)
	}
	c := contents{key: "transaction_metadata::transactionalId=" + javaString([]byte(id)), hasKey: true}
	if value == nil {
		c.payload, c.hasPayload = "<DELETE>", true
		return c, nil
	}
	v, err := txnrec.ParseValue(value)
	if err != nil {
		return c, fmt.Errorf("dumplog: transaction log decoder: %s: %w", c.key, err)
	}
	parts := make([]string, len(v.Partitions))
	for i, tp := range v.Partitions {
		parts[i] = javaString([]byte(tp.Topic)) + "-" + strconv.Itoa(int(tp.Partition))
	}
	c.payload = "producerId:" + strconv.FormatInt(v.ProducerID, 10) +
		",producerEpoch:" + strconv.Itoa(int(v.ProducerEpoch)) +
		",state=" + v.State.String() +
		",partitions=[" + strings.Join(parts, ",") + "]" +
		",txnLastUpdateTimestamp=" + strconv.FormatInt(v.LastUpdateMs, 10) +
		",txnTimeoutMs=" + strconv.Itoa(int(v.TimeoutMs))
	c.hasPayload = true
	return c, nil
}
