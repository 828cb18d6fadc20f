package configs

import (
	"errors"
	"strconv"

	"github.com/spf13/pflag"
)

// Entity types of client quotas.
const (
	EntityUsers   = "users"
	EntityClients = "clients"
)

// EntityFlags are the entity flags of kafka-configs: --entity-type,
// --entity-name and --entity-default, each repeatable (the n-th name or
// default goes with the n-th type, as Kafka pairs them by command-line
// order: --entity-type users --entity-name alice --entity-type clients
// --entity-default), and the quota shortcuts --user, --client,
// --user-defaults and --client-defaults.
type EntityFlags struct {
	types []string
	names []string // in command-line order, "" for --entity-default
	named int

	user, client                 string
	userDefaults, clientDefaults bool
}

// Register adds the flags to f.
func (e *EntityFlags) Register(f *pflag.FlagSet) {
	f.StringArrayVar(&e.types, "entity-type", nil, "Type of entity (topics/brokers/users/clients); users and clients may be given together.")
	f.Var(entityName{e}, "entity-name", "Name of entity (topic name/broker id/user principal name/client id).")
	f.Var(entityDefault{e}, "entity-default", "Default entity name for brokers, users or clients (applies to corresponding entity type in command line).")
	f.Lookup("entity-default").NoOptDefVal = "true"
	f.StringVar(&e.user, "user", "", "The user's principal name (shortcut for --entity-type users --entity-name <user>).")
	f.StringVar(&e.client, "client", "", "The client's ID (shortcut for --entity-type clients --entity-name <client-id>).")
	f.BoolVar(&e.userDefaults, "user-defaults", false, "The config defaults for all users (shortcut for --entity-type users --entity-default).")
	f.BoolVar(&e.clientDefaults, "client-defaults", false, "The config defaults for all clients (shortcut for --entity-type clients --entity-default).")
}

// entityName records --entity-name in order.
type entityName struct{ e *EntityFlags }

func (v entityName) String() string { return "" }
func (v entityName) Type() string   { return "string" }
func (v entityName) Set(s string) error {
	v.e.names = append(v.e.names, s)
	v.e.named++
	return nil
}

// entityDefault records --entity-default in order; it takes no value.
type entityDefault struct{ e *EntityFlags }

func (v entityDefault) String() string { return "false" }
func (v entityDefault) Type() string   { return "bool" }
func (v entityDefault) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		v.e.names = append(v.e.names, "")
	}
	return nil
}

// Apply fills o's entity fields from the flags: EntityType and the first
// name for topics and brokers, every type and name for quotas. fl tells
// which shortcuts were given.
func (e *EntityFlags) Apply(o *Options, fl *pflag.FlagSet) error {
	o.Types = append([]string(nil), e.types...)
	o.Names = append([]string(nil), e.names...)
	if len(e.types) > 0 {
		o.EntityType = e.types[0]
	}
	for _, n := range e.names {
		if n == "" {
			o.EntityDefault = true
		} else if !o.NameSet {
			o.EntityName, o.NameSet = n, true
		}
	}
	// An --entity-name "" counts as named: Validate refuses it.
	if e.named > 0 {
		o.NameSet = true
	}
	quota := fl.Changed("user") || fl.Changed("client") || e.userDefaults || e.clientDefaults
	if !quota {
		return nil
	}
	if len(e.types) > 0 || len(e.names) > 0 {
		return errors.New("--entity-{type,name,default} should not be used in conjunction with specific entity flags")
	}
	// Kafka's order: the named shortcuts (client before user), then the
	// defaults.
	if fl.Changed("client") {
		o.Types, o.Names = append(o.Types, EntityClients), append(o.Names, e.client)
	}
	if fl.Changed("user") {
		o.Types, o.Names = append(o.Types, EntityUsers), append(o.Names, e.user)
	}
	if e.clientDefaults {
		o.Types, o.Names = append(o.Types, EntityClients), append(o.Names, "")
	}
	if e.userDefaults {
		o.Types, o.Names = append(o.Types, EntityUsers), append(o.Names, "")
	}
	o.EntityType = o.Types[0]
	return nil
}
