package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// meta.properties as Kafka's BrokerMetadataCheckpoint writes it: version
// 0 (ZooKeeper mode) with and without cluster.id (brokers before 0.10.1
// wrote none), keys in Properties.store's hash order, is read; a KRaft
// node's version 1 file (node.id, no broker.id) is refused, saying why.
func TestReadKafkaMetaProperties(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		want       MetaProperties
		errHas     string
	}{
		{"2.x", "#\n#Wed Apr 22 11:14:59 CDT 2020\ncluster.id=lRaQCIBoRh2xRKLuP9CAQg\nversion=0\nbroker.id=0\n", MetaProperties{0, "lRaQCIBoRh2xRKLuP9CAQg"}, ""},
		{"0.10.0", "#\n#Mon Jan 01 00:00:00 UTC 2018\nversion=0\nbroker.id=7\n", MetaProperties{7, ""}, ""},
		{"kraft", "#\n#Tue Jun 01 00:00:00 UTC 2021\nnode.id=1\nversion=1\ncluster.id=q1Sh-9_ISia_zwGINzRvyQ\n", MetaProperties{}, "KRaft-mode log dir"},
		{"no version", "broker.id=1\n", MetaProperties{}, "version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			mp, err := ReadMetaProperties(p)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) || !strings.Contains(err.Error(), p) || !errors.Is(err, ErrCorruptFile) {
					t.Fatalf("err = %v, want one naming %s and %q", err, p, tt.errHas)
				}
				return
			}
			if err != nil || mp != tt.want {
				t.Fatalf("got %+v, %v; want %+v", mp, err, tt.want)
			}
		})
	}
}
