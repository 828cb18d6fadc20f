package api

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/config"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta/dynconfig"
)

// AlterConfigs (key 33): the legacy full replace of a topic's or a
// broker's dynamic overrides, validated and written to /config with a change
// notification. The topic must exist in the store (as Kafka checks
// ZooKeeper), not merely in this broker's metadata. Needs AlterConfigs on
// the topic, or on the cluster for a broker (TOPIC_ / CLUSTER_
// AUTHORIZATION_FAILED, without a message, as Kafka).
func init() { regKey(kmsg.NewPtrAlterConfigsRequest(), 0, 2, (*Server).handleAlterConfigs) }

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
		replace := func(cfg map[string]string) error {
			clear(cfg)
			maps.Copy(cfg, next)
			return nil
		}
		if err := s.alterConfigs(ctx, int8(r.ResourceType), r.ResourceName, replace, req.ValidateOnly); err != nil {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		resp.Resources = append(resp.Resources, out)
	}
	return respond(resp)
}

// brokerEntity is the /config/brokers entity a broker resource names: this
// broker's id, or the cluster default for an empty name. Another broker's
// id is refused: clients send a broker's configs to that broker.
func (s *Server) brokerEntity(name string) (string, error) {
	switch name {
	case "":
		return dynconfig.DefaultEntity, nil
	case strconv.Itoa(int(s.d.BrokerID)):
		return name, nil
	}
	return "", refuse(kerr.InvalidRequest, "Unexpected broker id, expected %d or empty string, but received %s", s.d.BrokerID, name)
}

// alterConfigs changes a topic's or broker's dynamic overrides with
// change, validates the result and, unless validateOnly, writes it. The
// read, change, check and write are one dynconfig update: it starts again
// from the stored overrides when another broker wrote them meanwhile, so
// changes made at once through different brokers all stay. As in Kafka, a
// topic must exist in the store.
func (s *Server) alterConfigs(ctx context.Context, typ int8, name string, change func(cfg map[string]string) error, validateOnly bool) error {
	var entityType, entity string
	var validate func(next map[string]string) error
	switch typ {
	case resourceTopic:
		if err := s.topicExists(ctx, name); err != nil {
			return err
		}
		entityType, entity = dynconfig.Topics, name
		validate = func(next map[string]string) error {
			if err := config.ValidateTopicOverrides(next); err != nil {
				return refuse(kerr.InvalidConfig, "%v", err)
			}
			return nil
		}
	case resourceBroker:
		var err error
		if entity, err = s.brokerEntity(name); err != nil {
			return err
		}
		entityType = dynconfig.Brokers
		validate = func(next map[string]string) error {
			// On a copy of the running config.
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
			return nil
		}
	default:
		return refuse(kerr.InvalidRequest, "Unsupported resource type %d", typ)
	}
	changeAndCheck := func(cfg map[string]string) error {
		if err := change(cfg); err != nil {
			return err
		}
		return validate(cfg)
	}
	if validateOnly {
		cfg, err := s.d.Configs.Read(ctx, entityType, entity)
		if err != nil {
			return fmt.Errorf("api: reading the config of %s %s: %w", entityType, entity, err)
		}
		return changeAndCheck(cfg)
	}
	return s.d.Configs.Update(ctx, entityType, entity, changeAndCheck)
}
