package txnrec

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/partid"
)

// ErrMalformed reports bytes that are not a record of the schema.
var ErrMalformed = kafkaerr.Sentinel(kerr.UnknownServerError, "txnrec: malformed record")

// ErrUnknownVersion reports a schema version this package does not read.
var ErrUnknownVersion = kafkaerr.Sentinel(kerr.UnknownServerError, "txnrec: unknown schema version")

// KeyVersion is the only key version.
const KeyVersion int16 = 0

// ValueVersion is the value version written (Kafka 2.8's).
const ValueVersion int16 = 0

// Value is a transactional id's metadata as logged.
type Value struct {
	ProducerID    int64
	ProducerEpoch int16
	TimeoutMs     int32
	State         State
	// Partitions are the transaction's partitions, sorted by topic then
	// partition.
	Partitions   []partid.TopicPartition
	LastUpdateMs int64
	StartMs      int64 // -1 when no transaction started
}

// AppendKey appends the key of a transactional id.
func AppendKey(dst []byte, transactionalID string) ([]byte, error) {
	if len(transactionalID) > math.MaxInt16 {
		return dst, fmt.Errorf("txnrec: transactional id of %d bytes exceeds the int16 length limit", len(transactionalID))
	}
	return (&kmsg.TxnMetadataKey{Version: KeyVersion, TransactionalID: transactionalID}).AppendTo(dst), nil
}

// ParseKey decodes a key to its transactional id.
func ParseKey(b []byte) (string, error) {
	if len(b) < 2 {
		return "", fmt.Errorf("%w: key of %d bytes has no version", ErrMalformed, len(b))
	}
	if v := int16(binary.BigEndian.Uint16(b)); v != KeyVersion {
		return "", fmt.Errorf("%w: key version %d", ErrUnknownVersion, v)
	}
	var k kmsg.TxnMetadataKey
	if err := k.ReadFrom(b); err != nil {
		return "", fmt.Errorf("%w: key: %v", ErrMalformed, err)
	}
	if n := len(k.AppendTo(nil)); n != len(b) {
		return "", fmt.Errorf("%w: key: %d unexpected trailing bytes", ErrMalformed, len(b)-n)
	}
	return k.TransactionalID, nil
}

// AppendTo appends the value in version 0. An Empty state is written with
// a null partition array and must have no partitions (Kafka's rule).
func (v *Value) AppendTo(dst []byte) ([]byte, error) {
	if !v.State.Valid() {
		return dst, fmt.Errorf("txnrec: state %d is not a transaction state", v.State)
	}
	m := kmsg.NewTxnMetadataValue()
	m.Version = ValueVersion
	m.ProducerID, m.ProducerEpoch, m.TimeoutMillis = v.ProducerID, v.ProducerEpoch, v.TimeoutMs
	m.State = kmsg.TransactionState(v.State)
	m.LastUpdateTimestamp, m.StartTimestamp = v.LastUpdateMs, v.StartMs
	if v.State == Empty {
		if len(v.Partitions) > 0 {
			return dst, fmt.Errorf("txnrec: an Empty transaction cannot have partitions (%d)", len(v.Partitions))
		}
	} else {
		m.Topics = []kmsg.TxnMetadataValueTopic{}
		for _, t := range partid.ByTopic(sortedPartitions(v.Partitions)) {
			if len(t.Topic) > math.MaxInt16 {
				return dst, fmt.Errorf("txnrec: topic of %d bytes exceeds the int16 length limit", len(t.Topic))
			}
			m.Topics = append(m.Topics, kmsg.TxnMetadataValueTopic{Topic: t.Topic, Partitions: t.Partitions})
		}
	}
	return m.AppendTo(dst), nil
}

func sortedPartitions(tps []partid.TopicPartition) []partid.TopicPartition {
	out := slices.Clone(tps)
	slices.SortFunc(out, partid.Compare)
	return slices.Compact(out)
}

// ParseValue decodes a value (version 0 or 1). Partitions are read only
// when the state is not Empty, as Kafka does.
func ParseValue(b []byte) (v Value, err error) {
	if len(b) < 2 {
		return v, fmt.Errorf("%w: value of %d bytes has no version", ErrMalformed, len(b))
	}
	if ver := int16(binary.BigEndian.Uint16(b)); ver < 0 || ver > 1 {
		return v, fmt.Errorf("%w: unknown version %d from the transaction log message value", ErrUnknownVersion, ver)
	}
	m := kmsg.NewTxnMetadataValue()
	defer func() {
		// kmsg checks lengths against what remains; a panic it did not
		// foresee must not take a loading coordinator or a tool down.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrMalformed, r)
		}
	}()
	if err := m.ReadFrom(b); err != nil {
		return v, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if n := len(m.AppendTo(nil)); n != len(b) {
		return v, fmt.Errorf("%w: %d unexpected trailing bytes", ErrMalformed, len(b)-n)
	}
	st := State(m.State)
	if !st.Valid() {
		return v, fmt.Errorf("%w: unknown transaction state byte %d", ErrMalformed, m.State)
	}
	v = Value{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch, TimeoutMs: m.TimeoutMillis, State: st,
		LastUpdateMs: m.LastUpdateTimestamp, StartMs: m.StartTimestamp}
	if st != Empty {
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				v.Partitions = append(v.Partitions, partid.TopicPartition{Topic: t.Topic, Partition: p})
			}
		}
		v.Partitions = sortedPartitions(v.Partitions)
	}
	return v, nil
}
