package offsetsrec

import (
	"bytes"
	"testing"
)

// FuzzDecode: no input panics; whatever decodes re-encodes to the same
// bytes (every field is kept).
func FuzzDecode(f *testing.F) {
	key, _ := OffsetKey("g", "t", 1).AppendTo(nil)
	gkey, _ := GroupKey("group").AppendTo(nil)
	off, _ := OffsetValue{Version: 3, Offset: 5, LeaderEpoch: 2, Metadata: "x", CommitTimestamp: 1}.AppendTo(nil)
	off1, _ := OffsetValue{Version: 1, Offset: 5, Metadata: "x", CommitTimestamp: 1, ExpireTimestamp: 9}.AppendTo(nil)
	grp, _ := GroupValue{Version: 3, ProtocolType: "consumer", Generation: 2, Protocol: sp("range"), Leader: sp("m"),
		Members: []MemberValue{sampleMember(sp("i"))}}.AppendTo(nil)
	grp0, _ := GroupValue{Version: 0, ProtocolType: "consumer", Members: []MemberValue{{MemberID: "a", SessionTimeout: 3, RebalanceTimeout: 3}}}.AppendTo(nil)
	f.Add(key, off)
	f.Add(key, off1)
	f.Add(gkey, grp)
	f.Add(gkey, grp0)
	f.Add(gkey, []byte(nil))
	f.Fuzz(func(t *testing.T, k, v []byte) {
		rec, err := Decode(k, v)
		if err != nil {
			return
		}
		kb, err := rec.Key.AppendTo(nil)
		if err != nil || !bytes.Equal(kb, k) {
			t.Fatalf("key %x re-encodes as %x (%v)", k, kb, err)
		}
		var vb []byte
		switch {
		case rec.Offset != nil:
			vb, err = rec.Offset.AppendTo(nil)
		case rec.Group != nil:
			vb, err = rec.Group.AppendTo(nil)
		default:
			return
		}
		if err != nil || !bytes.Equal(vb, v) {
			// v0 group members read rebalance_timeout from the session
			// timeout, which v0 does not store: re-encoding is exact.
			t.Fatalf("value %x re-encodes as %x (%v)", v, vb, err)
		}
	})
}
