package offsetsrec

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

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
	ver, err := version("offset commit value", b)
	if err != nil {
		return OffsetValue{LeaderEpoch: -1, ExpireTimestamp: -1}, err
	}
	v := OffsetValue{Version: ver, LeaderEpoch: -1, ExpireTimestamp: -1}
	if ver < OffsetV0 || ver > OffsetV3 {
		return v, fmt.Errorf("%w: offset commit value version %d", ErrUnknownVersion, ver)
	}
	var k kmsg.OffsetCommitValue
	if err := decodeExact("offset commit value", b, &k); err != nil {
		return v, err
	}
	v.Offset, v.Metadata, v.CommitTimestamp = k.Offset, k.Metadata, k.CommitTimestamp
	if ver == OffsetV3 {
		v.LeaderEpoch = k.LeaderEpoch
	}
	if ver == OffsetV1 {
		v.ExpireTimestamp = k.ExpireTimestamp
	}
	return v, nil
}

// AppendTo appends the encoded value at v.Version.
func (v OffsetValue) AppendTo(dst []byte) ([]byte, error) {
	if v.Version < OffsetV0 || v.Version > OffsetV3 {
		return dst, fmt.Errorf("%w: offset commit value version %d", ErrUnknownVersion, v.Version)
	}
	if err := stringsFit(field("metadata", &v.Metadata)); err != nil {
		return dst, err
	}
	k := kmsg.OffsetCommitValue{Version: v.Version, Offset: v.Offset, LeaderEpoch: v.LeaderEpoch,
		Metadata: v.Metadata, CommitTimestamp: v.CommitTimestamp, ExpireTimestamp: v.ExpireTimestamp}
	return k.AppendTo(dst), nil
}
