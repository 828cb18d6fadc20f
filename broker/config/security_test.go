package config

import (
	"fmt"
	"strings"
	"testing"
)

const plainJAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";`

func secureValues() map[string]string {
	return map[string]string{
		"listeners":                                                      "PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9093,SASL_SSL://127.0.0.1:9094,INTERNAL://127.0.0.1:9095",
		"listener.security.protocol.map":                                 "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL,INTERNAL:SASL_PLAINTEXT",
		"inter.broker.listener.name":                                     "INTERNAL",
		"ssl.keystore.type":                                              "PEM",
		"ssl.keystore.location":                                          "/etc/kafgo/broker.pem",
		"ssl.key.password":                                               "key-secret",
		"ssl.truststore.type":                                            "PEM",
		"ssl.truststore.location":                                        "/etc/kafgo/ca.pem",
		"ssl.client.auth":                                                "required",
		"ssl.principal.mapping.rules":                                    "RULE:^CN=(.*?),OU=.*$/$1/L,DEFAULT",
		"sasl.enabled.mechanisms":                                        "SCRAM-SHA-512",
		"listener.name.sasl_ssl.sasl.enabled.mechanisms":                 "PLAIN,SCRAM-SHA-256",
		"listener.name.sasl_ssl.plain.sasl.jaas.config":                  plainJAAS,
		"listener.name.sasl_ssl.ssl.keystore.location":                   "/etc/kafgo/public.pem",
		"listener.name.sasl_ssl.scram-sha-256.connections.max.reauth.ms": "60000",
		"listener.name.internal.scram-sha-512.sasl.jaas.config":          `org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="broker-secret";`,
		"sasl.mechanism.inter.broker.protocol":                           "SCRAM-SHA-512",
		"sasl.server.max.receive.size":                                   "65536",
	}
}

func TestSecurityListeners(t *testing.T) {
	b, err := Parse(secureValues())
	if err != nil {
		t.Fatal(err)
	}
	ssl, err := b.Security("SSL")
	if err != nil {
		t.Fatal(err)
	}
	if !ssl.TLS || ssl.SASL || ssl.SSL.ClientAuth != "required" || ssl.SSL.KeystoreLocation != "/etc/kafgo/broker.pem" || !ssl.SSL.HasKeyPassword {
		t.Fatalf("SSL: %+v", ssl)
	}
	if name, err := ssl.PrincipalMapper.Name("CN=Alice,OU=eng,O=x"); err != nil || name != "alice" {
		t.Fatalf("mapping: %q %v", name, err)
	}
	// SASL_SSL: its own key store and mechanisms; the broker-wide
	// ssl.client.auth does not apply to it (Kafka's rule).
	ss, err := b.Security("sasl_ssl")
	if err != nil {
		t.Fatal(err)
	}
	if !ss.TLS || !ss.SASL || ss.SSL.ClientAuth != "none" || ss.SSL.KeystoreLocation != "/etc/kafgo/public.pem" {
		t.Fatalf("SASL_SSL tls: %+v", ss.SSL)
	}
	if strings.Join(ss.Mechanisms, ",") != "PLAIN,SCRAM-SHA-256" || ss.PlainUsers["alice"] != "alice-secret" || ss.MaxReceiveSize != 65536 {
		t.Fatalf("SASL_SSL sasl: %+v", ss)
	}
	if ss.ReauthMs["SCRAM-SHA-256"] != 60000 || ss.ReauthMs["PLAIN"] != 0 {
		t.Fatalf("reauth: %v", ss.ReauthMs)
	}
	ib, err := b.InterBroker()
	if err != nil {
		t.Fatal(err)
	}
	if ib.Listener != "INTERNAL" || ib.Protocol != "SASL_PLAINTEXT" || ib.Mechanism != "SCRAM-SHA-512" || ib.Username != "broker" || ib.Password != "broker-secret" {
		t.Fatalf("inter-broker: %+v", ib)
	}
	// Passwords never show in descriptions.
	if v, ok := b.Describe("ssl.key.password"); !ok || !v.Null || !v.Sensitive {
		t.Fatalf("describe: %+v", v)
	}
}

func TestSecurityErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		change   map[string]string
		key      string
		contains string
	}{
		"PEM with a key store password":      {map[string]string{"ssl.keystore.password": "x"}, "ssl.keystore.password", "only key password may be specified"},
		"PEM with a listener's password":     {map[string]string{"listener.name.ssl.ssl.keystore.password": "x"}, "listener.name.ssl.ssl.keystore.password", "only key password may be specified"},
		"listener's trust store certs":       {map[string]string{"listener.name.sasl_ssl.ssl.truststore.certificates": "-----BEGIN CERTIFICATE-----"}, "listener.name.sasl_ssl.ssl.truststore.certificates", "Both SSL trust store location and separate trust certificates"},
		"listener's client auth":             {map[string]string{"listener.name.sasl_ssl.ssl.client.auth": "sometimes"}, "listener.name.sasl_ssl.ssl.client.auth", "must be one of"},
		"inter-broker mechanism not enabled": {map[string]string{"sasl.mechanism.inter.broker.protocol": "PLAIN"}, "sasl.mechanism.inter.broker.protocol", "must be included in sasl.enabled.mechanisms"},
		"inter-broker credentials missing":   {map[string]string{"listener.name.internal.scram-sha-512.sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required;`}, "listener.name.internal.scram-sha-512.sasl.jaas.config", "username"},
		"PLAIN without JAAS":                 {map[string]string{"listener.name.sasl_ssl.plain.sasl.jaas.config": ""}, "listener.name.sasl_ssl.plain.sasl.jaas.config", "PlainLoginModule"},
		"wrong login module":                 {map[string]string{"listener.name.sasl_ssl.plain.sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required;`}, "listener.name.sasl_ssl.plain.sasl.jaas.config", "needs login module"},
		"bad JAAS":                           {map[string]string{"listener.name.sasl_ssl.plain.sasl.jaas.config": `PlainLoginModule required user_a="x"`}, "listener.name.sasl_ssl.plain.sasl.jaas.config", "not terminated"},
		"OAUTHBEARER":                        {map[string]string{"listener.name.sasl_ssl.sasl.enabled.mechanisms": "OAUTHBEARER"}, "sasl.enabled.mechanisms", "OAUTHBEARER are not supported"},
		"bad mapping rule":                   {map[string]string{"ssl.principal.mapping.rules": "RULE:x"}, "ssl.principal.mapping.rules", "invalid rule"},
		"gap in protocols":                   {map[string]string{"ssl.enabled.protocols": "TLSv1.1,TLSv1.3"}, "ssl.enabled.protocols", "gap"},
		"unknown cipher":                     {map[string]string{"listener.name.ssl.ssl.cipher.suites": "TLS_FOO"}, "listener.name.ssl.ssl.cipher.suites", "TLS_FOO"},
	} {
		t.Run(name, func(t *testing.T) {
			v := secureValues()
			for k, val := range tc.change {
				if val == "" {
					delete(v, k)
				} else {
					v[k] = val
				}
			}
			_, err := Parse(v)
			ce := wantKeyError(t, err, tc.key, "", nil)
			if !strings.Contains(ce.Error(), tc.contains) {
				t.Fatalf("%q does not mention %q", ce, tc.contains)
			}
			if strings.Contains(ce.Error(), "secret") {
				t.Fatalf("password in error: %q", ce)
			}
		})
	}
}

// TestSecurityErrorLocated: a listener's TLS error names the key as the
// operator wrote it, with its file and line, and the listener, hiding the
// password; before, it read `listener.name.ssl.ssl.*=""`.
func TestSecurityErrorLocated(t *testing.T) {
	for _, key := range []string{"ssl.keystore.password", "listener.name.ssl.ssl.keystore.password"} {
		p := writeFile(t, "listeners: SSL://127.0.0.1:9093\n"+
			"inter.broker.listener.name: SSL\n"+
			"ssl.keystore.type: PEM\n"+
			"ssl.keystore.location: /etc/kafgo/broker.pem\n"+
			key+": store-secret\n")
		_, err := Load(p, nil)
		want := fmt.Sprintf("config: %s:5: %s=\"[hidden]\": invalid value: listener SSL: ", p, key)
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "only key password may be specified") {
			t.Errorf("%s: error %v\nwant it to start %q", key, err, want)
		}
	}
}
