package api

import (
	"context"
	"maps"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/config"
	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta/znode"
)

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

// IncrementalAlterConfigs (KIP-339) sets, deletes, appends to or subtracts
// from single keys, the rest staying as they are.
func (s *Server) handleIncrementalAlterConfigs(c *Call) Reply {
	req := c.Req.(*kmsg.IncrementalAlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	for _, r := range req.Resources {
		out := kmsg.NewIncrementalAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = r.ResourceType, r.ResourceName
		err := func() error {
			cur, err := s.currentOverrides(int8(r.ResourceType), r.ResourceName)
			if err != nil {
				return err
			}
			next := maps.Clone(cur)
			for _, op := range r.Configs {
				if err := applyIncremental(next, op, int8(r.ResourceType)); err != nil {
					return err
				}
			}
			return s.applyConfigs(int8(r.ResourceType), r.ResourceName, next, req.ValidateOnly)
		}()
		if err != nil {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		resp.Resources = append(resp.Resources, out)
	}
	return now(resp)
}

func applyIncremental(m map[string]string, op kmsg.IncrementalAlterConfigsRequestResourceConfig, typ int8) error {
	val := ""
	if op.Value != nil {
		val = *op.Value
	}
	switch op.Op {
	case 0: // SET
		if op.Value == nil {
			return refuse(kerr.InvalidRequest, "Null value not supported for : %s", op.Name)
		}
		m[op.Name] = val
	case 1: // DELETE
		delete(m, op.Name)
	case 2, 3: // APPEND, SUBTRACT: list-typed keys only
		if !isListConfig(op.Name, typ) {
			return refuse(kerr.InvalidConfig, "Config value append is not allowed for config key: %s", op.Name)
		}
		items := splitList(m[op.Name])
		if m[op.Name] == "" {
			items = splitList(defaultOf(op.Name, typ))
		}
		for _, v := range splitList(val) {
			i := indexOf(items, v)
			if op.Op == 2 && i < 0 {
				items = append(items, v)
			} else if op.Op == 3 && i >= 0 {
				items = append(items[:i], items[i+1:]...)
			}
		}
		m[op.Name] = strings.Join(items, ",")
	default:
		return refuse(kerr.InvalidRequest, "Unknown config operation %d for %s", op.Op, op.Name)
	}
	return nil
}

func isListConfig(name string, typ int8) bool {
	if typ == resourceTopic {
		d, ok := config.LookupTopicDef(name)
		return ok && d.Type == config.TypeList
	}
	d, ok := config.LookupDef(name)
	return ok && d.Type == config.TypeList
}

func defaultOf(name string, typ int8) string {
	if typ == resourceTopic {
		d, _ := config.LookupTopicDef(name)
		return d.Default
	}
	d, _ := config.LookupDef(name)
	return d.Default
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
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
