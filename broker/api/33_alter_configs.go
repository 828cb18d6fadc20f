package api

import (
	"context"
	"maps"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/config"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta/znode"
)

// AlterConfigs (key 33), v0-v2: the legacy full replace of a topic's or a
// broker's dynamic overrides, validated and written to /config with a change
// notification.

// AlterConfigs (legacy) replaces a resource's whole set of overrides.
func (s *Server) handleAlterConfigs(c *Call) Reply {
	req := c.Req.(*kmsg.AlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.AlterConfigsResponse)
	for _, r := range req.Resources {
		out := kmsg.NewAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = r.ResourceType, r.ResourceName
		next := map[string]string{}
		for _, kv := range r.Configs {
			if kv.Value != nil {
				next[kv.Name] = *kv.Value
			}
		}
		if err := s.applyConfigs(int8(r.ResourceType), r.ResourceName, next, req.ValidateOnly); err != nil {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		resp.Resources = append(resp.Resources, out)
	}
	return now(resp)
}

func (s *Server) currentOverrides(typ int8, name string) (map[string]string, error) {
	switch typ {
	case resourceTopic:
		if _, ok := s.d.Cache.View().Topic(name); !ok {
			return nil, refuse(kerr.UnknownTopicOrPartition, "Topic %s does not exist.", name)
		}
		return maps.Clone(s.d.TopicOverrides(name)), nil
	case resourceBroker:
		cfg := s.d.Config()
		if name == "" {
			return cfg.DynamicDefaultConfigs(), nil
		}
		return cfg.DynamicBrokerConfigs(), nil
	}
	return nil, refuse(kerr.InvalidRequest, "Unsupported resource type %d", typ)
}

// applyConfigs validates and persists a resource's full set of overrides.
func (s *Server) applyConfigs(typ int8, name string, next map[string]string, validateOnly bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	switch typ {
	case resourceTopic:
		if _, ok := s.d.Cache.View().Topic(name); !ok {
			return refuse(kerr.UnknownTopicOrPartition, "Topic %s does not exist.", name)
		}
		if err := config.ValidateTopicOverrides(next); err != nil {
			return refuse(kerr.InvalidConfig, "%v", err)
		}
		if validateOnly {
			return nil
		}
		return s.d.Admin.SetEntityConfig(ctx, znode.ConfigTypeTopic, name, next)
	case resourceBroker:
		entity := name
		if name == "" {
			entity = znode.DefaultBrokerEntity
		} else if name != strconv.Itoa(int(s.d.BrokerID)) {
			return refuse(kerr.InvalidRequest, "Unexpected broker id, expected %d or empty string, but received %s", s.d.BrokerID, name)
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
