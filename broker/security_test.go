package broker

import (
	"crypto/x509/pkix"
	"log/slog"
	"sync/atomic"
	"testing"

	"kafgo/broker/config"
	"kafgo/broker/credentials"
	"kafgo/internal/testing/testcerts"
)

// TestListenerConfigPrincipals: an SSL listener maps a client certificate's
// DN (as Java prints it) through ssl.principal.mapping.rules; a SASL_SSL
// listener leaves the principal to SASL; the inter-broker Dialer carries the
// inter-broker listener's TLS and SASL.
func TestListenerConfigPrincipals(t *testing.T) {
	f, err := testcerts.WriteServerFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(map[string]string{
		"listeners":                                             "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
		"inter.broker.listener.name":                            "SASL_SSL",
		"ssl.keystore.type":                                     "PEM",
		"ssl.keystore.location":                                 f.Keystore,
		"ssl.key.password":                                      f.KeyPassword,
		"ssl.truststore.location":                               f.Truststore,
		"ssl.client.auth":                                       "requested",
		"ssl.principal.mapping.rules":                           "RULE:^CN=([^,]*),OU=(.*?),.*$/$1@$2/L,DEFAULT",
		"sasl.enabled.mechanisms":                               "SCRAM-SHA-512",
		"sasl.mechanism.inter.broker.protocol":                  "SCRAM-SHA-512",
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="b" password="p";`,
	})
	if err != nil {
		t.Fatal(err)
	}
	b := New(cfg, slog.Default())
	var creds atomic.Pointer[credentials.Store]
	byName := map[string]config.Listener{}
	for _, l := range cfg.Listeners {
		byName[l.Name] = l
	}
	ssl, err := b.listenerConfig(cfg, byName["SSL"], &creds)
	if err != nil {
		t.Fatal(err)
	}
	if ssl.TLS == nil || ssl.PeerPrincipal == nil || ssl.SASL != nil {
		t.Fatalf("SSL listener: %+v", ssl)
	}
	leaf, err := f.CA.Client(pkix.Name{CommonName: "Alice", OrganizationalUnit: []string{"Eng"}, Organization: []string{"Example"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ssl.PeerPrincipal(leaf.Cert)
	if err != nil || p.String() != "User:alice@eng" {
		t.Fatalf("principal %v %v", p, err)
	}
	other, _ := f.CA.Client(pkix.Name{CommonName: "svc"})
	if p, err := ssl.PeerPrincipal(other.Cert); err != nil || p.String() != "User:CN=svc" {
		t.Fatalf("DEFAULT rule: %v %v", p, err)
	}
	ss, err := b.listenerConfig(cfg, byName["SASL_SSL"], &creds)
	if err != nil {
		t.Fatal(err)
	}
	if ss.TLS == nil || ss.PeerPrincipal != nil || ss.SASL == nil || ss.SASL.Mechanisms[0] != "SCRAM-SHA-512" {
		t.Fatalf("SASL_SSL listener: %+v", ss)
	}
	if _, ok := ss.SASL.Scram("SCRAM-SHA-512", "b"); ok {
		t.Fatal("credential found before the store is open")
	}
	d, err := interBrokerDialer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d.TLS == nil || d.TLS.RootCAs == nil || d.SASL == nil || d.SASL.Name() != "SCRAM-SHA-512" {
		t.Fatalf("inter-broker dialer: %+v", d)
	}
	plain, err := b.listenerConfig(cfg, byName["PLAINTEXT"], &creds)
	if err != nil || plain.TLS != nil || plain.SASL != nil {
		t.Fatalf("PLAINTEXT listener: %+v %v", plain, err)
	}
}
