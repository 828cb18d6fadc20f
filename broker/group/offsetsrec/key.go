package offsetsrec

import "fmt"

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
	r := reader{b: b, what: "key"}
	k := Key{Version: r.int16("version")}
	if r.err != nil {
		return k, r.err
	}
	switch k.Version {
	case KeyOffsetV0, KeyOffsetV1:
		r.what = "offset commit key"
		k.Group = r.string("group")
		k.Topic = r.string("topic")
		k.Partition = r.int32("partition")
	case KeyGroup:
		r.what = "group metadata key"
		k.Group = r.string("group")
	default:
		return k, fmt.Errorf("%w: key version %d", ErrUnknownVersion, k.Version)
	}
	return k, r.done()
}

// AppendTo appends the encoded key.
func (k Key) AppendTo(dst []byte) ([]byte, error) {
	w := writer{b: appendInt16(dst, k.Version)}
	switch k.Version {
	case KeyOffsetV0, KeyOffsetV1:
		w.string("group", k.Group)
		w.string("topic", k.Topic)
		w.b = appendInt32(w.b, k.Partition)
	case KeyGroup:
		w.string("group", k.Group)
	default:
		return dst, fmt.Errorf("%w: key version %d", ErrUnknownVersion, k.Version)
	}
	if w.err != nil {
		return dst, w.err
	}
	return w.b, nil
}
