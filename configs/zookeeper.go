package configs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"kafgo/internal/configznode"
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
	zc, err := dialZooKeeper(ctx, connect)
	if err != nil {
		return err
	}
	defer zc.Close()
	if o.Alter {
		return alterUserZooKeeper(ctx, zc, o.names()[0], creds, del, out)
	}
	return describeUsersZooKeeper(ctx, zc, o, out)
}

// userEntity is how kafka-configs names a user in its output.
func userEntity(name string) string {
	if name == "" || name == configznode.DefaultEntity {
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
// have fails, the user's other keys (quotas) are kept, the znode is
// rewritten at the version read (re-read and merged if a broker changed it
// meanwhile), and /config/changes/config_change_<seq> tells the running
// brokers, if any.
func alterUserZooKeeper(ctx context.Context, zc *zkClient, user string, creds map[string]string, del []string, out io.Writer) error {
	sanitized := configznode.Sanitize(user)
	path := configznode.Path(configznode.Users, sanitized)
	const attempts = 10
	for i := 0; ; i++ {
		if i == attempts {
			return fmt.Errorf("%s kept changing while being written", path)
		}
		data, version, exists, err := zc.get(ctx, path)
		if err != nil {
			return err
		}
		cfg := map[string]string{}
		if exists {
			if cfg, err = configznode.ParseConfig(data); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
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
		data, err = configznode.MarshalConfig(cfg)
		if err != nil {
			return err
		}
		if exists {
			err = zc.set(ctx, path, data, version)
		} else {
			_, err = zc.create(ctx, path, data, false)
		}
		if errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrNodeExists) {
			continue // changed meanwhile: read again and merge
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		break
	}
	note, err := configznode.MarshalChange(configznode.Users + "/" + sanitized)
	if err != nil {
		return err
	}
	if _, err := zc.create(ctx, configznode.ChangeSeqPath(), note, true); err != nil {
		return fmt.Errorf("announcing the change of %s: %w", path, err)
	}
	fmt.Fprintf(out, "Completed updating config for entity: %s.\n", userEntity(user))
	return nil
}

// describeUsersZooKeeper is ConfigCommand.describeConfigWithZk for users:
// "Configs for user-principal 'alice' are k=v,k2=v2" with every key of the
// user's znode (SCRAM credentials in their stored form, which holds no
// password, and quotas), keys sorted; for every user without a name,
// skipping users whose znode is empty.
func describeUsersZooKeeper(ctx context.Context, zc *zkClient, o Options, out io.Writer) error {
	var users []string // sanitized
	all := len(o.names()) == 0
	if all {
		names, err := zc.children(ctx, configznode.Root+"/"+configznode.Users)
		if err != nil {
			return err
		}
		users = slices.Sorted(slices.Values(names))
	} else if n := o.names()[0]; n == "" {
		users = []string{configznode.DefaultEntity}
	} else {
		users = []string{configznode.Sanitize(n)}
	}
	for _, s := range users {
		data, _, exists, err := zc.get(ctx, configznode.Path(configznode.Users, s))
		if err != nil {
			return err
		}
		cfg := map[string]string{}
		if exists {
			if cfg, err = configznode.ParseConfig(data); err != nil {
				return fmt.Errorf("%s: %w", configznode.Path(configznode.Users, s), err)
			}
		}
		if all && len(cfg) == 0 {
			continue
		}
		name := s
		if s != configznode.DefaultEntity {
			if name, err = configznode.Desanitize(s); err != nil {
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
