package dynconfig

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"kafgo/broker/meta"
)

// Store reads and writes entity configs in a metadata store.
type Store struct{ Meta meta.Store }

// maxUpdateAttempts bounds the re-reads of an Update that keeps losing
// races: each lost race means another write succeeded, so this is only
// reached by a store under a storm of writes to one entity.
const maxUpdateAttempts = 32

// Read returns the config of entity name (sanitized) of entityType, empty
// when it has none.
func (s Store) Read(ctx context.Context, entityType, name string) (map[string]string, error) {
	cfg, _, _, err := s.read(ctx, Path(entityType, name))
	return cfg, err
}

// read returns the config at path and its znode version; exists is false
// (and cfg empty) when there is no znode.
func (s Store) read(ctx context.Context, path string) (cfg map[string]string, version int32, exists bool, err error) {
	data, stat, err := s.Meta.Get(ctx, path)
	if errors.Is(err, meta.ErrNoNode) {
		return map[string]string{}, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("dynconfig: reading %s: %w", path, err)
	}
	if cfg, err = ParseConfig(data); err != nil {
		return nil, 0, false, fmt.Errorf("dynconfig: %s: %w", path, err)
	}
	return cfg, stat.Version, true, nil
}

// Update changes the config of entity name (sanitized) of entityType: fn
// gets the config as stored now (empty when there is none) to change in
// place; an error from fn ends Update with that error and nothing written.
// The result is written at the version read, or created when there was no
// znode, and when another writer got there first Update reads again and
// calls fn anew, so no concurrent change is lost. After the write it posts
// the change notification every broker follows.
func (s Store) Update(ctx context.Context, entityType, name string, fn func(cfg map[string]string) error) error {
	path := Path(entityType, name)
	for range maxUpdateAttempts {
		cfg, version, exists, err := s.read(ctx, path)
		if err != nil {
			return err
		}
		next := maps.Clone(cfg)
		if err := fn(next); err != nil {
			return err
		}
		data, err := MarshalConfig(next)
		if err != nil {
			return err
		}
		if exists {
			_, err = s.Meta.Set(ctx, path, data, version)
		} else {
			err = s.create(ctx, entityType, name, data)
		}
		if errors.Is(err, meta.ErrBadVersion) || errors.Is(err, meta.ErrNodeExists) || errors.Is(err, meta.ErrNoNode) {
			continue // another writer got there first: read again
		}
		if err != nil {
			return fmt.Errorf("dynconfig: writing %s: %w", path, err)
		}
		return s.Notify(ctx, entityType, name)
	}
	return fmt.Errorf("dynconfig: writing %s: still conflicting after %d attempts", path, maxUpdateAttempts)
}

// create makes an entity's znode and its parents. The parent entity of a
// nested one (the user of users/<u>/clients/<c>) is created with an empty
// config, not the empty data a bare parent would get, so every reader of
// the user's znode finds a config there.
func (s Store) create(ctx context.Context, entityType, name string, data []byte) error {
	if parent, _, nested := strings.Cut(name, "/"); nested {
		empty, err := MarshalConfig(nil)
		if err != nil {
			return err
		}
		if err := meta.CreateRecursive(ctx, s.Meta, Path(entityType, parent), empty, meta.Persistent); err != nil && !errors.Is(err, meta.ErrNodeExists) {
			return err
		}
	}
	return meta.CreateRecursive(ctx, s.Meta, Path(entityType, name), data, meta.Persistent)
}

// Notify posts /config/changes/config_change_<seq> for an entity, telling
// every broker to re-read it.
func (s Store) Notify(ctx context.Context, entityType, name string) error {
	note, err := MarshalChange(entityType + "/" + name)
	if err != nil {
		return err
	}
	if err := meta.EnsurePath(ctx, s.Meta, ChangesPath); err != nil {
		return err
	}
	if _, err := s.Meta.Create(ctx, ChangeSeqPath(), note, meta.PersistentSequential); err != nil {
		return fmt.Errorf("dynconfig: posting the change of %s/%s: %w", entityType, name, err)
	}
	return nil
}
