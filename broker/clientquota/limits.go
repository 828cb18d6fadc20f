package clientquota

import "math"

// Unlimited is the limit of an entity no quota covers: Long.MAX_VALUE,
// Kafka's QuotaBytesPerSecondDefault, as a double.
const Unlimited = float64(math.MaxInt64)

// tags identify a sensor: the user and client id a rate is kept for, as
// Kafka's quota metric tags. An empty part means the quota that applies
// covers every value of it, so those clients share one rate: with only
// /config/users/alice set, all of alice's client ids count together.
// The user is the principal's plain name (metrics print it sanitized).
type tags struct {
	user, client string
}

// limits are one quota type's configured quotas: Kafka's
// DefaultQuotaCallback. Not safe for concurrent use; the manager guards it.
type limits struct {
	// enabled records which levels have ever had an entity (of any
	// config) since start, as Kafka's quotaTypesEnabled: it picks the
	// metric tags, and so which clients share a rate.
	enabled   level
	overrides map[Entity]float64
	// static is quota.producer.default / quota.consumer.default: the
	// client-id quota below every dynamic one (Unlimited when not set).
	static float64
}

func newLimits(static float64) *limits {
	l := &limits{overrides: map[Entity]float64{}, static: static}
	if static != Unlimited {
		l.enabled = clientLevel
	}
	return l
}

// on reports whether any quota of this type may apply; until one does,
// Kafka records nothing (quotasEnabled).
func (l *limits) on() bool { return l.enabled != 0 }

// set records an entity's quota (ok) or its absence.
func (l *limits) set(e Entity, v float64, ok bool) {
	l.enabled |= e.level()
	if ok {
		l.overrides[e] = v
	} else {
		delete(l.overrides, e)
	}
}

func (l *limits) has(u, c Part) bool {
	_, ok := l.overrides[Entity{User: u, Client: c}]
	return ok
}

func (l *limits) get(u, c Part) (float64, bool) {
	v, ok := l.overrides[Entity{User: u, Client: c}]
	return v, ok
}

// tagsFor picks the sensor of a request from user with client id: the
// level of the most specific quota that applies, following Kafka's order
//
//  1. /config/users/<user>/clients/<client-id>
//  2. /config/users/<user>/clients/<default>
//  3. /config/users/<user>
//  4. /config/users/<default>/clients/<client-id>
//  5. /config/users/<default>/clients/<default>
//  6. /config/users/<default>
//  7. /config/clients/<client-id>
//  8. /config/clients/<default>
//
// When only one level has ever been configured, the tags follow from it
// alone, as Kafka's shortcut does.
func (l *limits) tagsFor(user, client string) tags {
	switch l.enabled {
	case 0, clientLevel:
		return tags{client: client}
	case userLevel:
		return tags{user: user}
	case userClientLevel:
		return tags{user: user, client: client}
	}
	u, c := NamedPart(user), NamedPart(client)
	switch {
	case l.has(u, c), l.has(u, DefaultPart):
		return tags{user, client}
	case l.has(u, Part{}):
		return tags{user: user}
	case l.has(DefaultPart, c), l.has(DefaultPart, DefaultPart):
		return tags{user, client}
	case l.has(DefaultPart, Part{}):
		return tags{user: user}
	}
	return tags{client: client}
}

// limit is the quota of a sensor's tags (Kafka's quotaLimit): the most
// specific quota set at the level the tags stand for, Unlimited if none.
func (l *limits) limit(t tags) float64 {
	u, c := NamedPart(t.user), NamedPart(t.client)
	var order [][2]Part
	switch {
	case t.user != "" && t.client != "":
		order = [][2]Part{{u, c}, {u, DefaultPart}, {DefaultPart, c}, {DefaultPart, DefaultPart}}
	case t.user != "":
		order = [][2]Part{{u, {}}, {DefaultPart, {}}}
	case t.client != "":
		order = [][2]Part{{{}, c}, {{}, DefaultPart}}
	default:
		return Unlimited
	}
	for _, o := range order {
		if v, ok := l.get(o[0], o[1]); ok {
			return v
		}
	}
	if t.user == "" {
		return l.static
	}
	return Unlimited
}
