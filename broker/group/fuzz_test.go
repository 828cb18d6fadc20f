package group

import (
	"testing"
	"time"

	"kafgo/broker/coordlog"
	"kafgo/broker/group/offsetsrec"
)

// FuzzReplay: any record a __consumer_offsets log may hold folds into a
// replay without panicking, and the groups rebuilt from it are usable.
func FuzzReplay(f *testing.F) {
	proto, leader := "range", "m"
	key := func(k offsetsrec.Key) []byte { b, _ := k.AppendTo(nil); return b }
	val := func(v interface{ AppendTo([]byte) ([]byte, error) }) []byte { b, _ := v.AppendTo(nil); return b }
	f.Add(key(offsetsrec.OffsetKey("g", "t", 0)), val(offsetsrec.OffsetValue{Version: 3, Offset: 1, LeaderEpoch: -1}), false)
	f.Add(key(offsetsrec.GroupKey("g")), val(offsetsrec.GroupValue{Version: 3, ProtocolType: "consumer", Protocol: &proto, Leader: &leader,
		Members: []offsetsrec.MemberValue{{MemberID: "m", SessionTimeout: 1, Subscription: []byte{0, 0, 0, 0, 0, 1, 0, 1, 't'}}}}), false)
	f.Add(key(offsetsrec.GroupKey("g")), []byte(nil), true)
	f.Fuzz(func(t *testing.T, k, v []byte, tombstone bool) {
		if tombstone {
			v = nil
		}
		r := newReplay()
		_ = r.Record(coordlog.BatchInfo{ProducerID: -1}, 0, k, v)
		c := New(testConfig(newFakeClock()), newFakeLog(), nil)
		sh := &shard{groups: map[string]*group{}}
		for id, gv := range r.groups {
			g := c.groupFromRecord(id, sh, gv, time.Unix(0, 0))
			_ = g.selectProtocol()
			_ = g.currentMembers()
		}
	})
}
