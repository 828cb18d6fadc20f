package wire

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	fsasl "github.com/twmb/franz-go/pkg/sasl"

	"kafgo/broker/kafkaerr"
)

// Dialer opens Clients with a listener's security: TLS, then SASL over
// SaslHandshake v1 + SaslAuthenticate, as a Kafka client does. The zero
// Dialer connects in plaintext. A broker dials other brokers' inter-broker
// listener with the protocol that listener maps to.
type Dialer struct {
	// TLS, when set, wraps the connection (SSL, SASL_SSL). An empty
	// ServerName is filled with the host dialled unless InsecureSkipVerify.
	TLS *tls.Config
	// SASL, when set, authenticates the connection (SASL_PLAINTEXT,
	// SASL_SSL) with one of franz-go's client mechanisms.
	SASL fsasl.Mechanism
}

// Dial connects to addr (host:port) and returns a Client that sends clientID
// in every request header, after TLS and SASL succeed.
func (d *Dialer) Dial(ctx context.Context, addr, clientID string) (*Client, error) {
	var nd net.Dialer
	nc, err := nd.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("wire: dial %s: %w", addr, err)
	}
	if d != nil && d.TLS != nil {
		cfg := d.TLS
		if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				_ = nc.Close()
				return nil, fmt.Errorf("wire: dial %s: %w", addr, err)
			}
			cfg = cfg.Clone()
			cfg.ServerName = host
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return nil, fmt.Errorf("wire: TLS handshake with %s: %w", addr, err)
		}
		nc = tc
	}
	c := NewClient(nc, clientID)
	if d != nil && d.SASL != nil {
		c.sasl = d.SASL
		c.addr = addr
		if err := c.authenticate(ctx); err != nil {
			_ = c.Close()
			return nil, err
		}
	}
	return c, nil
}

// ErrAuthentication wraps SASL failures of a Client.
var ErrAuthentication = kafkaerr.Sentinel(kerr.SaslAuthenticationFailed, "wire: SASL authentication failed")

// authenticate runs SaslHandshake v1 and the SaslAuthenticate exchange on
// the connection, recording when the session must be renewed (KIP-368).
// The caller holds authMu exclusively, or no other goroutine has the Client.
func (c *Client) authenticate(ctx context.Context) error {
	mech := c.sasl
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version = 1
	hs.Mechanism = mech.Name()
	resp, err := c.do(ctx, hs)
	if err != nil {
		return fmt.Errorf("%w: SaslHandshake: %w", ErrAuthentication, err)
	}
	if code := resp.(*kmsg.SASLHandshakeResponse).ErrorCode; code != 0 {
		return fmt.Errorf("%w: SaslHandshake %s: %w (enabled: %v)", ErrAuthentication, mech.Name(), kerr.ErrorForCode(code), resp.(*kmsg.SASLHandshakeResponse).SupportedMechanisms)
	}
	session, msg, err := mech.Authenticate(ctx, c.addr)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAuthentication, err)
	}
	start := time.Now()
	var lifetime int64
	for done := false; !done; {
		req := kmsg.NewPtrSASLAuthenticateRequest()
		req.Version = 1
		req.SASLAuthBytes = msg
		r, err := c.do(ctx, req)
		if err != nil {
			return fmt.Errorf("%w: SaslAuthenticate: %w", ErrAuthentication, err)
		}
		ar := r.(*kmsg.SASLAuthenticateResponse)
		if ar.ErrorCode != 0 {
			m := ""
			if ar.ErrorMessage != nil {
				m = *ar.ErrorMessage
			}
			return fmt.Errorf("%w: %w: %s", ErrAuthentication, kerr.ErrorForCode(ar.ErrorCode), m)
		}
		lifetime = ar.SessionLifetimeMillis
		if done, msg, err = session.Challenge(ar.SASLAuthBytes); err != nil {
			return fmt.Errorf("%w: %w", ErrAuthentication, err)
		}
		if done && len(msg) > 0 {
			return fmt.Errorf("%w: mechanism %s wants a last write, which SaslAuthenticate cannot carry", ErrAuthentication, mech.Name())
		}
	}
	c.reauthAt = time.Time{}
	if lifetime > 0 {
		// Renew well before the broker's deadline: at 85% of the lifetime,
		// measured from before the exchange began.
		c.reauthAt = start.Add(time.Duration(lifetime) * time.Millisecond * 85 / 100)
	}
	return nil
}

// maybeReauthenticate renews an expiring SASL session before a request. It
// takes authMu exclusively, so no other request is written in the middle of
// the exchange (the broker admits only SaslAuthenticate during it).
func (c *Client) maybeReauthenticate(ctx context.Context) error {
	c.authMu.RLock()
	due := !c.reauthAt.IsZero() && time.Now().After(c.reauthAt)
	c.authMu.RUnlock()
	if !due {
		return nil
	}
	c.authMu.Lock()
	defer c.authMu.Unlock()
	if c.reauthAt.IsZero() || time.Now().Before(c.reauthAt) {
		return nil // another request renewed it
	}
	if err := c.authenticate(ctx); err != nil {
		c.fail(err)
		return err
	}
	return nil
}
