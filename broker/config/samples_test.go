package config

import (
	"reflect"
	"testing"
)

// The sample files in the repository's config/ folder must load: dev.yaml
// is what `make run` uses, server.yaml is the documented full example.
func TestSampleFiles(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, b *Broker)
	}{
		{"../../examples/dev.yaml", func(t *testing.T, b *Broker) {
			if b.BrokerID != 0 || !b.Embedded() {
				t.Errorf("broker.id %d embedded %v", b.BrokerID, b.Embedded())
			}
			if want := []Listener{{"PLAINTEXT", "127.0.0.1", 9092}}; !reflect.DeepEqual(b.Listeners, want) || !reflect.DeepEqual(b.AdvertisedListeners, want) {
				t.Errorf("listeners %v advertised %v", b.Listeners, b.AdvertisedListeners)
			}
			if !reflect.DeepEqual(b.LogDirs, []string{"./data"}) {
				t.Errorf("log.dirs %v", b.LogDirs)
			}
			if b.OffsetsTopicReplicationFactor != 1 || b.GroupInitialRebalanceDelayMs != 0 {
				t.Errorf("offsets RF %d, rebalance delay %d", b.OffsetsTopicReplicationFactor, b.GroupInitialRebalanceDelayMs)
			}
			if b.TransactionStateLogReplicationFactor != 1 || b.TransactionStateLogMinIsr != 1 {
				t.Errorf("transaction log RF %d min ISR %d", b.TransactionStateLogReplicationFactor, b.TransactionStateLogMinIsr)
			}
			if b.AdminListener != "127.0.0.1:9644" {
				t.Errorf("admin.listener %q", b.AdminListener)
			}
		}},
		{"../../examples/server.yaml", func(t *testing.T, b *Broker) {
			if b.Embedded() || !reflect.DeepEqual(b.ZooKeeperServers, []string{"localhost:2181"}) {
				t.Errorf("zookeeper %v", b.ZooKeeperServers)
			}
			if b.NumNetworkThreads != 3 || b.NumIoThreads != 8 || b.SocketRequestMaxBytes != 104857600 {
				t.Errorf("socket settings %d %d %d", b.NumNetworkThreads, b.NumIoThreads, b.SocketRequestMaxBytes)
			}
			if b.LogRetentionMs != 168*3600*1000 || b.LogSegmentBytes != 1<<30 || b.LogRetentionCheckIntervalMs != 300000 {
				t.Errorf("retention %d segment %d check %d", b.LogRetentionMs, b.LogSegmentBytes, b.LogRetentionCheckIntervalMs)
			}
			if b.ZooKeeperConnectionTimeoutMs != 18000 || b.GroupInitialRebalanceDelayMs != 0 {
				t.Errorf("zk timeout %d rebalance delay %d", b.ZooKeeperConnectionTimeoutMs, b.GroupInitialRebalanceDelayMs)
			}
			if want := []Listener{{"PLAINTEXT", testHost, 9092}}; !reflect.DeepEqual(b.AdvertisedListeners, want) {
				t.Errorf("advertised %v", b.AdvertisedListeners)
			}
		}},
		{"../../examples/secure.yaml", func(t *testing.T, b *Broker) {
			ss, err := b.Security("SASL_SSL")
			if err != nil || !ss.TLS || ss.PlainUsers["admin"] != "admin-secret" || len(ss.Mechanisms) != 3 || ss.ReauthMs["SCRAM-SHA-512"] != 3600000 {
				t.Errorf("SASL_SSL %+v %v", ss, err)
			}
			ssl, err := b.Security("SSL")
			if err != nil || ssl.SSL.ClientAuth != "required" || !ssl.SSL.HasKeyPassword {
				t.Errorf("SSL %+v %v", ssl.SSL, err)
			}
			if name, err := ssl.PrincipalMapper.Name("CN=alice,OU=eng"); err != nil || name != "alice" {
				t.Errorf("mapping %q %v", name, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := Load(tt.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, b)
		})
	}
}
