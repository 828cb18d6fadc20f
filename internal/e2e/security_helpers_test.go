package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	fsasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"kafgo/internal/testing/testcerts"
)

// secFixture is the TLS material of a security test, generated fresh in a
// temporary directory: a CA (the trust store of brokers and clients), the
// brokers' certificate for 127.0.0.1/localhost with its key encrypted
// (ssl.key.password), and a client certificate for mutual TLS.
type secFixture struct {
	dir        string
	ca         *testcerts.CA
	files      *testcerts.Files
	clientCert string // client chain PEM (kcat ssl.certificate.location)
	clientKey  string // client key PEM (kcat ssl.key.location)
	clientPEM  string // chain + key in one PEM file (Kafka's ssl.keystore.location)
	pool       *x509.CertPool
	clientTLS  tls.Certificate
}

const plainUsers = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";`

func newSecFixture(t testing.TB) *secFixture {
	t.Helper()
	dir := t.TempDir()
	files, err := testcerts.WriteServerFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	client, err := files.CA.Client(pkix.Name{CommonName: "alice", OrganizationalUnit: []string{"eng"}, Organization: []string{"Example"}})
	if err != nil {
		t.Fatal(err)
	}
	f := &secFixture{dir: dir, ca: files.CA, files: files,
		clientCert: filepath.Join(dir, "client-cert.pem"), clientKey: filepath.Join(dir, "client-key.pem"), clientPEM: filepath.Join(dir, "client.pem")}
	for path, data := range map[string][]byte{f.clientCert: client.CertPEM, f.clientKey: client.KeyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.WriteKeystore(f.clientPEM, ""); err != nil {
		t.Fatal(err)
	}
	f.pool = x509.NewCertPool()
	f.pool.AddCert(files.CA.Cert)
	if f.clientTLS, err = tls.X509KeyPair(client.CertPEM, client.KeyPEM); err != nil {
		t.Fatal(err)
	}
	return f
}

// brokerTLS is the ssl.* configuration every listener shares.
func (f *secFixture) brokerTLS() map[string]string {
	return map[string]string{
		"ssl.keystore.type":       "PEM",
		"ssl.keystore.location":   f.files.Keystore,
		"ssl.key.password":        f.files.KeyPassword,
		"ssl.truststore.type":     "PEM",
		"ssl.truststore.location": f.files.Truststore,
	}
}

// props writes a client properties file and returns its path.
func (f *secFixture) props(t testing.TB, name string, kv map[string]string) string {
	t.Helper()
	var b strings.Builder
	for k, v := range kv {
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	path := filepath.Join(f.dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// saslSSLProps are a client's SASL_SSL properties for mechanism and user.
func (f *secFixture) saslSSLProps(mechanism, user, password string) map[string]string {
	module := "org.apache.kafka.common.security.scram.ScramLoginModule"
	if mechanism == "PLAIN" {
		module = "org.apache.kafka.common.security.plain.PlainLoginModule"
	}
	return map[string]string{
		"security.protocol":       "SASL_SSL",
		"sasl.mechanism":          mechanism,
		"sasl.jaas.config":        fmt.Sprintf(`%s required username="%s" password="%s";`, module, user, password),
		"ssl.truststore.type":     "PEM",
		"ssl.truststore.location": f.files.Truststore,
	}
}

// tlsOpt is a franz-go client option for TLS against the fixture's CA,
// with the client certificate when mutual is set.
func (f *secFixture) tlsOpt(mutual bool) kgo.Opt {
	cfg := &tls.Config{RootCAs: f.pool, MinVersion: tls.VersionTLS12}
	if mutual {
		cfg.Certificates = []tls.Certificate{f.clientTLS}
	}
	return kgo.DialTLSConfig(cfg)
}

func scramMech(mech, user, pass string) fsasl.Mechanism {
	a := scram.Auth{User: user, Pass: pass}
	if mech == "SCRAM-SHA-256" {
		return a.AsSha256Mechanism()
	}
	return a.AsSha512Mechanism()
}

func plainMech(user, pass string) fsasl.Mechanism {
	return plain.Auth{User: user, Pass: pass}.AsMechanism()
}

// secureClient is a franz-go client on addrs with extra options, closed at
// the end of the test.
func secureClient(t testing.TB, addrs []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs...), kgo.RetryTimeout(20 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produceConsume writes n records to topic with cl and reads them back with
// a second client built from the same options.
func produceConsume(t testing.TB, addrs []string, topic string, n int, opts ...kgo.Opt) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pcl := secureClient(t, addrs, append(opts, kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation())...)
	for i := 0; i < n; i++ {
		if err := pcl.ProduceSync(ctx, kgo.StringRecord(fmt.Sprintf("%s-%d", topic, i))).FirstErr(); err != nil {
			t.Fatalf("produce %d to %s: %v", i, topic, err)
		}
	}
	ccl := secureClient(t, addrs, append(opts, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	got := 0
	for got < n {
		fs := ccl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d from %s: %v", got, n, topic, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch %s: %v", topic, err) })
		fs.EachRecord(func(r *kgo.Record) {
			if want := fmt.Sprintf("%s-%d", topic, got); string(r.Value) != want {
				t.Fatalf("record %d of %s: %q, want %q", got, topic, r.Value, want)
			}
			got++
		})
	}
}
