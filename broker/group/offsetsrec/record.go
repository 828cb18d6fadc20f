package offsetsrec

import "fmt"

// Record is one decoded __consumer_offsets record: its key and, unless it
// is a tombstone, the value of the key's kind.
type Record struct {
	Key       Key
	Tombstone bool         // null value: the offset or group was deleted
	Offset    *OffsetValue // offset commit keys
	Group     *GroupValue  // group metadata keys
}

// Decode decodes a record's key and value; a nil value is a tombstone.
func Decode(key, value []byte) (Record, error) {
	k, err := ParseKey(key)
	if err != nil {
		return Record{}, err
	}
	rec := Record{Key: k}
	if value == nil {
		rec.Tombstone = true
		return rec, nil
	}
	if k.IsOffset() {
		v, err := ParseOffsetValue(value)
		if err != nil {
			return rec, fmt.Errorf("group %q %s-%d: %w", k.Group, k.Topic, k.Partition, err)
		}
		rec.Offset = &v
		return rec, nil
	}
	v, err := ParseGroupValue(value)
	if err != nil {
		return rec, fmt.Errorf("group %q: %w", k.Group, err)
	}
	rec.Group = &v
	return rec, nil
}
