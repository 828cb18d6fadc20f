package replica

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// The debugging consumer (replica id -2, kafka-replica-verification's)
// reads a follower up to the follower's high watermark; other consumers
// still get NOT_LEADER from it.
func TestDebuggingConsumerReadsFollower(t *testing.T) {
	m, _, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
	if res := m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 10)}}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	followerFetch(m, 2, 10) // HW 10
	if code := m.HandleLeaderAndISR(leaderAndISR(2, 1, []int32{1, 2}, []int32{2, 1})).Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("becoming follower: %v", kerr.ErrorForCode(code))
	}
	read := func(id int32) FetchResult {
		return m.Fetch(context.Background(), FetchRequest{ReplicaID: id, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
			TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}}})[0]
	}
	if r := read(-1); !errors.Is(r.Err, kerr.NotLeaderForPartition) {
		t.Fatalf("a consumer read the follower: %+v", r)
	}
	r := read(DebuggingConsumerID)
	if r.Err != nil || r.Bytes == 0 || r.HighWatermark != 10 {
		t.Fatalf("debugging consumer on the follower: err %v, %d bytes, HW %d", r.Err, r.Bytes, r.HighWatermark)
	}
}
