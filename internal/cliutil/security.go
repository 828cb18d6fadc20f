package cliutil

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"kafgo/internal/jaas"
	"kafgo/internal/tlsconf"
)

// securityOpts maps security.protocol, sasl.mechanism, sasl.jaas.config and
// the ssl.* keys of Kafka's Java client. TLS material is read as Kafka reads
// PEM stores (internal/tlsconf, KIP-651); JKS and PKCS12 files are refused
// with a message rather than silently ignored, since ignoring them would
// connect in the clear or fail later with a confusing handshake error.
//
// A TLS client dials with tlsDialer, which tells a failed handshake from
// other connection failures (TLSHandshakeError); dialTimeout bounds the
// connection and the handshake.
func securityOpts(c *Config, dialTimeout time.Duration) ([]kgo.Opt, error) {
	proto := "PLAINTEXT"
	if v, ok := c.Get("security.protocol"); ok {
		proto = strings.ToUpper(strings.TrimSpace(v))
	}
	var useTLS, useSASL bool
	switch proto {
	case "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return nil, fmt.Errorf("Invalid value %s for configuration security.protocol: String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", proto)
	}
	// Java-only tuning of the SSL context; meaningless to Go's TLS.
	c.Consume("ssl.protocol", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm",
		"ssl.secure.random.implementation", "ssl.provider", "ssl.engine.factory.class")
	var opts []kgo.Opt
	if useTLS {
		s, err := tlsconf.Read(c.Get)
		if err != nil {
			return nil, err
		}
		cfg, err := s.ClientConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.Dialer(tlsDialer(cfg, dialTimeout)))
	} else {
		opts = append(opts, kgo.DialTimeout(dialTimeout))
	}
	if useSASL {
		m, err := saslMechanism(c)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// saslMechanism builds the client mechanism from sasl.mechanism and the
// username and password options of sasl.jaas.config's login module.
func saslMechanism(c *Config) (sasl.Mechanism, error) {
	mech := "GSSAPI" // Java's default, which kafgo cannot do.
	if v, ok := c.Get("sasl.mechanism"); ok {
		mech = strings.ToUpper(strings.TrimSpace(v))
	}
	switch mech {
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	default:
		return nil, fmt.Errorf("unsupported sasl.mechanism %s: kafgo supports PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", mech)
	}
	raw, ok := c.Get("sasl.jaas.config")
	if !ok {
		return nil, errors.New(`sasl.jaas.config must set username="..." and password="..." (for example org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";)`)
	}
	mod, err := jaas.ParseOne(raw)
	if err != nil {
		return nil, fmt.Errorf("sasl.jaas.config: %w", err)
	}
	user, pass, ok := mod.Credentials()
	if !ok || user == "" {
		return nil, errors.New(`sasl.jaas.config must set username="..." and password="..."`)
	}
	switch mech {
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	}
	return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
}

// TLSHandshakeError is a connection that was made but whose TLS handshake
// failed: most often a TLS client on a listener that is not TLS (the
// broker takes the ClientHello for an oversized request and hangs up), or
// a certificate the client does not trust. It unwraps to the cause, so
// kgo retries it as it would have.
type TLSHandshakeError struct {
	Addr string
	Err  error
}

func (e *TLSHandshakeError) Error() string {
	return fmt.Sprintf("TLS handshake with %s failed (is that listener TLS, and its certificate trusted?): %v", e.Addr, e.Err)
}

func (e *TLSHandshakeError) Unwrap() error { return e.Err }

// tlsDialer dials as kgo's DialTLSConfig does (cfg cloned per dial, the
// server name from the address unless set), marking handshake failures.
func tlsDialer(cfg *tls.Config, timeout time.Duration) func(ctx context.Context, network, host string) (net.Conn, error) {
	return func(ctx context.Context, network, host string) (net.Conn, error) {
		c := cfg.Clone()
		if c.ServerName == "" {
			server, _, err := net.SplitHostPort(host)
			if err != nil {
				return nil, fmt.Errorf("unable to split host:port for dialing: %w", err)
			}
			c.ServerName = server
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		raw, err := (&net.Dialer{}).DialContext(ctx, network, host)
		if err != nil {
			return nil, err
		}
		conn := tls.Client(raw, c)
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			if ctx.Err() != nil {
				return nil, err // cut short, not failed
			}
			return nil, &TLSHandshakeError{Addr: host, Err: err}
		}
		return conn, nil
	}
}
