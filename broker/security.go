package broker

import (
	"crypto/x509"
	"fmt"
	"sync/atomic"

	fsasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	fscram "github.com/twmb/franz-go/pkg/sasl/scram"

	"kafgo/broker/config"
	"kafgo/broker/credentials"
	"kafgo/broker/principal"
	"kafgo/broker/sasl"
	"kafgo/broker/wire"
	"kafgo/internal/scram"
	"kafgo/internal/tlsconf"
)

// listenerConfig builds one Kafka listener's wire configuration from its
// security settings: TLS material (loaded now, reloaded when the PEM files
// change), the certificate principal of SSL listeners with client auth,
// and the SASL server of SASL listeners. SCRAM credentials are looked up in
// creds, which is filled once the metadata store is open (a handshake
// before then finds no user).
func (b *Broker) listenerConfig(cfg *config.Broker, l config.Listener, creds *atomic.Pointer[credentials.Store]) (wire.ListenerConfig, error) {
	lc := wire.ListenerConfig{Name: l.Name, Addr: l.Addr()}
	sec, err := cfg.Security(l.Name)
	if err != nil {
		return lc, err
	}
	if sec.TLS {
		srv, err := tlsconf.NewServer(sec.SSL, b.log.With("listener", l.Name))
		if err != nil {
			return lc, fmt.Errorf("broker: listener %s: %w", l.Name, err)
		}
		lc.TLS = srv.Config()
		if sec.Protocol == "SSL" {
			mapper := sec.PrincipalMapper
			lc.PeerPrincipal = func(cert *x509.Certificate) (principal.Principal, error) {
				dn, err := tlsconf.DistinguishedName(cert.RawSubject)
				if err != nil {
					return principal.Principal{}, err
				}
				name, err := mapper.Name(dn)
				if err != nil {
					return principal.Principal{}, err
				}
				return principal.User(name), nil
			}
		}
	}
	if sec.SASL {
		lc.SASL = &sasl.Config{
			Mechanisms:     sec.Mechanisms,
			PlainUsers:     sec.PlainUsers,
			MaxReceiveSize: sec.MaxReceiveSize,
			ReauthMs:       sec.ReauthMs,
			Scram: func(mech, user string) (scram.Credential, bool) {
				if s := creds.Load(); s != nil {
					return s.Lookup(mech, user)
				}
				return scram.Credential{}, false
			},
		}
	}
	return lc, nil
}

// interBrokerDialer connects to other brokers' inter-broker listener with
// its protocol: TLS from the listener's ssl.* settings (its key store is
// this broker's client certificate, its trust store verifies the peer,
// ssl.endpoint.identification.algorithm decides the host name check), and
// SASL with sasl.mechanism.inter.broker.protocol and the username/password
// of that mechanism's JAAS config, as Kafka's broker does.
func interBrokerDialer(cfg *config.Broker) (*wire.Dialer, error) {
	ib, err := cfg.InterBroker()
	if err != nil {
		return nil, err
	}
	d := &wire.Dialer{}
	if ib.TLS {
		if d.TLS, err = ib.SSL.ClientConfig(); err != nil {
			return nil, fmt.Errorf("broker: inter-broker listener %s: %w", ib.Listener, err)
		}
	}
	if ib.SASL {
		var m fsasl.Mechanism
		switch ib.Mechanism {
		case sasl.Plain:
			m = plain.Auth{User: ib.Username, Pass: ib.Password}.AsMechanism()
		case sasl.ScramSHA256:
			m = fscram.Auth{User: ib.Username, Pass: ib.Password}.AsSha256Mechanism()
		case sasl.ScramSHA512:
			m = fscram.Auth{User: ib.Username, Pass: ib.Password}.AsSha512Mechanism()
		default:
			return nil, fmt.Errorf("broker: unsupported inter-broker SASL mechanism %s", ib.Mechanism)
		}
		d.SASL = m
	}
	return d, nil
}
