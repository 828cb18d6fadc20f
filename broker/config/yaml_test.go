package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "broker.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestYAMLForms(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		get  func(*Broker) any
		want any
	}{
		{"dotted keys", "broker.id: 3\nlog.dirs: ./data\n",
			func(b *Broker) any { return []any{b.BrokerID, b.LogDirs} }, []any{int32(3), []string{"./data"}}},
		{"nested mapping", "log:\n  dirs: ./data\n  retention:\n    hours: 2\n",
			func(b *Broker) any { return []any{b.LogDirs, b.LogRetentionMs} }, []any{[]string{"./data"}, int64(2 * 3600 * 1000)}},
		{"nested and dotted mixed", "log.retention: {ms: 5}\nlog: {segment.bytes: 1024}\n",
			func(b *Broker) any { return []any{b.LogRetentionMs, b.LogSegmentBytes} }, []any{int64(5), int64(1024)}},
		{"list for a comma list key", "log.dirs: [/a, /b]\n",
			func(b *Broker) any { return b.LogDirs }, []string{"/a", "/b"}},
		{"block list for listeners", "listeners:\n  - PLAINTEXT://127.0.0.1:9092\n  - OTHER://127.0.0.1:9093\nlistener.security.protocol.map: {PLAINTEXT: PLAINTEXT, OTHER: PLAINTEXT}\n",
			func(b *Broker) any { return len(b.Listeners) }, 2},
		{"list for a list-typed key", "log.cleanup.policy: [compact, delete]\n",
			func(b *Broker) any { return b.LogCleanupPolicy }, []string{"compact", "delete"}},
		{"booleans and numbers as scalars", "auto.create.topics.enable: false\nlog.cleaner.min.cleanable.ratio: 0.25\n",
			func(b *Broker) any { return []any{b.AutoCreateTopicsEnable, b.LogCleanerMinCleanableRatio} }, []any{false, 0.25}},
		{"quoted scalars", "broker.id: \"4\"\nbroker.rack: 'r1'\n",
			func(b *Broker) any { return []any{b.BrokerID, b.BrokerRack} }, []any{int32(4), "r1"}},
		{"null leaves the default", "log.retention.ms:\nnum.partitions: ~\n",
			func(b *Broker) any { return []any{b.LogRetentionMs, b.NumPartitions} }, []any{int64(168 * 3600 * 1000), int32(1)}},
		{"alias value", "log.dir: &d /data\nlog.dirs: *d\n",
			func(b *Broker) any { return b.LogDirs }, []string{"/data"}},
		{"empty file", "",
			func(b *Broker) any { return b.NumPartitions }, int32(1)},
		{"comments only", "# nothing here\n",
			func(b *Broker) any { return b.NumPartitions }, int32(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Load(writeFile(t, tt.yaml), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.get(b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestYAMLErrors(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		key      string
		line     int
		contains string
		sentinel error
	}{
		{"unknown key", "broker.id: 1\nlog.segmnt.bytes: 100\n", "log.segmnt.bytes", 2, "did you mean log.segment.bytes", ErrUnknownKey},
		{"unknown nested key", "log:\n  dirs: /a\n  nope: 1\n", "log.nope", 3, "unknown", ErrUnknownKey},
		{"bad value", "num.partitions: 1\n\nlog.segment.bytes: 10\n", "log.segment.bytes", 3, "at least 14", ErrInvalidValue},
		{"yes is not a boolean", "delete.topic.enable: yes\n", "delete.topic.enable", 1, "true or false", ErrInvalidValue},
		{"underscore number", "message.max.bytes: 1_000_000\n", "message.max.bytes", 1, "not an int", ErrInvalidValue},
		{"duplicate spelling", "log.dirs: /a\nlog:\n  dirs: /b\n", "log.dirs", 3, "already given on line 1", ErrDuplicateKey},
		{"duplicate key", "num.partitions: 1\nnum.partitions: 2\n", "num.partitions", 2, "already given on line 1", ErrDuplicateKey},
		{"duplicate nested parent", "log:\n  dirs: /a\nlog:\n  dir: /b\n", "log", 3, "already given on line 1", ErrDuplicateKey},
		{"list for a single-value key", "num.partitions: [1, 2]\n", "num.partitions", 1, "not a list", ErrInvalidValue},
		{"nested list item", "log.dirs: [[/a]]\n", "log.dirs", 1, "plain values", ErrInvalidValue},
		{"merge key", "base: &b {num.partitions: 2}\n<<: *b\n", "<<", 2, "merge keys", ErrInvalidValue},
		{"cross-key rule keeps the line", "replica.lag.time.max.ms: 30000\nreplica.fetch.wait.max.ms: 40000\n", "replica.fetch.wait.max.ms", 2, "replica.socket.timeout.ms", ErrInvalidValue},
		{"listener rule keeps the line", "broker.id: 0\nlisteners: PLAINTEXT://:9092,CLIENT://:9093\n", "listeners", 2, "no security protocol defined for listener CLIENT", ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.yaml)
			_, err := Load(path, nil)
			ce := wantKeyError(t, err, tt.key, "", tt.sentinel)
			if ce.Line != tt.line || ce.File != path {
				t.Errorf("location %s:%d, want %s:%d", ce.File, ce.Line, path, tt.line)
			}
			msg := ce.Error()
			if !strings.Contains(msg, path+":"+strconv.Itoa(tt.line)+":") {
				t.Errorf("message %q lacks file:line", msg)
			}
			if !strings.Contains(msg, tt.contains) {
				t.Errorf("message %q does not mention %q", msg, tt.contains)
			}
		})
	}
}

func TestYAMLDocumentErrors(t *testing.T) {
	tests := []struct {
		name, yaml, contains string
	}{
		{"syntax", "broker.id: [1\n", "yaml"},
		{"top-level list", "- broker.id: 1\n", "top level must be a mapping"},
		{"two documents", "broker.id: 1\n---\nbroker.id: 2\n", "only one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.yaml)
			_, err := Load(path, nil)
			if err == nil || !strings.Contains(err.Error(), tt.contains) || !strings.HasPrefix(err.Error(), "config: ") {
				t.Fatalf("err = %v, want config: ... %q", err, tt.contains)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("err %q does not name the file", err)
			}
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), nil)
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "config: read ") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadOverridesWinOverFile(t *testing.T) {
	path := writeFile(t, "num.partitions: 3\nlog.dirs: /file\nbroker.id: 1\n")
	b, err := Load(path, map[string]string{"num.partitions": "6", "delete.topic.enable": "false"})
	if err != nil {
		t.Fatal(err)
	}
	if b.NumPartitions != 6 || b.DeleteTopicEnable || b.BrokerID != 1 || b.LogDirs[0] != "/file" {
		t.Errorf("num.partitions=%d delete.topic.enable=%v broker.id=%d log.dirs=%v", b.NumPartitions, b.DeleteTopicEnable, b.BrokerID, b.LogDirs)
	}
	if _, src, _ := b.Get("num.partitions"); src != StaticBrokerConfig {
		t.Errorf("override source %v, want STATIC_BROKER_CONFIG", src)
	}

	_, err = Load(path, map[string]string{"num.partitions": "zero"})
	ce := wantKeyError(t, err, "num.partitions", "zero", ErrInvalidValue)
	if ce.Origin != "override" || ce.File != "" {
		t.Errorf("origin %q file %q, want the override named", ce.Origin, ce.File)
	}

	b, err = Load("", map[string]string{"broker.id": "9"})
	if err != nil || b.BrokerID != 9 {
		t.Fatalf("Load(\"\") = %v, %v", b, err)
	}
}

// TestYAMLReportsEverything: shape errors (found while reading the file)
// and value errors (found while parsing) come back together, in file order.
func TestYAMLReportsEverything(t *testing.T) {
	path := writeFile(t, "num.partitions: 0\nlog.dirs: /a\nlog: {dirs: /b}\nbroker.rack: [a, b]\n")
	_, err := Load(path, nil)
	wantKeyError(t, err, "num.partitions", "0", ErrInvalidValue)
	wantKeyError(t, err, "log.dirs", "/b", ErrDuplicateKey)
	wantKeyError(t, err, "broker.rack", "", ErrInvalidValue)
	msg := err.Error()
	if strings.Index(msg, ":1:") > strings.Index(msg, ":3:") || strings.Index(msg, ":3:") > strings.Index(msg, ":4:") {
		t.Errorf("errors not in file order:\n%s", msg)
	}
}

// TestYAMLAliasBomb: aliases that double at every level must not expand
// into billions of entries.
func TestYAMLAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("l0: &l0 {a: 1, b: 2}\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "l%d: &l%d {x: *l%d, y: *l%d}\n", i, i, i-1, i-1)
	}
	_, err := ParseYAML("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("err = %v", err)
	}
}
