package api

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/config"
)

// DescribeConfigs (key 32), v0-v4: topic and broker configs with their
// source and synonyms (v1+), documentation and types (v3+); sensitive values
// are hidden.

// Config resource types of the Kafka protocol.
const (
	resourceTopic  = 2
	resourceBroker = 4
)

func (s *Server) handleDescribeConfigs(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeConfigsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
	cfg := s.d.Config()
	for _, r := range req.Resources {
		out := kmsg.NewDescribeConfigsResponseResource()
		out.ResourceType, out.ResourceName = r.ResourceType, r.ResourceName
		var values []config.Value
		switch r.ResourceType {
		case resourceTopic:
			if _, ok := s.d.Cache.View().Topic(r.ResourceName); !ok {
				out.ErrorCode = kerr.UnknownTopicOrPartition.Code
				out.ErrorMessage = kmsg.StringPtr("Topic " + r.ResourceName + " does not exist.")
				break
			}
			values = cfg.DescribeTopic(s.d.TopicOverrides(r.ResourceName))
		case resourceBroker:
			if r.ResourceName != "" && r.ResourceName != strconv.Itoa(int(s.d.BrokerID)) {
				out.ErrorCode = kerr.InvalidRequest.Code
				out.ErrorMessage = kmsg.StringPtr("Unexpected broker id, expected " + strconv.Itoa(int(s.d.BrokerID)) + " or empty string, but received " + r.ResourceName)
				break
			}
			values = cfg.Values()
		default:
			out.ErrorCode = kerr.InvalidRequest.Code
			out.ErrorMessage = kmsg.StringPtr("Unsupported resource type " + strconv.Itoa(int(r.ResourceType)))
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
	return now(resp)
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
