package acl

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/principal"
)

// cached builds an authorizer whose cache holds the bindings, without a
// store: the evaluation alone is under test here.
func cached(cfg Config, bindings ...Binding) *Authorizer {
	a := New(nil, cfg)
	for _, b := range bindings {
		cur := a.snapshot()[b.Pattern]
		cur.entries = appendUnique(cur.entries, b.Entry)
		a.setCached(b.Pattern, cur)
	}
	return a
}

func bind(rt ResourceType, name string, pt PatternType, who string, host string, op Operation, perm PermissionType) Binding {
	return Binding{Pattern{rt, name, pt}, Entry{who, host, op, perm}}
}

func as(user, host string) Session { return Session{Principal: principal.User(user), Host: host} }

type check struct {
	s    Session
	op   Operation
	rt   ResourceType
	name string
	want bool
}

func runChecks(t *testing.T, a *Authorizer, checks []check) {
	t.Helper()
	for _, c := range checks {
		t.Run(fmt.Sprintf("%s@%s %s %s:%s", c.s.Principal, c.s.Host, c.op, c.rt, c.name), func(t *testing.T) {
			if got := a.Authorize(c.s, c.op, c.rt, c.name); got != c.want {
				t.Fatalf("Authorize = %v, want %v", got, c.want)
			}
		})
	}
}

func TestLiteralPrefixedWildcard(t *testing.T) {
	a := cached(Config{},
		bind(Topic, "orders", Literal, "User:alice", "*", OpWrite, Allow),
		bind(Topic, "eu-", Prefixed, "User:alice", "*", OpRead, Allow),
		bind(Topic, "*", Literal, "User:bob", "*", OpRead, Allow),
		bind(Group, "g", Literal, "User:*", "*", OpRead, Allow),
	)
	alice, bob, carol := as("alice", "127.0.0.1"), as("bob", "127.0.0.1"), as("carol", "127.0.0.1")
	runChecks(t, a, []check{
		{alice, OpWrite, Topic, "orders", true},
		{alice, OpWrite, Topic, "orders2", false}, // literal is exact
		{alice, OpRead, Topic, "orders", false},   // only Write was granted
		{alice, OpDescribe, Topic, "orders", true},
		{alice, OpRead, Topic, "eu-orders", true}, // prefix
		{alice, OpRead, Topic, "eu-", true},       // the prefix itself
		{alice, OpRead, Topic, "eu", false},       // shorter than the prefix
		{alice, OpRead, Topic, "us-eu-x", false},  // not at the start
		{alice, OpRead, Group, "eu-orders", false},
		{bob, OpRead, Topic, "anything", true}, // wildcard resource
		{bob, OpWrite, Topic, "anything", false},
		{carol, OpRead, Group, "g", true}, // wildcard principal
		{carol, OpRead, Topic, "orders", false},
		{alice, OpRead, Group, "g", true},
	})
}

func TestDenyWins(t *testing.T) {
	a := cached(Config{},
		bind(Topic, "*", Literal, "User:alice", "*", OpAll, Allow),
		bind(Topic, "secret-", Prefixed, "User:alice", "*", OpRead, Deny),
		bind(Topic, "public", Literal, "User:*", "*", OpWrite, Deny),
		bind(Topic, "t", Literal, "User:bob", "*", OpAll, Allow),
		bind(Topic, "t", Literal, "User:bob", "*", OpAll, Deny),
	)
	alice, bob := as("alice", "10.0.0.1"), as("bob", "10.0.0.1")
	runChecks(t, a, []check{
		{alice, OpRead, Topic, "x", true},
		{alice, OpRead, Topic, "secret-plans", false}, // prefixed DENY beats wildcard ALLOW ALL
		{alice, OpWrite, Topic, "secret-plans", true}, // only Read is denied
		{alice, OpDescribe, Topic, "secret-plans", true},
		{alice, OpWrite, Topic, "public", false}, // DENY to User:* covers alice
		{alice, OpRead, Topic, "public", true},
		{bob, OpRead, Topic, "t", false}, // DENY ALL beats ALLOW ALL
		{bob, OpDescribe, Topic, "t", false},
	})
}

func TestHosts(t *testing.T) {
	a := cached(Config{},
		bind(Topic, "t", Literal, "User:alice", "10.0.0.1", OpRead, Allow),
		bind(Topic, "t", Literal, "User:alice", "0:0:0:0:0:0:0:1", OpRead, Allow),
		bind(Topic, "u", Literal, "User:alice", "*", OpRead, Allow),
		bind(Topic, "u", Literal, "User:alice", "10.0.0.9", OpRead, Deny),
	)
	runChecks(t, a, []check{
		{as("alice", "10.0.0.1"), OpRead, Topic, "t", true},
		{as("alice", "10.0.0.2"), OpRead, Topic, "t", false},
		{as("alice", "::1"), OpRead, Topic, "t", true}, // Java's full IPv6 text matches Go's short one
		{as("alice", "10.0.0.2"), OpRead, Topic, "u", true},
		{as("alice", "10.0.0.9"), OpRead, Topic, "u", false},
	})
}

func TestSuperUsersAndNoACL(t *testing.T) {
	bindings := []Binding{
		bind(Topic, "t", Literal, "User:alice", "*", OpAll, Deny),
		bind(Topic, "owned", Literal, "User:bob", "*", OpRead, Allow),
	}
	strict := cached(Config{SuperUsers: []principal.Principal{principal.User("alice"), principal.User("broker")}}, bindings...)
	runChecks(t, strict, []check{
		{as("alice", "1.1.1.1"), OpWrite, Topic, "t", true}, // super user beats DENY
		{as("broker", "1.1.1.1"), OpClusterAction, Cluster, ClusterName, true},
		{as("bob", "1.1.1.1"), OpClusterAction, Cluster, ClusterName, false},
		{as("bob", "1.1.1.1"), OpWrite, Topic, "no-acls", false},
	})
	open := cached(Config{AllowIfNoACL: true}, bindings...)
	runChecks(t, open, []check{
		{as("bob", "1.1.1.1"), OpWrite, Topic, "no-acls", true}, // nothing applies: open
		{as("carol", "1.1.1.1"), OpRead, Topic, "owned", false}, // an ACL applies, not to carol
		{as("alice", "1.1.1.1"), OpWrite, Topic, "t", false},    // not a super user here
		{as("bob", "1.1.1.1"), OpClusterAction, Cluster, ClusterName, true},
	})
}

func TestImpliedOperations(t *testing.T) {
	a := cached(Config{},
		bind(Topic, "r", Literal, "User:u", "*", OpRead, Allow),
		bind(Topic, "w", Literal, "User:u", "*", OpWrite, Allow),
		bind(Topic, "d", Literal, "User:u", "*", OpDelete, Allow),
		bind(Topic, "a", Literal, "User:u", "*", OpAlter, Allow),
		bind(Topic, "ac", Literal, "User:u", "*", OpAlterConfigs, Allow),
		bind(Topic, "all", Literal, "User:u", "*", OpAll, Allow),
		bind(Topic, "rd", Literal, "User:u", "*", OpRead, Allow),
		bind(Topic, "rd", Literal, "User:u", "*", OpDescribe, Deny),
	)
	u := as("u", "127.0.0.1")
	runChecks(t, a, []check{
		{u, OpDescribe, Topic, "r", true},
		{u, OpDescribe, Topic, "w", true},
		{u, OpDescribe, Topic, "d", true},
		{u, OpDescribe, Topic, "a", true},
		{u, OpRead, Topic, "w", false}, // implication goes one way only
		{u, OpDescribeConfigs, Topic, "ac", true},
		{u, OpDescribe, Topic, "ac", false},
		{u, OpDescribeConfigs, Topic, "a", false},
		{u, OpIdempotentWrite, Topic, "all", true},
		{u, OpDescribe, Topic, "rd", false}, // a DENY of Describe itself still refuses
		{u, OpRead, Topic, "rd", true},
	})
}

func TestAuthorizeByResourceType(t *testing.T) {
	u := as("u", "127.0.0.1")
	cases := []struct {
		name     string
		cfg      Config
		bindings []Binding
		want     bool
	}{
		{"nothing", Config{}, nil, false},
		{"literal write", Config{}, []Binding{bind(Topic, "t", Literal, "User:u", "*", OpWrite, Allow)}, true},
		{"prefixed write", Config{}, []Binding{bind(Topic, "p-", Prefixed, "User:*", "*", OpAll, Allow)}, true},
		{"read is not write", Config{}, []Binding{bind(Topic, "t", Literal, "User:u", "*", OpRead, Allow)}, false},
		{"other principal", Config{}, []Binding{bind(Topic, "t", Literal, "User:v", "*", OpWrite, Allow)}, false},
		{"group write is not topic", Config{}, []Binding{bind(Group, "t", Literal, "User:u", "*", OpWrite, Allow)}, false},
		{"literal denied", Config{}, []Binding{
			bind(Topic, "t", Literal, "User:u", "*", OpWrite, Allow), bind(Topic, "t", Literal, "User:u", "*", OpWrite, Deny)}, false},
		{"dominated by prefix deny", Config{}, []Binding{
			bind(Topic, "abc", Literal, "User:u", "*", OpWrite, Allow), bind(Topic, "ab", Prefixed, "User:u", "*", OpWrite, Deny)}, false},
		{"prefix deny elsewhere", Config{}, []Binding{
			bind(Topic, "abc", Literal, "User:u", "*", OpWrite, Allow), bind(Topic, "x", Prefixed, "User:u", "*", OpWrite, Deny)}, true},
		{"wildcard deny", Config{AllowIfNoACL: true}, []Binding{bind(Topic, "*", Literal, "User:*", "*", OpWrite, Deny)}, false},
		{"allow if no acl", Config{AllowIfNoACL: true}, nil, true},
		{"super user", Config{SuperUsers: []principal.Principal{principal.User("u")}}, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := cached(tc.cfg, tc.bindings...)
			if got := a.AuthorizeByResourceType(u, OpWrite, Topic); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPatternFilter(t *testing.T) {
	name := func(s string) *string { return &s }
	lit := Pattern{Topic, "orders", Literal}
	star := Pattern{Topic, "*", Literal}
	pre := Pattern{Topic, "ord", Prefixed}
	grp := Pattern{Group, "orders", Literal}
	cases := []struct {
		f    PatternFilter
		want []bool // lit, star, pre, grp
	}{
		{PatternFilter{kmsg.ACLResourceTypeAny, nil, kmsg.ACLResourcePatternTypeAny}, []bool{true, true, true, true}},
		{PatternFilter{Topic, nil, kmsg.ACLResourcePatternTypeAny}, []bool{true, true, true, false}},
		{PatternFilter{Topic, name("orders"), Literal}, []bool{true, false, false, false}},
		{PatternFilter{Topic, name("orders"), kmsg.ACLResourcePatternTypeAny}, []bool{true, false, false, false}},
		{PatternFilter{Topic, name("orders"), Match}, []bool{true, true, true, false}},
		{PatternFilter{Topic, name("ord"), Prefixed}, []bool{false, false, true, false}},
		{PatternFilter{Topic, name("or"), Match}, []bool{false, true, false, false}},
		{PatternFilter{kmsg.ACLResourceTypeAny, name("orders"), Literal}, []bool{true, false, false, true}},
	}
	for i, tc := range cases {
		for j, p := range []Pattern{lit, star, pre, grp} {
			if got := tc.f.Matches(p); got != tc.want[j] {
				t.Errorf("filter %d on %s: got %v, want %v", i, p, got, tc.want[j])
			}
		}
	}
}

func TestNames(t *testing.T) {
	if got := ResourceTypeName(TransactionalID); got != "TransactionalId" {
		t.Errorf("resource type name %q", got)
	}
	if got := OperationName(OpIdempotentWrite); got != "IdempotentWrite" {
		t.Errorf("operation name %q", got)
	}
	if got := PermissionName(Deny); got != "Deny" {
		t.Errorf("permission name %q", got)
	}
}
