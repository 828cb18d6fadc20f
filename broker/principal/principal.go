// Package principal names who sent a request, as Kafka's KafkaPrincipal does:
// a type and a name, written "User:alice". The transport (TLS certificate or
// SASL authentication) sets it on the connection; the authorizer and the
// quota manager read it. It is a leaf so that wire, api and the authorizer
// share the type without importing each other.
package principal

import (
	"fmt"
	"strings"
)

// UserType is the principal type Kafka's default builder gives every
// authenticated (and unauthenticated) peer.
const UserType = "User"

// Principal is a KafkaPrincipal.
type Principal struct {
	Type string
	Name string
}

// Anonymous is the principal of a PLAINTEXT or unauthenticated SSL peer.
var Anonymous = Principal{Type: UserType, Name: "ANONYMOUS"}

// User is the principal User:name.
func User(name string) Principal { return Principal{Type: UserType, Name: name} }

// String is Kafka's "Type:Name" form.
func (p Principal) String() string { return p.Type + ":" + p.Name }

// Parse reads the "Type:Name" form used in ACLs and super.users; the name may
// itself contain ':' (e.g. a certificate DN mapped verbatim).
func Parse(s string) (Principal, error) {
	t, n, ok := strings.Cut(s, ":")
	if !ok || t == "" || n == "" {
		return Principal{}, fmt.Errorf("principal: %q is not of the form Type:Name", s)
	}
	return Principal{Type: t, Name: n}, nil
}
