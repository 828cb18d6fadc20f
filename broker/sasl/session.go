package sasl

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/kafkaerr"
	"kafgo/broker/principal"
	"kafgo/internal/scram"
)

// DefaultMaxReceiveSize is sasl.server.max.receive.size: the largest frame
// a peer may send before it has authenticated.
const DefaultMaxReceiveSize = 524288

// Config is one SASL listener's server side.
type Config struct {
	// Mechanisms are the enabled mechanisms (sasl.enabled.mechanisms, or
	// its listener override), in the order SaslHandshake returns them.
	Mechanisms []string
	// PlainUsers are the user_<name> passwords of the listener's
	// PlainLoginModule JAAS config.
	PlainUsers map[string]string
	// Scram looks up SCRAM credentials (the brokers' cache of
	// /config/users).
	Scram CredentialLookup
	// MaxReceiveSize caps frames before authentication (default 512 KiB).
	MaxReceiveSize int32
	// ReauthMs is connections.max.reauth.ms by mechanism (0 or absent: no
	// session expiry).
	ReauthMs map[string]int64
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Phase is where a connection is in the exchange; the transport reads it
// before each frame.
type Phase int

const (
	// PhaseHandshake: only ApiVersions (once) and SaslHandshake are served.
	PhaseHandshake Phase = iota
	// PhaseAuthenticate: after SaslHandshake v1, only SaslAuthenticate.
	PhaseAuthenticate
	// PhaseRawToken: after SaslHandshake v0, the next frame is a bare SASL
	// token (size-prefixed, no Kafka header), and so is the answer.
	PhaseRawToken
	// PhaseComplete: authenticated; every API is served until the session
	// expires (a SaslHandshake then starts re-authentication).
	PhaseComplete
	// PhaseFailed: the connection is closing.
	PhaseFailed
)

func (p Phase) String() string {
	return [...]string{"HANDSHAKE", "AUTHENTICATE", "RAW_TOKEN", "COMPLETE", "FAILED"}[p]
}

// ErrSessionExpired is returned by Admit once the session lifetime
// (connections.max.reauth.ms) has passed without re-authentication: Kafka
// then closes the connection.
var ErrSessionExpired = kafkaerr.Sentinel(kerr.SaslAuthenticationFailed, "sasl: session expired, re-authentication required")

// ErrUnexpectedRequest is wrapped by Admit for a request the SASL state does
// not allow.
var ErrUnexpectedRequest = kafkaerr.Sentinel(kerr.IllegalSaslState, "sasl: unexpected request")

type mechServer interface {
	step(msg []byte) (resp []byte, done bool, err error)
	authorizationID() string
}

// Session is one connection's SASL state (Kafka's SaslServerAuthenticator).
// Its methods are called from the connection's reader in request order; a
// mutex makes them safe from elsewhere too.
type Session struct {
	cfg    *Config
	onAuth func(principal.Principal)

	mu          sync.Mutex
	phase       Phase
	sawVersions bool
	mech        string
	server      mechServer
	reauth      bool   // re-authenticating (KIP-368)
	badMech     string // re-authentication asked for another mechanism
	prev        principal.Principal
	expires     time.Time // zero: no expiry
}

// NewSession starts a connection's exchange. onAuth is called with the
// principal every time authentication (or re-authentication) completes.
func NewSession(cfg *Config, onAuth func(principal.Principal)) *Session {
	return &Session{cfg: cfg, onAuth: onAuth}
}

// Phase is the current phase.
func (s *Session) Phase() Phase {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.phase
}

// MaxReceiveSize is the frame cap before authentication completes.
func (s *Session) MaxReceiveSize() int32 {
	if s.cfg.MaxReceiveSize > 0 {
		return s.cfg.MaxReceiveSize
	}
	return DefaultMaxReceiveSize
}

// Mechanism is the negotiated mechanism ("" before the handshake).
func (s *Session) Mechanism() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mech
}

// Admit decides whether a request with the given API key may be served now;
// an error means the connection must close (Kafka: InvalidRequestException
// or IllegalSaslStateException during authentication, an expired session
// after it).
func (s *Session) Admit(key int16, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	const (
		apiVersions  = 18
		handshake    = 17
		authenticate = 36
	)
	switch s.phase {
	case PhaseHandshake:
		if key == handshake {
			return nil
		}
		if key == apiVersions && !s.sawVersions && !s.reauth {
			s.sawVersions = true
			return nil
		}
		return fmt.Errorf("%w: Unexpected Kafka request of type %s during SASL handshake.", ErrUnexpectedRequest, apiName(key))
	case PhaseAuthenticate:
		if key == authenticate {
			return nil
		}
		s.phase = PhaseFailed
		return fmt.Errorf("%w: Unexpected Kafka request of type %s during SASL authentication.", ErrUnexpectedRequest, apiName(key))
	case PhaseComplete:
		if key == handshake {
			return nil // re-authentication starts
		}
		if !s.expires.IsZero() && now.After(s.expires) {
			s.phase = PhaseFailed
			return ErrSessionExpired
		}
		return nil
	}
	return fmt.Errorf("%w: request in SASL state %s", ErrUnexpectedRequest, s.phase)
}

func apiName(key int16) string {
	if n := kmsg.NameForKey(key); n != "" {
		return n
	}
	return fmt.Sprintf("key %d", key)
}

// HandshakeResult is the SaslHandshake response, and whether to close the
// connection after sending it.
type HandshakeResult struct {
	ErrorCode  int16
	Mechanisms []string
	Close      bool
}

// Handshake handles SaslHandshake (v0: raw tokens follow; v1: SaslAuthenticate
// follows). After authentication it starts re-authentication, which must
// keep the mechanism.
func (s *Session) Handshake(version int16, mechanism string) HandshakeResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	enabled := slices.Clone(s.cfg.Mechanisms)
	switch s.phase {
	case PhaseHandshake:
	case PhaseComplete:
		if version < 1 {
			s.phase = PhaseFailed
			return HandshakeResult{ErrorCode: kerr.IllegalSaslState.Code, Mechanisms: enabled, Close: true}
		}
		s.reauth, s.prev, s.badMech = true, principal.User(s.server.authorizationID()), ""
	default:
		s.phase = PhaseFailed
		return HandshakeResult{ErrorCode: kerr.IllegalSaslState.Code, Mechanisms: enabled, Close: true}
	}
	if !slices.Contains(enabled, mechanism) {
		s.phase = PhaseFailed
		return HandshakeResult{ErrorCode: kerr.UnsupportedSaslMechanism.Code, Mechanisms: enabled, Close: true}
	}
	if s.reauth && mechanism != s.mech {
		s.badMech = fmt.Sprintf("SASL mechanism '%s' requested by client is not supported for re-authentication of mechanism '%s'", mechanism, s.mech)
	}
	s.mech = mechanism
	s.server = s.newServer(mechanism)
	if version == 0 {
		s.phase = PhaseRawToken
	} else {
		s.phase = PhaseAuthenticate
	}
	return HandshakeResult{Mechanisms: enabled}
}

func (s *Session) newServer(mechanism string) mechServer {
	if m, ok := scram.ByName(mechanism); ok {
		lookup := s.cfg.Scram
		if lookup == nil {
			lookup = func(string, string) (scram.Credential, bool) { return scram.Credential{}, false }
		}
		return &scramServer{mech: m, lookup: lookup}
	}
	return &plainServer{users: s.cfg.PlainUsers}
}

// AuthResult is the SaslAuthenticate response, and whether to close the
// connection after sending it.
type AuthResult struct {
	ErrorCode         int16
	ErrorMessage      *string
	AuthBytes         []byte
	SessionLifetimeMs int64
	Close             bool
	// Reason is the failure as the server sees it, for its log only; the
	// client gets ErrorMessage.
	Reason string
}

// Authenticate handles one SaslAuthenticate request.
func (s *Session) Authenticate(version int16, token []byte) AuthResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase == PhaseComplete {
		msg := "SaslAuthenticate request received after successful authentication"
		return AuthResult{ErrorCode: kerr.IllegalSaslState.Code, ErrorMessage: &msg}
	}
	if s.phase != PhaseAuthenticate {
		msg := "Unexpected SaslAuthenticate request in SASL state " + s.phase.String()
		s.phase = PhaseFailed
		return AuthResult{ErrorCode: kerr.IllegalSaslState.Code, ErrorMessage: &msg, Close: true}
	}
	if s.badMech != "" {
		s.phase = PhaseFailed
		msg := s.badMech
		return AuthResult{ErrorCode: kerr.SaslAuthenticationFailed.Code, ErrorMessage: &msg, Close: true}
	}
	resp, done, err := s.step(token)
	if err != nil {
		msg := s.clientMessage(err)
		return AuthResult{ErrorCode: kerr.SaslAuthenticationFailed.Code, ErrorMessage: &msg, Close: true, Reason: err.Error()}
	}
	res := AuthResult{AuthBytes: resp}
	if res.AuthBytes == nil {
		res.AuthBytes = []byte{}
	}
	if done {
		res.SessionLifetimeMs = s.completeLocked()
		if s.phase == PhaseFailed {
			msg := s.badMech
			return AuthResult{ErrorCode: kerr.SaslAuthenticationFailed.Code, ErrorMessage: &msg, Close: true}
		}
	}
	return res
}

// RawToken handles one bare token after SaslHandshake v0 and returns the
// bare token to send back. An error closes the connection without an
// answer, as Kafka does for v0 clients.
func (s *Session) RawToken(token []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != PhaseRawToken {
		s.phase = PhaseFailed
		return nil, fmt.Errorf("%w: raw SASL token in state %s", ErrUnexpectedRequest, s.phase)
	}
	resp, done, err := s.step(token)
	if err != nil {
		return nil, err
	}
	if done {
		s.completeLocked()
		if s.phase == PhaseFailed {
			return nil, errors.New("sasl: " + s.badMech)
		}
	}
	if resp == nil {
		resp = []byte{}
	}
	return resp, nil
}

func (s *Session) step(token []byte) ([]byte, bool, error) {
	resp, done, err := s.server.step(token)
	if err != nil {
		s.phase = PhaseFailed
	}
	return resp, done, err
}

// clientMessage is the message a failure shows the client (KIP-152).
func (s *Session) clientMessage(err error) string {
	var ae *AuthError
	if errors.As(err, &ae) && ae.Verbatim {
		return ae.Msg
	}
	what := "authentication"
	if s.reauth {
		what = "re-authentication"
	}
	return "Authentication failed during " + what + " due to invalid credentials with SASL mechanism " + s.mech
}

// completeLocked finishes a successful exchange: checks that re-
// authentication keeps the principal, computes the session lifetime
// (connections.max.reauth.ms for the mechanism; 0 = none) and reports the
// principal.
func (s *Session) completeLocked() int64 {
	p := principal.User(s.server.authorizationID())
	if s.reauth && p != s.prev {
		s.badMech = fmt.Sprintf("Cannot change principals during re-authentication from %s.%s: %s.%s", s.prev.Type, s.prev.Name, p.Type, p.Name)
		s.phase = PhaseFailed
		return 0
	}
	now := s.cfg.now()
	var lifetime int64
	if ms := s.cfg.ReauthMs[s.mech]; ms > 0 {
		lifetime = ms
		s.expires = now.Add(time.Duration(ms) * time.Millisecond)
	} else {
		s.expires = time.Time{}
	}
	s.phase = PhaseComplete
	s.reauth = false
	if s.onAuth != nil {
		s.onAuth(p)
	}
	return lifetime
}

// Expires is when the session expires (zero: never).
func (s *Session) Expires() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.expires
}
