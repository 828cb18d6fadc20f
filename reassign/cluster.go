package reassign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// InFlight is one partition reassignment the controller reports.
type InFlight struct {
	Replicas, Adding, Removing []int32
}

// cluster is what the tool asks of the brokers.
type cluster struct {
	cl  *kgo.Client
	adm *kadm.Client
}

func newCluster(cl *kgo.Client) *cluster { return &cluster{cl: cl, adm: kadm.NewClient(cl)} }

// broker is a live broker with its rack ("" when none).
type broker struct {
	id   int32
	rack string
}

func (c *cluster) brokers(ctx context.Context) ([]broker, error) {
	md, err := c.adm.BrokerMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("reassign: describing the cluster: %w", err)
	}
	out := make([]broker, 0, len(md.Brokers))
	for _, b := range md.Brokers {
		rack := ""
		if b.Rack != nil {
			rack = *b.Rack
		}
		out = append(out, broker{id: b.NodeID, rack: rack})
	}
	slices.SortFunc(out, func(a, b broker) int { return int(a.id) - int(b.id) })
	return out, nil
}

// topicNotFoundError is Kafka's wording for a topic the cluster lacks.
type topicNotFoundError struct{ topic string }

func (e *topicNotFoundError) Error() string { return fmt.Sprintf("Topic %s not found.", e.topic) }

// topicAssignments returns every partition's replicas of the given topics
// (Kafka's describeTopics); an unknown topic is an error.
func (c *cluster) topicAssignments(ctx context.Context, topics []string) (map[TopicPartition][]int32, error) {
	out := map[TopicPartition][]int32{}
	if len(topics) == 0 {
		return out, nil
	}
	md, err := c.adm.Metadata(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("reassign: describing topics: %w", err)
	}
	for _, name := range topics {
		td, ok := md.Topics[name]
		if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
			return nil, &topicNotFoundError{topic: name}
		}
		if td.Err != nil {
			return nil, fmt.Errorf("reassign: describing topic %s: %w", name, td.Err)
		}
		for p, pd := range td.Partitions {
			out[TopicPartition{Topic: name, Partition: p}] = pd.Replicas
		}
	}
	return out, nil
}

// partitionAssignments returns the replicas of the given partitions; one
// that does not exist is an error, in Kafka's words.
func (c *cluster) partitionAssignments(ctx context.Context, parts []TopicPartition) (map[TopicPartition][]int32, error) {
	var topics []string
	for _, p := range parts {
		if !slices.Contains(topics, p.Topic) {
			topics = append(topics, p.Topic)
		}
	}
	all, err := c.topicAssignments(ctx, topics)
	if err != nil {
		return nil, err
	}
	out := map[TopicPartition][]int32{}
	var missing []string
	for _, p := range parts {
		rs, ok := all[p]
		if !ok {
			missing = append(missing, p.String())
			continue
		}
		out[p] = rs
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("Unable to find partition: %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// inFlight lists the reassignments in progress: of every partition when
// parts is nil, else of those partitions.
func (c *cluster) inFlight(ctx context.Context, parts []TopicPartition) (map[TopicPartition]InFlight, error) {
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	req.TimeoutMillis = 30000
	if parts != nil {
		byTopic := map[string]int{}
		req.Topics = []kmsg.ListPartitionReassignmentsRequestTopic{}
		for _, p := range parts {
			i, ok := byTopic[p.Topic]
			if !ok {
				i = len(req.Topics)
				byTopic[p.Topic] = i
				t := kmsg.NewListPartitionReassignmentsRequestTopic()
				t.Topic = p.Topic
				req.Topics = append(req.Topics, t)
			}
			req.Topics[i].Partitions = append(req.Topics[i].Partitions, p.Partition)
		}
	}
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return nil, fmt.Errorf("reassign: listing partition reassignments: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("reassign: listing partition reassignments: %w", withMessage(err, resp.ErrorMessage))
	}
	out := map[TopicPartition]InFlight{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out[TopicPartition{Topic: t.Topic, Partition: p.Partition}] = InFlight{Replicas: p.Replicas, Adding: p.AddingReplicas, Removing: p.RemovingReplicas}
		}
	}
	return out, nil
}

// alter sends AlterPartitionAssignments (nil replicas cancel) and returns
// the per-partition failures as the Java admin client words them: the
// broker's message, else the code's description.
func (c *cluster) alter(ctx context.Context, moves map[TopicPartition][]int32) (map[TopicPartition]string, error) {
	var req kadm.AlterPartitionAssignmentsReq
	for p, rs := range moves {
		req.Assign(p.Topic, p.Partition, rs)
	}
	resps, err := c.adm.AlterPartitionAssignments(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("reassign: altering partition assignments: %w", err)
	}
	failed := map[TopicPartition]string{}
	resps.Each(func(r kadm.AlterPartitionAssignmentsResponse) {
		if r.Err == nil {
			return
		}
		msg := r.ErrMessage
		var ke *kerr.Error
		if msg == "" && errors.As(r.Err, &ke) {
			msg = ke.Description
		}
		if msg == "" {
			msg = r.Err.Error()
		}
		failed[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = msg
	})
	// A partition the controller did not answer for did not start.
	for p := range moves {
		if _, ok := resps[p.Topic][p.Partition]; !ok {
			failed[p] = "no answer from the controller for this partition"
		}
	}
	return failed, nil
}

func withMessage(err error, msg *string) error {
	if msg == nil || *msg == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, *msg)
}

// ListInFlight lists every partition reassignment in progress, as
// --list shows them (for kafgo tui's reassignments view).
func ListInFlight(ctx context.Context, cl *kgo.Client) (map[TopicPartition]InFlight, error) {
	return newCluster(cl).inFlight(ctx, nil)
}
