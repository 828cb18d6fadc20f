package sasl

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/kafkaerr"
)

// AuthError is a failed authentication step. As in Kafka, only a Verbatim
// message (Kafka's SaslAuthenticationException) is shown to the client;
// other failures (SaslException) answer a generic message, so an
// unauthenticated peer cannot learn, for example, which users exist.
type AuthError struct {
	Msg      string
	Verbatim bool
}

func (e *AuthError) Error() string { return "sasl: " + e.Msg }

// failf is a failure whose message the client does not see.
func fail(msg string) error { return &AuthError{Msg: msg} }

// verbatim is a failure whose message the client sees.
func verbatim(msg string) error { return &AuthError{Msg: msg, Verbatim: true} }

// ErrMalformed is wrapped by SCRAM message parse errors.
var ErrMalformed = kafkaerr.Sentinel(kerr.SaslAuthenticationFailed, "sasl: malformed message")
