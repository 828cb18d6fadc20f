package config

import (
	"errors"
	"strings"
	"testing"
)

// wantKeyError asserts err is (or joins) an *Error for key whose message
// names the key and the value and wraps sentinel.
func wantKeyError(t *testing.T, err error, key, value string, sentinel error) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one for %s", key)
	}
	for _, e := range flatten(err) {
		var ce *Error
		if errors.As(e, &ce) && ce.Key == key {
			msg := ce.Error()
			if !strings.HasPrefix(msg, "config: ") {
				t.Errorf("message %q lacks the config: prefix", msg)
			}
			if !strings.Contains(msg, key) {
				t.Errorf("message %q does not name key %s", msg, key)
			}
			if value != "" && !strings.Contains(msg, value) {
				t.Errorf("message %q does not name value %q", msg, value)
			}
			if sentinel != nil && !errors.Is(ce, sentinel) {
				t.Errorf("%v does not wrap %v", ce, sentinel)
			}
			return ce
		}
	}
	t.Fatalf("error %q has no entry for key %s", err, key)
	return nil
}

// flatten unpacks joined errors.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestValidationNamesKey(t *testing.T) {
	tests := []struct {
		key, value string
		extra      map[string]string
		sentinel   error
	}{
		{"log.segment.bytes", "13", nil, ErrInvalidValue},
		{"log.segment.bytes", "3000000000", nil, ErrInvalidValue}, // int overflow
		{"message.max.bytes", "-1", nil, ErrInvalidValue},
		{"num.partitions", "0", nil, ErrInvalidValue},
		{"num.partitions", "one", nil, ErrInvalidValue},
		{"default.replication.factor", "0", nil, ErrInvalidValue},
		{"offsets.topic.replication.factor", "0", nil, ErrInvalidValue},
		{"offsets.topic.replication.factor", "40000", nil, ErrInvalidValue}, // short overflow
		{"transaction.state.log.replication.factor", "0", nil, ErrInvalidValue},
		{"min.insync.replicas", "0", nil, ErrInvalidValue},
		{"log.cleanup.policy", "remove", nil, ErrInvalidValue},
		{"log.cleanup.policy", "delete,delete", nil, ErrInvalidValue},
		{"log.cleanup.policy", "", nil, ErrInvalidValue},
		{"log.cleanup.policy", "delete,,compact", nil, ErrInvalidValue},
		{"log.message.timestamp.type", "createtime", nil, ErrInvalidValue},
		{"compression.type", "brotli", nil, ErrInvalidValue},
		{"compression.type", "none", nil, ErrInvalidValue},
		{"auto.create.topics.enable", "yes", nil, ErrInvalidValue},
		{"log.cleaner.min.cleanable.ratio", "1.5", nil, ErrInvalidValue},
		{"log.cleaner.min.cleanable.ratio", "NaN", nil, ErrInvalidValue},
		{"log.index.size.max.bytes", "3", nil, ErrInvalidValue},
		{"log.roll.hours", "0", nil, ErrInvalidValue},
		{"log.roll.ms", "0", nil, ErrInvalidValue},
		{"log.retention.ms", "0", nil, ErrInvalidValue},
		{"log.retention.hours", "0", nil, ErrInvalidValue},
		{"socket.send.buffer.bytes", "0", nil, ErrInvalidValue},
		{"socket.request.max.bytes", "0", nil, ErrInvalidValue},
		{"offsets.topic.compression.codec", "5", nil, ErrInvalidValue},
		{"metrics.recording.level", "WARN", nil, ErrInvalidValue},
		{"inter.broker.protocol.version", "latest", nil, ErrInvalidValue},
		{"admin.listener", "localhost", nil, ErrInvalidValue},
		{"admin.listener", "localhost:70000", nil, ErrInvalidValue},
		{"max.connections.per.ip.overrides", "host1", nil, ErrInvalidValue},
		{"zookeeper.connect", "zk:abc", nil, ErrInvalidValue},
		{"zookeeper.connect", "zk:2181/kafka/", nil, ErrInvalidValue},
		{"zookeeper.set.acl", "true", nil, ErrUnsupported},
		{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer", nil, ErrUnsupported},
		{"super.users", "User:admin;alice", nil, ErrInvalidValue},
		{"metric.reporters", "com.example.Reporter", nil, ErrUnsupported},
		{"log.segmnt.bytes", "1", nil, ErrUnknownKey},
		{"port", "nine", nil, ErrInvalidValue},
		{"process.roles", "broker", nil, ErrUnsupported},
		{"zookeeper.ssl.client.enable", "true", nil, ErrUnsupported},
		{"listener.name.plaintext.log.retention.ms", "1", nil, ErrUnknownKey},
		{"listener.name.PLAINTEXT.ssl.keystore.location", "/x", nil, ErrUnknownKey},
		{"listener.name.plaintext.ssl.client.auth", "sometimes", nil, ErrInvalidValue},

		// Rules spanning keys.
		{"broker.id", "1001", nil, ErrInvalidValue},
		{"broker.id", "-1", map[string]string{"broker.id.generation.enable": "false", "zookeeper.connect": "zk:2181"}, ErrInvalidValue},
		{"broker.id", "-2", nil, ErrInvalidValue},
		{"replica.fetch.wait.max.ms", "40000", nil, ErrInvalidValue},
		{"replica.fetch.wait.max.ms", "20000", map[string]string{"replica.lag.time.max.ms": "10000"}, ErrInvalidValue},
		{"offsets.commit.required.acks", "2", map[string]string{"offsets.topic.replication.factor": "1"}, ErrInvalidValue},
		{"log.cleaner.dedupe.buffer.size", "2097152", map[string]string{"log.cleaner.threads": "2"}, ErrInvalidValue},
		{"queued.max.request.bytes", "1000", nil, ErrInvalidValue},
		{"max.connections.per.ip", "0", nil, ErrInvalidValue},
		{"group.min.session.timeout.ms", "2000000", nil, ErrInvalidValue},
		{"log.cleaner.min.compaction.lag.ms", "10", map[string]string{"log.cleaner.max.compaction.lag.ms": "5"}, ErrInvalidValue},
		{"log.dirs", ",", nil, ErrInvalidValue},
		{"log.dirs", "/a,/a/", nil, ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			values := map[string]string{tt.key: tt.value}
			for k, v := range tt.extra {
				values[k] = v
			}
			b, err := Parse(values)
			if b != nil {
				t.Errorf("Parse returned a Broker along with the error")
			}
			wantKeyError(t, err, tt.key, tt.value, tt.sentinel)
		})
	}
}

// TestTypeGarbageRefused runs every typed key through a value no type
// accepts, so a key added without validation is caught.
func TestTypeGarbageRefused(t *testing.T) {
	for _, d := range BrokerDefs {
		var bad string
		switch d.Type {
		case TypeInt, TypeShort, TypeLong, TypeDouble:
			bad = "12abc"
		case TypeBoolean:
			bad = "maybe"
		default:
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			_, err := Parse(map[string]string{d.Name: bad})
			wantKeyError(t, err, d.Name, bad, ErrInvalidValue)
		})
	}
}

func TestAllErrorsReported(t *testing.T) {
	_, err := Parse(map[string]string{"num.partitions": "0", "log.segment.bytes": "1", "nope.key": "x"})
	for _, key := range []string{"num.partitions", "log.segment.bytes", "nope.key"} {
		wantKeyError(t, err, key, "", nil)
	}
}

func TestSensitiveValueHidden(t *testing.T) {
	// A password key refuses a YAML list; the error must not echo the secret.
	_, err := ParseYAML("t.yaml", []byte("ssl.key.password: [hunter2, x]\n"))
	ce := wantKeyError(t, err, "ssl.key.password", hidden, ErrInvalidValue)
	if strings.Contains(ce.Error(), "hunter2") {
		t.Errorf("password leaked: %v", ce)
	}
}

func TestValuesAcceptedAsKafkaSpellsThem(t *testing.T) {
	tests := []struct{ key, value, stored string }{
		{"num.partitions", " 3 ", "3"},
		{"num.partitions", "+3", "3"},
		{"auto.create.topics.enable", "TRUE", "true"},
		{"log.cleanup.policy", "compact , delete", "compact,delete"},
		{"compression.type", "zstd", "zstd"},
		{"log.cleaner.io.max.bytes.per.second", "1.5E3", "1.5E3"},
		{"log.retention.bytes", "-1", "-1"},
		{"principal.builder.class", "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
			"org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"},
		{"authorizer.class.name", "", ""},
		{"authorizer.class.name", "kafka.security.authorizer.AclAuthorizer", "kafka.security.authorizer.AclAuthorizer"},
		{"authorizer.class.name", "kafka.security.auth.SimpleAclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer"},
		{"super.users", "User:admin; User:CN=broker,O=x", "User:admin; User:CN=broker,O=x"},
		{"max.connections.per.ip.overrides", "10.0.0.1:5,[::1]:7", "10.0.0.1:5,[::1]:7"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			b := mustParse(t, map[string]string{tt.key: tt.value})
			v, src, ok := b.Get(tt.key)
			if !ok || v != tt.stored || src != StaticBrokerConfig {
				t.Errorf("Get = %q %v %v, want %q STATIC_BROKER_CONFIG", v, src, ok, tt.stored)
			}
		})
	}
	b := mustParse(t, map[string]string{"max.connections.per.ip.overrides": "10.0.0.1:5,[::1]:7"})
	if b.MaxConnectionsPerIPOverrides["10.0.0.1"] != 5 || b.MaxConnectionsPerIPOverrides["::1"] != 7 {
		t.Errorf("overrides = %v", b.MaxConnectionsPerIPOverrides)
	}
}

func TestManyErrorsCapped(t *testing.T) {
	values := map[string]string{}
	for i := 0; i < 80; i++ {
		values["bogus.key."+strings.Repeat("x", i)] = "1"
	}
	_, err := Parse(values)
	if n := len(flatten(err)); n != 51 {
		t.Fatalf("%d errors, want 50 and a summary", n)
	}
	if !strings.Contains(err.Error(), "config: 30 more errors not shown") {
		t.Errorf("no summary in %v", err)
	}
}
