package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func noticeKeys(b *Broker) []string {
	var keys []string
	for _, n := range b.Notices() {
		keys = append(keys, n.Key+" "+n.Action)
	}
	sort.Strings(keys)
	return keys
}

// TestKafka28SampleConfigs: Apache Kafka 2.8's own sample broker configs
// (testdata/kafka-2.8, byte for byte) load as they are, and the start-up
// report names every key kafgo does not act on as Kafka would.
func TestKafka28SampleConfigs(t *testing.T) {
	const dir = "../../testdata/kafka-2.8/config/"
	t.Run("server.properties", func(t *testing.T) {
		b, err := Load(dir+"server.properties", nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.BrokerID != 0 || b.Embedded() || !reflect.DeepEqual(b.ZooKeeperServers, []string{"localhost:2181"}) {
			t.Errorf("broker.id %d zookeeper %v", b.BrokerID, b.ZooKeeperServers)
		}
		if !reflect.DeepEqual(b.LogDirs, []string{"/tmp/kafka-logs"}) || b.ZooKeeperConnectionTimeoutMs != 18000 || b.TransactionStateLogMinIsr != 1 {
			t.Errorf("log.dirs %v zk timeout %d txn min isr %d", b.LogDirs, b.ZooKeeperConnectionTimeoutMs, b.TransactionStateLogMinIsr)
		}
		want := []string{"num.io.threads no effect", "num.network.threads no effect", "num.recovery.threads.per.data.dir no effect"}
		if got := noticeKeys(b); !reflect.DeepEqual(got, want) {
			t.Errorf("notices %q, want %q", got, want)
		}
		for _, n := range b.Notices() {
			if !strings.HasPrefix(n.Origin, dir+"server.properties:") || n.Detail == "" {
				t.Errorf("notice without origin line or detail: %s", n)
			}
		}
	})
	t.Run("kraft/server.properties", func(t *testing.T) {
		b, err := Load(dir+"kraft/server.properties", nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.BrokerID != 1 || !b.Embedded() {
			t.Errorf("broker.id %d embedded %v", b.BrokerID, b.Embedded())
		}
		if want := []Listener{{"PLAINTEXT", "", 9092}}; !reflect.DeepEqual(b.Listeners, want) {
			t.Errorf("listeners %v, want the controller listener dropped: %v", b.Listeners, want)
		}
		if want := []Listener{{"PLAINTEXT", "localhost", 9092}}; !reflect.DeepEqual(b.AdvertisedListeners, want) {
			t.Errorf("advertised %v", b.AdvertisedListeners)
		}
		want := []string{"controller.listener.names translated", "controller.quorum.voters ignored", "node.id translated",
			"num.io.threads no effect", "num.network.threads no effect", "num.recovery.threads.per.data.dir no effect", "process.roles translated"}
		if got := noticeKeys(b); !reflect.DeepEqual(got, want) {
			t.Errorf("notices %q, want %q", got, want)
		}
	})
	for _, f := range []string{"kraft/broker.properties", "kraft/controller.properties"} {
		t.Run(f, func(t *testing.T) {
			_, err := Load(dir+f, nil)
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "process.roles") || !strings.Contains(err.Error(), dir+f+":") {
				t.Errorf("err = %v, want process.roles refused with its line", err)
			}
		})
	}
}

func writeNamed(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompatKeys(t *testing.T) {
	tests := []struct {
		name    string
		values  map[string]string
		wantErr error
		check   func(t *testing.T, b *Broker)
	}{
		{"ignored harmless", map[string]string{"ssl.provider": "SunJSSE", "zookeeper.clientCnxnSocket": "x", "delegation.token.max.lifetime.ms": "1"}, nil, func(t *testing.T, b *Broker) {
			if got := noticeKeys(b); !reflect.DeepEqual(got, []string{"delegation.token.max.lifetime.ms ignored", "ssl.provider ignored", "zookeeper.clientCnxnSocket ignored"}) {
				t.Errorf("notices %q", got)
			}
		}},
		{"plugin refused", map[string]string{"client.quota.callback.class": "com.example.Q"}, ErrUnsupported, nil},
		{"plugin empty ignored", map[string]string{"client.quota.callback.class": ""}, nil, nil},
		{"token key refused and hidden", map[string]string{"delegation.token.master.key": "s3cret"}, ErrUnsupported, nil},
		{"zookeeper TLS refused", map[string]string{"zookeeper.ssl.client.enable": "true"}, ErrUnsupported, nil},
		{"control plane listener refused", map[string]string{"control.plane.listener.name": "CONTROLLER"}, ErrUnsupported, nil},
		{"host.name and port", map[string]string{"host.name": "127.0.0.1", "port": "9093"}, nil, func(t *testing.T, b *Broker) {
			if want := []Listener{{"PLAINTEXT", "127.0.0.1", 9093}}; !reflect.DeepEqual(b.Listeners, want) || !reflect.DeepEqual(b.AdvertisedListeners, want) {
				t.Errorf("listeners %v advertised %v", b.Listeners, b.AdvertisedListeners)
			}
		}},
		{"port alone", map[string]string{"port": "9094", "advertised.host.name": "kafka1.example.com"}, nil, func(t *testing.T, b *Broker) {
			if want := []Listener{{"PLAINTEXT", "", 9094}}; !reflect.DeepEqual(b.Listeners, want) {
				t.Errorf("listeners %v", b.Listeners)
			}
			if want := []Listener{{"PLAINTEXT", "kafka1.example.com", 9094}}; !reflect.DeepEqual(b.AdvertisedListeners, want) {
				t.Errorf("advertised %v", b.AdvertisedListeners)
			}
		}},
		{"listeners win over port", map[string]string{"port": "9094", "listeners": "PLAINTEXT://127.0.0.1:9095"}, nil, func(t *testing.T, b *Broker) {
			if b.Listeners[0].Port != 9095 || !reflect.DeepEqual(noticeKeys(b), []string{"port ignored"}) {
				t.Errorf("listeners %v notices %q", b.Listeners, noticeKeys(b))
			}
		}},
		{"kraft broker only", map[string]string{"process.roles": "broker", "node.id": "2", "controller.quorum.voters": "1@h:9093"}, ErrUnsupported, nil},
		{"kraft three voters", map[string]string{"process.roles": "broker,controller", "node.id": "1", "controller.quorum.voters": "1@a:9093,2@b:9093,3@c:9093"}, ErrUnsupported, nil},
		{"kraft voter is another node", map[string]string{"process.roles": "broker,controller", "node.id": "1", "controller.quorum.voters": "2@a:9093"}, ErrUnsupported, nil},
		{"kraft with zookeeper", map[string]string{"process.roles": "broker,controller", "node.id": "1", "controller.quorum.voters": "1@a:9093", "zookeeper.connect": "z:2181"}, ErrUnsupported, nil},
		{"kraft id clash", map[string]string{"process.roles": "broker,controller", "node.id": "1", "controller.quorum.voters": "1@a:9093", "broker.id": "2"}, ErrUnsupported, nil},
		{"kraft keys without process.roles", map[string]string{"node.id": "7", "controller.quorum.voters": "7@a:1", "broker.id": "3"}, nil, func(t *testing.T, b *Broker) {
			if b.BrokerID != 3 || !reflect.DeepEqual(noticeKeys(b), []string{"controller.quorum.voters ignored", "node.id ignored"}) {
				t.Errorf("broker.id %d notices %q", b.BrokerID, noticeKeys(b))
			}
		}},
		{"no effect reported only when set", map[string]string{"num.io.threads": "8"}, nil, func(t *testing.T, b *Broker) {
			if ns := b.Notices(); len(ns) != 1 || ns[0].Action != "no effect" || ns[0].Value != "8" {
				t.Errorf("notices %v", ns)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Parse(tt.values)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("secret in error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, b)
			}
		})
	}
}

// TestCompatKeysAreKafkaKeys: every key the compatibility table handles is
// not also a key kafgo defines (one place decides what a key does), and
// every no-effect key is defined.
func TestCompatKeysAreKafkaKeys(t *testing.T) {
	for k := range compatKeys {
		if _, ok := lookupDef(k); ok {
			t.Errorf("%s is both defined and in compatKeys", k)
		}
	}
	for k := range translatedKeys {
		if _, ok := lookupDef(k); ok {
			t.Errorf("%s is both defined and translated", k)
		}
	}
	for k := range noEffect {
		if _, ok := lookupDef(k); !ok {
			t.Errorf("noEffect key %s is not defined", k)
		}
	}
}

func TestLoadProperties(t *testing.T) {
	p := writeNamed(t, "broker.cfg", "# a Kafka file without the .properties extension\nbroker.id=4\nlisteners=PLAINTEXT://127.0.0.1:0\nnum.partitions : 3\nlog.dirs=/a,\\\n   /b\nnum.partitions=5\nssl.provider=SunJSSE\n")
	b, err := Load(p, map[string]string{"log.dirs": "/c"})
	if err != nil {
		t.Fatal(err)
	}
	if b.BrokerID != 4 || b.NumPartitions != 5 || !reflect.DeepEqual(b.LogDirs, []string{"/c"}) {
		t.Errorf("broker.id %d num.partitions %d log.dirs %v", b.BrokerID, b.NumPartitions, b.LogDirs)
	}
	want := []string{"num.partitions repeated", "ssl.provider ignored"}
	if got := noticeKeys(b); !reflect.DeepEqual(got, want) {
		t.Errorf("notices %q, want %q", got, want)
	}
	for _, n := range b.Notices() {
		if n.Key == "num.partitions" && (n.Origin != p+":7" || !strings.Contains(n.Detail, "line 4")) {
			t.Errorf("repeat notice %s", n)
		}
	}
	// Errors name the file and line of a properties entry.
	bad := writeNamed(t, "server.properties", "broker.id=1\n\nnum.partitions=zero\n")
	if _, err := Load(bad, nil); err == nil || !strings.Contains(err.Error(), bad+":3:") {
		t.Errorf("err = %v, want it located at line 3", err)
	}
	// YAML still loads, by extension or by content.
	y := writeNamed(t, "kafgo", "broker.id: 2\nlog:\n  dirs: [/x, /y]\n")
	if b, err := Load(y, nil); err != nil || b.BrokerID != 2 || len(b.LogDirs) != 2 {
		t.Errorf("yaml by content: %v %v", b, err)
	}
}

func TestDetectFormat(t *testing.T) {
	for _, tt := range []struct {
		path, text string
		want       Format
	}{
		{"server.properties", "broker.id: 1\n", FormatProperties},
		{"kafgo.yaml", "broker.id=1\n", FormatYAML},
		{"x", "# comment\n\nbroker.id=1\n", FormatProperties},
		{"x", "! comment\nbroker.id 1\n", FormatProperties},
		{"x", "broker.id 1\nlog.dirs /x\n", FormatProperties},
		{"x", "broker.id: 1\nsasl:\n  jaas: >-\n    a=b\n", FormatYAML},
		{"x", "", FormatYAML},
	} {
		if got := DetectFormat(tt.path, []byte(tt.text)); got != tt.want {
			t.Errorf("DetectFormat(%s, %q) = %v, want %v", tt.path, tt.text, got, tt.want)
		}
	}
}

func TestLatin1Properties(t *testing.T) {
	// Kafka reads server.properties as ISO-8859-1: a UTF-8 é is two
	// characters, and \u00e9 is one, exactly as a Kafka broker sees them.
	p := writeNamed(t, "server.properties", "broker.rack=r\xc3\xa9\nlistener.name.plaintext.ssl.keystore.location=/k\\u00e9\n")
	b, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.BrokerRack != "r\u00c3\u00a9" {
		t.Errorf("broker.rack %q", b.BrokerRack)
	}
}

func TestEnv(t *testing.T) {
	p := writeNamed(t, "server.properties", "broker.id=1\nnum.partitions=2\nlog.dirs=/file\n")
	env := []string{
		"PATH=/bin",
		"KAFKA_NUM_PARTITIONS=7",
		"KAFKA_LOG_DIRS=/env",
		"KAFKA_HEAP_OPTS=-Xmx1G",
		"KAFKA_BOOTSTRAP_SERVERS=x:9092",
		"KAFKA_LISTENER_NAME_SASL__SSL_SCRAM___SHA___256_SASL_JAAS_CONFIG=y",
	}
	b, err := LoadSources(Sources{Path: p, Env: env, Overrides: map[string]string{"log.dirs": "/flag"}})
	if err == nil {
		t.Fatalf("listener override for an absent listener accepted: %v", b)
	}
	env = env[:len(env)-1]
	b, err = LoadSources(Sources{Path: p, Env: env, Overrides: map[string]string{"log.dirs": "/flag"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.NumPartitions != 7 || !reflect.DeepEqual(b.LogDirs, []string{"/flag"}) || b.BrokerID != 1 {
		t.Errorf("num.partitions %d log.dirs %v broker.id %d", b.NumPartitions, b.LogDirs, b.BrokerID)
	}
	if got, want := noticeKeys(b), []string{"KAFKA_HEAP_OPTS ignored", "bootstrap.servers ignored"}; !reflect.DeepEqual(got, want) {
		t.Errorf("notices %q, want %q", got, want)
	}
	if _, err := LoadSources(Sources{Env: []string{"KAFKA_CFG_ZOOKEEPER_CONNECT=z:2181"}}); err == nil || !strings.Contains(err.Error(), "KAFKA_ZOOKEEPER_CONNECT") {
		t.Errorf("Bitnami name: %v, want a refusal naming KAFKA_ZOOKEEPER_CONNECT", err)
	}
	if _, err := LoadSources(Sources{Env: []string{"KAFKA_NUM_PARTITIONS=zero"}}); err == nil || !strings.Contains(err.Error(), "env KAFKA_NUM_PARTITIONS") {
		t.Errorf("bad env value: %v, want an error naming the variable", err)
	}
	for name, want := range map[string]string{
		"KAFKA_LOG_DIRS": "log.dirs", "KAFKA_LISTENER_NAME_SASL__SSL_SCRAM___SHA___256_SASL_JAAS_CONFIG": "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config",
		"KAFKA_ZOOKEEPER_CONNECT": "zookeeper.connect", "KAFKA_ADVERTISED_LISTENERS": "advertised.listeners",
	} {
		if got, ok := EnvKey(name); !ok || got != want {
			t.Errorf("EnvKey(%s) = %q %v, want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"KAFKA_OPTS", "KAFKA_", "KAFKAX", "PATH"} {
		if k, ok := EnvKey(name); ok {
			t.Errorf("EnvKey(%s) = %q, want not a key", name, k)
		}
	}
}
