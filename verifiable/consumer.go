package verifiable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/cliutil"
	"kafgo/internal/topicpart"
)

// ConsumerOptions are verifiable-consumer's flags.
type ConsumerOptions struct {
	Bootstrap           string
	Topic               string
	GroupProtocol       string // classic (default) or consumer
	GroupRemoteAssignor string
	GroupID             string
	GroupInstanceID     string
	MaxMessages         int64 // -1: until stopped
	SessionTimeout      time.Duration
	Verbose             bool
	AutoCommit          bool
	ResetPolicy         string
	AssignmentStrategy  string
	ConfigFile          string
	Now                 func() time.Time
}

// DefaultConsumerOptions are Kafka's defaults.
func DefaultConsumerOptions() ConsumerOptions {
	return ConsumerOptions{GroupProtocol: "classic", MaxMessages: -1, SessionTimeout: 30 * time.Second,
		ResetPolicy: "earliest", AssignmentStrategy: "org.apache.kafka.clients.consumer.RangeAssignor"}
}

// Consumer is the running tool.
type Consumer struct {
	o        ConsumerOptions
	cl       *kgo.Client
	p        *printer
	consumed int64
}

// NewConsumer builds the group member: the --consumer.config file first,
// the flags over it, as Kafka's tool does.
func NewConsumer(o ConsumerOptions, out, warn io.Writer) (*Consumer, error) {
	c := cliutil.NewConfig()
	if err := c.LoadFile(o.ConfigFile); err != nil {
		return nil, err
	}
	var groupOpts []kgo.Opt
	switch strings.ToLower(o.GroupProtocol) {
	case "classic":
		c.Set("partition.assignment.strategy", o.AssignmentStrategy)
	case "consumer":
		groupOpts = append(groupOpts, kgo.ServerSideBalancer())
		switch strings.ToLower(o.GroupRemoteAssignor) {
		case "", "uniform":
			c.Set("partition.assignment.strategy", "cooperative-sticky")
		case "range":
			c.Set("partition.assignment.strategy", "range")
		default:
			return nil, fmt.Errorf("--group-remote-assignor %s: kafgo's client knows the uniform and range assignors", o.GroupRemoteAssignor)
		}
	default:
		return nil, fmt.Errorf("Group protocol (must be one of CLASSIC, CONSUMER): %s", o.GroupProtocol)
	}
	c.Set("group.id", o.GroupID)
	if o.GroupInstanceID != "" {
		c.Set("group.instance.id", o.GroupInstanceID)
	}
	c.Set("bootstrap.servers", o.Bootstrap)
	c.Set("enable.auto.commit", fmt.Sprint(o.AutoCommit))
	c.Set("auto.offset.reset", o.ResetPolicy)
	c.Set("session.timeout.ms", fmt.Sprint(o.SessionTimeout.Milliseconds()))
	opts, _, err := cliutil.ConsumerOpts(c)
	if err != nil {
		return nil, err
	}
	c.WarnUnused(warn)
	vc := &Consumer{o: o, p: newPrinter(out, o.Now)}
	opts = append(opts, groupOpts...)
	opts = append(opts, kgo.ConsumeTopics(o.Topic),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			vc.p.print(vc.p.event("partitions_assigned").raw("partitions", partitionsJSON(m)))
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			vc.p.print(vc.p.event("partitions_revoked").raw("partitions", partitionsJSON(m)))
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			vc.p.print(vc.p.event("partitions_revoked").raw("partitions", partitionsJSON(m)))
		}))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("verifiable-consumer: %w", err)
	}
	vc.cl = cl
	return vc, nil
}

func partitionsJSON(m map[string][]int32) string {
	var tps []topicpart.TP
	for t, ps := range m {
		for _, p := range ps {
			tps = append(tps, topicpart.TP{Topic: t, Partition: p})
		}
	}
	topicpart.Sort(tps)
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = newObj().str("topic", tp.Topic).int("partition", int64(tp.Partition)).String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (vc *Consumer) finished() bool {
	return vc.o.MaxMessages >= 0 && vc.consumed >= vc.o.MaxMessages
}

// Run consumes until MaxMessages or until ctx ends, then closes (leaving
// the group) and prints shutdown_complete.
func (vc *Consumer) Run(ctx context.Context) error {
	vc.p.print(vc.p.event("startup_complete"))
	var err error
	for !vc.finished() && ctx.Err() == nil {
		fs := vc.cl.PollFetches(ctx)
		if fs.IsClientClosed() {
			break
		}
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.Canceled) && !errors.Is(fe.Err, context.DeadlineExceeded) {
				err = fmt.Errorf("verifiable-consumer: fetching %s-%d: %w", fe.Topic, fe.Partition, fe.Err)
			}
		}
		if err != nil {
			break
		}
		if fs.NumRecords() == 0 {
			continue
		}
		offsets := vc.received(fs)
		if !vc.o.AutoCommit {
			vc.commit(ctx, offsets)
		}
	}
	vc.cl.Close()
	vc.p.print(vc.p.event("shutdown_complete"))
	return err
}

// received is onRecordsReceived: records_consumed for the poll (its
// partitions cut at the message limit) and record_data lines if verbose;
// it returns the offsets to commit.
func (vc *Consumer) received(fs kgo.Fetches) map[topicpart.TP]int64 {
	byTP := map[topicpart.TP][]*kgo.Record{}
	var order []topicpart.TP
	total := 0
	fs.EachRecord(func(r *kgo.Record) {
		tp := topicpart.TP{Topic: r.Topic, Partition: r.Partition}
		if _, ok := byTP[tp]; !ok {
			order = append(order, tp)
		}
		byTP[tp] = append(byTP[tp], r)
		total++
	})
	topicpart.Sort(order)
	offsets := map[topicpart.TP]int64{}
	var summaries []string
	for _, tp := range order {
		recs := byTP[tp]
		if vc.o.MaxMessages >= 0 && vc.consumed+int64(len(recs)) > vc.o.MaxMessages {
			recs = recs[:vc.o.MaxMessages-vc.consumed]
		}
		if len(recs) == 0 {
			continue
		}
		minOff, maxOff := recs[0].Offset, recs[len(recs)-1].Offset
		offsets[tp] = maxOff + 1
		summaries = append(summaries, newObj().str("topic", tp.Topic).int("partition", int64(tp.Partition)).
			int("count", int64(len(recs))).int("minOffset", minOff).int("maxOffset", maxOff).String())
		if vc.o.Verbose {
			for _, r := range recs {
				var key *string
				if r.Key != nil {
					k := string(r.Key)
					key = &k
				}
				var value *string
				if r.Value != nil {
					v := string(r.Value)
					value = &v
				}
				vc.p.print(vc.p.event("record_data").strOrNull("key", key).strOrNull("value", value).
					str("topic", r.Topic).int("partition", int64(r.Partition)).int("offset", r.Offset))
			}
		}
		vc.consumed += int64(len(recs))
		if vc.finished() {
			break
		}
	}
	vc.p.print(vc.p.event("records_consumed").int("count", int64(total)).raw("partitions", "["+strings.Join(summaries, ",")+"]"))
	return offsets
}

// commit is commitSync with its offsets_committed event.
func (vc *Consumer) commit(ctx context.Context, offsets map[topicpart.TP]int64) {
	commit := map[string]map[int32]kgo.EpochOffset{}
	var tps []topicpart.TP
	for tp, off := range offsets {
		if commit[tp.Topic] == nil {
			commit[tp.Topic] = map[int32]kgo.EpochOffset{}
		}
		commit[tp.Topic][tp.Partition] = kgo.EpochOffset{Epoch: -1, Offset: off}
		tps = append(tps, tp)
	}
	topicpart.Sort(tps)
	var failure error
	done := make(chan struct{})
	vc.cl.CommitOffsetsSync(ctx, commit, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		defer close(done)
		if err != nil {
			failure = err
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil && failure == nil {
					failure = e
				}
			}
		}
	})
	<-done
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = newObj().str("topic", tp.Topic).int("partition", int64(tp.Partition)).int("offset", offsets[tp]).String()
	}
	ev := vc.p.event("offsets_committed").raw("offsets", "["+strings.Join(parts, ",")+"]")
	if failure != nil {
		ev.str("error", exceptionMessage(failure))
	}
	vc.p.print(ev.bool("success", failure == nil))
}
