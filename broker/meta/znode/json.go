package znode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"kafgo/internal/znodejson"
)

// object writes a JSON object with fields in a fixed order and no
// whitespace, as Kafka writes znodes. Values are encoded without
// encoding/json's HTML escaping, so "<default>" stays "<default>" as Jackson
// writes it.
type object struct {
	buf bytes.Buffer
	n   int
	err error
}

func (o *object) field(name string, v any) {
	if o.err != nil {
		return
	}
	b, err := znodejson.Marshal(v)
	if err != nil {
		o.err = fmt.Errorf("field %q: %w", name, err)
		return
	}
	o.raw(name, b)
}

func (o *object) raw(name string, b []byte) {
	if o.n == 0 {
		o.buf.WriteByte('{')
	} else {
		o.buf.WriteByte(',')
	}
	o.n++
	o.buf.WriteString(strconv.Quote(name)) // field names are plain ASCII
	o.buf.WriteByte(':')
	o.buf.Write(b)
}

func (o *object) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if o.n == 0 {
		return []byte("{}"), nil
	}
	o.buf.WriteByte('}')
	return o.buf.Bytes(), nil
}

// ints encodes a replica list; nil is written as [] (Kafka never writes null).
func ints(v []int32) []int32 {
	if v == nil {
		return []int32{}
	}
	return v
}

// partitionMap encodes {"<partition>":[replicas],...} with numerically
// sorted keys. Kafka writes a hash map's order; readers do not care, and a
// fixed order makes the bytes reproducible.
func partitionMap(m map[int32][]int32) ([]byte, error) {
	keys := make([]int32, 0, len(m))
	for k := range m {
		if k < 0 {
			return nil, fmt.Errorf("negative partition id %d", k)
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var o object
	for _, k := range keys {
		o.field(strconv.Itoa(int(k)), ints(m[k]))
	}
	return o.bytes()
}

func parsePartitionMap(raw json.RawMessage) (map[int32][]int32, error) {
	out := make(map[int32][]int32)
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	var m map[string][]int32
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		p, err := strconv.ParseInt(k, 10, 32)
		if err != nil || p < 0 {
			return nil, fmt.Errorf("partition key %q is not a partition id", k)
		}
		out[int32(p)] = v
	}
	return out, nil
}

// flexInt reads a JSON number or a decimal string: Kafka writes some
// numbers as strings (timestamps, producer id blocks, /cluster/id's
// version) and tools are not always consistent.
type flexInt int64

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not an integer", b)
	}
	*f = flexInt(n)
	return nil
}

// flexString reads a JSON string, or a number kept as its decimal text.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	s, err := znodejson.Text(b)
	if err != nil {
		return err
	}
	*f = flexString(s)
	return nil
}

// decode unmarshals a znode's JSON; unknown fields are ignored, as Kafka's
// parsers do.
func decode(what string, data []byte, v any) error {
	if err := znodejson.Unmarshal(data, v); err != nil {
		return fmt.Errorf("znode: parse %s: %w", what, err)
	}
	return nil
}

func parseErr(what, format string, args ...any) error {
	return fmt.Errorf("znode: parse %s: "+format, append([]any{what}, args...)...)
}

func marshalErr(what string, err error) error {
	return fmt.Errorf("znode: marshal %s: %w", what, err)
}
