package config

import (
	"fmt"
	"strings"

	"kafgo/broker/principal"
)

// aclAuthorizerClasses are the authorizer.class.name values that turn on
// kafgo's ACL authorizer (package acl): Kafka 2.4+'s AclAuthorizer and
// the SimpleAclAuthorizer it replaced, which keeps the same ACLs.
var aclAuthorizerClasses = []string{
	"kafka.security.authorizer.AclAuthorizer",
	"kafka.security.auth.SimpleAclAuthorizer",
}

// parseSuperUsers splits super.users as AclAuthorizer does: principals
// separated by semicolons, spaces around each trimmed, empty items skipped.
func parseSuperUsers(v string) ([]principal.Principal, error) {
	var out []principal.Principal
	for _, item := range strings.Split(v, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, err := principal.Parse(item)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidValue, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// principalList validates super.users.
func principalList(v string) error {
	_, err := parseSuperUsers(v)
	return err
}

// resolveAuthorizer fills the authorizer keys.
func (r *resolver) resolveAuthorizer(b *Broker) {
	b.AuthorizerClassName = r.str("authorizer.class.name")
	users, err := parseSuperUsers(r.str("super.users"))
	if err != nil {
		r.fail("super.users", r.str("super.users"), err)
	}
	b.SuperUsers = users
	b.AllowEveryoneIfNoACLFound = r.boolean("allow.everyone.if.no.acl.found")
}

// AuthorizerEnabled reports whether authorizer.class.name names Kafka's
// ACL authorizer; otherwise every request is allowed.
func (b *Broker) AuthorizerEnabled() bool { return b.AuthorizerClassName != "" }
