package offsetsrec

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Key versions.
const (
	KeyOffsetV0 int16 = 0 // offset commit, pre-0.10 brokers
	KeyOffsetV1 int16 = 1 // offset commit, what brokers write
	KeyGroup    int16 = 2 // group metadata
)

// Key is a decoded record key: an offset commit key (Version 0 or 1) names
// a group's committed position on one partition, a group key (Version 2) a
// group's metadata.
type Key struct {
	Version   int16
	Group     string
	Topic     string // offset keys only
	Partition int32  // offset keys only
}

// IsOffset reports whether the key is an offset commit key.
func (k Key) IsOffset() bool { return k.Version == KeyOffsetV0 || k.Version == KeyOffsetV1 }

// OffsetKey is the key Kafka writes for a commit: version 1.
func OffsetKey(group, topic string, partition int32) Key {
	return Key{Version: KeyOffsetV1, Group: group, Topic: topic, Partition: partition}
}

// GroupKey is the key of a group's metadata record.
func GroupKey(group string) Key { return Key{Version: KeyGroup, Group: group} }

// ParseKey decodes a record key.
func ParseKey(b []byte) (Key, error) {
	v, err := version("key", b)
	if err != nil {
		return Key{}, err
	}
	switch v {
	case KeyOffsetV0, KeyOffsetV1:
		var k kmsg.OffsetCommitKey
		if err := decodeExact("offset commit key", b, &k); err != nil {
			return Key{Version: v}, err
		}
		return Key{Version: v, Group: k.Group, Topic: k.Topic, Partition: k.Partition}, nil
	case KeyGroup:
		var k kmsg.GroupMetadataKey
		if err := decodeExact("group metadata key", b, &k); err != nil {
			return Key{Version: v}, err
		}
		return Key{Version: v, Group: k.Group}, nil
	}
	return Key{Version: v}, fmt.Errorf("%w: key version %d", ErrUnknownVersion, v)
}

// AppendTo appends the encoded key.
func (k Key) AppendTo(dst []byte) ([]byte, error) {
	if err := stringsFit(field("group", &k.Group), field("topic", &k.Topic)); err != nil {
		return dst, err
	}
	switch k.Version {
	case KeyOffsetV0, KeyOffsetV1:
		return (&kmsg.OffsetCommitKey{Version: k.Version, Group: k.Group, Topic: k.Topic, Partition: k.Partition}).AppendTo(dst), nil
	case KeyGroup:
		return (&kmsg.GroupMetadataKey{Version: k.Version, Group: k.Group}).AppendTo(dst), nil
	}
	return dst, fmt.Errorf("%w: key version %d", ErrUnknownVersion, k.Version)
}
