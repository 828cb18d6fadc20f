package clientquota

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/meta"
	"kafgo/broker/meta/znode"
	"kafgo/internal/javanum"
)

// Store reads and writes quota configs where Kafka keeps them,
// /config/users/<user>, /config/users/<user>/clients/<client-id> and
// /config/clients/<client-id> (names sanitized, <default> for a default),
// as {"version":1,"config":{...}}, and tells every broker of a change
// through /config/changes. A user's znode also holds its SCRAM
// credentials: Store reads every key but changes only quota keys, and
// writes with a version check so a concurrent credential change is never
// lost.
type Store struct{ Meta meta.Store }

// maxWriteAttempts bounds the retries of a write that lost a race.
const maxWriteAttempts = 16

func entityPath(e Entity) string {
	typ, name := e.ConfigPath()
	return znode.EntityConfigPath(typ, name)
}

// parseConfig decodes an entity znode; a parent created without data (as
// Kafka's createRecursive leaves /config/users/<u> when only a
// user/client-id quota was set) holds no configs.
func parseConfig(data []byte) (map[string]string, error) {
	c, err := znode.ParseEntityConfig(data)
	if err != nil {
		return nil, err
	}
	if c.Config == nil {
		c.Config = map[string]string{}
	}
	return c.Config, nil
}

// Read returns every key of an entity's znode (empty when there is none).
func (s Store) Read(ctx context.Context, e Entity) (map[string]string, error) {
	cfg, _, _, err := s.read(ctx, entityPath(e))
	return cfg, err
}

func (s Store) read(ctx context.Context, path string) (cfg map[string]string, version int32, exists bool, err error) {
	data, stat, err := s.Meta.Get(ctx, path)
	if errors.Is(err, meta.ErrNoNode) {
		return map[string]string{}, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("clientquota: reading %s: %w", path, err)
	}
	cfg, err = parseConfig(data)
	if err != nil {
		return nil, 0, false, fmt.Errorf("clientquota: %s: %w", path, err)
	}
	return cfg, stat.Version, true, nil
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
		cfg, _, _, err := s.read(ctx, znode.EntityConfigPath(typ, name))
		if err != nil {
			return err
		}
		out[e] = cfg
		return nil
	}
	users, err := s.children(ctx, znode.ConfigPath+"/"+znode.ConfigTypeUser)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		if err := add(znode.ConfigTypeUser, u); err != nil {
			return nil, err
		}
		clients, err := s.children(ctx, znode.EntityConfigPath(znode.ConfigTypeUser, u)+"/"+znode.ConfigTypeClient)
		if err != nil {
			return nil, err
		}
		for _, c := range clients {
			if err := add(znode.ConfigTypeUser, u+"/"+znode.ConfigTypeClient+"/"+c); err != nil {
				return nil, err
			}
		}
	}
	clients, err := s.children(ctx, znode.ConfigPath+"/"+znode.ConfigTypeClient)
	if err != nil {
		return nil, err
	}
	for _, c := range clients {
		if err := add(znode.ConfigTypeClient, c); err != nil {
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
	path := entityPath(e)
	for range maxWriteAttempts {
		cfg, version, exists, err := s.read(ctx, path)
		if err != nil {
			return err
		}
		next := maps.Clone(cfg)
		if err := apply(next, ops); err != nil {
			return err
		}
		if validateOnly {
			return nil
		}
		data, err := znode.EntityConfig{Config: next}.Marshal()
		if err != nil {
			return err
		}
		if exists {
			_, err = s.Meta.Set(ctx, path, data, version)
		} else {
			err = s.create(ctx, e, path, data)
		}
		if errors.Is(err, meta.ErrBadVersion) || errors.Is(err, meta.ErrNodeExists) || errors.Is(err, meta.ErrNoNode) {
			continue // another writer got there first: read again
		}
		if err != nil {
			return fmt.Errorf("clientquota: writing %s: %w", path, err)
		}
		return s.notify(ctx, e)
	}
	return fmt.Errorf("clientquota: writing %s: still conflicting after %d attempts", path, maxWriteAttempts)
}

// create makes an entity's znode. A user's own znode is created with an
// empty config, not the empty data a bare parent would get, so every
// reader (the credential cache too) can parse it.
func (s Store) create(ctx context.Context, e Entity, path string, data []byte) error {
	if e.User.Kind != Absent && e.Client.Kind != Absent {
		userPath := entityPath(Entity{User: e.User})
		empty, err := znode.EntityConfig{}.Marshal()
		if err != nil {
			return err
		}
		if err := meta.CreateRecursive(ctx, s.Meta, userPath, empty, meta.Persistent); err != nil && !errors.Is(err, meta.ErrNodeExists) {
			return err
		}
	}
	return meta.CreateRecursive(ctx, s.Meta, path, data, meta.Persistent)
}

// notify posts /config/changes/config_change_<seq> for the entity.
func (s Store) notify(ctx context.Context, e Entity) error {
	typ, name := e.ConfigPath()
	note, err := znode.NewConfigChange(typ, name).Marshal()
	if err != nil {
		return err
	}
	if err := meta.EnsurePath(ctx, s.Meta, znode.ConfigChangesPath); err != nil {
		return err
	}
	if _, err := s.Meta.Create(ctx, znode.ConfigChangeSeqPath(), note, meta.PersistentSequential); err != nil {
		return fmt.Errorf("clientquota: posting the change of %s/%s: %w", typ, name, err)
	}
	return nil
}
