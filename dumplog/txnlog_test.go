package dumplog

import (
	"strings"
	"testing"

	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/txn/txnrec"
)

// TestTransactionLogDecoder: __transaction_state records print as Kafka's
// TransactionLog.formatRecordKeyAndValue prints them; a tombstone is
// <DELETE>; an undecodable record is reported and the dump goes on.
func TestTransactionLogDecoder(t *testing.T) {
	must := mustBytes(t)
	key := func(id string) []byte { return must(txnrec.AppendKey(nil, id)) }
	val := func(v txnrec.Value) []byte { return must(v.AppendTo(nil)) }
	b := record.NewBuilder(0, record.CodecNone)
	b.Append(baseTime, key("my-txnal-id"), val(txnrec.Value{ProducerID: 0, ProducerEpoch: 0, TimeoutMs: 60000,
		State: txnrec.Empty, LastUpdateMs: 1632840910282, StartMs: -1}), nil)
	b.Append(baseTime, key("my-txnal-id"), val(txnrec.Value{ProducerID: 7, ProducerEpoch: 3, TimeoutMs: 60000, State: txnrec.Ongoing,
		Partitions:   []partid.TopicPartition{{Topic: "t", Partition: 1}, {Topic: "t", Partition: 0}, {Topic: "__consumer_offsets", Partition: 12}},
		LastUpdateMs: 1632840910511, StartMs: 1632840910511}), nil)
	b.Append(baseTime, key("gone"), nil, nil)
	b.Append(baseTime, key("bad"), []byte{0, 0, 1}, nil)
	b.Append(baseTime, nil, []byte("no key"), nil)
	path := writeSegment(t, segName+".log", must(b.Build()))
	stdout, stderr, code := runCommand(t, "--transaction-log-decoder", "--files", path)
	if code != ExitCorrupt {
		t.Errorf("exit %d, want %d", code, ExitCorrupt)
	}
	for _, s := range []string{
		"keySize: 15 valueSize: 37 sequence: -1 headerKeys: [] key: transaction_metadata::transactionalId=my-txnal-id payload: producerId:0,producerEpoch:0,state=Empty,partitions=[],txnLastUpdateTimestamp=1632840910282,txnTimeoutMs=60000\n",
		"headerKeys: [] key: transaction_metadata::transactionalId=my-txnal-id payload: producerId:7,producerEpoch:3,state=Ongoing,partitions=[__consumer_offsets-12,t-0,t-1],txnLastUpdateTimestamp=1632840910511,txnTimeoutMs=60000\n",
		"headerKeys: [] key: transaction_metadata::transactionalId=gone payload: <DELETE>\n",
		"headerKeys: [] key: transaction_metadata::transactionalId=bad\n",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	for _, s := range []string{"Undecodable record (offset 3)", "Undecodable record (offset 4)", "missing key"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	// The offsets decoder wins when both are given, as in Kafka.
	if out, _, _ := runCommand(t, "--transaction-log-decoder", "--offsets-decoder", "--files", path); strings.Contains(out, "transaction_metadata::") {
		t.Errorf("--offsets-decoder did not take precedence:\n%s", out)
	}
}
