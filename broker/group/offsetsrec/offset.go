package offsetsrec

import "fmt"

// Offset commit value versions.
const (
	OffsetV0 int16 = 0
	OffsetV1 int16 = 1 // carries expire_timestamp
	OffsetV2 int16 = 2
	OffsetV3 int16 = 3 // carries leader_epoch; the default since Kafka 2.1
)

// OffsetValue is a committed offset. Fields a version lacks decode as -1
// (LeaderEpoch, ExpireTimestamp) and are not written.
type OffsetValue struct {
	Version         int16
	Offset          int64
	LeaderEpoch     int32 // v3; -1 = none
	Metadata        string
	CommitTimestamp int64 // ms; v0 calls it timestamp
	ExpireTimestamp int64 // v1; -1 = none
}

// ParseOffsetValue decodes an offset commit value (not a tombstone: the
// caller checks for a null value first).
func ParseOffsetValue(b []byte) (OffsetValue, error) {
	r := reader{b: b, what: "offset commit value"}
	v := OffsetValue{Version: r.int16("version"), LeaderEpoch: -1, ExpireTimestamp: -1}
	if r.err != nil {
		return v, r.err
	}
	if v.Version < OffsetV0 || v.Version > OffsetV3 {
		return v, fmt.Errorf("%w: offset commit value version %d", ErrUnknownVersion, v.Version)
	}
	v.Offset = r.int64("offset")
	if v.Version == OffsetV3 {
		v.LeaderEpoch = r.int32("leader_epoch")
	}
	v.Metadata = r.string("metadata")
	v.CommitTimestamp = r.int64("commit_timestamp")
	if v.Version == OffsetV1 {
		v.ExpireTimestamp = r.int64("expire_timestamp")
	}
	return v, r.done()
}

// AppendTo appends the encoded value at v.Version.
func (v OffsetValue) AppendTo(dst []byte) ([]byte, error) {
	if v.Version < OffsetV0 || v.Version > OffsetV3 {
		return dst, fmt.Errorf("%w: offset commit value version %d", ErrUnknownVersion, v.Version)
	}
	w := writer{b: appendInt16(dst, v.Version)}
	w.b = appendInt64(w.b, v.Offset)
	if v.Version == OffsetV3 {
		w.b = appendInt32(w.b, v.LeaderEpoch)
	}
	w.string("metadata", v.Metadata)
	w.b = appendInt64(w.b, v.CommitTimestamp)
	if v.Version == OffsetV1 {
		w.b = appendInt64(w.b, v.ExpireTimestamp)
	}
	if w.err != nil {
		return dst, w.err
	}
	return w.b, nil
}
