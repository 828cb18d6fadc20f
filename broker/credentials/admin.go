package credentials

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/internal/scram"
)

// Deletion removes one mechanism's credential of a user.
type Deletion struct {
	User      string
	Mechanism int8 // 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
}

// Upsertion sets one mechanism's credential of a user from the salted
// password the client computed.
type Upsertion struct {
	User           string
	Mechanism      int8
	Iterations     int32
	Salt           []byte
	SaltedPassword []byte
}

// Result is one user's outcome.
type Result struct {
	User    string
	Code    int16
	Message *string
}

func result(user string, e *kerr.Error, msg string) Result {
	return Result{User: user, Code: e.Code, Message: &msg}
}

// Alter applies deletions and upsertions with Kafka 2.8's ZooKeeper-mode
// rules: a user with an empty name, an unknown mechanism or iterations
// outside [4096, 16384] fails as a whole; so does one that names the same
// (user, mechanism) twice, and one that deletes a credential it does not
// have. Each remaining user's znode is rewritten once (keeping its other
// keys) and announced on /config/changes. Results come in the order Kafka
// builds them: validation failures, duplicates, missing deletions, then
// write failures and successes.
func (s *Store) Alter(ctx context.Context, dels []Deletion, ups []Upsertion) []Result {
	var out []Result
	invalid := map[string]string{}
	var order []string
	note := func(user, msg string) {
		if _, seen := invalid[user]; !seen {
			order = append(order, user)
		}
		invalid[user] = msg
	}
	for _, d := range dels {
		switch _, ok := scram.ByCode(d.Mechanism); {
		case d.User == "":
			note(d.User, "Username must not be empty")
		case !ok:
			note(d.User, "Unknown SCRAM mechanism")
		}
	}
	for _, u := range ups {
		m, ok := scram.ByCode(u.Mechanism)
		switch {
		case u.User == "":
			note(u.User, "Username must not be empty")
		case !ok:
			note(u.User, "Unknown SCRAM mechanism")
		case int(u.Iterations) > scram.MaxIterations:
			note(u.User, "Too many iterations")
		case int(u.Iterations) < m.MinIterations:
			note(u.User, "Too few iterations")
		}
	}
	for _, user := range order {
		code := kerr.UnacceptableCredential
		if invalid[user] == "Unknown SCRAM mechanism" {
			code = kerr.UnsupportedSaslMechanism
		}
		out = append(out, result(user, code, invalid[user]))
	}

	type pair struct {
		user string
		mech int8
	}
	count := map[pair]int{}
	var users []string
	for _, u := range ups {
		if _, bad := invalid[u.User]; !bad {
			count[pair{u.User, u.Mechanism}]++
			users = append(users, u.User)
		}
	}
	for _, d := range dels {
		if _, bad := invalid[d.User]; !bad {
			count[pair{d.User, d.Mechanism}]++
			users = append(users, d.User)
		}
	}
	dup := map[string]bool{}
	for p, n := range count {
		if n > 1 {
			dup[p.user] = true
		}
	}
	users = uniqueSorted(users)
	for _, u := range users {
		if dup[u] {
			out = append(out, result(u, kerr.DuplicateResource, "A user credential cannot be altered twice in the same request"))
		}
	}
	users = slices.DeleteFunc(users, func(u string) bool { return dup[u] })

	var todo []string
	for _, user := range users {
		var missing bool
		for _, d := range dels {
			if d.User != user {
				continue
			}
			cfg, err := readUser(ctx, s.meta, user)
			if err != nil {
				out = append(out, result(user, kerr.UnknownServerError, err.Error()))
				missing = true
				break
			}
			m, _ := scram.ByCode(d.Mechanism)
			if _, ok := cfg[m.Name]; !ok {
				out = append(out, result(user, kerr.ResourceNotFound, "Attempt to delete a user credential that does not exist"))
				missing = true
				break
			}
		}
		if !missing {
			todo = append(todo, user)
		}
	}
	for _, user := range todo {
		if err := s.write(ctx, user, dels, ups); err != nil {
			s.log.Info("credentials: altering user SCRAM credentials failed", "user", user, "err", err)
			out = append(out, result(user, kerr.UnknownServerError, err.Error()))
			continue
		}
		out = append(out, Result{User: user})
	}
	return out
}

func uniqueSorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return slices.Compact(s)
}

// write rewrites one user's znode with its deletions and upsertions applied
// (dynconfig's update, which keeps a concurrent change of its other keys
// and announces it), then refreshes the cache.
func (s *Store) write(ctx context.Context, user string, dels []Deletion, ups []Upsertion) error {
	err := dynconfig.Store{Meta: s.meta}.Update(ctx, dynconfig.Users, dynconfig.Sanitize(user), func(cfg map[string]string) error {
		for _, d := range dels {
			if d.User == user {
				m, _ := scram.ByCode(d.Mechanism)
				delete(cfg, m.Name)
			}
		}
		for _, u := range ups {
			if u.User == user {
				m, _ := scram.ByCode(u.Mechanism)
				cfg[m.Name] = m.CredentialFromSalted(u.SaltedPassword, u.Salt, int(u.Iterations)).String()
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	return s.Refresh(ctx, dynconfig.Sanitize(user))
}

// CredentialInfo is a described credential: never the secret, only how it
// was made.
type CredentialInfo struct {
	Mechanism  int8
	Iterations int32
}

// Description is one user's DescribeUserScramCredentials result.
type Description struct {
	User    string
	Code    int16
	Message *string
	Infos   []CredentialInfo
}

// Describe reads credentials from the store: every user that has one when
// users is nil or empty (sorted by name), else the named users in request
// order, each once. A named user without credentials is RESOURCE_NOT_FOUND;
// an empty name is RESOURCE_NOT_FOUND; a name given twice is
// DUPLICATE_RESOURCE.
func (s *Store) Describe(ctx context.Context, users []string) ([]Description, error) {
	if len(users) == 0 {
		dir := dynconfig.Root + "/" + dynconfig.Users
		children, _, err := s.meta.Children(ctx, dir)
		if err != nil && !errors.Is(err, meta.ErrNoNode) {
			return nil, fmt.Errorf("credentials: listing %s: %w", dir, err)
		}
		var out []Description
		for _, c := range children {
			user, err := dynconfig.Desanitize(c)
			if err != nil || c == "<default>" {
				continue
			}
			d, has, err := s.describeOne(ctx, user)
			if err != nil {
				return nil, err
			}
			if has {
				out = append(out, d)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].User < out[j].User })
		return out, nil
	}
	seen := map[string]int{}
	for _, u := range users {
		seen[u]++
	}
	var out []Description
	done := map[string]bool{}
	for _, u := range users {
		if done[u] {
			continue
		}
		done[u] = true
		switch {
		case u == "":
			msg := "Username must not be empty"
			out = append(out, Description{User: u, Code: kerr.ResourceNotFound.Code, Message: &msg})
		case seen[u] > 1:
			msg := "Cannot describe SCRAM credentials for the same user twice in a single request: " + u
			out = append(out, Description{User: u, Code: kerr.DuplicateResource.Code, Message: &msg})
		default:
			d, has, err := s.describeOne(ctx, u)
			if err != nil {
				msg := err.Error()
				d = Description{User: u, Code: kerr.UnknownServerError.Code, Message: &msg}
			} else if !has {
				msg := "Attempt to describe a user credential that does not exist: " + u
				d = Description{User: u, Code: kerr.ResourceNotFound.Code, Message: &msg}
			}
			out = append(out, d)
		}
	}
	return out, nil
}

func (s *Store) describeOne(ctx context.Context, user string) (Description, bool, error) {
	cfg, err := readUser(ctx, s.meta, user)
	if err != nil {
		return Description{}, false, err
	}
	good, bad := credentialsOf(cfg)
	for _, err := range bad {
		msg := err.Error()
		return Description{User: user, Code: kerr.UnknownServerError.Code, Message: &msg}, true, nil
	}
	d := Description{User: user}
	for _, m := range scram.Mechanisms {
		if c, ok := good[m.Name]; ok {
			d.Infos = append(d.Infos, CredentialInfo{Mechanism: m.Code, Iterations: int32(c.Iterations)})
		}
	}
	return d, len(d.Infos) > 0, nil
}
