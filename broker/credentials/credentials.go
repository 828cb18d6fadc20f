// Package credentials keeps the SCRAM credentials of users where Kafka keeps
// them, in the metadata store (ZooKeeper or the embedded store, one code path
// through meta.Store):
//
//	/config/users/<sanitized user>
//	{"version":1,"config":{"SCRAM-SHA-256":"salt=...,stored_key=...,server_key=...,iterations=4096", ...}}
//
// The same znode holds the user's quota configs, which are preserved. Every
// change posts /config/changes/config_change_<seq> with entity path
// users/<sanitized user>; every broker's Store follows those and answers
// the SASL/SCRAM servers from memory (Lookup).
//
// Alter and Describe implement AlterUserScramCredentials and
// DescribeUserScramCredentials (KIP-554) with Kafka 2.8's ZooKeeper-mode
// rules and messages (ZkAdminManager).
package credentials

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/internal/scram"
)

// Store caches every user's SCRAM credentials.
type Store struct {
	meta meta.Store
	log  *slog.Logger

	mu    sync.RWMutex
	users map[string]map[string]scram.Credential // user -> mechanism -> credential
}

// New returns an empty Store; call Load.
func New(store meta.Store, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	return &Store{meta: store, log: log, users: map[string]map[string]scram.Credential{}}
}

// Lookup is a sasl.CredentialLookup.
func (s *Store) Lookup(mechanism, user string) (scram.Credential, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.users[user][mechanism]
	return c, ok
}

// Load reads every user's credentials.
func (s *Store) Load(ctx context.Context) error {
	dir := dynconfig.Root + "/" + dynconfig.Users
	children, _, err := s.meta.Children(ctx, dir)
	if errors.Is(err, meta.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("credentials: listing %s: %w", dir, err)
	}
	for _, name := range children {
		if err := s.Refresh(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// Refresh re-reads one user, named as in its znode (sanitized), after a
// change notification. The <default> entity and user/client pairs hold
// quotas only and are skipped, as Kafka's UserConfigHandler does.
func (s *Store) Refresh(ctx context.Context, sanitized string) error {
	if sanitized == "<default>" || sanitized == "" || containsSlash(sanitized) {
		return nil
	}
	user, err := dynconfig.Desanitize(sanitized)
	if err != nil {
		return nil // not a user entity kafgo or Kafka wrote
	}
	cfg, err := readUser(ctx, s.meta, user)
	if err != nil {
		return err
	}
	creds, bad := credentialsOf(cfg)
	for mech, err := range bad {
		s.log.Warn("credentials: ignoring an unreadable SCRAM credential", "user", user, "mechanism", mech, "err", err)
	}
	s.mu.Lock()
	if len(creds) == 0 {
		delete(s.users, user)
	} else {
		s.users[user] = creds
	}
	s.mu.Unlock()
	return nil
}

// credentialsOf parses the SCRAM credentials of a user's config by
// mechanism; bad holds the ones that do not parse.
func credentialsOf(cfg map[string]string) (good map[string]scram.Credential, bad map[string]error) {
	good, bad = map[string]scram.Credential{}, map[string]error{}
	for _, m := range scram.Mechanisms {
		v, ok := cfg[m.Name]
		if !ok {
			continue
		}
		c, err := scram.ParseCredential(v)
		if err != nil {
			bad[m.Name] = err
			continue
		}
		good[m.Name] = c
	}
	return good, bad
}

func containsSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return true
		}
	}
	return false
}

// readUser reads /config/users/<user>; a missing znode is an empty config.
func readUser(ctx context.Context, store meta.Store, user string) (map[string]string, error) {
	cfg, err := dynconfig.Store{Meta: store}.Read(ctx, dynconfig.Users, dynconfig.Sanitize(user))
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	return cfg, nil
}
