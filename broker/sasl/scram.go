package sasl

import (
	"crypto/hmac"
	"crypto/subtle"
	"encoding/base64"
	"strconv"

	"kafgo/internal/scram"
)

// CredentialLookup returns the stored SCRAM credential of a user for a
// mechanism; ok is false for an unknown user.
type CredentialLookup func(mechanism, user string) (cred scram.Credential, ok bool)

// serverNonce makes the server's part of the nonce; tests pin it to check
// RFC 7677's example exchange.
var serverNonce = scram.RandomString

// scramServer is the server side of SCRAM-SHA-256/512 (RFC 5802, RFC 7677),
// with Kafka's checks and messages (ScramSaslServer): the client's nonce
// must be extended by ours, the proof is verified in constant time, and the
// final message carries the server signature.
type scramServer struct {
	mech   scram.Mechanism
	lookup CredentialLookup

	state       int // 0 expect client-first, 1 expect client-final, 2 complete, 3 failed
	first       ClientFirst
	serverFirst string
	nonce       string
	cred        scram.Credential
	user        string
}

func (s *scramServer) step(msg []byte) (resp []byte, done bool, err error) {
	defer func() {
		if err != nil {
			s.state, s.cred = 3, scram.Credential{}
		}
	}()
	switch s.state {
	case 0:
		return s.clientFirst(msg)
	case 1:
		return s.clientFinal(msg)
	}
	return nil, false, fail("Unexpected challenge in Sasl server state " + strconv.Itoa(s.state))
}

func (s *scramServer) clientFirst(msg []byte) ([]byte, bool, error) {
	cf, err := ParseClientFirst(msg)
	if err != nil {
		return nil, false, fail(err.Error())
	}
	if cf.Extensions["tokenauth"] == "true" {
		return nil, false, fail("Token Authentication failed: delegation tokens are not supported")
	}
	cred, ok := s.lookup(s.mech.Name, cf.Username)
	if !ok {
		return nil, false, fail("Authentication failed: Invalid user credentials")
	}
	if cf.AuthzID != "" && cf.AuthzID != cf.Username {
		return nil, false, verbatim("Authentication failed: Client requested an authorization id that is different from username")
	}
	if cred.Iterations < s.mech.MinIterations {
		return nil, false, fail("Iterations " + strconv.Itoa(cred.Iterations) + " is less than the minimum " + strconv.Itoa(s.mech.MinIterations) + " for " + s.mech.Name)
	}
	s.first, s.cred, s.user = cf, cred, cf.Username
	s.nonce = cf.Nonce + serverNonce()
	s.serverFirst = ServerFirst(s.nonce, cred.Salt, cred.Iterations)
	s.state = 1
	return []byte(s.serverFirst), false, nil
}

func (s *scramServer) clientFinal(msg []byte) ([]byte, bool, error) {
	cf, err := ParseClientFinal(msg)
	if err != nil {
		return nil, false, fail(err.Error())
	}
	// The final nonce must be ours (RFC 5802; Kafka 2.x did not check,
	// CVE-2024-56128). librdkafka before 2.6.1 repeats its client nonce in
	// front of the combined one (librdkafka#4895), which Kafka 3.8.1+ admits
	// with an endsWith test; only that exact form is admitted here.
	legacy := s.first.Nonce + s.nonce
	if subtle.ConstantTimeCompare([]byte(cf.Nonce), []byte(s.nonce)) != 1 &&
		subtle.ConstantTimeCompare([]byte(cf.Nonce), []byte(legacy)) != 1 {
		return nil, false, fail("Invalid client nonce in the final client message.")
	}
	// Without channel binding, c= must carry the gs2 header of the first
	// message (RFC 5802 section 5.1: "biws" for "n,,").
	if string(cf.ChannelBinding) != s.first.GS2Header {
		return nil, false, fail("Invalid channel binding in the final client message.")
	}
	authMessage := s.first.Bare + "," + s.serverFirst + "," + cf.WithoutProof
	clientSig := s.mech.HMAC(s.cred.StoredKey, authMessage)
	if len(cf.Proof) != len(clientSig) {
		return nil, false, fail("Invalid client credentials")
	}
	clientKey := make([]byte, len(clientSig))
	for i := range clientKey {
		clientKey[i] = cf.Proof[i] ^ clientSig[i]
	}
	if !hmac.Equal(s.mech.Digest(clientKey), s.cred.StoredKey) {
		return nil, false, fail("Invalid client credentials")
	}
	serverSig := s.mech.HMAC(s.cred.ServerKey, authMessage)
	s.cred, s.state = scram.Credential{}, 2
	return []byte("v=" + base64.StdEncoding.EncodeToString(serverSig)), true, nil
}

func (s *scramServer) authorizationID() string { return s.user }
