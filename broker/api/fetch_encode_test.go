package api

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/partid"
	"kafgo/broker/replica"
	"kafgo/broker/storage"
	"kafgo/broker/wire"
)

// flatten reads a parts response into bytes, as the wire would send it.
func flatten(t *testing.T, r *wire.Response) []byte {
	t.Helper()
	var out bytes.Buffer
	out.Write(r.Body)
	for _, p := range r.Parts {
		if p.File == nil {
			out.Write(p.Bytes)
			continue
		}
		if _, err := io.Copy(&out, io.NewSectionReader(p.File, p.Offset, p.Length)); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestFetchEncodingMatchesKmsg checks the zero-copy encoder against kmsg's
// encoder of the same response at every served version.
func TestFetchEncodingMatchesKmsg(t *testing.T) {
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	path := filepath.Join(t.TempDir(), "seg")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	results := []replica.FetchResult{
		{TP: partid.TopicPartition{Topic: "a", Partition: 0}, HighWatermark: 10, LastStableOffset: 10, LogStartOffset: 2,
			Regions: []storage.FileRegion{{File: f, Position: 3, Size: 7}, {File: f, Position: 20, Size: 5}}, Bytes: 12},
		{TP: partid.TopicPartition{Topic: "a", Partition: 1}, Err: kerr.NotLeaderForPartition, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1},
		{TP: partid.TopicPartition{Topic: "b", Partition: 7}, HighWatermark: 5, LastStableOffset: 5, LogStartOffset: 0,
			Diverging: true, DivergingEpoch: 3, DivergingEndOffset: 42},
		{TP: partid.TopicPartition{Topic: "a", Partition: 2}, HighWatermark: 0, LastStableOffset: 0, LogStartOffset: 0},
		// read_committed: records with two aborted transactions, and
		// records with none (an empty, not null, list).
		{TP: partid.TopicPartition{Topic: "c", Partition: 0}, HighWatermark: 9, LastStableOffset: 4, LogStartOffset: 0,
			Regions: []storage.FileRegion{{File: f, Position: 0, Size: 3}}, Bytes: 3,
			AbortedTransactions: []storage.AbortedTxn{{ProducerID: 7, FirstOffset: 1, LastOffset: 3, LastStableOffset: 4}, {ProducerID: 1 << 40, FirstOffset: 2}}},
		{TP: partid.TopicPartition{Topic: "c", Partition: 1}, HighWatermark: 9, LastStableOffset: 9, LogStartOffset: 0,
			Regions: []storage.FileRegion{{File: f, Position: 0, Size: 3}}, Bytes: 3, AbortedTransactions: []storage.AbortedTxn{}},
	}
	for v := int16(4); v <= 12; v++ {
		t.Run("v"+string(rune('0'+v/10))+string(rune('0'+v%10)), func(t *testing.T) {
			got := flatten(t, encodeFetchResponse(v, 0, 77, results))

			want := kmsg.NewPtrFetchResponse()
			want.Version = v
			if v >= 7 {
				want.SessionID = 77
			}
			for _, r := range results {
				var topic *kmsg.FetchResponseTopic
				for i := range want.Topics {
					if want.Topics[i].Topic == r.TP.Topic {
						topic = &want.Topics[i]
					}
				}
				if topic == nil {
					want.Topics = append(want.Topics, kmsg.NewFetchResponseTopic())
					topic = &want.Topics[len(want.Topics)-1]
					topic.Topic = r.TP.Topic
				}
				p := kmsg.NewFetchResponseTopicPartition()
				p.Partition = r.TP.Partition
				p.ErrorCode = errCode(r.Err)
				p.HighWatermark, p.LastStableOffset, p.LogStartOffset = r.HighWatermark, r.LastStableOffset, r.LogStartOffset
				p.PreferredReadReplica = -1
				p.AbortedTransactions = nil
				if r.AbortedTransactions != nil {
					p.AbortedTransactions = []kmsg.FetchResponseTopicPartitionAbortedTransaction{}
					for _, a := range r.AbortedTransactions {
						at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
						at.ProducerID, at.FirstOffset = a.ProducerID, a.FirstOffset
						p.AbortedTransactions = append(p.AbortedTransactions, at)
					}
				}
				if r.Diverging && v >= 12 {
					p.DivergingEpoch.Epoch, p.DivergingEpoch.EndOffset = r.DivergingEpoch, r.DivergingEndOffset
				}
				var recs []byte
				if r.Err == nil {
					for _, reg := range r.Regions {
						recs = append(recs, data[reg.Position:reg.Position+reg.Size]...)
					}
				}
				if recs == nil {
					recs = []byte{}
				}
				p.RecordBatches = recs
				topic.Partitions = append(topic.Partitions, p)
			}
			if exp := want.AppendTo(nil); !bytes.Equal(got, exp) {
				t.Fatalf("v%d encoding differs\n got %x\nwant %x", v, got, exp)
			}
			// And kmsg decodes ours.
			dec := kmsg.NewPtrFetchResponse()
			dec.Version = v
			if err := dec.ReadFrom(got); err != nil {
				t.Fatalf("kmsg cannot decode our v%d response: %v", v, err)
			}
			if string(dec.Topics[0].Partitions[0].RecordBatches) != "3456789klmno" {
				t.Fatalf("records decoded as %q", dec.Topics[0].Partitions[0].RecordBatches)
			}
			c := dec.Topics[2]
			if at := c.Partitions[0].AbortedTransactions; len(at) != 2 || at[1].ProducerID != 1<<40 || at[1].FirstOffset != 2 {
				t.Fatalf("aborted transactions decoded as %+v", at)
			}
			if at := c.Partitions[1].AbortedTransactions; at == nil || len(at) != 0 {
				t.Fatalf("an empty aborted list decoded as %+v", at)
			}
		})
	}
}

// A session error (KIP-227) is a top-level error code with no partitions.
func TestFetchEncodingSessionError(t *testing.T) {
	for v := int16(7); v <= 12; v++ {
		got := flatten(t, encodeFetchResponse(v, kerr.InvalidFetchSessionEpoch.Code, 0, nil))
		want := kmsg.NewPtrFetchResponse()
		want.Version = v
		want.ErrorCode = kerr.InvalidFetchSessionEpoch.Code
		if exp := want.AppendTo(nil); !bytes.Equal(got, exp) {
			t.Fatalf("v%d encoding differs\n got %x\nwant %x", v, got, exp)
		}
	}
}
