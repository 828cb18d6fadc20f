package clientquota

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/internal/javanum"
)

// Store reads and writes quota configs where Kafka keeps them,
// /config/users/<user>, /config/users/<user>/clients/<client-id> and
// /config/clients/<client-id> (names sanitized, <default> for a default),
// through dynconfig, which tells every broker of a change. A user's znode
// also holds its SCRAM credentials: Store reads every key but changes only
// quota keys, and dynconfig's version-checked update keeps a concurrent
// credential change.
type Store struct{ Meta meta.Store }

func (s Store) configs() dynconfig.Store { return dynconfig.Store{Meta: s.Meta} }

// Read returns every key of an entity's znode (empty when there is none).
func (s Store) Read(ctx context.Context, e Entity) (map[string]string, error) {
	typ, name := e.ConfigPath()
	cfg, err := s.configs().Read(ctx, typ, name)
	if err != nil {
		return nil, fmt.Errorf("clientquota: %w", err)
	}
	return cfg, nil
}

// Quotas is the quota part of a config: the quota keys and their values.
// A stored value that is not a number is reported as an error, as Kafka's
// describe fails on one.
func Quotas(cfg map[string]string) (map[string]float64, error) {
	out := map[string]float64{}
	for k, v := range cfg {
		if !IsKey(k) {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("clientquota: unexpected client quota configuration value: %s -> %s", k, v)
		}
		out[k] = f
	}
	return out, nil
}

// All reads the configs of every user, user/client-id and client-id
// entity in the store. Znode names that are not sanitized names are
// skipped.
func (s Store) All(ctx context.Context) (map[Entity]map[string]string, error) {
	out := map[Entity]map[string]string{}
	add := func(typ, name string) error {
		e, err := ParseEntity(typ, name)
		if err != nil {
			return nil // not a name kafka-configs could have written: not a quota entity
		}
		cfg, err := s.configs().Read(ctx, typ, name)
		if err != nil {
			return fmt.Errorf("clientquota: %w", err)
		}
		out[e] = cfg
		return nil
	}
	users, err := s.children(ctx, dynconfig.Root+"/"+dynconfig.Users)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		if err := add(dynconfig.Users, u); err != nil {
			return nil, err
		}
		clients, err := s.children(ctx, dynconfig.Path(dynconfig.Users, u)+"/"+dynconfig.Clients)
		if err != nil {
			return nil, err
		}
		for _, c := range clients {
			if err := add(dynconfig.Users, u+"/"+dynconfig.Clients+"/"+c); err != nil {
				return nil, err
			}
		}
	}
	clients, err := s.children(ctx, dynconfig.Root+"/"+dynconfig.Clients)
	if err != nil {
		return nil, err
	}
	for _, c := range clients {
		if err := add(dynconfig.Clients, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s Store) children(ctx context.Context, path string) ([]string, error) {
	names, _, err := s.Meta.Children(ctx, path)
	if errors.Is(err, meta.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("clientquota: listing %s: %w", path, err)
	}
	return names, nil
}

// Op is one alteration of a quota: set Key to Value, or remove it.
type Op struct {
	Key    string
	Value  float64
	Remove bool
}

// invalid is Kafka's InvalidRequestException for a quota alteration.
func invalid(format string, args ...any) error {
	return kafkaerr.New(kerr.InvalidRequest, format, args...)
}

// apply changes cfg by ops in order, with Kafka's checks
// (ZkAdminManager.alterClientQuotas): a key must be a quota key; a byte
// rate must be a whole number (within 1e-6) and is stored as one, a
// request percentage is stored as Java prints a double. Unlike Kafka,
// removing a key that is not a quota key is refused too, so the quota API
// can never remove a user's SCRAM credential.
func apply(cfg map[string]string, ops []Op) error {
	for _, op := range ops {
		var t Type = -1
		for _, tt := range Types {
			if tt.Key() == op.Key {
				t = tt
			}
		}
		if t < 0 {
			return invalid("Invalid configuration key %s", op.Key)
		}
		if op.Remove {
			delete(cfg, op.Key)
			continue
		}
		if !t.integral() {
			cfg[op.Key] = javanum.FormatDouble(op.Value)
			continue
		}
		// Java's (value + 1e-6).toLong saturates at Long.MAX_VALUE, whose
		// double is 2^63: Long.MAX_VALUE itself is accepted.
		const epsilon = 1e-6
		n := math.Trunc(op.Value + epsilon)
		if math.IsNaN(op.Value) || math.Abs(n-op.Value) > epsilon || n > math.MaxInt64 || n < math.MinInt64 {
			return invalid("Configuration %s must be a LONG value", op.Key)
		}
		v := int64(math.MaxInt64)
		if n < math.MaxInt64 {
			v = int64(n)
		}
		cfg[op.Key] = strconv.FormatInt(v, 10)
	}
	return nil
}

// Alter applies ops to an entity's quotas and, unless validateOnly, writes
// the znode back with its other keys as they were and posts a change
// notification. Errors from the checks are kafkaerr errors
// (INVALID_REQUEST with Kafka's message).
func (s Store) Alter(ctx context.Context, e Entity, ops []Op, validateOnly bool) error {
	if !e.Valid() {
		return invalid("Invalid client quota entity")
	}
	if validateOnly {
		cfg, err := s.Read(ctx, e)
		if err != nil {
			return err
		}
		return apply(cfg, ops)
	}
	typ, name := e.ConfigPath()
	return s.configs().Update(ctx, typ, name, func(cfg map[string]string) error { return apply(cfg, ops) })
}
