package api

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/acl"
	"kafgo/broker/clientquota"
	"kafgo/broker/kafkaerr"
)

// DescribeClientQuotas (key 48, KIP-546).
// Lists the user and client-id entities the filter selects that have a
// quota set, read from the metadata store (so a change through any broker
// shows at once), with their quotas as doubles. A component matches one
// entity type exactly (match_type 0, a name), its default (1) or any
// entity of the type (2); strict leaves out entities with a part no
// component names. A bad filter fails the whole request with Kafka's
// error and message; kafgo keeps no IP quotas, so an IP component matches
// nothing.
func init() {
	regKey(kmsg.NewPtrDescribeClientQuotasRequest(), 0, 1, (*Server).handleDescribeClientQuotas)
}

func (s *Server) handleDescribeClientQuotas(c *Call) Reply {
	req := c.Req.(*kmsg.DescribeClientQuotasRequest)
	resp := req.ResponseKind().(*kmsg.DescribeClientQuotasResponse)
	if !s.authorizeCluster(c, acl.OpDescribeConfigs) {
		return respond(describeQuotasError(resp, refuse(kerr.ClusterAuthorizationFailed, "Cluster authorization failed.")))
	}
	f := clientquota.Filter{Strict: req.Strict}
	for _, comp := range req.Components {
		fc := clientquota.Component{EntityType: comp.EntityType, Match: clientquota.Match(comp.MatchType)}
		if fc.Match == clientquota.MatchExact {
			if comp.Match == nil {
				return respond(describeQuotasError(resp, refuse(kerr.InvalidRequest, "Unexpected null match string")))
			}
			fc.Name = *comp.Match
		}
		f.Components = append(f.Components, fc)
	}
	return func() Result {
		ctx, cancel := context.WithTimeout(context.Background(), s.d.RequestTimeout)
		defer cancel()
		found, err := s.d.QuotaConfigs.Describe(ctx, f)
		if err != nil {
			return Result{Resp: describeQuotasError(resp, err)}
		}
		for _, e := range slices.SortedFunc(maps.Keys(found), compareEntities) {
			entry := kmsg.NewDescribeClientQuotasResponseEntry()
			entry.Entity = entityParts(e, func(typ string, name *string) kmsg.DescribeClientQuotasResponseEntryEntity {
				p := kmsg.NewDescribeClientQuotasResponseEntryEntity()
				p.Type, p.Name = typ, name
				return p
			})
			for _, k := range slices.Sorted(maps.Keys(found[e])) {
				v := kmsg.NewDescribeClientQuotasResponseEntryValue()
				v.Key, v.Value = k, found[e][k]
				entry.Values = append(entry.Values, v)
			}
			resp.Entries = append(resp.Entries, entry)
		}
		return Result{Resp: resp}
	}
}

func describeQuotasError(resp *kmsg.DescribeClientQuotasResponse, err error) *kmsg.DescribeClientQuotasResponse {
	resp.ErrorCode = errCode(err)
	resp.ErrorMessage = kmsg.StringPtr(kafkaerr.Message(err))
	resp.Entries = nil
	return resp
}

// entityParts lists an entity's parts as the wire does: the user, then the
// client id, a default with a null name.
func entityParts[T any](e clientquota.Entity, mk func(typ string, name *string) T) []T {
	var out []T
	for _, p := range []struct {
		typ  string
		part clientquota.Part
	}{{clientquota.EntityUser, e.User}, {clientquota.EntityClientID, e.Client}} {
		switch p.part.Kind {
		case clientquota.Named:
			out = append(out, mk(p.typ, kmsg.StringPtr(p.part.Name)))
		case clientquota.Default:
			out = append(out, mk(p.typ, nil))
		}
	}
	return out
}

// compareEntities orders entities by user, then client id (absent first,
// then the default, then names).
func compareEntities(a, b clientquota.Entity) int {
	return cmp.Or(cmp.Compare(a.User.Kind, b.User.Kind), cmp.Compare(a.User.Name, b.User.Name),
		cmp.Compare(a.Client.Kind, b.Client.Kind), cmp.Compare(a.Client.Name, b.Client.Name))
}
