package api

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/config"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta/dynconfig"
)

// DescribeConfigs (key 32): topic and broker configs with their
// source and synonyms (v1+), documentation and types (v3+); sensitive values
// are hidden. Configs are read from the metadata store, as Kafka reads
// ZooKeeper, so a change made through any broker shows at once. A topic
// needs DescribeConfigs on it (TOPIC_AUTHORIZATION_FAILED), a broker
// DescribeConfigs on the cluster (CLUSTER_AUTHORIZATION_FAILED).
func init() { regKey(kmsg.NewPtrDescribeConfigsRequest(), 0, 4, (*Server).handleDescribeConfigs) }

// Config resource types of the Kafka protocol.
const (
	resourceTopic        = 2
	resourceBroker       = 4
	resourceBrokerLogger = 8
)

// configResourceRefused authorizes op (DescribeConfigs or AlterConfigs) on
// a config resource, as Kafka: a topic on itself, a broker or broker
// logger on the cluster. It returns the refusal, or nil; other resource
// types are left to the handler's own error.
func (s *Server) configResourceRefused(c *Call, op acl.Operation, typ int8, name string) error {
	switch typ {
	case resourceTopic:
		if !s.authorize(c, op, acl.Topic, name) {
			return errTopicAuthorization
		}
	case resourceBroker, resourceBrokerLogger:
		if !s.authorizeCluster(c, op) {
			return errClusterAuthorization
		}
	}
	return nil
}

func (s *Server) handleDescribeConfigs(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeConfigsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	cfg := s.d.DescribedConfig(ctx)
	for _, r := range req.Resources {
		out := kmsg.NewDescribeConfigsResponseResource()
		out.ResourceType, out.ResourceName = r.ResourceType, r.ResourceName
		if err := s.configResourceRefused(c, acl.OpDescribeConfigs, int8(r.ResourceType), r.ResourceName); err != nil {
			out.ErrorCode, out.ErrorMessage = errCode(err), kmsg.StringPtr(kafkaerr.Message(err))
			resp.Resources = append(resp.Resources, out)
			continue
		}
		values, err := s.describeResource(ctx, cfg, int8(r.ResourceType), r.ResourceName)
		if err != nil {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		wanted := map[string]bool{}
		for _, n := range r.ConfigNames {
			wanted[n] = true
		}
		for _, v := range values {
			if r.ConfigNames != nil && !wanted[v.Name] {
				continue
			}
			out.Configs = append(out.Configs, describeValue(v, req.IncludeSynonyms, req.IncludeDocumentation, req.Version))
		}
		resp.Resources = append(resp.Resources, out)
	}
	return respond(resp)
}

// describeResource describes a topic's or this broker's configs, cfg being
// the broker configuration to describe with.
func (s *Server) describeResource(ctx context.Context, cfg *config.Broker, typ int8, name string) ([]config.Value, error) {
	switch typ {
	case resourceTopic:
		overrides, err := s.storedTopicOverrides(ctx, name)
		if err != nil {
			return nil, err
		}
		return cfg.DescribeTopic(overrides), nil
	case resourceBroker:
		if _, err := s.brokerEntity(name); err != nil {
			return nil, err
		}
		return cfg.Values(), nil
	}
	return nil, refuse(kerr.InvalidRequest, "Unsupported resource type %d", typ)
}

// storedTopicOverrides reads an existing topic's overrides from the store.
func (s *Server) storedTopicOverrides(ctx context.Context, topic string) (map[string]string, error) {
	if err := s.topicExists(ctx, topic); err != nil {
		return nil, err
	}
	o, err := s.d.Configs.Read(ctx, dynconfig.Topics, topic)
	if err != nil {
		return nil, fmt.Errorf("api: reading the config of topic %s: %w", topic, err)
	}
	return o, nil
}

// topicExists refuses a topic the store does not hold.
func (s *Server) topicExists(ctx context.Context, topic string) error {
	ok, err := s.d.Admin.TopicExists(ctx, topic)
	if err != nil {
		return fmt.Errorf("api: looking up topic %s: %w", topic, err)
	}
	if !ok {
		return refuse(kerr.UnknownTopicOrPartition, "Topic %s does not exist.", topic)
	}
	return nil
}

func describeValue(v config.Value, synonyms, docs bool, version int16) kmsg.DescribeConfigsResponseResourceConfig {
	rc := kmsg.NewDescribeConfigsResponseResourceConfig()
	rc.Name = v.Name
	if !v.Null && !v.Sensitive {
		rc.Value = kmsg.StringPtr(v.Value)
	}
	rc.ReadOnly = v.ReadOnly
	rc.IsSensitive = v.Sensitive
	rc.Source = kmsg.ConfigSource(v.Source)
	rc.IsDefault = v.Source == config.DefaultConfig
	if version == 0 && v.Source == config.StaticBrokerConfig {
		rc.IsDefault = false
	}
	rc.ConfigType = kmsg.ConfigType(v.ConfigType)
	if docs && v.Doc != "" {
		rc.Documentation = kmsg.StringPtr(v.Doc)
	}
	if synonyms {
		for _, syn := range v.Synonyms {
			s := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
			s.Name, s.Source = syn.Name, kmsg.ConfigSource(syn.Source)
			if !v.Sensitive {
				s.Value = kmsg.StringPtr(syn.Value)
			}
			rc.ConfigSynonyms = append(rc.ConfigSynonyms, s)
		}
	}
	return rc
}
