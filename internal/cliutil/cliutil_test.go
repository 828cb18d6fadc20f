package cliutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestParseProperties(t *testing.T) {
	in := "# comment\n! also comment\n\n" +
		"bootstrap.servers=localhost:9092\n" +
		"  client.id : my-client\n" +
		"acks all\n" +
		"long.value=a,\\\n    b,\\\n    c\n" +
		"escaped\\=key=v\\tx\n" +
		"unicode=\\u0041B\n" +
		"empty=\n" +
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p=q\";\n"
	got, err := ParseProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"bootstrap.servers": "localhost:9092",
		"client.id":         "my-client",
		"acks":              "all",
		"long.value":        "a,b,c",
		"escaped=key":       "v\tx",
		"unicode":           "AB",
		"empty":             "",
		"sasl.jaas.config":  `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p=q";`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		t.Run(k, func(t *testing.T) {
			if got[k] != v {
				t.Fatalf("%s = %q, want %q", k, got[k], v)
			}
		})
	}
	if _, err := ParseProperties(strings.NewReader("bad=\\u00")); err == nil {
		t.Fatal("short \\u escape accepted")
	}
}

func TestParseKeyValues(t *testing.T) {
	got, err := ParseKeyValues([]string{"a=1", "b=x=y", "c="})
	if err != nil || got["a"] != "1" || got["b"] != "x=y" || got["c"] != "" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"novalue", "=v"} {
		if _, err := ParseKeyValues([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func newClient(t *testing.T, opts []kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func conf(props map[string]string) *Config {
	c := NewConfig()
	c.Set("bootstrap.servers", "127.0.0.1:1")
	c.Merge(props)
	return c
}

func TestProducerOpts(t *testing.T) {
	c := conf(map[string]string{
		"acks": "1", "linger.ms": "25", "batch.size": "32768", "buffer.memory": "1048576",
		"max.in.flight.requests.per.connection": "3", "client.id": "cid", "request.timeout.ms": "7000",
		"retries": "2", "delivery.timeout.ms": "9000", "max.request.size": "65536", "compression.type": "zstd",
		"max.block.ms": "1234", "key.serializer": "org.apache.kafka.common.serialization.StringSerializer",
	})
	opts, set, err := ProducerOpts(c)
	if err != nil {
		t.Fatal(err)
	}
	if set.Acks != "1" || set.Idempotent || set.MaxBlock != 1234*time.Millisecond {
		t.Fatalf("settings %+v", set)
	}
	if u := c.Unused(); len(u) != 0 {
		t.Fatalf("unused %v", u)
	}
	cl := newClient(t, opts)
	checks := []struct {
		name string
		opt  any
		want any
	}{
		{"linger", kgo.ProducerLinger, 25 * time.Millisecond},
		{"client id", kgo.ClientID, "cid"},
		{"produce timeout", kgo.ProduceRequestTimeout, 7 * time.Second},
		{"retries counts tries", kgo.RecordRetries, int64(3)},
		{"delivery timeout", kgo.RecordDeliveryTimeout, 9 * time.Second},
		{"max write", kgo.BrokerMaxWriteBytes, int32(65536)},
		{"buffer", kgo.MaxBufferedBytes, int64(1048576)},
		{"inflight", kgo.MaxProduceRequestsInflightPerBroker, 3},
		{"idempotence off", kgo.DisableIdempotentWrite, true},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			got := cl.OptValue(c.opt)
			if got != c.want {
				t.Fatalf("got %v (%T), want %v (%T)", got, got, c.want, c.want)
			}
		})
	}
}

func TestProducerOptsErrors(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]string
		want  string
	}{
		{"bad acks", map[string]string{"acks": "2"}, "Invalid value 2 for configuration acks: String must be one of: all, -1, 0, 1"},
		{"idempotence needs acks all", map[string]string{"acks": "1", "enable.idempotence": "true"}, "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence."},
		{"idempotence needs inflight <= 5", map[string]string{"enable.idempotence": "true", "max.in.flight.requests.per.connection": "6"}, "Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer."},
		{"idempotence needs retries", map[string]string{"enable.idempotence": "true", "retries": "0"}, "Must set retries to non-zero when using the idempotent producer."},
		{"bad codec", map[string]string{"compression.type": "brotli"}, "Invalid value brotli for configuration compression.type"},
		{"bad int", map[string]string{"linger.ms": "soon"}, "Invalid value soon for configuration linger.ms: expected an integer"},
		{"bad protocol", map[string]string{"security.protocol": "KERBEROS"}, "Invalid value KERBEROS for configuration security.protocol"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ProducerOpts(conf(c.props))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	t.Run("no bootstrap", func(t *testing.T) {
		if _, _, err := ProducerOpts(NewConfig()); err != ErrNoBootstrap {
			t.Fatalf("error %v", err)
		}
	})
	// Java 3.2+: retries=0 without enable.idempotence turns idempotence
	// off instead of failing (VerifiableProducer sets retries=0).
	t.Run("no retries turns idempotence off", func(t *testing.T) {
		_, set, err := ProducerOpts(conf(map[string]string{"retries": "0"}))
		if err != nil || set.Idempotent {
			t.Fatalf("%+v %v", set, err)
		}
	})
	t.Run("idempotent by default", func(t *testing.T) {
		_, set, err := ProducerOpts(conf(nil))
		if err != nil || !set.Idempotent || set.Acks != "all" {
			t.Fatalf("%+v %v", set, err)
		}
	})
}

func TestConsumerFetchWaitDefaultsToJava(t *testing.T) {
	opts, _, err := ConsumerOpts(conf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := newClient(t, opts).OptValue(kgo.FetchMaxWait); got != 500*time.Millisecond {
		t.Fatalf("fetch.max.wait.ms default %v, want Java's 500ms", got)
	}
}

func TestConsumerOpts(t *testing.T) {
	c := conf(map[string]string{
		"group.id": "g", "enable.auto.commit": "false", "auto.commit.interval.ms": "100", "session.timeout.ms": "6000",
		"heartbeat.interval.ms": "500", "max.poll.records": "7", "fetch.min.bytes": "10", "fetch.max.wait.ms": "50",
		"max.partition.fetch.bytes": "4096", "partition.assignment.strategy": "org.apache.kafka.clients.consumer.RoundRobinAssignor,range",
		"group.instance.id": "inst", "auto.offset.reset": "earliest", "isolation.level": "read_committed",
	})
	opts, set, err := ConsumerOpts(c)
	if err != nil {
		t.Fatal(err)
	}
	if set.Group != "g" || set.AutoCommit || set.MaxPollRecords != 7 || set.Reset != "earliest" {
		t.Fatalf("settings %+v", set)
	}
	if u := c.Unused(); len(u) != 0 {
		t.Fatalf("unused %v", u)
	}
	cl := newClient(t, opts)
	checks := []struct {
		name string
		opt  any
		want any
	}{
		{"group", kgo.ConsumerGroup, "g"},
		{"session", kgo.SessionTimeout, 6 * time.Second},
		{"heartbeat", kgo.HeartbeatInterval, 500 * time.Millisecond},
		{"fetch min", kgo.FetchMinBytes, int32(10)},
		{"fetch wait", kgo.FetchMaxWait, 50 * time.Millisecond},
		{"partition bytes", kgo.FetchMaxPartitionBytes, int32(4096)},
		{"instance", kgo.InstanceID, "inst"},
		{"autocommit off", kgo.DisableAutoCommit, true},
		{"commit interval", kgo.AutoCommitInterval, 100 * time.Millisecond},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			got := cl.OptValue(c.opt)
			if p, ok := got.(*string); ok && p != nil {
				got = *p
			}
			if got != c.want {
				t.Fatalf("got %v (%T), want %v (%T)", got, got, c.want, c.want)
			}
		})
	}
	bals, ok := cl.OptValue(kgo.Balancers).([]kgo.GroupBalancer)
	if !ok || len(bals) != 2 || bals[0].ProtocolName() != "roundrobin" || bals[1].ProtocolName() != "range" {
		t.Fatalf("balancers %v", cl.OptValue(kgo.Balancers))
	}
}

func TestBalancerNames(t *testing.T) {
	for in, want := range map[string]string{
		"range": "range", "roundrobin": "roundrobin", "sticky": "sticky", "cooperative-sticky": "cooperative-sticky",
		"org.apache.kafka.clients.consumer.RangeAssignor":             "range",
		"org.apache.kafka.clients.consumer.StickyAssignor":            "sticky",
		"org.apache.kafka.clients.consumer.CooperativeStickyAssignor": "cooperative-sticky",
	} {
		t.Run(in, func(t *testing.T) {
			b, err := Balancer(in)
			if err != nil || b.ProtocolName() != want {
				t.Fatalf("%v %v", b, err)
			}
		})
	}
	if _, err := Balancer("magic"); err == nil {
		t.Fatal("unknown strategy accepted")
	}
}

func TestSecurityOpts(t *testing.T) {
	jksFile := filepath.Join(t.TempDir(), "truststore.jks")
	if err := os.WriteFile(jksFile, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		props map[string]string
		err   string
	}{
		{"plain", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `x required username="u" password="p";`}, ""},
		{"scram", map[string]string{"security.protocol": "sasl_plaintext", "sasl.mechanism": "SCRAM-SHA-512",
			"sasl.jaas.config": `x required username="u" password="p";`}, ""},
		{"gssapi", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": `username="u" password="p"`}, "unsupported sasl.mechanism GSSAPI"},
		{"no user", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}, "sasl.jaas.config must set username"},
		{"jks", map[string]string{"security.protocol": "SSL", "ssl.truststore.type": "JKS", "ssl.truststore.location": jksFile}, "holds a JKS store, which kafgo cannot read"},
		{"pem truststore password", map[string]string{"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": jksFile, "ssl.truststore.password": "x"}, "trust store password cannot be specified for PEM"},
		{"bad jaas", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "sasl.jaas.config": `x required username="u"`}, "not terminated"},
		{"ssl system roots", map[string]string{"security.protocol": "SSL"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := CommonOpts(conf(c.props))
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("error %v, want %q", err, c.err)
			}
		})
	}
}

func TestConfigLayering(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(path, []byte("bootstrap.servers=file:1\nclient.id=from-file\nmystery=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := BootstrapConfig("flag:2", path)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Peek("bootstrap.servers"); v != "flag:2" {
		t.Fatalf("bootstrap %q: the flag must win over the file", v)
	}
	if _, err := CommonOpts(c); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	c.WarnUnused(&b)
	if b.String() != "WARN The configuration 'mystery' was supplied but isn't a known config.\n" {
		t.Fatalf("warnings %q", b.String())
	}
	if _, err := BootstrapConfig("", filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file accepted")
	}
}

// A leaderless partition (a topic just auto-created) is looked up again
// after retry.backoff.ms, as Java's clients do, not after kgo's 5 s floor.
func TestMetadataRefreshFollowsRetryBackoff(t *testing.T) {
	for _, tc := range []struct {
		props map[string]string
		want  time.Duration
	}{
		{nil, 100 * time.Millisecond},
		{map[string]string{"retry.backoff.ms": "250"}, 250 * time.Millisecond},
	} {
		c := conf(tc.props)
		c.Set("bootstrap.servers", "127.0.0.1:1")
		opts, err := CommonOpts(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := newClient(t, opts).OptValue(kgo.MetadataMinAge); got != tc.want {
			t.Errorf("%v: metadata min age %v, want %v", tc.props, got, tc.want)
		}
	}
}

// A record the broker keeps refusing retriably (too few in-sync replicas)
// fails after Java's delivery.timeout.ms, 120 s, instead of being retried
// for ever in silence.
func TestDeliveryTimeoutDefaultsToJava(t *testing.T) {
	c := conf(nil)
	c.Set("bootstrap.servers", "127.0.0.1:1")
	opts, _, err := ProducerOpts(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := newClient(t, opts).OptValue(kgo.RecordDeliveryTimeout); got != 120*time.Second {
		t.Fatalf("delivery timeout %v, want Java's 120s", got)
	}
}
