package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"kafgo/broker/sasl"
	"kafgo/internal/jaas"
	"kafgo/internal/tlsconf"
)

// Listener overrides. Kafka reads a listener's security settings with the
// prefix listener.name.<listener name in lower case>., so two listeners may
// use different certificates, client-auth modes or SASL mechanisms:
//
//	listener.name.<l>.<key>               any key of listenerKeys
//	listener.name.<l>.<mechanism>.<key>   sasl.jaas.config and
//	                                      connections.max.reauth.ms, the
//	                                      mechanism in lower case
//	                                      (plain, scram-sha-256, ...)
//
// The value of an override wins over the unprefixed key for its listener.
// ssl.client.auth applies to a SASL_SSL listener only through its own
// override, as in Kafka. Overrides are static: certificates rotate by
// replacing the PEM files (see tlsconf.Server).

const listenerPrefix = "listener.name."

var mechanismPrefixes = []string{"plain", "scram-sha-256", "scram-sha-512", "gssapi", "oauthbearer"}

// derivedDefs caches the definitions made for override keys.
var derivedDefs sync.Map // key -> *Def

// lookupDef finds a key's definition, deriving one for listener overrides.
func lookupDef(name string) (*Def, bool) {
	if d, ok := brokerIndex[name]; ok {
		return d, true
	}
	if v, ok := derivedDefs.Load(name); ok {
		return v.(*Def), true
	}
	_, rest, ok := splitListenerKey(name)
	if !ok {
		return nil, false
	}
	var base *Def
	if listenerKeys[rest] {
		base = brokerIndex[rest]
	} else if mech, key, ok := strings.Cut(rest, "."); ok && slices.Contains(mechanismPrefixes, mech) {
		if d, known := mechanismKeys[key]; known {
			base = d
			if d == nil {
				base = brokerIndex[key]
			}
		}
	}
	if base == nil {
		return nil, false
	}
	d := *base
	d.Name, d.Dynamic, d.Nullable = name, base.Dynamic && listenerDynamicKeys[rest], true
	d.checks = slices.Clone(base.checks)
	d.Validate = func(v string) error {
		_, err := d.canonical(v)
		return err
	}
	v, _ := derivedDefs.LoadOrStore(name, &d)
	return v.(*Def), true
}

// splitListenerKey splits listener.name.<l>.<rest>; the listener part must
// be a valid listener name in lower case, as Kafka writes the prefix.
func splitListenerKey(name string) (listener, rest string, ok bool) {
	tail, ok := strings.CutPrefix(name, listenerPrefix)
	if !ok {
		return "", "", false
	}
	listener, rest, ok = strings.Cut(tail, ".")
	if !ok || listener == "" || listener != strings.ToLower(listener) || !validListenerName(strings.ToUpper(listener)) {
		return "", "", false
	}
	return listener, rest, true
}

func upper(v string) string { return strings.ToUpper(v) }

// invalid wraps a validation error from another package as ErrInvalidValue.
func invalid(err error) error { return fmt.Errorf("%w: %v", ErrInvalidValue, err) }

// ListenerValue returns the effective value of key for a listener: its
// listener.name.<l>.<key> override, else the broker-wide key.
func (b *Broker) ListenerValue(listener, key string) (string, bool) {
	if v, _, ok := b.ls().lookup(listenerPrefix + strings.ToLower(listener) + "." + key); ok {
		return v, true
	}
	v, _, ok := b.ls().lookup(key)
	return v, ok
}

// ListenerOverride returns a listener's own listener.name.<l>.<key> value,
// without falling back to the broker-wide key.
func (b *Broker) ListenerOverride(listener, key string) (string, bool) {
	v, _, ok := b.ls().lookup(listenerPrefix + strings.ToLower(listener) + "." + key)
	return v, ok
}

func (b *Broker) mechanismValue(listener, mechanism, key string) (string, bool) {
	if v, _, ok := b.ls().lookup(listenerPrefix + strings.ToLower(listener) + "." + strings.ToLower(mechanism) + "." + key); ok {
		return v, true
	}
	return b.ListenerValue(listener, key)
}

// ListenerSecurity is one listener's security, resolved from the keys above.
type ListenerSecurity struct {
	Listener string // upper case
	Protocol string // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
	TLS      bool   // SSL, SASL_SSL
	SASL     bool   // SASL_PLAINTEXT, SASL_SSL

	// SSL holds the ssl.* settings (TLS listeners). ClientAuth is "none" on
	// SASL_SSL unless the listener overrides ssl.client.auth.
	SSL tlsconf.Settings
	// PrincipalMapper applies ssl.principal.mapping.rules (SSL listeners).
	PrincipalMapper *tlsconf.PrincipalMapper

	Mechanisms     []string          // sasl.enabled.mechanisms (SASL listeners)
	MaxReceiveSize int32             // sasl.server.max.receive.size
	ReauthMs       map[string]int64  // connections.max.reauth.ms by mechanism
	PlainUsers     map[string]string // user_<name> of the PLAIN JAAS config
	// JAAS is the parsed sasl.jaas.config of each enabled mechanism that
	// has one.
	JAAS map[string]jaas.Module
}

// Security resolves a listener's security settings. It reports the first
// inconsistency it finds, naming the key.
func (b *Broker) Security(listener string) (ListenerSecurity, error) {
	listener = strings.ToUpper(listener)
	proto, ok := b.ListenerSecurityProtocolMap[listener]
	if !ok {
		return ListenerSecurity{}, keyError("listener.security.protocol.map", "", fmt.Errorf("%w: no security protocol for listener %s", ErrInvalidValue, listener))
	}
	ls := ListenerSecurity{Listener: listener, Protocol: proto,
		TLS: proto == "SSL" || proto == "SASL_SSL", SASL: proto == "SASL_PLAINTEXT" || proto == "SASL_SSL"}
	prefix := listenerPrefix + strings.ToLower(listener) + "."
	if ls.TLS {
		get := func(k string) (string, bool) { return b.ListenerValue(listener, k) }
		if proto == "SASL_SSL" {
			get = func(k string) (string, bool) {
				if k == "ssl.client.auth" {
					v, _, ok := b.ls().lookup(prefix + k)
					return v, ok
				}
				return b.ListenerValue(listener, k)
			}
		}
		s, err := tlsconf.Read(get)
		if err != nil {
			return ls, b.tlsKeyError(listener, err)
		}
		if !s.HasKeystore() {
			return ls, keyError(prefix+"ssl.keystore.location", "", fmt.Errorf("%w: listener %s uses %s and needs a key store: ssl.keystore.location (PEM with the certificate chain and key), or ssl.keystore.certificate.chain with ssl.keystore.key", ErrInvalidValue, listener, proto))
		}
		ls.SSL = s
		rules, _ := b.ListenerValue(listener, "ssl.principal.mapping.rules")
		if ls.PrincipalMapper, err = tlsconf.NewPrincipalMapper(rules); err != nil {
			return ls, keyError("ssl.principal.mapping.rules", rules, invalid(err))
		}
	}
	if !ls.SASL {
		return ls, nil
	}
	mechs, _ := b.ListenerValue(listener, "sasl.enabled.mechanisms")
	ls.Mechanisms = splitList(mechs)
	if len(ls.Mechanisms) == 0 {
		return ls, keyError("sasl.enabled.mechanisms", mechs, fmt.Errorf("%w: listener %s uses %s but no SASL mechanism is enabled", ErrInvalidValue, listener, proto))
	}
	for _, m := range ls.Mechanisms {
		if !sasl.IsSupported(m) {
			return ls, keyError("sasl.enabled.mechanisms", mechs, fmt.Errorf("%w: mechanism %s on listener %s: kafgo supports PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (GSSAPI/Kerberos and OAUTHBEARER are not supported)", ErrUnsupported, m, listener))
		}
	}
	size, _ := b.ListenerValue(listener, "sasl.server.max.receive.size")
	n, _ := strconv.ParseInt(size, 10, 32)
	ls.MaxReceiveSize = int32(n)
	ls.ReauthMs = map[string]int64{}
	ls.JAAS = map[string]jaas.Module{}
	for _, m := range ls.Mechanisms {
		v, _ := b.mechanismValue(listener, m, "connections.max.reauth.ms")
		ls.ReauthMs[m], _ = strconv.ParseInt(v, 10, 64)
		key := prefix + strings.ToLower(m) + ".sasl.jaas.config"
		raw, _, ok := b.ls().lookup(key)
		if !ok {
			if m == sasl.Plain {
				return ls, keyError(key, "", fmt.Errorf("%w: listener %s enables PLAIN but has no JAAS config: set %s to org.apache.kafka.common.security.plain.PlainLoginModule required user_<name>=\"<password>\" ...;", ErrInvalidValue, listener, key))
			}
			continue
		}
		mod, err := jaas.ParseOne(raw)
		if err != nil {
			return ls, keyError(key, raw, invalid(err))
		}
		want := jaas.ScramLoginModule
		if m == sasl.Plain {
			want = jaas.PlainLoginModule
		}
		if mod.Class != want {
			return ls, keyError(key, raw, fmt.Errorf("%w: mechanism %s needs login module %s, not %s", ErrInvalidValue, m, want, mod.Class))
		}
		ls.JAAS[m] = mod
		if m == sasl.Plain {
			ls.PlainUsers = mod.PlainUsers()
		}
	}
	return ls, nil
}

// InterBrokerSecurity is how this broker connects to other brokers: the
// inter-broker listener's security, and for SASL the mechanism
// (sasl.mechanism.inter.broker.protocol) and the username and password of
// that mechanism's JAAS config on the inter-broker listener, as Kafka's
// broker takes its client credentials.
type InterBrokerSecurity struct {
	ListenerSecurity
	Mechanism string
	Username  string
	Password  string
}

// InterBroker resolves the inter-broker client's security.
func (b *Broker) InterBroker() (InterBrokerSecurity, error) {
	ls, err := b.Security(b.InterBrokerListenerName)
	if err != nil {
		return InterBrokerSecurity{}, err
	}
	ib := InterBrokerSecurity{ListenerSecurity: ls}
	if !ls.SASL {
		return ib, nil
	}
	ib.Mechanism, _, _ = b.ls().lookup("sasl.mechanism.inter.broker.protocol")
	ib.Mechanism = strings.TrimSpace(ib.Mechanism)
	if !slices.Contains(ls.Mechanisms, ib.Mechanism) {
		return ib, keyError("sasl.mechanism.inter.broker.protocol", ib.Mechanism, fmt.Errorf("%w: sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms of the inter-broker listener %s (%s) when SASL is used for inter-broker communication", ErrInvalidValue, ls.Listener, strings.Join(ls.Mechanisms, ",")))
	}
	mod, ok := ls.JAAS[ib.Mechanism]
	key := listenerPrefix + strings.ToLower(ls.Listener) + "." + strings.ToLower(ib.Mechanism) + ".sasl.jaas.config"
	if ok {
		ib.Username, ib.Password, ok = mod.Credentials()
	}
	if !ok {
		return ib, keyError(key, "", fmt.Errorf("%w: the broker authenticates to other brokers with %s and needs username=\"...\" password=\"...\" in %s", ErrInvalidValue, ib.Mechanism, key))
	}
	return ib, nil
}

// tlsKeyError names the key a listener's TLS settings error is about as
// the operator set it: the listener's override
// listener.name.<l>.<key> when there is one, else the broker-wide key.
func (b *Broker) tlsKeyError(listener string, err error) *Error {
	cause := fmt.Errorf("%w: listener %s: %v", ErrInvalidValue, listener, err)
	var ke *tlsconf.KeyError
	if !errors.As(err, &ke) {
		return keyError(listenerPrefix+strings.ToLower(listener)+".ssl.*", "", cause)
	}
	name := listenerPrefix + strings.ToLower(listener) + "." + ke.Key
	v, _, ok := b.ls().lookup(name)
	if !ok {
		name = ke.Key
		v, _, _ = b.ls().lookup(name)
	}
	return keyError(name, v, cause)
}

// resolveSecurity checks every listener's security and the inter-broker
// client's, so a bad combination fails at start-up, naming the key.
func (r *resolver) resolveSecurity(b *Broker) {
	for _, l := range b.Listeners {
		if _, err := b.Security(l.Name); err != nil {
			r.add(err.(*Error))
			return
		}
	}
	if _, err := b.InterBroker(); err != nil {
		r.add(err.(*Error))
	}
}
