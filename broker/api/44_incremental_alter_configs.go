package api

import (
	"context"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/config"
	"kafgo/broker/kafkaerr"
	"kafgo/internal/javaprops"
)

// IncrementalAlterConfigs (key 44, KIP-339): SET, DELETE, APPEND and
// SUBTRACT on single keys of a topic's or broker's dynamic overrides, the
// other keys kept: the change is applied to the overrides as stored, in
// one version-checked update, so changes made through different brokers,
// one after another or at once, all stay.
// Authorized as AlterConfigs.
func init() {
	regKey(kmsg.NewPtrIncrementalAlterConfigsRequest(), 0, 1, (*Server).handleIncrementalAlterConfigs)
}

// IncrementalAlterConfigs (KIP-339) sets, deletes, appends to or subtracts
// from single keys, the rest staying as they are.
func (s *Server) handleIncrementalAlterConfigs(c *Call) Reply {
	req := c.Req.(*kmsg.IncrementalAlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
	defer cancel()
	for _, r := range req.Resources {
		out := kmsg.NewIncrementalAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = r.ResourceType, r.ResourceName
		if err := s.configResourceRefused(c, acl.OpAlterConfigs, int8(r.ResourceType), r.ResourceName); err != nil {
			out.ErrorCode = errCode(err)
			resp.Resources = append(resp.Resources, out)
			continue
		}
		typ := int8(r.ResourceType)
		incremental := func(cfg map[string]string) error {
			for _, op := range r.Configs {
				if err := applyIncremental(cfg, op, typ); err != nil {
					return err
				}
			}
			return nil
		}
		if err := s.alterConfigs(ctx, typ, r.ResourceName, incremental, req.ValidateOnly); err != nil {
			out.ErrorCode = errCode(err)
			out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
		}
		resp.Resources = append(resp.Resources, out)
	}
	return respond(resp)
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
		items := javaprops.List(m[op.Name])
		if m[op.Name] == "" {
			items = javaprops.List(defaultOf(op.Name, typ))
		}
		for _, v := range javaprops.List(val) {
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

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
