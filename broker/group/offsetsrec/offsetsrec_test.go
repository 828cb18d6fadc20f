package offsetsrec

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// unhex reads hex with spaces and | separators, so golden bytes can be laid
// out field by field as Kafka's schemas list them.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sp(s string) *string { return &s }

// The golden bytes below are computed by hand from Kafka's schema
// definitions (OffsetCommitKey/Value.json, GroupMetadataKey/Value.json),
// field by field.
func TestKeyGolden(t *testing.T) {
	cases := []struct {
		name string
		key  Key
		hex  string
	}{
		{"offset v1", OffsetKey("grp", "top", 7), "0001 | 0003 677270 | 0003 746f70 | 00000007"},
		{"offset v0", Key{Version: KeyOffsetV0, Group: "grp", Topic: "top", Partition: 7}, "0000 | 0003 677270 | 0003 746f70 | 00000007"},
		{"group v2", GroupKey("grp"), "0002 | 0003 677270"},
		{"empty group id", GroupKey(""), "0002 | 0000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			got, err := tc.key.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("encoded %x, want %x", got, want)
			}
			back, err := ParseKey(want)
			if err != nil {
				t.Fatal(err)
			}
			if back != tc.key {
				t.Fatalf("decoded %+v, want %+v", back, tc.key)
			}
			// franz-go's kmsg types are generated from Kafka's JSON
			// schemas: an independent encoder to agree with.
			if tc.key.IsOffset() {
				k := kmsg.OffsetCommitKey{Version: tc.key.Version, Group: tc.key.Group, Topic: tc.key.Topic, Partition: tc.key.Partition}
				if b := k.AppendTo(nil); !bytes.Equal(b, want) {
					t.Fatalf("kmsg encodes %x", b)
				}
			} else {
				k := kmsg.GroupMetadataKey{Version: tc.key.Version, Group: tc.key.Group}
				if b := k.AppendTo(nil); !bytes.Equal(b, want) {
					t.Fatalf("kmsg encodes %x", b)
				}
			}
		})
	}
}

func TestOffsetValueGolden(t *testing.T) {
	cases := []struct {
		name string
		v    OffsetValue
		hex  string
	}{
		{"v0", OffsetValue{Version: 0, Offset: 42, LeaderEpoch: -1, Metadata: "m", CommitTimestamp: 1000, ExpireTimestamp: -1},
			"0000 | 000000000000002a | 0001 6d | 00000000000003e8"},
		{"v1", OffsetValue{Version: 1, Offset: 42, LeaderEpoch: -1, Metadata: "m", CommitTimestamp: 1000, ExpireTimestamp: 2000},
			"0001 | 000000000000002a | 0001 6d | 00000000000003e8 | 00000000000007d0"},
		{"v2", OffsetValue{Version: 2, Offset: 42, LeaderEpoch: -1, Metadata: "m", CommitTimestamp: 1000, ExpireTimestamp: -1},
			"0002 | 000000000000002a | 0001 6d | 00000000000003e8"},
		{"v3", OffsetValue{Version: 3, Offset: 42, LeaderEpoch: 5, Metadata: "m", CommitTimestamp: 1000, ExpireTimestamp: -1},
			"0003 | 000000000000002a | 00000005 | 0001 6d | 00000000000003e8"},
		{"v3 no epoch, empty metadata", OffsetValue{Version: 3, Offset: 0, LeaderEpoch: -1, CommitTimestamp: 1, ExpireTimestamp: -1},
			"0003 | 0000000000000000 | ffffffff | 0000 | 0000000000000001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			got, err := tc.v.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("encoded %x, want %x", got, want)
			}
			back, err := ParseOffsetValue(want)
			if err != nil {
				t.Fatal(err)
			}
			if back != tc.v {
				t.Fatalf("decoded %+v, want %+v", back, tc.v)
			}
			k := kmsg.OffsetCommitValue{Version: tc.v.Version, Offset: tc.v.Offset, LeaderEpoch: tc.v.LeaderEpoch,
				Metadata: tc.v.Metadata, CommitTimestamp: tc.v.CommitTimestamp, ExpireTimestamp: tc.v.ExpireTimestamp}
			if b := k.AppendTo(nil); !bytes.Equal(b, want) {
				t.Fatalf("kmsg encodes %x", b)
			}
		})
	}
}

func sampleMember(instance *string) MemberValue {
	return MemberValue{MemberID: "m1", GroupInstanceID: instance, ClientID: "c", ClientHost: "/h",
		RebalanceTimeout: 30000, SessionTimeout: 10000, Subscription: []byte{1, 2}, Assignment: []byte{3}}
}

func TestGroupValueGolden(t *testing.T) {
	const head = "0008 636f6e73756d6572 | 00000003 | 0005 72616e6765 | 0002 6d31"
	cases := []struct {
		name string
		v    GroupValue
		hex  string
	}{
		{"v0", GroupValue{Version: 0, ProtocolType: "consumer", Generation: 3, Protocol: sp("range"), Leader: sp("m1"), CurrentStateTimestamp: -1,
			Members: []MemberValue{{MemberID: "m1", ClientID: "c", ClientHost: "/h", RebalanceTimeout: 10000, SessionTimeout: 10000, Subscription: []byte{1, 2}, Assignment: []byte{3}}}},
			"0000 |" + head + "| 00000001 | 0002 6d31 | 0001 63 | 0002 2f68 | 00002710 | 00000002 0102 | 00000001 03"},
		{"v1", GroupValue{Version: 1, ProtocolType: "consumer", Generation: 3, Protocol: sp("range"), Leader: sp("m1"), CurrentStateTimestamp: -1,
			Members: []MemberValue{sampleMember(nil)}},
			"0001 |" + head + "| 00000001 | 0002 6d31 | 0001 63 | 0002 2f68 | 00007530 | 00002710 | 00000002 0102 | 00000001 03"},
		{"v2", GroupValue{Version: 2, ProtocolType: "consumer", Generation: 3, Protocol: sp("range"), Leader: sp("m1"), CurrentStateTimestamp: 1700000000000,
			Members: []MemberValue{sampleMember(nil)}},
			"0002 |" + head + "| 0000018bcfe56800 | 00000001 | 0002 6d31 | 0001 63 | 0002 2f68 | 00007530 | 00002710 | 00000002 0102 | 00000001 03"},
		{"v3 static", GroupValue{Version: 3, ProtocolType: "consumer", Generation: 3, Protocol: sp("range"), Leader: sp("m1"), CurrentStateTimestamp: 1700000000000,
			Members: []MemberValue{sampleMember(sp("i"))}},
			"0003 |" + head + "| 0000018bcfe56800 | 00000001 | 0002 6d31 | 0001 69 | 0001 63 | 0002 2f68 | 00007530 | 00002710 | 00000002 0102 | 00000001 03"},
		{"v3 dynamic", GroupValue{Version: 3, ProtocolType: "consumer", Generation: 3, Protocol: sp("range"), Leader: sp("m1"), CurrentStateTimestamp: 1700000000000,
			Members: []MemberValue{sampleMember(nil)}},
			"0003 |" + head + "| 0000018bcfe56800 | 00000001 | 0002 6d31 | ffff | 0001 63 | 0002 2f68 | 00007530 | 00002710 | 00000002 0102 | 00000001 03"},
		{"v3 empty group", GroupValue{Version: 3, ProtocolType: "consumer", Generation: 4, CurrentStateTimestamp: 1700000000000},
			"0003 | 0008 636f6e73756d6572 | 00000004 | ffff | ffff | 0000018bcfe56800 | 00000000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			got, err := tc.v.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("encoded\n%x\nwant\n%x", got, want)
			}
			back, err := ParseGroupValue(want)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.v) {
				t.Fatalf("decoded %+v, want %+v", back, tc.v)
			}
			if b := kmsgGroupValue(tc.v).AppendTo(nil); !bytes.Equal(b, want) {
				t.Fatalf("kmsg encodes\n%x", b)
			}
		})
	}
}

func kmsgGroupValue(g GroupValue) *kmsg.GroupMetadataValue {
	gv := kmsg.NewGroupMetadataValue()
	k := &gv
	k.Version = g.Version
	k.ProtocolType = g.ProtocolType
	k.Generation = g.Generation
	k.Protocol = g.Protocol
	k.Leader = g.Leader
	k.CurrentStateTimestamp = g.CurrentStateTimestamp
	for _, m := range g.Members {
		km := kmsg.NewGroupMetadataValueMember()
		km.MemberID, km.InstanceID, km.ClientID, km.ClientHost = m.MemberID, m.GroupInstanceID, m.ClientID, m.ClientHost
		km.RebalanceTimeoutMillis, km.SessionTimeoutMillis = m.RebalanceTimeout, m.SessionTimeout
		km.Subscription, km.Assignment = m.Subscription, m.Assignment
		k.Members = append(k.Members, km)
	}
	return k
}

// Every proper prefix of a valid record, and the record with a trailing
// byte, must fail cleanly.
func TestTruncatedAndTrailing(t *testing.T) {
	key, _ := OffsetKey("group", "topic", 3).AppendTo(nil)
	off, _ := OffsetValue{Version: 3, Offset: 9, LeaderEpoch: 1, Metadata: "meta", CommitTimestamp: 5}.AppendTo(nil)
	grp, _ := GroupValue{Version: 3, ProtocolType: "consumer", Generation: 1, Protocol: sp("range"), Leader: sp("m1"),
		Members: []MemberValue{sampleMember(sp("i")), sampleMember(nil)}}.AppendTo(nil)
	parsers := []struct {
		name  string
		b     []byte
		parse func([]byte) error
	}{
		{"key", key, func(b []byte) error { _, err := ParseKey(b); return err }},
		{"offset", off, func(b []byte) error { _, err := ParseOffsetValue(b); return err }},
		{"group", grp, func(b []byte) error { _, err := ParseGroupValue(b); return err }},
	}
	for _, p := range parsers {
		t.Run(p.name, func(t *testing.T) {
			if err := p.parse(p.b); err != nil {
				t.Fatalf("valid record: %v", err)
			}
			for n := 0; n < len(p.b); n++ {
				if err := p.parse(p.b[:n]); !errors.Is(err, ErrMalformed) {
					t.Fatalf("prefix of %d bytes: err %v, want ErrMalformed", n, err)
				}
			}
			if err := p.parse(append(append([]byte{}, p.b...), 0)); !errors.Is(err, ErrMalformed) {
				t.Fatalf("trailing byte: err %v", err)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name  string
		hex   string
		parse func([]byte) error
		want  error
	}{
		{"key version 3", "0003 0001 61", func(b []byte) error { _, err := ParseKey(b); return err }, ErrUnknownVersion},
		{"negative key version", "ffff", func(b []byte) error { _, err := ParseKey(b); return err }, ErrUnknownVersion},
		{"null group", "0002 ffff", func(b []byte) error { _, err := ParseKey(b); return err }, ErrMalformed},
		{"negative string length", "0002 fffe", func(b []byte) error { _, err := ParseKey(b); return err }, ErrMalformed},
		{"offset value v4", "0004", func(b []byte) error { _, err := ParseOffsetValue(b); return err }, ErrUnknownVersion},
		{"group value v9", "0009", func(b []byte) error { _, err := ParseGroupValue(b); return err }, ErrUnknownVersion},
		// A member count of 2^31-1 must be refused before allocating.
		{"huge member count", "0003 0000 00000001 ffff ffff 0000000000000000 7fffffff", func(b []byte) error { _, err := ParseGroupValue(b); return err }, ErrMalformed},
		{"negative member count", "0003 0000 00000001 ffff ffff 0000000000000000 ffffffff", func(b []byte) error { _, err := ParseGroupValue(b); return err }, ErrMalformed},
		{"null subscription", "0000 0000 00000001 ffff ffff 00000001 0000 0000 0000 00000000 ffffffff 00000000", func(b []byte) error { _, err := ParseGroupValue(b); return err }, ErrMalformed},
		{"huge bytes length", "0000 0000 00000001 ffff ffff 00000001 0000 0000 0000 00000000 7fffffff", func(b []byte) error { _, err := ParseGroupValue(b); return err }, ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.parse(unhex(t, tc.hex)); !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestEncodeLimits(t *testing.T) {
	long := strings.Repeat("x", 1<<15)
	if _, err := OffsetKey(long, "t", 0).AppendTo(nil); err == nil {
		t.Fatal("a group id over 32767 bytes encoded")
	}
	if _, err := (OffsetValue{Version: 3, Metadata: long}).AppendTo(nil); err == nil {
		t.Fatal("metadata over 32767 bytes encoded")
	}
	if _, err := (OffsetValue{Version: 7}).AppendTo(nil); !errors.Is(err, ErrUnknownVersion) {
		t.Fatalf("version 7: %v", err)
	}
	dst := []byte("keep")
	out, err := GroupKey(long).AppendTo(dst)
	if err == nil || string(out) != "keep" {
		t.Fatalf("a failed append changed dst: %q %v", out, err)
	}
}

func TestDecode(t *testing.T) {
	key, _ := OffsetKey("g", "t", 1).AppendTo(nil)
	val, _ := OffsetValue{Version: 3, Offset: 5, LeaderEpoch: -1, CommitTimestamp: 1, ExpireTimestamp: -1}.AppendTo(nil)
	rec, err := Decode(key, val)
	if err != nil || rec.Offset == nil || rec.Offset.Offset != 5 || rec.Tombstone {
		t.Fatalf("offset record: %+v %v", rec, err)
	}
	rec, err = Decode(key, nil)
	if err != nil || !rec.Tombstone || rec.Offset != nil {
		t.Fatalf("tombstone: %+v %v", rec, err)
	}
	gkey, _ := GroupKey("g").AppendTo(nil)
	gval, _ := GroupValue{Version: 3, ProtocolType: "consumer", CurrentStateTimestamp: -1}.AppendTo(nil)
	rec, err = Decode(gkey, gval)
	if err != nil || rec.Group == nil || rec.Group.ProtocolType != "consumer" {
		t.Fatalf("group record: %+v %v", rec, err)
	}
	if _, err := Decode(gkey, val); err == nil {
		t.Fatal("an offset value under a group key decoded")
	}
}
