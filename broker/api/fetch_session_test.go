package api

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/replica"
)

// TestFetchSessionThroughHandler: a v12 full fetch opens a session (KIP-227);
// fetches within it send only what changed, answer only partitions with
// news, and a stale epoch or unknown id is refused with the session errors.
func TestFetchSessionThroughHandler(t *testing.T) {
	s, reps, _ := newReplicaServer(t)
	makeLeader(t, reps, "t", 3, 1, 0, []int32{1}, []int32{1})
	appendTo := func(p int32, n int) {
		t.Helper()
		b := record.NewBuilder(0, record.CodecNone)
		for i := range n {
			b.Append(1700000000000, nil, []byte(fmt.Sprint("v", i)), nil)
		}
		batch, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		res := reps.AppendToLeaders(1, []replica.ProducePartition{{TP: partid.TopicPartition{Topic: "t", Partition: p}, Batches: batch}})
		if res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
	}
	appendTo(0, 2)
	appendTo(1, 3)

	fetch := func(id, epoch int32, offsets map[int32]int64, forget ...int32) *kmsg.FetchResponse {
		t.Helper()
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 12, -1, 10, 1, 1<<20
		req.SessionID, req.SessionEpoch = id, epoch
		if len(offsets) > 0 {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = "t"
			for _, p := range []int32{0, 1, 2} {
				off, ok := offsets[p]
				if !ok {
					continue
				}
				rp := kmsg.NewFetchRequestTopicPartition()
				rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes, rp.LogStartOffset = p, off, 1<<20, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		if len(forget) > 0 {
			ft := kmsg.NewFetchRequestForgottenTopic()
			ft.Topic, ft.Partitions = "t", forget
			req.ForgottenTopics = append(req.ForgottenTopics, ft)
		}
		res := s.handleFetch(&Call{Req: req})()
		resp := kmsg.NewPtrFetchResponse()
		resp.Version = 12
		if err := resp.ReadFrom(flatten(t, res.Raw)); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	answered := func(resp *kmsg.FetchResponse) (ps []int32, records map[int32]int) {
		records = map[int32]int{}
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				ps = append(ps, rp.Partition)
				records[rp.Partition] = len(rp.RecordBatches)
			}
		}
		return ps, records
	}

	full := fetch(0, 0, map[int32]int64{0: 0, 1: 0, 2: 0})
	if full.ErrorCode != 0 || full.SessionID == 0 {
		t.Fatalf("full fetch: error %d session %d", full.ErrorCode, full.SessionID)
	}
	if ps, recs := answered(full); !slices.Equal(ps, []int32{0, 1, 2}) || recs[0] == 0 || recs[1] == 0 || recs[2] != 0 {
		t.Fatalf("full fetch answered %v with %v record bytes", ps, recs)
	}
	id := full.SessionID

	// The consumer moved on partitions 0 and 1; nothing new anywhere.
	resp := fetch(id, 1, map[int32]int64{0: 2, 1: 3})
	if ps, _ := answered(resp); resp.ErrorCode != 0 || resp.SessionID != id || len(ps) != 0 {
		t.Fatalf("quiet incremental fetch: error %d session %d partitions %v", resp.ErrorCode, resp.SessionID, ps)
	}
	// New records on partition 2 only: the answer carries just it, though
	// the request names no partition.
	appendTo(2, 4)
	resp = fetch(id, 2, nil)
	if ps, recs := answered(resp); !slices.Equal(ps, []int32{2}) || recs[2] == 0 {
		t.Fatalf("incremental fetch answered %v with %v record bytes", ps, recs)
	}
	// Partition 2 forgotten: new records there are no longer news.
	appendTo(2, 1)
	resp = fetch(id, 3, map[int32]int64{2: 4}, 2)
	if ps, _ := answered(resp); len(ps) != 0 {
		t.Fatalf("forgotten partition answered: %v", ps)
	}
	// A replayed epoch and an unknown session are refused.
	if resp := fetch(id, 3, nil); resp.ErrorCode != kerr.InvalidFetchSessionEpoch.Code || len(resp.Topics) != 0 {
		t.Fatalf("stale epoch: error %d topics %d", resp.ErrorCode, len(resp.Topics))
	}
	if resp := fetch(id+1, 1, nil); resp.ErrorCode != kerr.FetchSessionIDNotFound.Code {
		t.Fatalf("unknown session: error %d", resp.ErrorCode)
	}
	// Epoch -1 closes the session and answers in full, without one.
	resp = fetch(id, -1, map[int32]int64{0: 2})
	if ps, _ := answered(resp); resp.SessionID != 0 || !slices.Equal(ps, []int32{0}) {
		t.Fatalf("closing fetch: session %d partitions %v", resp.SessionID, ps)
	}
	if resp := fetch(id, 4, nil); resp.ErrorCode != kerr.FetchSessionIDNotFound.Code {
		t.Fatalf("closed session still served: error %d", resp.ErrorCode)
	}
	if st := s.FetchSessions(); st.Sessions != 0 || st.IncrementalFetches != 3 {
		t.Fatalf("session stats %+v", st)
	}
}

// TestRestartingFollowerFetchesInItsSession: a follower not (yet) live in
// the metadata is still served as a replica when it is assigned to the
// partitions it fetches, also in an incremental fetch that names none of
// them (the session does): it reads past the HW.
func TestRestartingFollowerFetchesInItsSession(t *testing.T) {
	s, reps, cache := newReplicaServer(t)
	makeLeader(t, reps, "t", 1, 1, 0, []int32{1, 2}, []int32{1, 2})
	cache.Apply(clusterview.Update{ControllerID: 1, ControllerEpoch: 1, Brokers: []clusterview.Broker{{ID: 1}},
		Partitions: []clusterview.Partition{{Topic: "t", Partition: 0, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2}, Replicas: []int32{1, 2}}}})
	b := record.NewBuilder(0, record.CodecNone)
	b.Append(1700000000000, nil, []byte("v"), nil)
	batch, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if r := reps.AppendToLeaders(1, []replica.ProducePartition{{TP: partid.TopicPartition{Topic: "t", Partition: 0}, Batches: batch}}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	fetch := func(id, epoch int32, withPartition bool) *kmsg.FetchResponse {
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 12, 2, 10, 1, 1<<20
		req.SessionID, req.SessionEpoch = id, epoch
		if withPartition {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = "t"
			rp := kmsg.NewFetchRequestTopicPartition()
			rp.PartitionMaxBytes, rp.LogStartOffset, rp.CurrentLeaderEpoch, rp.LastFetchedEpoch = 1<<20, 0, 0, -1
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
		}
		resp := kmsg.NewPtrFetchResponse()
		resp.Version = 12
		if err := resp.ReadFrom(flatten(t, s.handleFetch(&Call{Req: req})().Raw)); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	records := func(resp *kmsg.FetchResponse) int {
		n := 0
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				n += len(rp.RecordBatches)
			}
		}
		return n
	}
	full := fetch(0, 0, true)
	if full.SessionID == 0 || records(full) == 0 {
		t.Fatalf("full follower fetch: session %d, %d record bytes (HW 0: a consumer would get none)", full.SessionID, records(full))
	}
	// Still at offset 0 (it did not append): the incremental fetch reads
	// the same records again, as a replica.
	if inc := fetch(full.SessionID, 1, false); records(inc) == 0 {
		t.Fatal("incremental fetch of a not-yet-live follower served as a consumer's (nothing past the HW)")
	}
}
