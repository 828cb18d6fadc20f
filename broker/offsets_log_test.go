package broker

import (
	"testing"

	"kafgo/broker/coordlog"
	"kafgo/broker/group"
	"kafgo/broker/partid"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Group offsets go to __consumer_offsets through the replica manager and
// come back from it after a restart.
func TestOffsetsLogSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	b, _ := startTestBroker(t, testConfig(t, dir, map[string]string{"offsets.topic.num.partitions": "3"}))
	ctx := testCtx(t)
	adm := kadm.NewClient(client(t, b))
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "events"); err != nil {
		t.Fatal(err)
	}
	var offsets kadm.Offsets
	offsets.AddOffset("events", 0, 5, -1)
	offsets.AddOffset("events", 1, 9, -1)
	resp, err := adm.CommitOffsets(ctx, "readers", offsets)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Error(); err != nil {
		t.Fatal(err)
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	b2, _ := startTestBroker(t, testConfig(t, dir, map[string]string{"offsets.topic.num.partitions": "3"}))
	p := coordlog.PartitionFor("readers", 3)
	l, ok := b2.logs.Log(partid.TopicPartition{Topic: group.OffsetsTopic, Partition: p})
	if !ok || l.LogEndOffset() == 0 {
		t.Fatalf("__consumer_offsets-%d holds nothing after the commit", p)
	}
	adm2 := kadm.NewClient(client(t, b2))
	fetched, err := adm2.FetchOffsets(ctx, "readers")
	if err != nil {
		t.Fatal(err)
	}
	for part, want := range map[int32]int64{0: 5, 1: 9} {
		got, ok := fetched.Lookup("events", part)
		if !ok || got.Err != nil || got.At != want {
			t.Fatalf("events-%d committed offset after restart: %+v (found %v), want %d", part, got, ok, want)
		}
	}
}
