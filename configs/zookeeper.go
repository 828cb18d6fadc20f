package configs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"kafgo/broker/meta"
	"kafgo/broker/meta/dynconfig"
	"kafgo/internal/scram"
)

// ZooKeeper mode (--zookeeper): users' SCRAM credentials written straight
// into the metadata store, as kafka-configs --zookeeper does in Kafka 2.x,
// so the brokers' own SCRAM user exists before any broker runs (a cluster
// whose inter-broker listener uses SCRAM cannot otherwise start). Only
// that is offered, as in Kafka 3.x's --zookeeper: users' SCRAM keys for
// --alter, users' whole configs for --describe; everything else goes
// through a broker with --bootstrap-server.

// zkDeprecation is what kafka-configs prints before any --zookeeper work.
const zkDeprecation = "Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.\n" +
	"Use --bootstrap-server instead to specify a broker to connect to.\n"

// validateZooKeeper checks that o is one the ZooKeeper mode serves: one
// users entity, named for --alter.
func (o *Options) validateZooKeeper() error {
	types, names := o.types(), o.names()
	if len(types) != 1 || types[0] != EntityUsers {
		return errors.New("--zookeeper only describes and alters the SCRAM credentials of users (--entity-type users), to create them before the brokers start; use --bootstrap-server for other entities")
	}
	if o.Alter && (len(names) != 1 || names[0] == "") {
		return errors.New("--alter with --zookeeper needs one user: --entity-type users --entity-name <user> (SCRAM credentials are per user; defaults hold none)")
	}
	return nil
}

// RunZooKeeper performs o against the ZooKeeper ensemble at connect
// ("host:port[,host:port...][/chroot]"), writing the tool's output to out.
func RunZooKeeper(ctx context.Context, connect string, o Options, out io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if err := o.validateZooKeeper(); err != nil {
		return err
	}
	var (
		creds map[string]string
		del   []string
		err   error
	)
	if o.Alter {
		if creds, del, err = scramChanges(o); err != nil {
			return err
		}
	}
	fmt.Fprint(out, zkDeprecation)
	// The brokers' own ZooKeeper store; its session log stays out of the
	// tool's output, which is Kafka's.
	dctx, cancel := context.WithTimeout(ctx, zkConnectTimeout)
	zc, err := meta.DialZooKeeper(dctx, connect, zkTimeout, slog.New(slog.DiscardHandler))
	timedOut := dctx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil {
		if timedOut {
			return fmt.Errorf("connecting to ZooKeeper %s: no answer within %v: is ZooKeeper running there? (%w)", connect, zkConnectTimeout, err)
		}
		return fmt.Errorf("connecting to ZooKeeper %s: %w", connect, err)
	}
	defer zc.Close()
	if o.Alter {
		return alterUserZooKeeper(ctx, zc, o.names()[0], creds, del, out)
	}
	return describeUsersZooKeeper(ctx, zc, o, out)
}

// zkTimeout is the session timeout the tool asks for, kafka-configs'
// KafkaZkClient's 30 s.
const zkTimeout = 30 * time.Second

// zkConnectTimeout bounds the wait for the first session. Kafka's tool
// waits its whole 30 s connection timeout before saying that a ZooKeeper
// is not running; a running one answers in milliseconds, so a few seconds
// tell the two apart.
const zkConnectTimeout = 5 * time.Second

// userEntity is how kafka-configs names a user in its output.
func userEntity(name string) string {
	if name == "" || name == dynconfig.DefaultEntity {
		return "default user-principal"
	}
	return "user-principal '" + name + "'"
}

// scramChanges is the first half of ConfigCommand.alterConfigWithZk for a
// user, done before connecting: SCRAM keys only, and each added credential
// derived here from its password with a fresh salt
// (ScramFormatter.generateCredential), in Kafka's stored string form.
func scramChanges(o Options) (creds map[string]string, del []string, err error) {
	add, _, del, err := changes(o)
	if err != nil {
		return nil, nil, err
	}
	var wrongAdd, wrongDel []string
	for _, k := range sortedKeys(add) {
		if _, ok := scram.ByName(k); !ok {
			wrongAdd = append(wrongAdd, k)
		}
	}
	for _, k := range del {
		if _, ok := scram.ByName(k); !ok {
			wrongDel = append(wrongDel, k)
		}
	}
	if len(wrongAdd)+len(wrongDel) > 0 {
		// Kafka's message, naming the keys but never a password.
		return nil, nil, fmt.Errorf("--bootstrap-server option must be specified to update users configs: {add: [%s], delete: [%s]}. User configuration updates using ZooKeeper are only supported for SCRAM credential updates.",
			strings.Join(wrongAdd, ", "), strings.Join(wrongDel, ", "))
	}
	creds = map[string]string{}
	for _, m := range scram.Mechanisms {
		v, ok := add[m.Name]
		if !ok {
			continue
		}
		iterations, password, err := parseScramCredential(m.Name, v)
		if err != nil {
			return nil, nil, err
		}
		c, err := m.Generate(password, int(iterations))
		if err != nil {
			return nil, nil, err
		}
		creds[m.Name] = c.String()
	}
	return creds, del, nil
}

// alterUserZooKeeper is the second half: deleting a key the user does not
// have fails, the user's other keys (quotas) are kept, and the znode is
// rewritten at the version read (re-read and merged if a broker changed it
// meanwhile), with /config/changes/config_change_<seq> telling the running
// brokers, if any: the brokers' own dynconfig update.
func alterUserZooKeeper(ctx context.Context, zc meta.Store, user string, creds map[string]string, del []string, out io.Writer) error {
	err := dynconfig.Store{Meta: zc}.Update(ctx, dynconfig.Users, dynconfig.Sanitize(user), func(cfg map[string]string) error {
		set := map[string]bool{}
		for k := range cfg {
			set[k] = true
		}
		if err := deletingUnset(del, set); err != nil {
			return err
		}
		for k, v := range creds {
			cfg[k] = v
		}
		for _, k := range del {
			delete(cfg, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Completed updating config for entity: %s.\n", userEntity(user))
	return nil
}

// describeUsersZooKeeper is ConfigCommand.describeConfigWithZk for users:
// "Configs for user-principal 'alice' are k=v,k2=v2" with every key of the
// user's znode (SCRAM credentials in their stored form, which holds no
// password, and quotas), keys sorted; for every user without a name,
// skipping users whose znode is empty.
func describeUsersZooKeeper(ctx context.Context, zc meta.Store, o Options, out io.Writer) error {
	var users []string // sanitized
	all := len(o.names()) == 0
	if all {
		names, _, err := zc.Children(ctx, dynconfig.Root+"/"+dynconfig.Users)
		if errors.Is(err, meta.ErrNoNode) {
			names, err = nil, nil // no user has a config yet
		}
		if err != nil {
			return fmt.Errorf("listing users: %w", err)
		}
		users = slices.Sorted(slices.Values(names))
	} else if n := o.names()[0]; n == "" {
		users = []string{dynconfig.DefaultEntity}
	} else {
		users = []string{dynconfig.Sanitize(n)}
	}
	for _, s := range users {
		cfg, err := dynconfig.Store{Meta: zc}.Read(ctx, dynconfig.Users, s)
		if err != nil {
			return err
		}
		if all && len(cfg) == 0 {
			continue
		}
		name := s
		if s != dynconfig.DefaultEntity {
			if name, err = dynconfig.Desanitize(s); err != nil {
				return err
			}
		}
		pairs := make([]string, 0, len(cfg))
		for _, k := range sortedKeys(cfg) {
			pairs = append(pairs, k+"="+cfg[k])
		}
		fmt.Fprintf(out, "Configs for %s are %s\n", userEntity(name), strings.Join(pairs, ","))
	}
	return nil
}
