package znode

import (
	"reflect"
	"strings"
	"testing"

	"kafgo/internal/uuid"
)

// Znode data as Kafka brokers and tools wrote it (zkCli.sh "get" output
// from real clusters), including fields kafgo does not know.
func TestParseKafkaWritten(t *testing.T) {
	topicID, _ := uuid.Parse("RSZ--odYRlSOPGRgukKnAQ")
	cases := []struct {
		name  string
		data  string
		parse func([]byte) (any, error)
		want  any
	}{
		{"broker v4 kafka 2.x",
			`{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://172.16.202.139:9092"],"jmx_port":-1,"host":"172.16.202.139","timestamp":"1547395229963","port":9092,"version":4}`,
			func(b []byte) (any, error) { return ParseBrokerInfo(b) },
			BrokerInfo{Version: 4, Endpoints: []Endpoint{{"PLAINTEXT", "172.16.202.139", 9092, "PLAINTEXT"}},
				JMXPort: -1, Timestamp: "1547395229963", Host: "172.16.202.139", Port: 9092}},
		{"broker v4 named listeners",
			`{"listener_security_protocol_map":{"INSIDE":"PLAINTEXT","OUTSIDE":"PLAINTEXT"},"endpoints":["INSIDE://8e01bd4ee16c:9094","OUTSIDE://localhost:9092"],"jmx_port":-1,"host":"8e01bd4ee16c","timestamp":"1673918486526","port":9094,"version":4}`,
			func(b []byte) (any, error) { return ParseBrokerInfo(b) },
			BrokerInfo{Version: 4, Endpoints: []Endpoint{{"INSIDE", "8e01bd4ee16c", 9094, "PLAINTEXT"}, {"OUTSIDE", "localhost", 9092, "PLAINTEXT"}},
				JMXPort: -1, Timestamp: "1673918486526", Host: "8e01bd4ee16c", Port: 9094}},
		{"broker v5 confluent with tags",
			`{"features":{},"listener_security_protocol_map":{"BROKER":"PLAINTEXT","PLAINTEXT_HOST":"PLAINTEXT"},"endpoints":["BROKER://broker1:9091","PLAINTEXT_HOST://localhost:29091"],"jmx_port":-1,"port":9091,"host":"broker1","version":5,"tags":{},"timestamp":"1673382717473"}`,
			func(b []byte) (any, error) { return ParseBrokerInfo(b) },
			BrokerInfo{Version: 5, Endpoints: []Endpoint{{"BROKER", "broker1", 9091, "PLAINTEXT"}, {"PLAINTEXT_HOST", "localhost", 29091, "PLAINTEXT"}},
				JMXPort: -1, Timestamp: "1673382717473", Host: "broker1", Port: 9091, Features: map[string]SupportedFeature{}}},
		{"broker v1 host and port only",
			`{"jmx_port":-1,"timestamp":"1417468848744","host":"old","version":1,"port":9092}`,
			func(b []byte) (any, error) { return ParseBrokerInfo(b) },
			BrokerInfo{Version: 1, Endpoints: []Endpoint{{"PLAINTEXT", "old", 9092, "PLAINTEXT"}},
				JMXPort: -1, Timestamp: "1417468848744", Host: "old", Port: 9092}},
		{"broker v2 protocol as listener, rack, null host",
			`{"jmx_port":-1,"timestamp":"1","endpoints":["SSL://h:9093"],"host":null,"version":3,"port":-1,"rack":"r1"}`,
			func(b []byte) (any, error) { return ParseBrokerInfo(b) },
			BrokerInfo{Version: 3, Endpoints: []Endpoint{{"SSL", "h", 9093, "SSL"}}, JMXPort: -1, Timestamp: "1", Port: -1, Rack: "r1"}},
		{"topic v3 kafka order",
			`{"removing_replicas":{},"partitions":{"2":[2,1],"1":[1,3],"0":[3,2]},"topic_id":"RSZ--odYRlSOPGRgukKnAQ","adding_replicas":{},"version":3}`,
			func(b []byte) (any, error) { return ParseTopicAssignment(b) },
			TopicAssignment{Version: 3, TopicID: topicID,
				Partitions:     map[int32][]int32{0: {3, 2}, 1: {1, 3}, 2: {2, 1}},
				AddingReplicas: map[int32][]int32{}, RemovingReplicas: map[int32][]int32{}}},
		{"topic v1",
			`{"version":1,"partitions":{"0":[1,2,3],"1":[2,3,1]}}`,
			func(b []byte) (any, error) { return ParseTopicAssignment(b) },
			TopicAssignment{Version: 1, Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}},
				AddingReplicas: map[int32][]int32{}, RemovingReplicas: map[int32][]int32{}}},
		{"topic v2 reassigning",
			`{"version":2,"partitions":{"0":[1,2,3,4]},"adding_replicas":{"0":[4]},"removing_replicas":{"0":[1]}}`,
			func(b []byte) (any, error) { return ParseTopicAssignment(b) },
			TopicAssignment{Version: 2, Partitions: map[int32][]int32{0: {1, 2, 3, 4}},
				AddingReplicas: map[int32][]int32{0: {4}}, RemovingReplicas: map[int32][]int32{0: {1}}}},
		{"partition state",
			`{"controller_epoch":2,"leader":2,"version":1,"leader_epoch":0,"isr":[2,1]}`,
			func(b []byte) (any, error) { return ParsePartitionState(b) },
			PartitionState{ControllerEpoch: 2, Leader: 2, LeaderEpoch: 0, ISR: []int32{2, 1}}},
		{"partition state 3.x with recovery state",
			`{"controller_epoch":5,"leader":-1,"version":1,"leader_epoch":9,"isr":[3],"leader_recovery_state":1}`,
			func(b []byte) (any, error) { return ParsePartitionState(b) },
			PartitionState{ControllerEpoch: 5, Leader: -1, LeaderEpoch: 9, ISR: []int32{3}}},
		{"controller",
			`{"version":1,"brokerid":2,"timestamp":"1673382716473"}`,
			func(b []byte) (any, error) { return ParseController(b) },
			Controller{Version: 1, BrokerID: 2, Timestamp: "1673382716473", KRaftControllerEpoch: -1}},
		{"controller v2 kafka 3.x",
			`{"version":2,"brokerid":1,"timestamp":"1704032949256","kraftControllerEpoch":-1}`,
			func(b []byte) (any, error) { return ParseController(b) },
			Controller{Version: 2, BrokerID: 1, Timestamp: "1704032949256", KRaftControllerEpoch: -1}},
		{"controller 0.8 bare id",
			`3`,
			func(b []byte) (any, error) { return ParseController(b) },
			Controller{Version: 1, BrokerID: 3, KRaftControllerEpoch: -1}},
		{"cluster id",
			`{"version":"1","id":"eQzK4lYlQ9y8P21IScOl_g"}`,
			func(b []byte) (any, error) { return ParseClusterID(b) },
			ClusterID{ID: "eQzK4lYlQ9y8P21IScOl_g"}},
		{"reassign with log dirs",
			`{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2,3],"log_dirs":["any","any","any"]}]}`,
			func(b []byte) (any, error) { return ParseReassignPartitions(b) },
			ReassignPartitions{Partitions: []PartitionReassignment{{Topic: "orders", Partition: 0, Replicas: []int32{1, 2, 3}, LogDirs: []string{"any", "any", "any"}}}}},
		{"preferred election",
			`{"version":1,"partitions":[{"topic":"orders","partition":0},{"topic":"b","partition":3}]}`,
			func(b []byte) (any, error) { return ParsePreferredReplicaElection(b) },
			PreferredReplicaElection{Partitions: []TopicPartition{{"orders", 0}, {"b", 3}}}},
		{"isr change",
			`{"version":1,"partitions":[{"topic":"orders","partition":0},{"topic":"orders","partition":1}]}`,
			func(b []byte) (any, error) { return ParseIsrChangeNotification(b) },
			IsrChangeNotification{Partitions: []TopicPartition{{"orders", 0}, {"orders", 1}}}},
		{"producer id block",
			`{"version":1,"broker":1,"block_start":"1000","block_end":"1999"}`,
			func(b []byte) (any, error) { return ParseProducerIDBlock(b) },
			ProducerIDBlock{BrokerID: 1, BlockStart: 1000, BlockEnd: 1999}},
		{"producer id block numeric",
			`{"version":1,"broker":2,"block_start":0,"block_end":999}`,
			func(b []byte) (any, error) { return ParseProducerIDBlock(b) },
			ProducerIDBlock{BrokerID: 2, BlockStart: 0, BlockEnd: 999}},
		{"log dir event",
			`{"version":1,"broker":1,"event":1}`,
			func(b []byte) (any, error) { return ParseLogDirEventNotification(b) },
			LogDirEventNotification{BrokerID: 1, Event: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.parse([]byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("parse:\n got %+v\nwant %+v", got, tc.want)
			}
			// What kafgo writes back parses to the same value (the legacy
			// host/port of v1-v3 registrations aside, re-derived on write).
			m, ok := got.(marshaler)
			if !ok {
				t.Fatalf("%T has no Marshal", got)
			}
			if bi, isBroker := got.(BrokerInfo); isBroker && bi.Version < 4 {
				return
			}
			if c, isCtl := got.(Controller); isCtl && c.Timestamp == "" {
				return
			}
			enc, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := tc.parse(enc)
			if err != nil || !reflect.DeepEqual(back, tc.want) {
				t.Fatalf("round trip of %s:\n got %+v, %v\nwant %+v", enc, back, err, tc.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		parse func([]byte) error
	}{
		{"broker empty", ``, func(b []byte) error { _, err := ParseBrokerInfo(b); return err }},
		{"broker no endpoints", `{"version":4,"jmx_port":-1}`, func(b []byte) error { _, err := ParseBrokerInfo(b); return err }},
		{"broker bad endpoint", `{"version":4,"endpoints":["nonsense"]}`, func(b []byte) error { _, err := ParseBrokerInfo(b); return err }},
		{"topic not json", `{"version":`, func(b []byte) error { _, err := ParseTopicAssignment(b); return err }},
		{"topic no partitions", `{"version":2}`, func(b []byte) error { _, err := ParseTopicAssignment(b); return err }},
		{"topic bad key", `{"version":1,"partitions":{"x":[1]}}`, func(b []byte) error { _, err := ParseTopicAssignment(b); return err }},
		{"topic bad id", `{"version":3,"topic_id":"nope","partitions":{"0":[1]}}`, func(b []byte) error { _, err := ParseTopicAssignment(b); return err }},
		{"state missing isr", `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0}`, func(b []byte) error { _, err := ParsePartitionState(b); return err }},
		{"controller no id", `{"version":1,"timestamp":"1"}`, func(b []byte) error { _, err := ParseController(b); return err }},
		{"cluster no id", `{"version":"1"}`, func(b []byte) error { _, err := ParseClusterID(b); return err }},
		{"reassign no topic", `{"version":1,"partitions":[{"partition":0,"replicas":[1]}]}`, func(b []byte) error { _, err := ParseReassignPartitions(b); return err }},
		{"producer block strings", `{"version":1,"broker":1,"block_start":"a","block_end":"b"}`, func(b []byte) error { _, err := ParseProducerIDBlock(b); return err }},
		{"log dir missing event", `{"version":1,"broker":1}`, func(b []byte) error { _, err := ParseLogDirEventNotification(b); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse([]byte(tc.data))
			if err == nil {
				t.Fatal("parse succeeded")
			}
			if !strings.HasPrefix(err.Error(), "znode: ") {
				t.Fatalf("error %q lacks the znode: prefix", err)
			}
		})
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Endpoint
		ok   bool
	}{
		{"PLAINTEXT://host:9092", Endpoint{Listener: "PLAINTEXT", Host: "host", Port: 9092}, true},
		{"PLAINTEXT://:9092", Endpoint{Listener: "PLAINTEXT", Port: 9092}, true},
		{"SSL://[::1]:9093", Endpoint{Listener: "SSL", Host: "::1", Port: 9093}, true},
		{"host:9092", Endpoint{}, false},
		{"PLAINTEXT://host", Endpoint{}, false},
		{"PLAINTEXT://host:99999", Endpoint{}, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseEndpoint(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseEndpoint(%q) = %+v, %v", tc.in, got, err)
			}
			if tc.ok && got.String() != tc.in {
				t.Fatalf("String() = %q, want %q", got.String(), tc.in)
			}
		})
	}
}
