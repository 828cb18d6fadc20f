package reassign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// configOp is one IncrementalAlterConfigs operation: SET the value, or
// DELETE the key when value is nil.
type configOp struct {
	name  string
	value *string
}

func setOp(name, value string) configOp { return configOp{name: name, value: &value} }
func deleteOp(name string) configOp     { return configOp{name: name} }

// alterConfigs sends one IncrementalAlterConfigs for resources of one type
// (topics by name, brokers by id), as the Java admin client does: the
// client sends each broker's resource to that broker, the others to any.
// Any refusal fails the whole call, naming every refused resource.
func (c *cluster) alterConfigs(ctx context.Context, typ kmsg.ConfigResourceType, ops map[string][]configOp) error {
	if len(ops) == 0 {
		return nil
	}
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	slices.Sort(names)
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	for _, n := range names {
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = typ, n
		for _, op := range ops[n] {
			rc := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			rc.Name, rc.Value = op.name, op.value
			rc.Op = kmsg.IncrementalAlterConfigOpSet
			if op.value == nil {
				rc.Op = kmsg.IncrementalAlterConfigOpDelete
			}
			r.Configs = append(r.Configs, rc)
		}
		req.Resources = append(req.Resources, r)
	}
	kind := "topic"
	if typ == kmsg.ConfigResourceTypeBroker {
		kind = "broker"
	}
	var errs []error
	answered := map[string]bool{}
	for _, shard := range c.cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			errs = append(errs, fmt.Errorf("reassign: altering %s configs: %w", kind, shard.Err))
			continue
		}
		for _, r := range shard.Resp.(*kmsg.IncrementalAlterConfigsResponse).Resources {
			answered[r.ResourceName] = true
			if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
				errs = append(errs, fmt.Errorf("reassign: altering configs of %s %s: %w", kind, r.ResourceName, withMessage(err, r.ErrorMessage)))
			}
		}
	}
	if len(errs) == 0 {
		for _, n := range names {
			if !answered[n] {
				errs = append(errs, fmt.Errorf("reassign: altering configs of %s %s: no answer", kind, n))
			}
		}
	}
	return errors.Join(errs...)
}

// setThrottles is Kafka's modifyReassignmentThrottle: the topic lists
// first, then the rate on every broker the moves involve, so a broker never
// runs a rate without knowing which replicas it applies to.
func (c *cluster) setThrottles(ctx context.Context, mm moveMap, rate int64) error {
	leader, follower := topicThrottleValues(mm)
	topics := map[string][]configOp{}
	for t := range mm {
		topics[t] = []configOp{setOp(topicLeaderThrottle, leader[t]), setOp(topicFollowerThrottle, follower[t])}
	}
	if err := c.alterConfigs(ctx, kmsg.ConfigResourceTypeTopic, topics); err != nil {
		return err
	}
	v := strconv.FormatInt(rate, 10)
	brokers := map[string][]configOp{}
	for _, id := range reassigningBrokers(mm) {
		brokers[strconv.Itoa(int(id))] = []configOp{setOp(brokerLeaderThrottle, v), setOp(brokerFollowerThrottle, v)}
	}
	return c.alterConfigs(ctx, kmsg.ConfigResourceTypeBroker, brokers)
}

// clearBrokerThrottles deletes the throttle rates of the given brokers.
func (c *cluster) clearBrokerThrottles(ctx context.Context, ids []int32) error {
	ops := map[string][]configOp{}
	for _, id := range ids {
		for _, k := range brokerThrottles {
			ops[strconv.Itoa(int(id))] = append(ops[strconv.Itoa(int(id))], deleteOp(k))
		}
	}
	return c.alterConfigs(ctx, kmsg.ConfigResourceTypeBroker, ops)
}

// clearTopicThrottles deletes the throttled-replica lists of the topics.
func (c *cluster) clearTopicThrottles(ctx context.Context, topics []string) error {
	ops := map[string][]configOp{}
	for _, t := range topics {
		for _, k := range topicThrottles {
			ops[t] = append(ops[t], deleteOp(k))
		}
	}
	return c.alterConfigs(ctx, kmsg.ConfigResourceTypeTopic, ops)
}
