package configs

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// parseEntities runs the entity flags over args as the command does.
func parseEntities(t *testing.T, args ...string) (Options, error) {
	t.Helper()
	var e EntityFlags
	fl := pflag.NewFlagSet("configs", pflag.ContinueOnError)
	e.Register(fl)
	if err := fl.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	var o Options
	err := e.Apply(&o, fl)
	return o, err
}

// TestEntityFlagsOrder: names and defaults pair with types in command-line
// order, and the shortcuts follow Kafka's order (named client, named
// user, then the defaults).
func TestEntityFlagsOrder(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		types, names []string
	}{
		{[]string{"--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients", "--entity-name", "c1"}, []string{"users", "clients"}, []string{"alice", "c1"}},
		{[]string{"--entity-type", "users", "--entity-default", "--entity-type", "clients", "--entity-name", "c1"}, []string{"users", "clients"}, []string{"", "c1"}},
		{[]string{"--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients", "--entity-default"}, []string{"users", "clients"}, []string{"alice", ""}},
		{[]string{"--user", "alice", "--client", "c1"}, []string{"clients", "users"}, []string{"c1", "alice"}},
		{[]string{"--user-defaults", "--client", "c1"}, []string{"clients", "users"}, []string{"c1", ""}},
		{[]string{"--client-defaults"}, []string{"clients"}, []string{""}},
		{[]string{"--entity-type", "topics", "--entity-name", "t"}, []string{"topics"}, []string{"t"}},
	} {
		o, err := parseEntities(t, tc.args...)
		if err != nil || !slices.Equal(o.Types, tc.types) || !slices.Equal(o.Names, tc.names) || o.EntityType != tc.types[0] {
			t.Errorf("%v: types %v names %v type %q err %v; want %v %v", tc.args, o.Types, o.Names, o.EntityType, err, tc.types, tc.names)
		}
	}
	o, _ := parseEntities(t, "--entity-type", "brokers", "--entity-default")
	if !o.EntityDefault || o.NameSet {
		t.Errorf("--entity-default: default %v named %v", o.EntityDefault, o.NameSet)
	}
	if _, err := parseEntities(t, "--entity-type", "users", "--user", "alice"); err == nil || !strings.Contains(err.Error(), "should not be used in conjunction") {
		t.Errorf("mixing --entity-type and --user: %v", err)
	}
}

// TestValidateQuotas: ConfigCommand's checks for users and clients.
func TestValidateQuotas(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"describe all users", Options{Types: []string{"users"}, Describe: true}, ""},
		{"describe user and any client", Options{Types: []string{"users", "clients"}, Names: []string{"alice"}, Describe: true}, ""},
		{"alter pair", Options{Types: []string{"users", "clients"}, Names: []string{"alice", ""}, Alter: true, AddConfig: "producer_byte_rate=1"}, ""},
		{"duplicate", Options{Types: []string{"users", "users"}, Describe: true}, "Duplicate entity type(s) specified: users"},
		{"mixed", Options{Types: []string{"topics", "users"}, Describe: true}, "Only 'users' and 'clients' entity types may be specified together"},
		{"too many names", Options{Types: []string{"clients"}, Names: []string{"a", "b"}, Describe: true}, "More entity names specified than entity types"},
		{"alter no name", Options{Types: []string{"clients"}, Alter: true, AddConfig: "a=1"}, "an entity-name or default entity must be specified with --alter of users, clients, brokers or ips"},
		{"alter half named", Options{Types: []string{"users", "clients"}, Names: []string{"a"}, Alter: true, AddConfig: "a=1"}, "Exactly one entity name must be specified for every entity type"},
		{"alter nothing", Options{Types: []string{"clients"}, Names: []string{"c"}, Alter: true}, "At least one of --add-config"},
		{"all", Options{Types: []string{"clients"}, Describe: true, All: true}, "--all is only valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
}

// TestQuotaFilterAndEntityString: the describe filter ConfigCommand sends
// and the entity names it prints.
func TestQuotaFilterAndEntityString(t *testing.T) {
	req := quotaFilter(Options{Types: []string{"users", "clients"}, Names: []string{""}})
	if !req.Strict || len(req.Components) != 2 ||
		req.Components[0].EntityType != "user" || req.Components[0].MatchType != kmsg.QuotasMatchTypeDefault ||
		req.Components[1].EntityType != "client-id" || req.Components[1].MatchType != kmsg.QuotasMatchTypeAny {
		t.Fatalf("filter %+v", req)
	}
	req = quotaFilter(Options{Types: []string{"clients"}, Names: []string{"c1"}})
	if c := req.Components[0]; c.MatchType != kmsg.QuotasMatchTypeExact || c.Match == nil || *c.Match != "c1" {
		t.Fatalf("filter %+v", req)
	}
	part := func(typ string, name *string) kmsg.DescribeClientQuotasResponseEntryEntity {
		return kmsg.DescribeClientQuotasResponseEntryEntity{Type: typ, Name: name}
	}
	for _, tc := range []struct {
		parts []kmsg.DescribeClientQuotasResponseEntryEntity
		want  string
	}{
		{[]kmsg.DescribeClientQuotasResponseEntryEntity{part("user", kmsg.StringPtr("alice"))}, "user-principal 'alice'"},
		{[]kmsg.DescribeClientQuotasResponseEntryEntity{part("client-id", kmsg.StringPtr("c1")), part("user", nil)}, "the default user-principal, client-id 'c1'"},
		{[]kmsg.DescribeClientQuotasResponseEntryEntity{part("client-id", nil)}, "the default client-id"},
	} {
		if got := quotaEntityString(tc.parts); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.parts, got, tc.want)
		}
	}
}
