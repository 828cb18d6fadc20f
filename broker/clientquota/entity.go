package clientquota

import (
	"errors"
	"fmt"
	"strings"

	"kafgo/broker/meta/dynconfig"
)

// Quota config keys (Kafka's QuotaConfigs), in the order Kafka lists them.
const (
	ProducerByteRate  = "producer_byte_rate"
	ConsumerByteRate  = "consumer_byte_rate"
	RequestPercentage = "request_percentage"
)

// Keys are the quota keys an entity may set.
var Keys = []string{ProducerByteRate, ConsumerByteRate, RequestPercentage}

// IsKey reports whether k is a quota key (the other keys of a user's
// znode are SCRAM credentials).
func IsKey(k string) bool {
	for _, q := range Keys {
		if k == q {
			return true
		}
	}
	return false
}

// Type is what a quota limits: Kafka's QuotaType of a ClientQuotaManager.
type Type int

// The quota types, one ClientQuotaManager each in Kafka.
const (
	Produce Type = iota // producer_byte_rate on Produce request bytes
	Fetch               // consumer_byte_rate on Fetch response bytes
	Request             // request_percentage on request handler time
	numTypes
)

// Types lists every quota type.
var Types = [numTypes]Type{Produce, Fetch, Request}

// String is Kafka's QuotaType name, the metric group (type=Produce).
func (t Type) String() string {
	switch t {
	case Produce:
		return "Produce"
	case Fetch:
		return "Fetch"
	case Request:
		return "Request"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Key is the config key that sets this type's limit.
func (t Type) Key() string {
	switch t {
	case Produce:
		return ProducerByteRate
	case Fetch:
		return ConsumerByteRate
	}
	return RequestPercentage
}

// integral reports whether the type's key is a LONG (byte rates) rather
// than a DOUBLE (request_percentage).
func (t Type) integral() bool { return t != Request }

// Kind says whether one part of an entity is absent, a name, or the
// default for every name (Kafka's <default>).
type Kind uint8

// The kinds of an entity part.
const (
	Absent Kind = iota
	Named
	Default
)

// Part is the user or the client-id part of an entity.
type Part struct {
	Kind Kind
	Name string // the plain (not sanitized) name, for Named
}

// NamedPart is the part naming n.
func NamedPart(n string) Part { return Part{Kind: Named, Name: n} }

// DefaultPart is the <default> part.
var DefaultPart = Part{Kind: Default}

// DefaultName is the znode name of a default part.
const DefaultName = "<default>"

// znodeName is the part's name in a config path.
func (p Part) znodeName() string {
	if p.Kind == Default {
		return DefaultName
	}
	return dynconfig.Sanitize(p.Name)
}

// parsePart reads a znode name.
func parsePart(s string) (Part, error) {
	if s == DefaultName {
		return DefaultPart, nil
	}
	n, err := dynconfig.Desanitize(s)
	if err != nil {
		return Part{}, err
	}
	if n == "" {
		return Part{}, errors.New("clientquota: empty entity name")
	}
	return NamedPart(n), nil
}

// Entity is what a quota is set for: a user, a client id, or a user's
// client id, each part named or the default (Kafka's KafkaQuotaEntity).
type Entity struct {
	User, Client Part
}

// Valid reports whether the entity names at least one part.
func (e Entity) Valid() bool { return e.User.Kind != Absent || e.Client.Kind != Absent }

// ConfigPath is where the entity's configs live: /config/<entityType>/<name>,
// e.g. ("users", "alice/clients/c1"), ("clients", "<default>").
func (e Entity) ConfigPath() (entityType, name string) {
	switch {
	case e.User.Kind != Absent && e.Client.Kind != Absent:
		return dynconfig.Users, e.User.znodeName() + "/" + dynconfig.Clients + "/" + e.Client.znodeName()
	case e.User.Kind != Absent:
		return dynconfig.Users, e.User.znodeName()
	}
	return dynconfig.Clients, e.Client.znodeName()
}

// ParseEntity reads a config path (a change notification's entity type and
// name): users/<u>, users/<u>/clients/<c> or clients/<c>.
func ParseEntity(entityType, name string) (Entity, error) {
	bad := fmt.Errorf("clientquota: %s/%s is not a quota entity path", entityType, name)
	parts := strings.Split(name, "/")
	var e Entity
	var err error
	switch {
	case entityType == dynconfig.Clients && len(parts) == 1:
		e.Client, err = parsePart(parts[0])
	case entityType == dynconfig.Users && len(parts) == 1:
		e.User, err = parsePart(parts[0])
	case entityType == dynconfig.Users && len(parts) == 3 && parts[1] == dynconfig.Clients:
		if e.User, err = parsePart(parts[0]); err == nil {
			e.Client, err = parsePart(parts[2])
		}
	default:
		return Entity{}, bad
	}
	if err != nil {
		return Entity{}, fmt.Errorf("%w: %w", bad, err)
	}
	return e, nil
}

// String names the entity in logs, as Kafka's KafkaQuotaEntity does
// ("user alice client-id c1", "default user").
func (e Entity) String() string {
	var s []string
	switch e.User.Kind {
	case Named:
		s = append(s, "user "+e.User.Name)
	case Default:
		s = append(s, "default user")
	}
	switch e.Client.Kind {
	case Named:
		s = append(s, "client-id "+e.Client.Name)
	case Default:
		s = append(s, "default client-id")
	}
	return strings.Join(s, " ")
}

// level is which of Kafka's quota levels an entity sets: a client-id
// quota, a user quota, or a user + client-id quota.
type level uint8

const (
	clientLevel     level = 1 // QuotaTypes.ClientIdQuotaEnabled
	userLevel       level = 2 // QuotaTypes.UserQuotaEnabled
	userClientLevel level = 4 // QuotaTypes.UserClientIdQuotaEnabled
)

func (e Entity) level() level {
	switch {
	case e.User.Kind != Absent && e.Client.Kind != Absent:
		return userClientLevel
	case e.User.Kind != Absent:
		return userLevel
	}
	return clientLevel
}
