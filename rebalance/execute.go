package rebalance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/topicpart"
	"kafgo/reassign"
)

// ExecOptions shape an execution.
type ExecOptions struct {
	// Concurrency is how many partitions move at a time (a batch).
	Concurrency int
	// Throttle is the replication throttle in bytes/s for the moves
	// (KIP-73, as kafka-reassign-partitions --throttle sets it); negative
	// for none.
	Throttle int64
	// BatchTimeout bounds the wait for one batch.
	BatchTimeout time.Duration
	// Poll is how often progress is checked.
	Poll time.Duration
}

// Execute carries the plan out: batch by batch under the throttle, each
// started as kafka-reassign-partitions --execute starts it and waited for
// until the controller reports it done; then --verify, which removes the
// throttles; then a preferred leader election for the partitions not led
// by their first replica; then a check that every partition holds its
// planned replicas and that no throttle is left.
func Execute(ctx context.Context, cl *kgo.Client, p *Plan, o ExecOptions, out io.Writer) error {
	if len(p.Changes) == 0 {
		fmt.Fprintln(out, "Nothing to execute.")
		return nil
	}
	if o.Poll <= 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.BatchTimeout <= 0 {
		o.BatchTimeout = 30 * time.Minute
	}
	dir, err := os.MkdirTemp("", "kafgo-rebalance-")
	if err != nil {
		return fmt.Errorf("rebalance: %w", err)
	}
	defer os.RemoveAll(dir)
	full := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(full, []byte(FormatJSON(p.Assignment())), 0o600); err != nil {
		return fmt.Errorf("rebalance: %w", err)
	}
	batches := p.Batches(o.Concurrency)
	start := time.Now()
	for i, batch := range batches {
		var size int64
		tps := make([]string, len(batch))
		assignment := map[topicpart.TP][]int32{}
		for j, c := range batch {
			size += c.Bytes
			tps[j] = c.TP.String()
			assignment[c.TP] = c.After
		}
		fmt.Fprintf(out, "Batch %d/%d: %d partition(s), %s: %s\n", i+1, len(batches), len(batch), human(float64(size)), strings.Join(tps, ","))
		file := filepath.Join(dir, fmt.Sprintf("batch-%d.json", i+1))
		if err := os.WriteFile(file, []byte(FormatJSON(assignment)), 0o600); err != nil {
			return fmt.Errorf("rebalance: %w", err)
		}
		ro := reassign.DefaultOptions()
		ro.Action, ro.ReassignmentJSONFile, ro.Throttle = reassign.ActionExecute, file, o.Throttle
		var log bytes.Buffer
		if err := reassign.Run(ctx, cl, ro, &log); err != nil {
			out.Write(log.Bytes())
			return fmt.Errorf("rebalance: starting batch %d: %w", i+1, err)
		}
		t0 := time.Now()
		if err := waitBatch(ctx, cl, assignment, o); err != nil {
			return fmt.Errorf("rebalance: batch %d: %w", i+1, err)
		}
		fmt.Fprintf(out, "Batch %d/%d done in %s\n", i+1, len(batches), time.Since(t0).Round(10*time.Millisecond))
	}
	fmt.Fprintf(out, "Moves done in %s\n", time.Since(start).Round(10*time.Millisecond))

	ro := reassign.DefaultOptions()
	ro.Action, ro.ReassignmentJSONFile = reassign.ActionVerify, full
	if err := reassign.Run(ctx, cl, ro, out); err != nil {
		return fmt.Errorf("rebalance: verifying: %w", err)
	}
	if err := electPreferred(ctx, cl, p, out); err != nil {
		return err
	}
	return check(ctx, cl, p, out)
}

// waitBatch waits until no partition of the batch is being reassigned and
// each holds exactly its planned replicas.
func waitBatch(ctx context.Context, cl *kgo.Client, assignment map[topicpart.TP][]int32, o ExecOptions) error {
	ctx, cancel := context.WithTimeout(ctx, o.BatchTimeout)
	defer cancel()
	adm := kadm.NewClient(cl)
	topics := topicsOf(assignment)
	for {
		inFlight, err := reassign.ListInFlight(ctx, cl)
		if err == nil {
			busy := false
			for tp := range assignment {
				if _, ok := inFlight[reassign.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}]; ok {
					busy = true
				}
			}
			if !busy {
				md, err := adm.Metadata(ctx, topics...)
				if err == nil && matches(md, assignment) {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done after %v: %w", o.BatchTimeout, ctx.Err())
		case <-time.After(o.Poll):
		}
	}
}

func topicsOf(a map[topicpart.TP][]int32) []string {
	var out []string
	for tp := range a {
		if !slices.Contains(out, tp.Topic) {
			out = append(out, tp.Topic)
		}
	}
	slices.Sort(out)
	return out
}

func matches(md kadm.Metadata, a map[topicpart.TP][]int32) bool {
	for tp, want := range a {
		p, ok := md.Topics[tp.Topic].Partitions[tp.Partition]
		if !ok || !slices.Equal(p.Replicas, want) {
			return false
		}
	}
	return true
}

// electPreferred elects the preferred leader of every partition the plan
// touched, and of every other one not led by its preferred replica.
func electPreferred(ctx context.Context, cl *kgo.Client, p *Plan, out io.Writer) error {
	adm := kadm.NewClient(cl)
	md, err := adm.Metadata(ctx)
	if err != nil {
		return fmt.Errorf("rebalance: metadata: %w", err)
	}
	set := kadm.TopicsSet{}
	n := 0
	for _, t := range md.Topics {
		for _, q := range t.Partitions {
			if len(q.Replicas) > 0 && q.Leader != q.Replicas[0] {
				set.Add(t.Topic, q.Partition)
				n++
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(out, "Every partition is led by its preferred replica.")
		return nil
	}
	res, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, set)
	if err != nil {
		return fmt.Errorf("rebalance: electing preferred leaders: %w", err)
	}
	var failed []string
	elected := 0
	for _, ps := range res {
		for _, r := range ps {
			switch {
			case r.Err == nil:
				elected++
			case errors.Is(r.Err, kerr.ElectionNotNeeded):
			default:
				failed = append(failed, fmt.Sprintf("%s-%d: %v", r.Topic, r.Partition, r.Err))
			}
		}
	}
	fmt.Fprintf(out, "Elected the preferred leader of %d partition(s)\n", elected)
	if len(failed) > 0 {
		slices.Sort(failed)
		fmt.Fprintf(out, "Could not elect the preferred leader of %d partition(s) (they keep their leader): %s\n", len(failed), strings.Join(failed, "; "))
	}
	return nil
}

// throttleConfigs are the replication throttle configs a reassignment
// sets and verification must have removed.
var (
	brokerThrottleKeys = []string{"leader.replication.throttled.rate", "follower.replication.throttled.rate"}
	topicThrottleKeys  = []string{"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
)

// check confirms the plan is in place and no throttle is left.
func check(ctx context.Context, cl *kgo.Client, p *Plan, out io.Writer) error {
	adm := kadm.NewClient(cl)
	a := p.Assignment()
	md, err := adm.Metadata(ctx, topicsOf(a)...)
	if err != nil {
		return fmt.Errorf("rebalance: metadata: %w", err)
	}
	if !matches(md, a) {
		return errors.New("rebalance: after the moves some partitions do not hold their planned replicas")
	}
	var left []string
	for _, b := range p.Before.Brokers {
		rcs, err := adm.DescribeBrokerConfigs(ctx, b.ID)
		if err != nil {
			return fmt.Errorf("rebalance: broker %d configs: %w", b.ID, err)
		}
		left = append(left, dynamicThrottles(rcs, fmt.Sprintf("broker %d", b.ID), brokerThrottleKeys)...)
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, topicsOf(a)...)
	if err != nil {
		return fmt.Errorf("rebalance: topic configs: %w", err)
	}
	for _, rc := range rcs {
		left = append(left, dynamicThrottles(kadm.ResourceConfigs{rc}, "topic "+rc.Name, topicThrottleKeys)...)
	}
	if len(left) > 0 {
		return fmt.Errorf("rebalance: throttles left behind: %s", strings.Join(left, "; "))
	}
	fmt.Fprintf(out, "Verified: %d partition(s) hold their planned replicas; no replication throttle is left.\n", len(a))
	return nil
}

func dynamicThrottles(rcs kadm.ResourceConfigs, what string, keys []string) []string {
	var out []string
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if slices.Contains(keys, c.Key) && c.Value != nil && *c.Value != "" && c.Source != kmsg.ConfigSourceDefaultConfig {
				out = append(out, what+" "+c.Key+"="+*c.Value)
			}
		}
	}
	return out
}
