package txnrec

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Golden bytes laid out field by field from TransactionLogKey.json and
// TransactionLogValue.json (version 0). Kafka's own dump of a segment
// shows keySize 15 for "my-txnal-id" and valueSize 37 for an Empty
// transaction, which these match.
func TestKeyGolden(t *testing.T) {
	want := unhex(t, "0000 | 000b 6d792d74786e616c2d6964")
	got, err := AppendKey(nil, "my-txnal-id")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || len(got) != 15 {
		t.Fatalf("key %x, want %x", got, want)
	}
	k := kmsg.TxnMetadataKey{Version: 0, TransactionalID: "my-txnal-id"}
	if b := k.AppendTo(nil); !bytes.Equal(b, want) {
		t.Fatalf("kmsg encodes %x", b)
	}
	id, err := ParseKey(want)
	if err != nil || id != "my-txnal-id" {
		t.Fatalf("parsed %q, %v", id, err)
	}
	for _, bad := range []string{"", "00", "0001 0000", "0000 0005 6162", "0000 0001 6162", "0000 ffff"} {
		if _, err := ParseKey(unhex(t, bad)); err == nil {
			t.Errorf("ParseKey(%s) accepted", bad)
		}
	}
	if _, err := ParseKey(unhex(t, "0001 0000")); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("key version 1: %v", err)
	}
}

func TestValueGolden(t *testing.T) {
	cases := []struct {
		name string
		v    Value
		hex  string
	}{
		{"empty", Value{ProducerID: 0, ProducerEpoch: 0, TimeoutMs: 60000, State: Empty, LastUpdateMs: 1632840910282, StartMs: -1},
			"0000 | 0000000000000000 | 0000 | 0000ea60 | 00 | ffffffff | 0000017c2ce705ca | ffffffffffffffff"},
		{"ongoing", Value{ProducerID: 7, ProducerEpoch: 3, TimeoutMs: 900000, State: Ongoing,
			Partitions:   []partid.TopicPartition{{Topic: "u", Partition: 2}, {Topic: "t", Partition: 1}, {Topic: "t", Partition: 0}},
			LastUpdateMs: 1632840910511, StartMs: 1632840910282},
			"0000 | 0000000000000007 | 0003 | 000dbba0 | 01 | 00000002" +
				"| 0001 74 | 00000002 00000000 00000001" +
				"| 0001 75 | 00000001 00000002" +
				"| 0000017c2ce706af | 0000017c2ce705ca"},
		{"complete commit", Value{ProducerID: 7, ProducerEpoch: 3, TimeoutMs: 900000, State: CompleteCommit, LastUpdateMs: 1, StartMs: 1632840910282},
			"0000 | 0000000000000007 | 0003 | 000dbba0 | 04 | 00000000 | 0000000000000001 | 0000017c2ce705ca"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			got, err := tc.v.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("encoded\n %x\nwant\n %x", got, want)
			}
			back, err := ParseValue(want)
			if err != nil {
				t.Fatal(err)
			}
			norm := tc.v
			norm.Partitions = sortedPartitions(norm.Partitions)
			if len(norm.Partitions) == 0 {
				norm.Partitions = nil
			}
			if !reflect.DeepEqual(back, norm) {
				t.Fatalf("decoded %+v, want %+v", back, norm)
			}
		})
	}
	if n, _ := (&Value{State: Empty, StartMs: -1}).AppendTo(nil); len(n) != 37 {
		t.Fatalf("an Empty value is %d bytes, Kafka's are 37", len(n))
	}
}

// A version 1 value (Kafka 3.5+, flexible) decodes to the same fields.
func TestValueVersion1(t *testing.T) {
	m := kmsg.NewTxnMetadataValue()
	m.Version, m.ProducerID, m.ProducerEpoch, m.TimeoutMillis, m.State = 1, 9, 2, 60000, 1
	m.Topics = []kmsg.TxnMetadataValueTopic{{Topic: "t", Partitions: []int32{4}}}
	m.LastUpdateTimestamp, m.StartTimestamp = 5, 4
	v, err := ParseValue(m.AppendTo(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Value{ProducerID: 9, ProducerEpoch: 2, TimeoutMs: 60000, State: Ongoing, Partitions: []partid.TopicPartition{{Topic: "t", Partition: 4}}, LastUpdateMs: 5, StartMs: 4}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("%+v", v)
	}
}

func TestValueRejects(t *testing.T) {
	if _, err := (&Value{State: Empty, Partitions: []partid.TopicPartition{{Topic: "t"}}}).AppendTo(nil); err == nil {
		t.Error("an Empty state with partitions was encoded")
	}
	if _, err := (&Value{State: 9}).AppendTo(nil); err == nil {
		t.Error("state 9 was encoded")
	}
	good, _ := (&Value{State: Ongoing, Partitions: []partid.TopicPartition{{Topic: "t"}}}).AppendTo(nil)
	badState := bytes.Clone(good)
	badState[16] = 8
	cases := map[string][]byte{
		"empty":           {},
		"version 2":       unhex(t, "0002"),
		"negative":        unhex(t, "ffff"),
		"truncated":       good[:len(good)-1],
		"trailing":        append(bytes.Clone(good), 0),
		"unknown state":   badState,
		"huge array":      append(bytes.Clone(good[:17]), 0x7f, 0xff, 0xff, 0xff),
		"negative string": append(bytes.Clone(good[:21]), 0xff, 0xfe),
	}
	for name, b := range cases {
		if _, err := ParseValue(b); err == nil {
			t.Errorf("%s: accepted %x", name, b)
		}
	}
}

func TestStates(t *testing.T) {
	for s := Empty; s <= PrepareEpochFence; s++ {
		back, ok := ParseState(s.String())
		if !ok || back != s {
			t.Errorf("%d: %q parses to %d", s, s.String(), back)
		}
		if s.String() != kmsg.TransactionState(s).String() {
			t.Errorf("%d: %q, kmsg says %q", s, s, kmsg.TransactionState(s))
		}
	}
	if _, ok := ParseState("Unknown"); ok {
		t.Error("Unknown parsed")
	}
}

func FuzzParse(f *testing.F) {
	good, _ := (&Value{State: Ongoing, Partitions: []partid.TopicPartition{{Topic: "t"}}}).AppendTo(nil)
	f.Add(good)
	f.Add([]byte{0, 0, 0, 1, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := ParseValue(b); err == nil {
			again, err := v.AppendTo(nil)
			if err != nil {
				t.Fatalf("decoded %+v does not encode: %v", v, err)
			}
			if _, err := ParseValue(again); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = ParseKey(b)
	})
}
