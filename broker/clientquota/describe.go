package clientquota

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// Entity types of the DescribeClientQuotas and AlterClientQuotas APIs
// (Kafka's ClientQuotaEntity).
const (
	EntityUser     = "user"
	EntityClientID = "client-id"
	EntityIP       = "ip"
)

// Match says what a filter component matches (the wire's match_type).
type Match int8

// The match types of a DescribeClientQuotas component.
const (
	MatchExact   Match = 0 // the named entity
	MatchDefault Match = 1 // the <default> entity
	MatchAny     Match = 2 // any entity of the type, the default included
)

// Component is one filter component.
type Component struct {
	EntityType string
	Match      Match
	Name       string // for MatchExact
}

// Filter selects entities to describe: each component constrains one
// entity type; Strict leaves out entities with a part no component names.
type Filter struct {
	Components []Component
	Strict     bool
}

// matches reports whether an entity part satisfies a component, or (with
// none) the strictness rule.
func (c *Component) matches(p Part, strict bool) bool {
	if c == nil {
		return p.Kind == Absent || !strict
	}
	switch c.Match {
	case MatchExact:
		return p.Kind == Named && p.Name == c.Name
	case MatchDefault:
		return p.Kind == Default
	}
	return p.Kind != Absent
}

// Describe lists the entities the filter selects that have a quota set,
// with their quotas, as Kafka's ZkAdminManager.describeClientQuotas: a
// component names the user or the client-id part (at most one each);
// kafgo keeps no IP quotas, so an IP component matches nothing.
func (s Store) Describe(ctx context.Context, f Filter) (map[Entity]map[string]float64, error) {
	var user, client, ip *Component
	for i := range f.Components {
		c := &f.Components[i]
		switch c.EntityType {
		case EntityUser:
			if user != nil {
				return nil, invalid("Duplicate user filter component entity type")
			}
			user = c
		case EntityClientID:
			if client != nil {
				return nil, invalid("Duplicate client filter component entity type")
			}
			client = c
		case EntityIP:
			if ip != nil {
				return nil, invalid("Duplicate ip filter component entity type")
			}
			ip = c
		case "":
			return nil, invalid("Unexpected empty filter component entity type")
		default:
			return nil, kafkaerr.New(kerr.UnsupportedVersion, "Custom entity type '%s' not supported", c.EntityType)
		}
		if c.Match < MatchExact || c.Match > MatchAny {
			return nil, invalid("Unexpected match type: %d", c.Match)
		}
	}
	if ip != nil && (user != nil || client != nil) {
		return nil, invalid("Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.")
	}
	out := map[Entity]map[string]float64{}
	if ip != nil {
		return out, nil
	}
	all, err := s.All(ctx)
	if err != nil {
		return nil, err
	}
	for e, cfg := range all {
		if !user.matches(e.User, f.Strict) || !client.matches(e.Client, f.Strict) {
			continue
		}
		q, err := Quotas(cfg)
		if err != nil {
			return nil, err
		}
		if len(q) > 0 {
			out[e] = q
		}
	}
	return out, nil
}
