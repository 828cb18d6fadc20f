package api

import (
	"context"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/config"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta/znode"
)

// AlterConfigs (key 33), v0-v2: the legacy full replace of a topic's or a
// broker's dynamic overrides, validated and written to /config with a change
// notification. The topic must exist in the store (as Kafka checks
// ZooKeeper), not merely in this broker's metadata. Needs AlterConfigs on
// the topic, or on the cluster for a broker (TOPIC_ / CLUSTER_
// AUTHORIZATION_FAILED, without a message, as Kafka).

// AlterConfigs (legacy) replaces a resource's whole set of overrides.
func (s *Server) handleAlterConfigs(c *Call) Reply {
	req := c.Req.(*kmsg.AlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.AlterConfigsResponse)
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	for _, r := range req.Resources {
		out := kmsg.NewAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = r.ResourceType, r.ResourceName
		if err := s.configResourceRefused(c, acl.OpAlterConfigs, int8(r.ResourceType), r.ResourceName); err != nil {
			out.ErrorCode = errCode(err)
			resp.Resources = append(resp.Resources, out)
			continue
		}
		next := map[string]string{}
		for _, kv := range r.Configs {
			if kv.Value != nil {
				next[kv.Name] = *kv.Value
			}
		}
		if err := s.applyConfigs(ctx, int8(r.ResourceType), r.ResourceName, next, req.ValidateOnly); err != nil {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		resp.Resources = append(resp.Resources, out)
	}
	return now(resp)
}

// currentOverrides reads a resource's overrides from the store, so an
// incremental change builds on every change made before it, through any
// broker. As in Kafka, a topic's existence is checked later, by
// applyConfigs.
func (s *Server) currentOverrides(ctx context.Context, typ int8, name string) (map[string]string, error) {
	var entityType, entity string
	switch typ {
	case resourceTopic:
		entityType, entity = znode.ConfigTypeTopic, name
	case resourceBroker:
		var err error
		if entity, err = s.brokerEntity(name); err != nil {
			return nil, err
		}
		entityType = znode.ConfigTypeBroker
	default:
		return nil, refuse(kerr.InvalidRequest, "Unsupported resource type %d", typ)
	}
	o, err := s.d.Admin.EntityConfig(ctx, entityType, entity)
	if err != nil {
		return nil, fmt.Errorf("api: reading the config of %s %s: %w", entityType, entity, err)
	}
	return o, nil
}

// brokerEntity is the /config/brokers entity a broker resource names: this
// broker's id, or the cluster default for an empty name. Another broker's
// id is refused: clients send a broker's configs to that broker.
func (s *Server) brokerEntity(name string) (string, error) {
	switch name {
	case "":
		return znode.DefaultBrokerEntity, nil
	case strconv.Itoa(int(s.d.BrokerID)):
		return name, nil
	}
	return "", refuse(kerr.InvalidRequest, "Unexpected broker id, expected %d or empty string, but received %s", s.d.BrokerID, name)
}

// applyConfigs validates and persists a resource's full set of overrides.
func (s *Server) applyConfigs(ctx context.Context, typ int8, name string, next map[string]string, validateOnly bool) error {
	switch typ {
	case resourceTopic:
		if err := s.topicExists(ctx, name); err != nil {
			return err
		}
		if err := config.ValidateTopicOverrides(next); err != nil {
			return refuse(kerr.InvalidConfig, "%v", err)
		}
		if validateOnly {
			return nil
		}
		return s.d.Admin.SetEntityConfig(ctx, znode.ConfigTypeTopic, name, next)
	case resourceBroker:
		entity, err := s.brokerEntity(name)
		if err != nil {
			return err
		}
		// Validate on a copy of the running config first.
		trial := s.d.Config().Clone()
		for k, v := range next {
			var err error
			if name == "" {
				err = trial.SetClusterDefault(k, v)
			} else {
				err = trial.Set(k, v)
			}
			if err != nil {
				return refuse(kerr.InvalidConfig, "%v", err)
			}
		}
		if validateOnly {
			return nil
		}
		return s.d.AlterBrokerConfig(ctx, entity, next)
	}
	return refuse(kerr.InvalidRequest, "Unsupported resource type %d", typ)
}
