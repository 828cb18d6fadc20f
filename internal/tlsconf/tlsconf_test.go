package tlsconf

import (
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testing/needs"
	"kafgo/internal/testing/testcerts"
)

func getter(m map[string]string) Getter {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestKeyPairEncrypted(t *testing.T) {
	ca, err := testcerts.NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Server("broker")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := leaf.EncryptedKeyPEM("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := KeyPair(leaf.CertPEM, enc, "s3cret", true); err != nil {
		t.Fatalf("right password: %v", err)
	}
	if _, err := KeyPair(leaf.CertPEM, enc, "wrong", true); !errors.Is(err, ErrKeyPassword) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := KeyPair(leaf.CertPEM, enc, "", false); err == nil || !strings.Contains(err.Error(), "ssl.key.password is not set") {
		t.Fatalf("no password: %v", err)
	}
	other, _ := ca.Server("other")
	if _, err := KeyPair(leaf.CertPEM, other.KeyPEM, "", false); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("mismatched key: %v", err)
	}
}

// TestKeyPairOpenSSL decrypts keys encrypted by openssl itself, so the
// PBES2 reader is checked against an independent writer.
func TestKeyPairOpenSSL(t *testing.T) {
	ca, _ := testcerts.NewCA("ca")
	leaf, _ := ca.Server("broker")
	dir := t.TempDir()
	plain := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(plain, leaf.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	openssl := needs.Tool(t, "openssl", "apt-get install openssl")
	for _, args := range [][]string{
		{"-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA256"},
		{"-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"},
		{"-v2", "des3"},
	} {
		out := filepath.Join(dir, "enc.pem")
		cmd := exec.Command(openssl, append([]string{"pkcs8", "-topk8", "-in", plain, "-out", out, "-passout", "pass:pw"}, args...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, b)
		}
		enc, _ := os.ReadFile(out)
		if _, err := KeyPair(leaf.CertPEM, enc, "pw", true); err != nil {
			t.Errorf("openssl %v: %v", args, err)
		}
	}
}

// TestReadRules: Kafka's consistency rules for PEM stores, each error
// naming the key at fault (KeyError) for callers to locate it.
func TestReadRules(t *testing.T) {
	for name, tc := range map[string]struct {
		m         map[string]string
		key, want string
	}{
		"pem keystore password":    {map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.location": "x", "ssl.keystore.password": "p"}, "ssl.keystore.password", "only key password may be specified"},
		"pem truststore password":  {map[string]string{"ssl.truststore.type": "PEM", "ssl.truststore.location": "x", "ssl.truststore.password": "p"}, "ssl.truststore.password", "cannot be specified for PEM"},
		"key without chain":        {map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.key": "k"}, "ssl.keystore.key", "certificate chain is not specified"},
		"chain without key":        {map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": "c"}, "ssl.keystore.certificate.chain", "private key is not specified"},
		"key with JKS":             {map[string]string{"ssl.keystore.key": "k", "ssl.keystore.certificate.chain": "c"}, "ssl.keystore.key", "only for PEM"},
		"both location and key":    {map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.key": "k", "ssl.keystore.certificate.chain": "c", "ssl.keystore.location": "x"}, "ssl.keystore.key", "Both SSL key store location"},
		"trust certs with JKS":     {map[string]string{"ssl.truststore.certificates": "c"}, "ssl.truststore.certificates", "only for PEM"},
		"trust location and certs": {map[string]string{"ssl.truststore.type": "PEM", "ssl.truststore.certificates": "c", "ssl.truststore.location": "x"}, "ssl.truststore.certificates", "Both SSL trust store location"},
		"unknown type":             {map[string]string{"ssl.keystore.type": "BKS"}, "ssl.keystore.type", "not supported"},
		"unknown trust store type": {map[string]string{"ssl.truststore.type": "BKS"}, "ssl.truststore.type", "not supported"},
		"bad client auth":          {map[string]string{"ssl.client.auth": "sometimes"}, "ssl.client.auth", "ssl.client.auth"},
		"bad endpoint alg":         {map[string]string{"ssl.endpoint.identification.algorithm": "ldaps"}, "ssl.endpoint.identification.algorithm", "not supported"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Read(getter(tc.m))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != tc.key {
				t.Fatalf("err %v names key %v, want %s", err, ke, tc.key)
			}
		})
	}
}

func TestJKSRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ks.jks")
	if err := os.WriteFile(p, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Read(getter(map[string]string{"ssl.keystore.location": p, "ssl.keystore.password": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewServer(s, nil)
	if err == nil || !strings.Contains(err.Error(), "JKS store, which kafgo cannot read") {
		t.Fatalf("err %v", err)
	}
}

func TestVersionsAndSuites(t *testing.T) {
	if lo, hi, err := Versions([]string{"TLSv1.2", "TLSv1.3"}); err != nil || lo != tls.VersionTLS12 || hi != tls.VersionTLS13 {
		t.Fatalf("%x %x %v", lo, hi, err)
	}
	if _, _, err := Versions([]string{"TLSv1.1", "TLSv1.3"}); err == nil {
		t.Fatal("gap accepted")
	}
	if _, _, err := Versions([]string{"SSLv3"}); err == nil {
		t.Fatal("SSLv3 accepted")
	}
	ids, has13, err := CipherSuites([]string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "SSL_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_AES_128_GCM_SHA256"})
	if err != nil || len(ids) != 2 || !has13 || ids[0] != tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 || ids[1] != tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA {
		t.Fatalf("%v %v %v", ids, has13, err)
	}
	if _, _, err := CipherSuites([]string{"TLS_NOPE"}); err == nil {
		t.Fatal("unknown suite accepted")
	}
	s := Settings{EnabledProtocols: []string{"TLSv1.2", "TLSv1.3"}, CipherSuites: []string{"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"}}
	cfg, err := s.baseConfig()
	if err != nil || cfg.MaxVersion != tls.VersionTLS12 {
		t.Fatalf("1.2-only suites keep TLS 1.3 on: %+v %v", cfg, err)
	}
	s.CipherSuites = []string{"TLS_AES_256_GCM_SHA384"}
	if cfg, err = s.baseConfig(); err != nil || cfg.MinVersion != tls.VersionTLS13 {
		t.Fatalf("1.3-only suites: %+v %v", cfg, err)
	}
}

func TestDistinguishedName(t *testing.T) {
	email := asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
	for _, tc := range []struct {
		name pkix.Name
		want string
	}{
		{pkix.Name{Country: []string{"US"}, Province: []string{"State"}, Locality: []string{"City"}, Organization: []string{"Example"}, OrganizationalUnit: []string{"eng"}, CommonName: "alice"},
			"CN=alice,OU=eng,O=Example,L=City,ST=State,C=US"},
		{pkix.Name{CommonName: "a,b+c=d;\"e\"<f>#g\\h"}, `CN=a\,b\+c\=d\;\"e\"\<f\>\#g\\h`},
		{pkix.Name{CommonName: "  padded "}, `CN=\ \ padded\ `},
		{pkix.Name{CommonName: "bob", ExtraNames: []pkix.AttributeTypeAndValue{{Type: email, Value: "a@b.c"}}},
			"1.2.840.113549.1.9.1=#0c056140622e63,CN=bob"}, // Go writes it as a UTF8String
		{pkix.Name{CommonName: "svc", SerialNumber: "42"}, "2.5.4.5=#13023432,CN=svc"},
	} {
		ca, _ := testcerts.NewCA("ca")
		leaf, err := ca.Client(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DistinguishedName(leaf.Cert.RawSubject)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestPrincipalMapper uses the cases of Kafka's SslPrincipalMapperTest.
func TestPrincipalMapper(t *testing.T) {
	rules := "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L," +
		"RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U,RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U,DEFAULT"
	pm, err := NewPrincipalMapper(rules)
	if err != nil {
		t.Fatal(err)
	}
	for dn, want := range map[string]string{
		"CN=Duke,OU=ServiceUsers,O=Org,C=US":        "Duke",
		"CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US": "duke@sme",
		"cn=duke,ou=javasoft,dc=mycp,dc=com":        "DUKE@JAVASOFT",
		"cN=duke,OU=JavaSoft,O=Sun Microsystems":    "DUKE",
		"OU=JavaSoft,O=Sun Microsystems,C=US":       "OU=JavaSoft,O=Sun Microsystems,C=US",
	} {
		if got, err := pm.Name(dn); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", dn, got, err, want)
		}
	}
	for _, bad := range []string{"default", "DEFAUL", "DEFAULT/L", "DEFAULT/U",
		"RULE:CN=(.*?),OU=ServiceUsers.*/$1", "RULE:CN=(.*?),OU=ServiceUsers.*/$1/L/U",
		"RULE:CN=(.*?),OU=ServiceUsers.*/L", "RULE:CN=(.*?),OU=ServiceUsers.*/U", "RULE:CN=(.*?),OU=ServiceUsers.*/LU"} {
		if _, err := NewPrincipalMapper(bad); err == nil {
			t.Errorf("rules %q accepted", bad)
		}
	}
	only, _ := NewPrincipalMapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/")
	if _, err := only.Name("CN=x,OU=Other"); !errors.Is(err, ErrNoRule) || !strings.Contains(err.Error(), "No rules apply to CN=x,OU=Other") {
		t.Fatalf("no rule: %v", err)
	}
	// Kafka's escapeLiteralBackReferences: $3 with two groups is literal.
	lit, _ := NewPrincipalMapper(`RULE:^CN=(.*?),OU=(.*?)$/$1@$3$2/`)
	if got, _ := lit.Name("CN=a,OU=b"); got != "a@$3b" {
		t.Fatalf("literal back reference: %q", got)
	}
}

func TestServerReload(t *testing.T) {
	dir := t.TempDir()
	f, err := testcerts.WriteServerFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(getter(map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.location": f.Keystore, "ssl.key.password": f.KeyPassword}))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := srv.Current().Certificates[0].Leaf.SerialNumber
	if srv.Reload(false) {
		t.Fatal("reloaded without a change")
	}
	next, _ := f.CA.Server("localhost")
	// A half-written file keeps the old certificate.
	if err := os.WriteFile(f.Keystore, next.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if srv.Reload(false) || srv.Current().Certificates[0].Leaf.SerialNumber.Cmp(first) != 0 {
		t.Fatal("broken file replaced the certificate")
	}
	if err := next.WriteKeystore(f.Keystore, f.KeyPassword); err != nil {
		t.Fatal(err)
	}
	// A distinct modification time, whatever the file system's resolution.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(f.Keystore, later, later); err != nil {
		t.Fatal(err)
	}
	if !srv.Reload(false) || srv.Current().Certificates[0].Leaf.SerialNumber.Cmp(next.Cert.SerialNumber) != 0 {
		t.Fatal("new certificate not loaded")
	}
}
