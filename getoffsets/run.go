package getoffsets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/javaerr"
	"kafgo/internal/topicpart"
)

// Options are the parsed flags.
type Options struct {
	TopicPartitions    string
	TopicPartitionsSet bool
	Topic              string
	TopicSet           bool
	Partitions         string
	PartitionsSet      bool
	Time               string
	ExcludeInternal    bool
}

// The special --time values (ListOffsetsRequest's timestamps).
const (
	latest        = -1
	earliest      = -2
	maxTimestamp  = -3
	earliestLocal = -4
	latestTiered  = -5
)

// minVersion is the first ListOffsets version that knows each special
// timestamp; the Java admin client fails a partition on an older broker.
var minVersion = map[int64]int16{maxTimestamp: 7, earliestLocal: 8, latestTiered: 9}

// ParseTime reads --time: a name, one of the special numbers or a
// timestamp in ms.
func ParseTime(s string) (int64, error) {
	switch s {
	case "earliest":
		return earliest, nil
	case "latest":
		return latest, nil
	case "max-timestamp":
		return maxTimestamp, nil
	case "earliest-local":
		return earliestLocal, nil
	case "latest-tiered":
		return latestTiered, nil
	}
	ts, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("Malformed time argument %s. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format timestamp", s)
	}
	return ts, nil
}

// failure prints "Error occurred: <msg>" as GetOffsetShell does for its
// TerseExceptions and returns it for exit status 1.
func failure(errOut io.Writer, err error) error {
	fmt.Fprintln(errOut, "Error occurred: "+err.Error())
	return &cliutil.CommandError{Err: err}
}

// Run prints the offsets o asks for, through cl.
func Run(ctx context.Context, cl *kgo.Client, o Options, out, errOut io.Writer) error {
	offsets, err := Fetch(ctx, cl, o, errOut)
	if err != nil {
		return failure(errOut, err)
	}
	keys := make([]topicpart.TP, 0, len(offsets))
	for tp := range offsets {
		keys = append(keys, tp)
	}
	slices.SortFunc(keys, func(a, b topicpart.TP) int { return strings.Compare(a.String(), b.String()) })
	for _, tp := range keys {
		fmt.Fprintf(out, "%s:%d:%d\n", tp.Topic, tp.Partition, offsets[tp])
	}
	return nil
}

// Fetch returns the offset of every selected partition that has one,
// reporting on errOut the partitions it skipped.
func Fetch(ctx context.Context, cl *kgo.Client, o Options, errOut io.Writer) (map[topicpart.TP]int64, error) {
	if o.TopicPartitionsSet && (o.TopicSet || o.PartitionsSet) {
		return nil, errors.New("--topic-partitions cannot be used with --topic or --partitions")
	}
	if o.Time == "" {
		o.Time = "latest"
	}
	ts, err := ParseTime(o.Time)
	if err != nil {
		return nil, err
	}
	var filter Filter
	if o.TopicPartitionsSet {
		filter, err = TopicPartitionsFilter(o.TopicPartitions)
	} else {
		filter, err = TopicAndPartitionsFilter(o.Topic, o.TopicSet, o.Partitions)
	}
	if err != nil {
		return nil, err
	}
	parts, err := selectPartitions(ctx, cl, filter, o.ExcludeInternal)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, errors.New("Could not match any topic-partitions with the specified filters")
	}
	return listOffsets(ctx, cl, parts, ts, errOut)
}

// selectPartitions lists the topics (internal ones unless excluded), keeps
// those the filter allows and their allowed partitions.
func selectPartitions(ctx context.Context, cl *kgo.Client, filter Filter, excludeInternal bool) ([]topicpart.TP, error) {
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("get-offsets: metadata: %w", err)
	}
	var out []topicpart.TP
	for _, t := range resp.Topics {
		if t.Topic == nil || t.ErrorCode != 0 || (t.IsInternal && excludeInternal) || !filter.TopicAllowed(*t.Topic) {
			continue
		}
		for _, p := range t.Partitions {
			if filter.PartitionAllowed(*t.Topic, p.Partition) {
				out = append(out, topicpart.TP{Topic: *t.Topic, Partition: p.Partition})
			}
		}
	}
	return out, nil
}

func listOffsets(ctx context.Context, cl *kgo.Client, parts []topicpart.TP, ts int64, errOut io.Writer) (map[topicpart.TP]int64, error) {
	skip := func(tp topicpart.TP, why string) {
		fmt.Fprintf(errOut, "Skip getting offsets for topic-partition %s due to error: %s\n", tp, why)
	}
	if need, ok := minVersion[ts]; ok {
		if max, err := maxListOffsetsVersion(ctx, cl); err != nil {
			return nil, err
		} else if max < need {
			for _, tp := range parts {
				skip(tp, fmt.Sprintf("org.apache.kafka.common.errors.UnsupportedVersionException: The broker does not support LIST_OFFSETS with version in range [%d,%d]. The supported range is [0,%d].", need, 9, max))
			}
			return map[topicpart.TP]int64{}, nil
		}
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	index := map[string]int{}
	for _, tp := range parts {
		i, ok := index[tp.Topic]
		if !ok {
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = tp.Topic
			req.Topics = append(req.Topics, rt)
			i = len(req.Topics) - 1
			index[tp.Topic] = i
		}
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = tp.Partition, ts, -1
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
	}
	out := map[topicpart.TP]int64{}
	var failed []topicpart.TP
	why := map[topicpart.TP]string{}
	for _, shard := range cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			for _, t := range shard.Req.(*kmsg.ListOffsetsRequest).Topics {
				for _, p := range t.Partitions {
					tp := topicpart.TP{Topic: t.Topic, Partition: p.Partition}
					failed = append(failed, tp)
					why[tp] = javaerr.FromError(shard.Err)
				}
			}
			continue
		}
		for _, t := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				tp := topicpart.TP{Topic: t.Topic, Partition: p.Partition}
				if p.ErrorCode != 0 {
					failed = append(failed, tp)
					why[tp] = javaerr.String(p.ErrorCode, nil)
					continue
				}
				if p.Offset != -1 {
					out[tp] = p.Offset
				}
			}
		}
	}
	topicpart.Sort(failed)
	for _, tp := range failed {
		skip(tp, why[tp])
	}
	return out, nil
}

// maxListOffsetsVersion asks a broker which ListOffsets versions it serves.
func maxListOffsetsVersion(ctx context.Context, cl *kgo.Client) (int16, error) {
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return 0, fmt.Errorf("get-offsets: api versions: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("get-offsets: api versions: %w", err)
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == 2 {
			return k.MaxVersion, nil
		}
	}
	return -1, nil
}
