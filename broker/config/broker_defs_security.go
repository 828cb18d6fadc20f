package config

import (
	"kafgo/internal/jaas"
	"kafgo/internal/tlsconf"
)

// TLS and SASL keys (Kafka's SslConfigs, SaslConfigs, BrokerSecurityConfigs,
// 2.8 defaults). Every key in listenerKeys may also be given per listener
// as listener.name.<listener, lower case>.<key>; see security.go.
var securityDefs = []Def{
	{Name: "ssl.protocol", Type: TypeString, Default: "TLSv1.3", checks: []check{oneOf("TLSv1.2", "TLSv1.3", "TLS")},
		Doc: "TLS protocol of the SSL context; the versions used are ssl.enabled.protocols."},
	{Name: "ssl.enabled.protocols", Type: TypeList, Default: "TLSv1.2,TLSv1.3", checks: []check{sslProtocols},
		Doc: "TLS versions enabled, a contiguous range of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3."},
	{Name: "ssl.cipher.suites", Type: TypeList, Default: "", checks: []check{cipherSuites},
		Doc: "TLS 1.2 cipher suites (IANA/Java names); empty: Go's defaults. TLS 1.3 suites are always all enabled."},
	{Name: "ssl.keystore.type", Type: TypeString, Default: "JKS", checks: []check{storeType},
		Doc: "Key store format. kafgo reads PEM only (KIP-651); a JKS or PKCS12 file is refused, a PEM file is read whatever the type says."},
	{Name: "ssl.keystore.location", Type: TypeString, Nullable: true,
		Doc: "PEM file with the listener's certificate chain (leaf first) and private key."},
	{Name: "ssl.keystore.password", Type: TypePassword, Nullable: true, Sensitive: true,
		Doc: "Key store password; not allowed with PEM (use ssl.key.password)."},
	{Name: "ssl.keystore.key", Type: TypePassword, Nullable: true, Sensitive: true,
		Doc: "The private key in PEM (PKCS#8, optionally encrypted), instead of ssl.keystore.location."},
	{Name: "ssl.keystore.certificate.chain", Type: TypePassword, Nullable: true, Sensitive: true,
		Doc: "The certificate chain in PEM, with ssl.keystore.key."},
	{Name: "ssl.key.password", Type: TypePassword, Nullable: true, Sensitive: true,
		Doc: "Password of an encrypted PKCS#8 private key."},
	{Name: "ssl.truststore.type", Type: TypeString, Default: "JKS", checks: []check{storeType},
		Doc: "Trust store format; PEM only, as ssl.keystore.type."},
	{Name: "ssl.truststore.location", Type: TypeString, Nullable: true,
		Doc: "PEM file with the CA certificates that verify client certificates (and, for the inter-broker client, brokers)."},
	{Name: "ssl.truststore.password", Type: TypePassword, Nullable: true, Sensitive: true,
		Doc: "Trust store password; not allowed with PEM."},
	{Name: "ssl.truststore.certificates", Type: TypePassword, Nullable: true, Sensitive: true,
		Doc: "Trusted certificates in PEM, instead of ssl.truststore.location."},
	{Name: "ssl.client.auth", Type: TypeString, Default: "none", checks: []check{oneOf("required", "requested", "none")},
		Doc: "Client certificates on SSL listeners: required, requested or none. For a SASL_SSL listener only its listener.name.<l>.ssl.client.auth applies."},
	{Name: "ssl.endpoint.identification.algorithm", Type: TypeString, Default: "https", checks: []check{oneOf("https", "HTTPS", "")},
		Doc: "https: the inter-broker client verifies the broker's host name; empty: chain only."},
	{Name: "ssl.principal.mapping.rules", Type: TypeString, Default: "DEFAULT", checks: []check{principalRules},
		Doc: "Maps a client certificate's DN (RFC 2253, as Java prints it) to the principal name: DEFAULT, or RULE:<regex>/<replacement>/[L|U], comma separated."},
	{Name: "ssl.keymanager.algorithm", Type: TypeString, Default: "SunX509", Doc: "Java key manager; accepted for compatibility."},
	{Name: "ssl.trustmanager.algorithm", Type: TypeString, Default: "PKIX", Doc: "Java trust manager; accepted for compatibility."},
	{Name: "ssl.secure.random.implementation", Type: TypeString, Nullable: true, Doc: "Java SecureRandom; accepted for compatibility (Go's crypto/rand is used)."},

	{Name: "sasl.enabled.mechanisms", Type: TypeList, Default: "GSSAPI",
		Doc: "SASL mechanisms of SASL listeners: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (GSSAPI and OAUTHBEARER are not supported)."},
	{Name: "sasl.mechanism.inter.broker.protocol", Type: TypeString, Default: "GSSAPI",
		Doc: "Mechanism the broker authenticates with to other brokers when the inter-broker listener uses SASL."},
	{Name: "sasl.server.max.receive.size", Type: TypeInt, Default: "524288", checks: []check{atLeast(1)},
		Doc: "Largest frame a client may send before it authenticates; larger sizes close the connection before anything is allocated."},
	{Name: "connections.max.reauth.ms", Type: TypeLong, Default: "0", checks: []check{atLeast(0)},
		Doc: "SASL session lifetime (KIP-368): clients must re-authenticate within it; 0 disables."},
	{Name: "sasl.kerberos.service.name", Type: TypeString, Nullable: true, Doc: "Kerberos service name; accepted for compatibility (GSSAPI is not supported)."},
}

// listenerKeys may be overridden per listener.
var listenerKeys = map[string]bool{
	"ssl.protocol": true, "ssl.enabled.protocols": true, "ssl.cipher.suites": true,
	"ssl.keystore.type": true, "ssl.keystore.location": true, "ssl.keystore.password": true,
	"ssl.keystore.key": true, "ssl.keystore.certificate.chain": true, "ssl.key.password": true,
	"ssl.truststore.type": true, "ssl.truststore.location": true, "ssl.truststore.password": true,
	"ssl.truststore.certificates": true, "ssl.client.auth": true,
	"ssl.endpoint.identification.algorithm": true, "ssl.principal.mapping.rules": true,
	"ssl.keymanager.algorithm": true, "ssl.trustmanager.algorithm": true, "ssl.secure.random.implementation": true,
	"sasl.enabled.mechanisms": true, "sasl.server.max.receive.size": true, "connections.max.reauth.ms": true,
	"max.connections": true,
}

// listenerDynamicKeys are the listener overrides a broker takes while
// running (Kafka's per-listener connection quotas, KIP-402); every other
// override is static, as in Kafka.
var listenerDynamicKeys = map[string]bool{"max.connections": true}

// mechanismKeys may be overridden per listener and mechanism
// (listener.name.<l>.<mechanism, lower case>.<key>).
var mechanismKeys = map[string]*Def{
	"sasl.jaas.config": {Name: "sasl.jaas.config", Type: TypePassword, Sensitive: true, Nullable: true, checks: []check{jaasConfig},
		Doc: "The mechanism's JAAS login module: PlainLoginModule with user_<name>=\"<password>\" entries for PLAIN, and username/password for the broker's own inter-broker client."},
	"connections.max.reauth.ms": nil, // the listener key's definition
}

func storeType(v string) error {
	return oneOf("JKS", "PKCS12", "PEM")(upper(v))
}

func sslProtocols(v string) error {
	if _, _, err := tlsconf.Versions(splitList(v)); err != nil {
		return invalid(err)
	}
	return nil
}

func cipherSuites(v string) error {
	if _, _, err := tlsconf.CipherSuites(splitList(v)); err != nil {
		return invalid(err)
	}
	return nil
}

func principalRules(v string) error {
	if _, err := tlsconf.NewPrincipalMapper(v); err != nil {
		return invalid(err)
	}
	return nil
}

func jaasConfig(v string) error {
	if _, err := jaas.ParseOne(v); err != nil {
		return invalid(err)
	}
	return nil
}
