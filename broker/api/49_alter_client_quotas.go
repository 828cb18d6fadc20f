package api

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/clientquota"
	"kafgo/broker/kafkaerr"
)

// AlterClientQuotas (key 49, KIP-546).
// Sets and removes producer_byte_rate, consumer_byte_rate and
// request_percentage of user, client-id and user + client-id entities and
// their defaults (a null name), each entry on its own: its znode under
// /config/users or /config/clients is rewritten with the other keys (a
// user's SCRAM credentials) kept, and a /config/changes notification makes
// every broker apply it. validate_only checks without writing. Errors are
// Kafka's INVALID_REQUEST messages: an empty entity, an unknown entity
// type (kafgo keeps no IP quotas), an empty name, a key that is not a
// quota, a byte rate that is not a whole number.
func init() { regKey(kmsg.NewPtrAlterClientQuotasRequest(), 0, 1, (*Server).handleAlterClientQuotas) }

func (s *Server) handleAlterClientQuotas(c *Call) Reply {
	req := c.Req.(*kmsg.AlterClientQuotasRequest)
	resp := req.ResponseKind().(*kmsg.AlterClientQuotasResponse)
	allowed := s.authorizeCluster(c, acl.OpAlterConfigs)
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
		defer cancel()
		st := s.d.QuotaConfigs
		for _, entry := range req.Entries {
			out := kmsg.NewAlterClientQuotasResponseEntry()
			for _, p := range entry.Entity {
				ep := kmsg.NewAlterClientQuotasResponseEntryEntity()
				ep.Type, ep.Name = p.Type, p.Name
				out.Entity = append(out.Entity, ep)
			}
			err := refuse(kerr.ClusterAuthorizationFailed, "Cluster authorization failed.")
			if allowed {
				err = s.alterClientQuotas(ctx, st, entry, req.ValidateOnly)
			}
			if err != nil {
				out.ErrorCode = errCode(err)
				out.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
				s.log.Info("client quota alteration refused", "entity", entityString(entry.Entity), "err", err)
			}
			resp.Entries = append(resp.Entries, out)
		}
		return Result{Resp: resp}
	}
}

func (s *Server) alterClientQuotas(ctx context.Context, st QuotaConfigs, entry kmsg.AlterClientQuotasRequestEntry, validateOnly bool) error {
	e, err := quotaEntity(entry.Entity)
	if err != nil {
		return err
	}
	ops := make([]clientquota.Op, 0, len(entry.Ops))
	for _, op := range entry.Ops {
		ops = append(ops, clientquota.Op{Key: op.Key, Value: op.Value, Remove: op.Remove})
	}
	return st.Alter(ctx, e, ops, validateOnly)
}

// quotaEntity reads a request entity with Kafka's checks
// (parseAndSanitizeQuotaEntity); a type named twice keeps the last name,
// as Kafka's map does.
func quotaEntity(parts []kmsg.AlterClientQuotasRequestEntryEntity) (clientquota.Entity, error) {
	if len(parts) == 0 {
		return clientquota.Entity{}, refuse(kerr.InvalidRequest, "Invalid empty client quota entity")
	}
	var e clientquota.Entity
	for _, p := range parts {
		part := clientquota.DefaultPart
		if p.Name != nil {
			part = clientquota.NamedPart(*p.Name)
		}
		switch p.Type {
		case clientquota.EntityUser:
			e.User = part
		case clientquota.EntityClientID:
			e.Client = part
		default:
			return clientquota.Entity{}, refuse(kerr.InvalidRequest, "Unhandled client quota entity type: %s", p.Type)
		}
		if p.Name != nil && *p.Name == "" {
			return clientquota.Entity{}, refuse(kerr.InvalidRequest, "Empty %s not supported", p.Type)
		}
	}
	return e, nil
}

func entityString(parts []kmsg.AlterClientQuotasRequestEntryEntity) string {
	s := ""
	for _, p := range parts {
		name := "<default>"
		if p.Name != nil {
			name = *p.Name
		}
		s += p.Type + "=" + name + " "
	}
	return s
}
