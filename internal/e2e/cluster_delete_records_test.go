package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestDeleteRecordsWaitsForReplicas: on 3 brokers with RF=3, DeleteRecords
// answers only once every live replica has moved its log start offset, as
// Kafka's DelayedDeleteRecords does: when the answer arrives, each
// follower's admin endpoint already reports the new start. With a follower
// frozen (SIGSTOP) the request times out with the low watermark it reached;
// once the frozen broker's ZooKeeper session expires it no longer counts,
// and after SIGCONT it follows too. Consumers from the start begin at the
// new log start offset.
func TestDeleteRecordsWaitsForReplicas(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	const topic = "trim"
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
	waitFullISR(t, ctx, cl, topic, 1)
	produceN(t, ctx, c.Client(kgo.RequiredAcks(kgo.AllISRAcks())), topic, 0, 100)
	leader, isr := isrOf(t, ctx, cl, topic)
	if len(isr) != 3 {
		t.Fatalf("ISR %v", isr)
	}

	deleteTo := func(offset int64, timeout time.Duration) kadm.DeleteRecordsResponse {
		t.Helper()
		o := kadm.Offsets{}
		o.Add(kadm.Offset{Topic: topic, Partition: 0, At: offset})
		rctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
		defer cancel()
		dadm := kadm.NewClient(cl)
		dadm.SetTimeoutMillis(int32(timeout.Milliseconds()))
		resp, err := dadm.DeleteRecords(rctx, o)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := resp.Lookup(topic, 0)
		if !ok {
			t.Fatalf("no answer for %s-0: %+v", topic, resp)
		}
		return r
	}

	r := deleteTo(40, 30*time.Second)
	if r.Err != nil || r.LowWatermark != 40 {
		t.Fatalf("DeleteRecords to 40: low watermark %d, %v", r.LowWatermark, r.Err)
	}
	// No waiting here: the answer means every replica has followed.
	for _, b := range c.Brokers() {
		if got := adminLogStart(t, b, topic); got != 40 {
			t.Fatalf("broker %d reports log start %d right after the answer, want 40", b.ID, got)
		}
	}

	var frozen *testcluster.Broker
	for _, b := range c.Brokers() {
		if b.ID != leader {
			frozen = b
			break
		}
	}
	frozen.Pause()
	resumed := false
	defer func() {
		if !resumed {
			frozen.Resume()
		}
	}()
	r = deleteTo(70, time.Second)
	if !errors.Is(r.Err, kerr.RequestTimedOut) || r.LowWatermark != 40 {
		t.Fatalf("with broker %d frozen: low watermark %d, %v; want REQUEST_TIMED_OUT at 40", frozen.ID, r.LowWatermark, r.Err)
	}
	// Once its session expires the frozen broker is not live and does not
	// hold the answer back.
	start := time.Now()
	r = deleteTo(70, 60*time.Second)
	if r.Err != nil || r.LowWatermark != 70 {
		t.Fatalf("DeleteRecords to 70: low watermark %d, %v", r.LowWatermark, r.Err)
	}
	t.Logf("with broker %d frozen the answer came after %v (its session expiring)", frozen.ID, time.Since(start).Round(time.Millisecond))
	frozen.Resume()
	resumed = true
	testwait.For(t, 90*time.Second, fmt.Sprintf("broker %d following the log start offset", frozen.ID), func() (bool, string) {
		got := adminLogStartOrErr(frozen, topic)
		return got == 70, fmt.Sprint("log start ", got)
	})

	lo, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := lo.Lookup(topic, 0); o.Err != nil || o.Offset != 70 {
		t.Fatalf("ListOffsets earliest: %+v", o)
	}
	rcl := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	fs := rcl.PollFetches(ctx)
	if err := fs.Err0(); err != nil {
		t.Fatal(err)
	}
	if recs := fs.Records(); len(recs) == 0 || recs[0].Offset != 70 || string(recs[0].Value) != "70" {
		t.Fatalf("first record from the start: %+v", recs)
	}
}

// adminLogStart is the log start offset broker b reports for topic-0 on
// its admin endpoint.
func adminLogStart(t *testing.T, b *testcluster.Broker, topic string) int64 {
	t.Helper()
	got := adminLogStartOrErr(b, topic)
	if got < -1 {
		t.Fatalf("broker %d: no admin answer for %s-0", b.ID, topic)
	}
	return got
}

// adminLogStartOrErr is adminLogStart answering -2 when the endpoint fails
// or does not host the partition, for polling.
func adminLogStartOrErr(b *testcluster.Broker, topic string) int64 {
	parts, err := adminPartitions(b)
	if err != nil {
		return -2
	}
	for _, p := range parts {
		if p.Topic == topic && p.Partition == 0 {
			return p.LogStartOffset
		}
	}
	return -2
}
