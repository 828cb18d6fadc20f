package meta

import (
	"context"
	"errors"
	"fmt"
)

// CreateRecursive creates path with data and mode, first creating any missing
// parents as persistent znodes with empty data, as Kafka's
// KafkaZkClient.createRecursive does. It returns an error wrapping
// ErrNodeExists if path itself exists. Parents created concurrently by
// someone else are fine.
func CreateRecursive(ctx context.Context, s Store, path string, data []byte, mode CreateMode) error {
	if err := validatePath(path, mode.IsSequential()); err != nil {
		return fmt.Errorf("meta: create recursive %q: %w", path, err)
	}
	_, err := s.Create(ctx, path, data, mode)
	if err == nil || !errors.Is(err, ErrNoNode) {
		return err
	}
	if err := ensureParents(ctx, s, path); err != nil {
		return err
	}
	// The parents may be deleted again between the two calls; that race is
	// the caller's to retry, as in Kafka, and surfaces as ErrNoNode.
	_, err = s.Create(ctx, path, data, mode)
	return err
}

// EnsurePath creates path and any missing parents as persistent znodes with
// empty data; an existing path is left as it is.
func EnsurePath(ctx context.Context, s Store, path string) error {
	if path == "/" {
		return nil
	}
	err := CreateRecursive(ctx, s, path, nil, Persistent)
	if errors.Is(err, ErrNodeExists) {
		return nil
	}
	return err
}

// ensureParents creates every missing ancestor of path, top-down. Walking
// down from the root keeps the number of calls bounded by the depth.
func ensureParents(ctx context.Context, s Store, path string) error {
	var chain []string
	for p := ParentPath(path); p != "/" && p != ""; p = ParentPath(p) {
		chain = append(chain, p)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		ok, _, err := s.Exists(ctx, chain[i])
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if _, err := s.Create(ctx, chain[i], nil, Persistent); err != nil && !errors.Is(err, ErrNodeExists) {
			return err
		}
	}
	return nil
}

// maxDeleteRounds bounds how often DeleteRecursive re-lists a znode that
// keeps gaining children while it is being deleted.
const maxDeleteRounds = 20

// DeleteRecursive deletes path and everything below it, depth-first. A path
// that does not exist is not an error (deletion is idempotent, as Kafka's
// deleteRecursive). Deleting "/" empties the tree but keeps the root and
// ZooKeeper's own /zookeeper subtree.
func DeleteRecursive(ctx context.Context, s Store, path string) error {
	if err := ValidatePath(path); err != nil {
		return fmt.Errorf("meta: delete recursive %q: %w", path, err)
	}
	for range maxDeleteRounds {
		children, _, err := s.Children(ctx, path)
		if errors.Is(err, ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, c := range children {
			if path == "/" && c == "zookeeper" {
				continue
			}
			if err := DeleteRecursive(ctx, s, JoinPath(path, c)); err != nil {
				return err
			}
		}
		if path == "/" {
			return nil
		}
		err = s.Delete(ctx, path, -1)
		switch {
		case err == nil, errors.Is(err, ErrNoNode):
			return nil
		case errors.Is(err, ErrNotEmpty):
			continue // a child appeared meanwhile: list again
		default:
			return err
		}
	}
	return fmt.Errorf("meta: delete recursive %q: still gaining children after %d rounds: %w", path, maxDeleteRounds, ErrNotEmpty)
}
