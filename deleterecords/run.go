package deleterecords

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/javaerr"
	"kafgo/internal/topicpart"
)

// timeoutMs is the time each leader may wait for its followers to delete
// too (the admin client's default.api.timeout.ms, 60 s).
const timeoutMs = 60000

// Result is one partition's outcome: its new log start offset, or an
// error in Java's words.
type Result struct {
	TP           topicpart.TP
	LowWatermark int64
	Err          string
}

// Run deletes the records the file at path names, through cl, printing
// Kafka's output on out.
func Run(ctx context.Context, cl *kgo.Client, path string, out io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("delete-records: %w", err)
	}
	targets, err := ParseJSON(data)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Executing records delete operation")
	results, err := Delete(ctx, cl, targets)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Records delete operation completed:")
	Print(out, results)
	return nil
}

// Print writes one line per partition, sorted.
func Print(out io.Writer, results []Result) {
	by := make(map[topicpart.TP]Result, len(results))
	tps := make([]topicpart.TP, 0, len(results))
	for _, r := range results {
		by[r.TP] = r
		tps = append(tps, r.TP)
	}
	topicpart.Sort(tps)
	for _, tp := range tps {
		r := by[tp]
		if r.Err != "" {
			fmt.Fprintf(out, "partition: %s\terror: %s\n", tp, r.Err)
		} else {
			fmt.Fprintf(out, "partition: %s\tlow_watermark: %d\n", tp, r.LowWatermark)
		}
	}
}

// Delete sends DeleteRecords to the leader of each target (kgo shards the
// request by leader). A partition the metadata does not know fails with
// UNKNOWN_TOPIC_OR_PARTITION without being sent.
func Delete(ctx context.Context, cl *kgo.Client, targets []Target) ([]Result, error) {
	known, err := partitions(ctx, cl, targets)
	if err != nil {
		return nil, err
	}
	var results []Result
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = timeoutMs
	index := map[string]int{}
	for _, t := range targets {
		if !known[t.TP] {
			results = append(results, Result{TP: t.TP, LowWatermark: -1, Err: javaerr.String(kerr.UnknownTopicOrPartition.Code, nil)})
			continue
		}
		i, ok := index[t.TP.Topic]
		if !ok {
			rt := kmsg.NewDeleteRecordsRequestTopic()
			rt.Topic = t.TP.Topic
			req.Topics = append(req.Topics, rt)
			i = len(req.Topics) - 1
			index[t.TP.Topic] = i
		}
		rp := kmsg.NewDeleteRecordsRequestTopicPartition()
		rp.Partition, rp.Offset = t.TP.Partition, t.Offset
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
	}
	if len(req.Topics) == 0 {
		return results, nil
	}
	for _, shard := range cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			sent := shard.Req.(*kmsg.DeleteRecordsRequest)
			for _, t := range sent.Topics {
				for _, p := range t.Partitions {
					results = append(results, Result{TP: topicpart.TP{Topic: t.Topic, Partition: p.Partition}, LowWatermark: -1, Err: javaerr.FromError(shard.Err)})
				}
			}
			continue
		}
		resp := shard.Resp.(*kmsg.DeleteRecordsResponse)
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				r := Result{TP: topicpart.TP{Topic: t.Topic, Partition: p.Partition}, LowWatermark: p.LowWatermark}
				if p.ErrorCode != 0 {
					r.Err = javaerr.String(p.ErrorCode, nil)
				}
				results = append(results, r)
			}
		}
	}
	return results, nil
}

// partitions reports which targets exist, from one Metadata request that
// does not create topics.
func partitions(ctx context.Context, cl *kgo.Client, targets []Target) (map[topicpart.TP]bool, error) {
	req := kmsg.NewPtrMetadataRequest()
	seen := map[string]bool{}
	for _, t := range targets {
		if !seen[t.TP.Topic] {
			seen[t.TP.Topic] = true
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t.TP.Topic)
			req.Topics = append(req.Topics, rt)
		}
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("delete-records: metadata: %w", err)
	}
	known := map[topicpart.TP]bool{}
	for _, t := range resp.Topics {
		if t.ErrorCode != 0 || t.Topic == nil {
			continue
		}
		for _, p := range t.Partitions {
			known[topicpart.TP{Topic: *t.Topic, Partition: p.Partition}] = true
		}
	}
	return known, nil
}
