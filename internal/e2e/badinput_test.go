package e2e

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/record"
	"kafgo/broker/wire"
	"kafgo/internal/testing/testcluster"
)

// closedAfter sends raw bytes and reports whether the broker closed the
// connection (without answering) within the timeout.
func closedAfter(t *testing.T, addr string, payload []byte) bool {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write(payload); err != nil {
		return true
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64)
	n, err := conn.Read(buf)
	return n == 0 && (errors.Is(err, io.EOF) || isReset(err))
}

func isReset(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne) && !ne.Timeout()
}

func frame(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func produceBatch(t *testing.T, value []byte) []byte {
	t.Helper()
	b := record.NewBuilder(0, record.CodecNone)
	b.Append(time.Now().UnixMilli(), nil, value, nil)
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func produceRequest(topic string, partition int32, records []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Version = 7
	req.Acks = 1
	req.TimeoutMillis = 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = partition
	rp.Records = records
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

func produceCode(t *testing.T, cl *wire.Client, req *kmsg.ProduceRequest) int16 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cl.Request(ctx, req)
	if err != nil {
		t.Fatalf("produce: %v", err)
	}
	return resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode
}

// TestBadInputKeepsServingAndStoresNothing: malformed frames close the
// connection, invalid records get Kafka's error codes, and afterwards the
// broker still serves and its logs are unchanged.
func TestBadInputKeepsServingAndStoresNothing(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{"message.max.bytes": "10000", "auto.create.topics.enable": "false"}})
	addr := c.Addrs()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adm := c.Admin()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "victim"); err != nil {
		t.Fatal(err)
	}
	cl, err := wire.Dial(ctx, addr, "bad-input-test")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if code := produceCode(t, cl, produceRequest("victim", 0, produceBatch(t, []byte("good")))); code != 0 {
		t.Fatalf("valid produce: %v", kerr.ErrorForCode(code))
	}
	endsBefore, err := adm.ListEndOffsets(ctx, "victim")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("frames", func(t *testing.T) {
		hdr := func(key, version int16) []byte {
			b := binary.BigEndian.AppendUint16(nil, uint16(key))
			b = binary.BigEndian.AppendUint16(b, uint16(version))
			b = binary.BigEndian.AppendUint32(b, 1)
			return binary.BigEndian.AppendUint16(b, 0xffff) // null client id
		}
		for name, payload := range map[string][]byte{
			"oversize frame":    binary.BigEndian.AppendUint32(nil, 200<<20),
			"negative size":     binary.BigEndian.AppendUint32(nil, 0x80000000),
			"unknown api key":   frame(hdr(999, 0)),
			"unserved version":  frame(hdr(0, 99)),
			"truncated request": frame(append(hdr(3, 9), 0x05)),
			"garbage":           []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		} {
			if !closedAfter(t, addr, payload) {
				t.Errorf("%s: connection not closed", name)
			}
		}
	})

	t.Run("records", func(t *testing.T) {
		corrupt := produceBatch(t, []byte("bad crc"))
		corrupt[len(corrupt)-1] ^= 0xff
		big := produceBatch(t, make([]byte, 20000))
		two := append(produceBatch(t, []byte("a")), produceBatch(t, []byte("b"))...)
		for name, tc := range map[string]struct {
			req  *kmsg.ProduceRequest
			want *kerr.Error
		}{
			"corrupt crc":       {produceRequest("victim", 0, corrupt), kerr.CorruptMessage},
			"too large":         {produceRequest("victim", 0, big), kerr.MessageTooLarge},
			"two batches":       {produceRequest("victim", 0, two), kerr.InvalidRecord},
			"torn batch":        {produceRequest("victim", 0, corrupt[:40]), kerr.CorruptMessage},
			"unknown topic":     {produceRequest("no-such-topic", 0, produceBatch(t, []byte("x"))), kerr.UnknownTopicOrPartition},
			"unknown partition": {produceRequest("victim", 7, produceBatch(t, []byte("x"))), kerr.UnknownTopicOrPartition},
		} {
			if got := produceCode(t, cl, tc.req); got != tc.want.Code {
				t.Errorf("%s: error %v, want %v", name, kerr.ErrorForCode(got), tc.want)
			}
		}
		bad := produceRequest("victim", 0, produceBatch(t, []byte("x")))
		bad.Acks = 2
		if got := produceCode(t, cl, bad); got != kerr.InvalidRequiredAcks.Code {
			t.Errorf("acks=2: %v", kerr.ErrorForCode(got))
		}
	})

	// Still serving, and nothing stored by any of it.
	endsAfter, err := adm.ListEndOffsets(ctx, "victim")
	if err != nil {
		t.Fatalf("broker stopped serving: %v", err)
	}
	endsBefore.Each(func(o kadm.ListedOffset) {
		if a, _ := endsAfter.Lookup(o.Topic, o.Partition); a.Offset != o.Offset {
			t.Fatalf("%s-%d end offset moved from %d to %d", o.Topic, o.Partition, o.Offset, a.Offset)
		}
	})
	if topics, err := adm.ListTopics(ctx); err != nil || topics.Has("no-such-topic") {
		t.Fatalf("unknown topic created or listing failed: %v", err)
	}
}
