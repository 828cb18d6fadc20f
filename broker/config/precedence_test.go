package config

import (
	"reflect"
	"testing"
)

func TestPrecedence(t *testing.T) {
	const hour, minute = int64(3600 * 1000), int64(60 * 1000)
	tests := []struct {
		name   string
		values map[string]string
		get    func(*Broker) any
		want   any
	}{
		{"retention hours only", map[string]string{"log.retention.hours": "24"},
			func(b *Broker) any { return b.LogRetentionMs }, 24 * hour},
		{"retention minutes beat hours", map[string]string{"log.retention.hours": "24", "log.retention.minutes": "30"},
			func(b *Broker) any { return b.LogRetentionMs }, 30 * minute},
		{"retention ms beat minutes and hours", map[string]string{"log.retention.hours": "24", "log.retention.minutes": "30", "log.retention.ms": "1234"},
			func(b *Broker) any { return b.LogRetentionMs }, int64(1234)},
		{"retention -1 is forever", map[string]string{"log.retention.ms": "-1"},
			func(b *Broker) any { return b.LogRetentionMs }, int64(-1)},
		{"any negative retention is forever", map[string]string{"log.retention.hours": "-5"},
			func(b *Broker) any { return b.LogRetentionMs }, int64(-1)},
		{"negative minutes are forever even with hours", map[string]string{"log.retention.minutes": "-2", "log.retention.hours": "1"},
			func(b *Broker) any { return b.LogRetentionMs }, int64(-1)},
		{"roll hours", map[string]string{"log.roll.hours": "2"},
			func(b *Broker) any { return b.LogRollMs }, 2 * hour},
		{"roll ms beat hours", map[string]string{"log.roll.hours": "2", "log.roll.ms": "500"},
			func(b *Broker) any { return b.LogRollMs }, int64(500)},
		{"jitter ms beat hours", map[string]string{"log.roll.jitter.hours": "1", "log.roll.jitter.ms": "7"},
			func(b *Broker) any { return b.LogRollJitterMs }, int64(7)},
		{"jitter hours", map[string]string{"log.roll.jitter.hours": "1"},
			func(b *Broker) any { return b.LogRollJitterMs }, hour},
		{"log.dir alone", map[string]string{"log.dir": "/a"},
			func(b *Broker) any { return b.LogDirs }, []string{"/a"}},
		{"log.dirs beat log.dir", map[string]string{"log.dir": "/a", "log.dirs": "/b, /c"},
			func(b *Broker) any { return b.LogDirs }, []string{"/b", "/c"}},
		{"log.dir is a comma list too", map[string]string{"log.dir": "/a,/b"},
			func(b *Broker) any { return b.LogDirs }, []string{"/a", "/b"}},
		{"flush ms set", map[string]string{"log.flush.interval.ms": "1000", "log.flush.scheduler.interval.ms": "50"},
			func(b *Broker) any { return b.LogFlushIntervalMs }, int64(1000)},
		{"flush ms unset falls back to scheduler", map[string]string{"log.flush.scheduler.interval.ms": "50"},
			func(b *Broker) any { return b.LogFlushIntervalMs }, int64(50)},
		{"zk connection timeout falls back to session", map[string]string{"zookeeper.session.timeout.ms": "9000"},
			func(b *Broker) any { return b.ZooKeeperConnectionTimeoutMs }, int32(9000)},
		{"zk connection timeout set", map[string]string{"zookeeper.session.timeout.ms": "9000", "zookeeper.connection.timeout.ms": "100"},
			func(b *Broker) any { return b.ZooKeeperConnectionTimeoutMs }, int32(100)},
		{"advertised defaults to listeners", map[string]string{"listeners": "PLAINTEXT://10.0.0.1:9092"},
			func(b *Broker) any { return b.AdvertisedListeners }, []Listener{{"PLAINTEXT", "10.0.0.1", 9092}}},
		{"advertised empty host is the host name", map[string]string{"listeners": "PLAINTEXT://:9092"},
			func(b *Broker) any { return b.AdvertisedListeners }, []Listener{{"PLAINTEXT", testHost, 9092}}},
		{"advertised given", map[string]string{"listeners": "PLAINTEXT://0.0.0.0:9092", "advertised.listeners": "PLAINTEXT://kafka.example:19092"},
			func(b *Broker) any { return b.AdvertisedListeners }, []Listener{{"PLAINTEXT", "kafka.example", 19092}}},
		{"broker id -1 on embedded store is 0", map[string]string{"broker.id": "-1"},
			func(b *Broker) any { return b.BrokerID }, int32(0)},
		{"broker id -1 with zookeeper stays -1 (generated later)", map[string]string{"broker.id": "-1", "zookeeper.connect": "zk:2181"},
			func(b *Broker) any { return b.BrokerID }, int32(-1)},
		{"explicit broker id", map[string]string{"broker.id": "7", "zookeeper.connect": "zk:2181"},
			func(b *Broker) any { return b.BrokerID }, int32(7)},
		{"compression type lower-cased", map[string]string{"compression.type": "GZIP"},
			func(b *Broker) any { return b.CompressionType }, "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustParse(t, tt.values)
			if got := tt.get(b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestZooKeeperConnectParsed(t *testing.T) {
	tests := []struct {
		in      string
		servers []string
		chroot  string
	}{
		{"localhost:2181", []string{"localhost:2181"}, ""},
		{"zk1,zk2:2182/kafka", []string{"zk1:2181", "zk2:2182"}, "/kafka"},
		{"[::1]:2181/a/b", []string{"[::1]:2181"}, "/a/b"},
		{"zk:2181/", []string{"zk:2181"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			b := mustParse(t, map[string]string{"zookeeper.connect": tt.in})
			if !reflect.DeepEqual(b.ZooKeeperServers, tt.servers) || b.ZooKeeperChroot != tt.chroot {
				t.Errorf("servers %v chroot %q, want %v %q", b.ZooKeeperServers, b.ZooKeeperChroot, tt.servers, tt.chroot)
			}
			if b.Embedded() {
				t.Error("Embedded() with zookeeper.connect")
			}
		})
	}
}
