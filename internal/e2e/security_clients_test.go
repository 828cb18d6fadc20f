package e2e

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// startSecureBroker runs one broker with, besides the harness's PLAINTEXT
// listener, an SSL listener requiring client certificates, a SASL_SSL
// listener and a SASL_PLAINTEXT listener (sessions of 2 s there, KIP-368),
// all with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512.
func startSecureBroker(t *testing.T, f *secFixture) *testcluster.Cluster {
	cfg := f.brokerTLS()
	for k, v := range map[string]string{
		"ssl.client.auth":                                        "required",
		"sasl.enabled.mechanisms":                                "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
		"listener.name.sasl_ssl.plain.sasl.jaas.config":          plainUsers,
		"listener.name.sasl_plaintext.plain.sasl.jaas.config":    plainUsers,
		"listener.name.sasl_plaintext.connections.max.reauth.ms": "2000",
	} {
		cfg[k] = v
	}
	return testcluster.Start(t, testcluster.Options{Config: cfg, Listeners: []testcluster.Listener{
		{Name: "SSL", Protocol: "SSL"}, {Name: "SASL_SSL", Protocol: "SASL_SSL"}, {Name: "SASL_PLAINTEXT", Protocol: "SASL_PLAINTEXT"},
	}})
}

// TestSecurityClients: real clients (kcat/librdkafka, kafka-python,
// confluent-kafka, franz-go, kafgo's own tools) over TLS, mutual TLS and
// SASL (PLAIN, SCRAM-SHA-256/512) on one broker, the failures they must
// see, and SCRAM users managed with kafgo configs.
func TestSecurityClients(t *testing.T) {
	f := newSecFixture(t)
	c := startSecureBroker(t, f)
	b := c.Brokers()[0]
	sslAddr, saslSSL, saslPlain := b.ListenerAddr("SSL"), b.ListenerAddr("SASL_SSL"), b.ListenerAddr("SASL_PLAINTEXT")
	adminProps := f.props(t, "admin.properties", f.saslSSLProps("PLAIN", "admin", "admin-secret"))

	// SCRAM users, made as an operator makes them. The password never goes
	// over the wire, only the salted password.
	t.Run("configs SCRAM round trip", func(t *testing.T) {
		out := kafgo(t, "", "configs", "--bootstrap-server", saslSSL, "--command-config", adminProps, "--entity-type", "users", "--entity-name", "bob",
			"--alter", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=bob-secret],SCRAM-SHA-512=[password=bob-secret]")
		if out != "Completed updating config for user bob.\n" {
			t.Fatalf("alter: %q", out)
		}
		desc := kafgo(t, "", "configs", "--bootstrap-server", saslSSL, "--command-config", adminProps, "--entity-type", "users", "--entity-name", "bob", "--describe")
		if desc != "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096\n" {
			t.Fatalf("describe: %q", desc)
		}
		produceConsume(t, []string{saslSSL}, "scram-configs", 3, f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-512", "bob", "bob-secret")))
		// A second user, then removed: it no longer authenticates.
		kafgo(t, "", "configs", "--bootstrap-server", saslSSL, "--command-config", adminProps, "--user", "carol", "--alter", "--add-config", "SCRAM-SHA-256=[password=carol-secret]")
		produceConsume(t, []string{saslSSL}, "scram-carol", 1, f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-256", "carol", "carol-secret")))
		kafgo(t, "", "configs", "--bootstrap-server", saslSSL, "--command-config", adminProps, "--user", "carol", "--alter", "--delete-config", "SCRAM-SHA-256")
		if all := kafgo(t, "", "configs", "--bootstrap-server", saslSSL, "--command-config", adminProps, "--entity-type", "users", "--describe"); strings.Contains(all, "carol") || !strings.Contains(all, "'bob'") {
			t.Fatalf("describe all: %q", all)
		}
		err := tryMetadata(t, []string{saslSSL}, f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-256", "carol", "carol-secret")))
		if err == nil || !strings.Contains(err.Error(), "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256") {
			t.Fatalf("deleted user: %v", err)
		}
	})

	t.Run("kcat SASL_SSL SCRAM-SHA-512", func(t *testing.T) {
		opts := []string{"-b", saslSSL, "-X", "security.protocol=SASL_SSL", "-X", "ssl.ca.location=" + f.files.Truststore,
			"-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "sasl.username=bob", "-X", "sasl.password=bob-secret"}
		kcat(t, "k1\nk2\nk3\n", append([]string{"-P", "-t", "kcat-scram"}, opts...)...)
		if got := kcat(t, "", append([]string{"-C", "-t", "kcat-scram", "-o", "beginning", "-c", "3", "-e", "-q"}, opts...)...); got != "k1\nk2\nk3\n" {
			t.Fatalf("consumed %q", got)
		}
	})

	t.Run("kcat mutual TLS", func(t *testing.T) {
		opts := []string{"-b", sslAddr, "-X", "security.protocol=SSL", "-X", "ssl.ca.location=" + f.files.Truststore,
			"-X", "ssl.certificate.location=" + f.clientCert, "-X", "ssl.key.location=" + f.clientKey}
		kcat(t, "m1\nm2\n", append([]string{"-P", "-t", "kcat-mtls"}, opts...)...)
		if got := kcat(t, "", append([]string{"-C", "-t", "kcat-mtls", "-o", "beginning", "-c", "2", "-e", "-q"}, opts...)...); got != "m1\nm2\n" {
			t.Fatalf("consumed %q", got)
		}
	})

	t.Run("kafka-python SASL_SSL", func(t *testing.T) {
		for _, mech := range []struct{ name, user, pass string }{{"PLAIN", "alice", "alice-secret"}, {"SCRAM-SHA-256", "bob", "bob-secret"}} {
			out := runPython(t, `
import sys
from kafka import KafkaProducer, KafkaConsumer
addr, ca, mech, user, pw, topic = sys.argv[1:7]
sec = dict(bootstrap_servers=addr, security_protocol="SASL_SSL", ssl_cafile=ca, sasl_mechanism=mech,
           sasl_plain_username=user, sasl_plain_password=pw)
p = KafkaProducer(**sec)
for i in range(5):
    p.send(topic, ("py-%d" % i).encode()).get(timeout=30)
p.close()
c = KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=20000, **sec)
got = [m.value.decode() for _, m in zip(range(5), c)]
c.close()
print(",".join(got))
`, saslSSL, f.files.Truststore, mech.name, mech.user, mech.pass, "py-"+strings.ToLower(mech.name))
			if strings.TrimSpace(out) != "py-0,py-1,py-2,py-3,py-4" {
				t.Fatalf("%s: %q", mech.name, out)
			}
		}
	})

	t.Run("confluent-kafka SASL_SSL", func(t *testing.T) {
		for _, mech := range []struct{ name, user, pass string }{{"PLAIN", "alice", "alice-secret"}, {"SCRAM-SHA-256", "bob", "bob-secret"}} {
			out := runPython(t, `
import sys
from confluent_kafka import Producer, Consumer
addr, ca, mech, user, pw, topic = sys.argv[1:7]
sec = {"bootstrap.servers": addr, "security.protocol": "SASL_SSL", "ssl.ca.location": ca,
       "sasl.mechanism": mech, "sasl.username": user, "sasl.password": pw}
p = Producer(sec)
for i in range(5):
    p.produce(topic, ("ck-%d" % i).encode())
assert p.flush(30) == 0
c = Consumer(dict(sec, **{"group.id": "ck-" + topic, "auto.offset.reset": "earliest"}))
c.subscribe([topic])
got = []
import time
deadline = time.time() + 30
while len(got) < 5 and time.time() < deadline:
    m = c.poll(1.0)
    if m is None or m.error():
        continue
    got.append(m.value().decode())
c.close()
print(",".join(got))
`, saslSSL, f.files.Truststore, mech.name, mech.user, mech.pass, "ck-"+strings.ToLower(mech.name))
			if strings.TrimSpace(out) != "ck-0,ck-1,ck-2,ck-3,ck-4" {
				t.Fatalf("%s: %q", mech.name, out)
			}
		}
	})

	t.Run("franz-go SCRAM over TLS", func(t *testing.T) {
		produceConsume(t, []string{saslSSL}, "kgo-scram-256", 20, f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-256", "bob", "bob-secret")))
		produceConsume(t, []string{saslSSL}, "kgo-plain", 5, f.tlsOpt(false), kgo.SASL(plainMech("alice", "alice-secret")))
		produceConsume(t, []string{sslAddr}, "kgo-mtls", 5, f.tlsOpt(true))
	})

	t.Run("failures are clean", func(t *testing.T) {
		for name, tc := range map[string]struct {
			addr string
			opts []kgo.Opt
			want string
		}{
			"wrong password": {saslSSL, []kgo.Opt{f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-512", "bob", "nope"))},
				"Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"},
			"wrong PLAIN password": {saslSSL, []kgo.Opt{f.tlsOpt(false), kgo.SASL(plainMech("alice", "nope"))}, "Authentication failed: Invalid username or password"},
			"unknown user": {saslSSL, []kgo.Opt{f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-256", "mallory", "x"))},
				"Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"},
			"no client certificate":   {sslAddr, []kgo.Opt{f.tlsOpt(false)}, "certificate required"},
			"plaintext on a TLS port": {sslAddr, nil, "broker closed the connection"},
			"untrusted broker":        {saslSSL, []kgo.Opt{kgo.DialTLSConfig(&tls.Config{}), kgo.SASL(plainMech("alice", "alice-secret"))}, "certificate signed by unknown authority"},
		} {
			t.Run(name, func(t *testing.T) {
				err := tryMetadata(t, []string{tc.addr}, tc.opts...)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err %v, want %q", err, tc.want)
				}
			})
		}
		// kcat without a certificate on the SSL listener fails too, and the
		// broker keeps serving everyone else.
		if out, err := kcatE("-L", "-b", sslAddr, "-m", "5", "-X", "security.protocol=SSL", "-X", "ssl.ca.location="+f.files.Truststore); err == nil || !strings.Contains(out, "certificate required") {
			t.Fatalf("kcat without a certificate: %v\n%s", err, out)
		}
		produceConsume(t, []string{saslSSL}, "after-failures", 2, f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-512", "bob", "bob-secret")))
		produceConsume(t, []string{sslAddr}, "after-failures-mtls", 2, f.tlsOpt(true))
	})

	t.Run("pre-auth frame of 100 MiB", func(t *testing.T) {
		// A peer that has not authenticated announces a 100 MiB request:
		// the broker closes the connection on the size field alone. Many
		// at once must not grow the broker's memory by anything near
		// their claims.
		const conns = 50
		heapBefore := brokerHeapBytes(t, b)
		var ncs []net.Conn
		for i := 0; i < conns; i++ {
			nc, err := net.DialTimeout("tcp", saslPlain, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			var hdr [4]byte
			binary.BigEndian.PutUint32(hdr[:], 100<<20)
			if _, err := nc.Write(hdr[:]); err != nil {
				t.Fatal(err)
			}
			ncs = append(ncs, nc)
		}
		for _, nc := range ncs {
			_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := nc.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
				t.Fatalf("connection not closed: read %d, %v", n, err)
			}
		}
		if grew := brokerHeapBytes(t, b) - heapBefore; grew > 64<<20 {
			t.Fatalf("broker heap grew by %.0f bytes for %d refused 100 MiB frames", grew, conns)
		}
		// A request other than ApiVersions/SaslHandshake before
		// authentication closes the connection, too.
		nc, err := net.DialTimeout("tcp", saslPlain, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		req := kmsg.NewPtrMetadataRequest()
		req.Version = 9
		if _, err := nc.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("raw")).AppendRequest(nil, req, 1)); err != nil {
			t.Fatal(err)
		}
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := nc.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
			t.Fatalf("metadata before authentication: %v", err)
		}
		produceConsume(t, []string{saslPlain}, "after-big-frames", 2, kgo.SASL(plainMech("alice", "alice-secret")))
	})

	t.Run("re-authentication", func(t *testing.T) {
		// Sessions on SASL_PLAINTEXT last 2 s: franz-go re-authenticates
		// on the same connections and keeps producing for 6 s.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cl := secureClient(t, []string{saslPlain}, kgo.SASL(scramMech("SCRAM-SHA-512", "bob", "bob-secret")), kgo.DefaultProduceTopic("reauth"), kgo.AllowAutoTopicCreation())
		deadline := time.Now().Add(6 * time.Second)
		n := 0
		for time.Now().Before(deadline) {
			if err := cl.ProduceSync(ctx, kgo.StringRecord("r")).FirstErr(); err != nil {
				t.Fatalf("produce %d across re-authentications: %v", n, err)
			}
			n++
			time.Sleep(100 * time.Millisecond)
		}
		if n < 20 {
			t.Fatalf("only %d records in 6 s", n)
		}
	})

	t.Run("tools with client configs", func(t *testing.T) {
		bobProps := f.props(t, "bob.properties", f.saslSSLProps("SCRAM-SHA-512", "bob", "bob-secret"))
		mtls := f.props(t, "mtls.properties", map[string]string{"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": f.files.Truststore,
			"ssl.keystore.type": "PEM", "ssl.keystore.location": f.clientPEM})
		if out := kafgo(t, "", "topics", "--bootstrap-server", saslSSL, "--command-config", bobProps, "--create", "--topic", "tools", "--partitions", "2"); out != "Created topic tools.\n" {
			t.Fatalf("topics --create: %q", out)
		}
		if out := kafgo(t, "", "topics", "--bootstrap-server", sslAddr, "--command-config", mtls, "--list"); !strings.Contains(out, "tools\n") {
			t.Fatalf("topics --list over mTLS: %q", out)
		}
		kafgo(t, "a\nb\nc\n", "produce", "--bootstrap-server", saslSSL, "--producer.config", bobProps, "--topic", "tools")
		if got := kafgo(t, "", "consume", "--bootstrap-server", sslAddr, "--consumer.config", mtls, "--topic", "tools", "--group", "tools-g", "--from-beginning", "--max-messages", "3"); len(strings.Fields(got)) != 3 {
			t.Fatalf("consume: %q", got)
		}
		if out := kafgo(t, "", "groups", "--bootstrap-server", saslSSL, "--command-config", bobProps, "--list"); !strings.Contains(out, "tools-g") {
			t.Fatalf("groups --list: %q", out)
		}
		perf := kafgo(t, "", "perf", "produce", "--topic", "tools", "--num-records", "500", "--record-size", "100", "--throughput", "-1", "--producer.config", bobProps, "--producer-props", "bootstrap.servers="+saslSSL)
		if !strings.Contains(perf, "500 records sent") {
			t.Fatalf("perf produce: %s", perf)
		}
		pc := kafgo(t, "", "perf", "consume", "--bootstrap-server", sslAddr, "--consumer.config", mtls, "--topic", "tools", "--messages", "503", "--hide-header")
		if !regexp.MustCompile(`, 503, `).MatchString(pc) {
			t.Fatalf("perf consume: %s", pc)
		}
		if out := kafgo(t, "", "reassign-partitions", "--bootstrap-server", saslSSL, "--command-config", bobProps, "--list"); !strings.Contains(out, "No partition reassignments found.") {
			t.Fatalf("reassign-partitions --list: %q", out)
		}
		if out := kafgo(t, "", "configs", "--bootstrap-server", sslAddr, "--command-config", mtls, "--topic", "tools", "--describe"); !strings.Contains(out, "Dynamic configs for topic tools are:") {
			t.Fatalf("configs --describe: %q", out)
		}
		frame := kafgo(t, "", "tui", "--bootstrap-server", saslSSL, "--command-config", bobProps, "--admin", b.AdminAddr(), "--once", "--no-color", "--timeout", "5s", "--width", "120", "--height", "30", "--view", "topics")
		if !strings.Contains(frame, "tools") {
			t.Fatalf("tui over SASL_SSL:\n%s", frame)
		}
	})

	t.Run("certificate reload", func(t *testing.T) {
		serial := func() string {
			var s string
			testwait.For(t, 10*time.Second, "TLS handshake", func() (bool, string) {
				nc, err := tls.Dial("tcp", sslAddr, &tls.Config{RootCAs: f.pool, Certificates: []tls.Certificate{f.clientTLS}})
				if err != nil {
					return false, err.Error()
				}
				defer nc.Close()
				s = nc.ConnectionState().PeerCertificates[0].SerialNumber.String()
				return true, ""
			})
			return s
		}
		before := serial()
		next, err := f.ca.Server("localhost")
		if err != nil {
			t.Fatal(err)
		}
		tmp := f.files.Keystore + ".new"
		if err := next.WriteKeystore(tmp, f.files.KeyPassword); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, f.files.Keystore); err != nil {
			t.Fatal(err)
		}
		testwait.For(t, 15*time.Second, "new certificate served", func() (bool, string) {
			s := serial()
			return s == next.Cert.SerialNumber.String(), "serial " + s + ", was " + before
		})
		produceConsume(t, []string{sslAddr}, "after-reload", 2, f.tlsOpt(true))
	})
}

// tryMetadata asks for metadata with a client built from opts and returns
// its error.
func tryMetadata(t testing.TB, addrs []string, opts ...kgo.Opt) error {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs...), kgo.RequestRetries(0), kgo.RetryTimeout(3 * time.Second)}, opts...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err = testcluster.Metadata(ctx, cl)
	return err
}

// kcatE runs kcat and returns its combined output and error.
func kcatE(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "kcat", args...).CombinedOutput()
	return string(out), err
}

// brokerHeapBytes reads the broker's heap in use from its /metrics.
func brokerHeapBytes(t testing.TB, b *testcluster.Broker) float64 {
	t.Helper()
	resp, err := http.Get("http://" + b.AdminAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go_memstats_heap_inuse_bytes ([0-9.e+]+)$`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no go_memstats_heap_inuse_bytes in /metrics")
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
