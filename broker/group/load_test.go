package group

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/coordlog"
	"kafgo/broker/group/offsetsrec"
	"kafgo/broker/record"
	"kafgo/internal/testing/testwait"
)

// cloneLog copies a fake log, as a new leader's replica would have it.
func cloneLog(l *fakeLog) *fakeLog { return &fakeLog{l.Clone()} }

func TestReplayAfterFailover(t *testing.T) {
	for _, codec := range []record.Codec{record.CodecNone, record.CodecGzip, record.CodecSnappy, record.CodecLZ4, record.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			a := newEnv(t, func(c *Config) { c.Codec = codec })
			a.commit(simpleCommit("s1", off("t", 0, 5), off("t", 1, 6)))
			a.commit(simpleCommit("s1", off("t", 0, 7))) // last value wins
			ids := a.stableGroup(2)
			a.commit(CommitRequest{Group: "g", Generation: 1, MemberID: ids[0], RetentionMs: -1, Offsets: []CommitOffset{off("t1", 0, 100), off("t2", 0, 200)}})
			ch, _ := a.c.DeleteOffsets("g", []TopicPartition{{Topic: "t2", Partition: 0}})
			recv(t, ch)
			a.commit(simpleCommit("gone", off("t", 0, 1)))
			recv(t, a.c.DeleteGroups([]string{"gone"}))
			for _, b := range a.log.Batches[0] {
				if h, _ := record.ParseBatchHeader(b); h.Codec() != codec {
					t.Fatalf("batch written with %v, want %v", h.Codec(), codec)
				}
			}

			b := newEnvWithLog(t, cloneLog(a.log), nil)
			got := b.fetched("s1", TopicPartition{Topic: "t", Partition: 0}, TopicPartition{Topic: "t", Partition: 1})
			if got[TopicPartition{Topic: "t", Partition: 0}] != 7 || got[TopicPartition{Topic: "t", Partition: 1}] != 6 {
				t.Fatalf("s1 offsets %v", got)
			}
			got = b.fetched("g", TopicPartition{Topic: "t1", Partition: 0}, TopicPartition{Topic: "t2", Partition: 0})
			if got[TopicPartition{Topic: "t1", Partition: 0}] != 100 || got[TopicPartition{Topic: "t2", Partition: 0}] != -1 {
				t.Fatalf("g offsets %v", got)
			}
			if d := b.c.DescribeGroup("gone"); d.State != "Dead" {
				t.Fatalf("deleted group came back: %+v", d)
			}
			if d := b.c.DescribeGroup("s1"); d.State != "Empty" || d.ProtocolType != "" {
				t.Fatalf("simple group %+v", d)
			}
			d := b.c.DescribeGroup("g")
			if d.State != "Stable" || d.Protocol != "range" || len(d.Members) != 2 || d.Members[0].MemberID != ids[0] || string(d.Members[1].Assignment) != ids[1] {
				t.Fatalf("loaded group %+v", d)
			}
			// Its members carry on in their generation; the one that does
			// not heartbeat is gone after its session timeout.
			if b.generation() != 1 {
				t.Fatalf("generation %d", b.generation())
			}
			b.clock.Advance(6 * time.Second)
			errIs(t, "heartbeat", b.heartbeat(ids[0], 1), nil)
			b.clock.Advance(4 * time.Second)
			errIs(t, "survivor", b.heartbeat(ids[0], 1), kerr.RebalanceInProgress)
			errIs(t, "silent member", b.heartbeat(ids[1], 1), kerr.UnknownMemberID)
			// Offset deletion respects the loaded subscriptions.
			ch, _ = b.c.DeleteOffsets("g", []TopicPartition{{Topic: "t1", Partition: 0}})
			if errs := recv(t, ch); errs[0] != kerr.GroupSubscribedToTopic {
				t.Fatalf("delete subscribed offset after load: %v", errs)
			}
		})
	}
}

// appendRecords writes hand-made records as one uncompressed batch to
// partition 0.
func appendRecords(t *testing.T, l *fakeLog, recs ...kv) {
	t.Helper()
	appendRecordsTo(t, l, 0, recs...)
}

func appendRecordsTo(t *testing.T, l *fakeLog, p int32, recs ...kv) {
	t.Helper()
	bld := record.NewBuilder(0, record.CodecNone)
	for _, r := range recs {
		bld.Append(1000, r.key, r.value, nil)
	}
	b, err := bld.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(p, -1, b); err != nil {
		t.Fatal(err)
	}
}

func enc(t *testing.T, v interface{ AppendTo([]byte) ([]byte, error) }) []byte {
	t.Helper()
	b, err := v.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Logs written by older brokers use older value versions; all load.
func TestLoadOldVersions(t *testing.T) {
	l := newFakeLog()
	leader := "m1"
	proto := "range"
	okey := func(g, topic string, p int32) []byte { return enc(t, offsetsrec.OffsetKey(g, topic, p)) }
	v0key := enc(t, offsetsrec.Key{Version: 0, Group: "old", Topic: "t", Partition: 9})
	appendRecords(t, l,
		kv{v0key, enc(t, offsetsrec.OffsetValue{Version: 0, Offset: 1, Metadata: "v0", CommitTimestamp: 10})},
		kv{okey("old", "t", 1), enc(t, offsetsrec.OffsetValue{Version: 1, Offset: 2, CommitTimestamp: 10, ExpireTimestamp: 99})},
		kv{okey("old", "t", 2), enc(t, offsetsrec.OffsetValue{Version: 2, Offset: 3, CommitTimestamp: 10})},
		kv{okey("old", "t", 3), enc(t, offsetsrec.OffsetValue{Version: 3, Offset: 4, LeaderEpoch: 2, CommitTimestamp: 10})},
		kv{okey("old", "t", 3), nil}, // deleted again
		kv{enc(t, offsetsrec.GroupKey("g0")), enc(t, offsetsrec.GroupValue{Version: 0, ProtocolType: "consumer", Generation: 5, Protocol: &proto, Leader: &leader,
			Members: []offsetsrec.MemberValue{{MemberID: "m1", ClientID: "c", ClientHost: "/h", SessionTimeout: 10000, Subscription: subscription("t"), Assignment: []byte("a")}}})},
		kv{enc(t, offsetsrec.GroupKey("g1")), enc(t, offsetsrec.GroupValue{Version: 1, ProtocolType: "consumer", Generation: 2})},
		kv{enc(t, offsetsrec.GroupKey("g2")), enc(t, offsetsrec.GroupValue{Version: 2, ProtocolType: "consumer", Generation: 3, CurrentStateTimestamp: 777})},
		kv{enc(t, offsetsrec.GroupKey("g2")), nil},
	)
	appendRecords(t, l, kv{enc(t, offsetsrec.GroupKey("g1")), enc(t, offsetsrec.GroupValue{Version: 3, ProtocolType: "consumer", Generation: 4, CurrentStateTimestamp: 888})})
	e := newEnvWithLog(t, l, nil)
	got := e.fetched("old", TopicPartition{Topic: "t", Partition: 9}, TopicPartition{Topic: "t", Partition: 1}, TopicPartition{Topic: "t", Partition: 2}, TopicPartition{Topic: "t", Partition: 3})
	if got[TopicPartition{Topic: "t", Partition: 9}] != 1 || got[TopicPartition{Topic: "t", Partition: 1}] != 2 || got[TopicPartition{Topic: "t", Partition: 2}] != 3 || got[TopicPartition{Topic: "t", Partition: 3}] != -1 {
		t.Fatalf("old offsets %v", got)
	}
	if d := e.c.DescribeGroup("g0"); d.State != "Stable" || len(d.Members) != 1 || string(d.Members[0].Assignment) != "a" {
		t.Fatalf("g0 %+v", d)
	}
	g, _ := e.c.lockGroup("g1", false)
	if g == nil || g.generation != 4 || g.state != Empty || g.stateTime != 888 {
		t.Fatalf("g1 %+v", g)
	}
	g.mu.Unlock()
	if d := e.c.DescribeGroup("g2"); d.State != "Dead" {
		t.Fatalf("g2 survived its tombstone: %+v", d)
	}
	// The v1 offset's own expiry applies.
	g, _ = e.c.lockGroup("old", false)
	if g.offsets[TopicPartition{Topic: "t", Partition: 1}].expireTime != 99 {
		t.Fatalf("expire time %+v", g.offsets[TopicPartition{Topic: "t", Partition: 1}])
	}
	g.mu.Unlock()
}

func TestLoadingAndNotCoordinator(t *testing.T) {
	// "g" hashes to 103, on partition 1 of 2; "h" (104) on partition 0.
	p, other := coordlog.PartitionFor("g", 2), "h"
	if p != 1 || coordlog.PartitionFor(other, 2) != 0 {
		t.Fatal("test groups must be on different partitions")
	}
	l := newFakeLog()
	appendRecordsTo(t, l, p, kv{enc(t, offsetsrec.OffsetKey("g", "t", 0)), enc(t, offsetsrec.OffsetValue{Version: 3, Offset: 3, LeaderEpoch: -1})})
	l.ReadHold = make(chan struct{})
	clock := newFakeClock()
	cfg := testConfig(clock)
	cfg.NumPartitions = 2
	c := New(cfg, l, nil)
	t.Cleanup(c.Stop)
	c.OnLeadershipChange(OffsetsTopic, p, true, 3)
	c.OnLeadershipChange("some-topic", 1-p, true, 3) // not ours to load

	if r := recv(t, c.JoinGroup(JoinRequest{Group: "g", SessionTimeout: 10000, ProtocolType: "consumer", Protocols: consumerProtos})); r.Err != kerr.CoordinatorLoadInProgress {
		t.Fatalf("join while loading: %+v", r)
	}
	if _, err := c.FetchOffsets("g", nil, false); err != kerr.CoordinatorLoadInProgress {
		t.Fatalf("fetch while loading: %v", err)
	}
	if err := c.Heartbeat(HeartbeatRequest{Group: "g", MemberID: "m"}); err != nil {
		t.Fatalf("heartbeat while loading: %v", err)
	}
	if r := recv(t, c.SyncGroup(SyncRequest{Group: "g", MemberID: "m"})); r.Err != kerr.RebalanceInProgress {
		t.Fatalf("sync while loading: %+v", r)
	}
	if _, err := c.ListGroups(nil); err != kerr.CoordinatorLoadInProgress {
		t.Fatalf("list while loading: %v", err)
	}
	if _, err := c.FetchOffsets(other, nil, false); err != kerr.NotCoordinator {
		t.Fatalf("fetch for a partition we do not lead: %v", err)
	}
	if d := c.DescribeGroup(other); d.Err != kerr.NotCoordinator {
		t.Fatalf("describe %+v", d)
	}
	close(l.ReadHold)
	var res []FetchedOffset
	testwait.For(t, 5*time.Second, "the offsets to load", func() (bool, string) {
		var err *kerr.Error
		res, err = c.FetchOffsets("g", []TopicPartition{{Topic: "t", Partition: 0}}, false)
		return err == nil, fmt.Sprint(err)
	})
	if res[0].Offset != 3 {
		t.Fatalf("loaded offset %+v", res)
	}
}

func TestUnloadAnswersWaiters(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	e.commit(simpleCommit("s", off("t", 0, 1)))
	join := e.c.JoinGroup(joinReq(ids[0])) // waits for ids[1]
	pending(t, join)
	// An ISR change re-announces the leadership: nothing happens.
	e.c.OnLeadershipChange(OffsetsTopic, 0, true, 1)
	pending(t, join)
	e.c.OnLeadershipChange(OffsetsTopic, 0, false, 2)
	errIs(t, "pending join", recv(t, join).Err, kerr.NotCoordinator)
	errIs(t, "heartbeat", e.heartbeat(ids[1], 1), kerr.NotCoordinator)
	if _, err := e.c.FetchOffsets("s", nil, false); err != kerr.NotCoordinator {
		t.Fatalf("fetch after unload: %v", err)
	}
	// Leading again reloads from the log.
	e.c.OnLeadershipChange(OffsetsTopic, 0, true, 3)
	e.waitLoaded()
	if got := e.fetched("s", TopicPartition{Topic: "t", Partition: 0})[TopicPartition{Topic: "t", Partition: 0}]; got != 1 {
		t.Fatalf("after reload: %d", got)
	}
}

func TestStopAnswersWaiters(t *testing.T) {
	e := newEnv(t, nil)
	ids := e.stableGroup(2)
	ch0 := e.c.JoinGroup(joinReq(ids[0]))
	recv(t, e.c.JoinGroup(joinReq(ids[1])))
	recv(t, ch0)
	sync := e.c.SyncGroup(SyncRequest{Group: "g", Generation: 2, MemberID: ids[1]})
	pending(t, sync)
	e.c.Stop()
	errIs(t, "pending sync", recv(t, sync).Err, kerr.NotCoordinator)
	if r := recv(t, e.c.JoinGroup(joinReq(""))); r.Err != kerr.CoordinatorNotAvailable {
		t.Fatalf("join after stop: %+v", r)
	}
}
