package sasl

import (
	"crypto/sha256"
	"crypto/subtle"
	"strconv"
	"strings"
)

// plainServer is SASL/PLAIN (RFC 4616) against the user_<name> entries of
// the listener's PlainLoginModule JAAS config: one message,
// [authzid] NUL authcid NUL passwd, answered with an empty token.
type plainServer struct {
	users map[string]string
	user  string
	done  bool
}

func (p *plainServer) step(msg []byte) ([]byte, bool, error) {
	if p.done {
		return nil, false, fail("Unexpected challenge in SASL/PLAIN state COMPLETE")
	}
	tokens := strings.Split(string(msg), "\x00")
	if len(tokens) != 3 {
		return nil, false, fail("Invalid SASL/PLAIN response: expected 3 tokens, got " + strconv.Itoa(len(tokens)))
	}
	authzid, user, pass := tokens[0], tokens[1], tokens[2]
	if user == "" {
		return nil, false, fail("Authentication failed: username not specified")
	}
	if pass == "" {
		return nil, false, fail("Authentication failed: password not specified")
	}
	want, ok := p.users[user]
	// Hashing first makes the comparison constant-time in the lengths too.
	got, exp := sha256.Sum256([]byte(pass)), sha256.Sum256([]byte(want))
	if subtle.ConstantTimeCompare(got[:], exp[:]) != 1 || !ok {
		return nil, false, verbatim("Authentication failed: Invalid username or password")
	}
	if authzid != "" && authzid != user {
		return nil, false, verbatim("Authentication failed: Client requested an authorization id that is different from username")
	}
	p.user, p.done = user, true
	return []byte{}, true, nil
}

func (p *plainServer) authorizationID() string { return p.user }
