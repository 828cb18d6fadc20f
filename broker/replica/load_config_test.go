package replica

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"kafgo/broker/storage"
)

// TestNewPartitionLoadsItsConfig: a partition created here takes its
// config from LoadConfig (the store), not from what ConfigFor remembers,
// and a failed read fails the partition instead of starting it on a config
// it may not have.
func TestNewPartitionLoadsItsConfig(t *testing.T) {
	loadErr := error(nil)
	m, _, _ := newManagerWith(t, 1, func(c *Config, _ *clock) {
		c.ConfigFor = func(string) PartitionConfig {
			lc := storage.DefaultLogConfig()
			lc.RetentionMs = 1000 // a deleted topic's override
			return PartitionConfig{Log: lc, MinInsyncReplicas: 1, MaxMessageBytes: 100}
		}
		c.LoadConfig = func(string) (PartitionConfig, error) {
			return PartitionConfig{Log: storage.DefaultLogConfig(), MinInsyncReplicas: 1, MaxMessageBytes: 1 << 20}, loadErr
		}
	})

	loadErr = errors.New("store unreachable")
	resp := m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1}))
	// Mapped by kafkaerr's one table: an error it does not know is
	// UNKNOWN_SERVER_ERROR (a store timeout would be REQUEST_TIMED_OUT).
	if code := resp.Partitions[0].ErrorCode; code != kerr.UnknownServerError.Code {
		t.Fatalf("with the config unreadable: error %d, want UNKNOWN_SERVER_ERROR", code)
	}
	if _, ok := m.Partition(tp0); ok {
		t.Fatal("partition created without its config")
	}

	loadErr = nil
	resp = m.HandleLeaderAndISR(leaderAndISR(1, 1, []int32{1}, []int32{1}))
	if code := resp.Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("error %d", code)
	}
	p, ok := m.Partition(tp0)
	if !ok {
		t.Fatal("partition not created")
	}
	if got := p.Config(); got.MaxMessageBytes != 1<<20 || got.Log.RetentionMs != storage.DefaultLogConfig().RetentionMs {
		t.Fatalf("partition config %+v, want the loaded one", got)
	}
	if got := p.Log().Config().RetentionMs; got != storage.DefaultLogConfig().RetentionMs {
		t.Fatalf("log retention %d, want the loaded one", got)
	}
}
