package api

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/wire"
)

// TestProduceRecyclesRequestBody: Serve hands a Produce request's buffer
// back to wire as soon as the handler returns, and nothing answered or
// stored later reads it: scribbling over the buffer before the acks=all
// reply runs changes neither the response nor the log, whether the reply is
// resolved at once (the leader alone in the ISR) or waits (a follower in
// the ISR that never fetches: it times out).
func TestProduceRecyclesRequestBody(t *testing.T) {
	for _, isr := range [][]int32{{1}, {1, 2}} {
		t.Run(fmt.Sprint("isr", isr), func(t *testing.T) { testProduceRecyclesRequestBody(t, isr) })
	}
}

func testProduceRecyclesRequestBody(t *testing.T, isr []int32) {
	s, reps, _ := newReplicaServer(t)
	makeLeader(t, reps, "t", 2, 1, 0, isr, isr)
	waits := len(isr) > 1

	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis = 8, -1, 100
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "t"
	var want [][]byte
	for p := range int32(2) {
		b := record.NewBuilder(0, record.CodecNone)
		for i := range 50 {
			v := []byte(fmt.Sprintf("p%d-value-%03d-%s", p, i, bytes.Repeat([]byte{'x'}, 200)))
			b.Append(1700000000000, nil, v, nil)
			if p == 1 {
				want = append(want, v)
			}
		}
		batch, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition, rp.Records = p, batch
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)

	// A frame as a client sends it: size, header v1, body.
	var frame []byte
	frame = binary.BigEndian.AppendUint16(frame, uint16(req.Key()))
	frame = binary.BigEndian.AppendUint16(frame, uint16(req.Version))
	frame = binary.BigEndian.AppendUint32(frame, 7)
	frame = binary.BigEndian.AppendUint16(frame, 1)
	frame = append(frame, 'c')
	frame = req.AppendTo(frame)
	wreq, err := wire.ReadRequest(bytes.NewReader(append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...)), 0)
	if err != nil {
		t.Fatal(err)
	}
	body := wreq.Body
	pending := s.Serve(wreq)
	if wreq.Body != nil {
		t.Fatal("Serve kept the produce request's body instead of recycling it")
	}
	for i := range body {
		body[i] = 0xA5 // what the next request read into the buffer would do
	}
	out := pending()
	resp := kmsg.NewPtrProduceResponse()
	resp.Version = req.Version
	if err := resp.ReadFrom(out.Body); err != nil {
		t.Fatal(err)
	}
	for _, p := range resp.Topics[0].Partitions {
		if waits && p.ErrorCode != kerr.RequestTimedOut.Code {
			t.Fatalf("partition %d: error %d, want REQUEST_TIMED_OUT", p.Partition, p.ErrorCode)
		}
		if !waits && (p.ErrorCode != 0 || p.BaseOffset != 0) {
			t.Fatalf("partition %d: error %d base offset %d", p.Partition, p.ErrorCode, p.BaseOffset)
		}
	}
	part, _ := reps.Partition(partid.TopicPartition{Topic: "t", Partition: 1})
	data, err := part.Log().ReadBytes(0, 1<<20, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := record.ParseBatch(data, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Records) != len(want) {
		t.Fatalf("log holds %d records, want %d", len(batch.Records), len(want))
	}
	for i, r := range batch.Records {
		if !bytes.Equal(r.Value, want[i]) {
			t.Fatalf("record %d = %q, want %q", i, r.Value, want[i])
		}
	}
}
