package znode

import (
	"strings"
	"testing"

	"kafgo/internal/uuid"
)

type marshaler interface{ Marshal() ([]byte, error) }

// TestGoldenBytes pins the exact bytes of every znode kafgo writes.
func TestGoldenBytes(t *testing.T) {
	topicID, err := uuid.Parse("3s3o9J7JRYCO1d3n7uFvHg")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		v    marshaler
		want string
	}{
		{"cluster id", ClusterID{ID: "Rz1Yl3yzQPq7lfQ0d6iJVg"},
			`{"version":"1","id":"Rz1Yl3yzQPq7lfQ0d6iJVg"}`},
		{"broker v4", BrokerInfo{
			Endpoints: []Endpoint{{"PLAINTEXT", "host1", 9092, "PLAINTEXT"}, {"SSL", "host1", 9093, "SSL"}},
			JMXPort:   -1, Timestamp: "1609459200000", Rack: "dc1"},
			`{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","SSL":"SSL"},"endpoints":["PLAINTEXT://host1:9092","SSL://host1:9093"],"jmx_port":-1,"host":"host1","timestamp":"1609459200000","port":9092,"version":4,"rack":"dc1"}`},
		{"broker v4 named listeners, no rack", BrokerInfo{
			Endpoints: []Endpoint{{"INTERNAL", "10.0.0.1", 9094, "PLAINTEXT"}, {"EXTERNAL", "ext.example", 9092, "SASL_SSL"}},
			JMXPort:   9999, Timestamp: "1"},
			`{"listener_security_protocol_map":{"INTERNAL":"PLAINTEXT","EXTERNAL":"SASL_SSL"},"endpoints":["INTERNAL://10.0.0.1:9094","EXTERNAL://ext.example:9092"],"jmx_port":9999,"host":"10.0.0.1","timestamp":"1","port":9094,"version":4}`},
		{"broker v4 without plaintext", BrokerInfo{
			Endpoints: []Endpoint{{Listener: "SSL", Host: "h", Port: 9093}}, JMXPort: -1, Timestamp: "2"},
			`{"listener_security_protocol_map":{"SSL":"SSL"},"endpoints":["SSL://h:9093"],"jmx_port":-1,"host":null,"timestamp":"2","port":-1,"version":4}`},
		{"broker v4 ipv6", BrokerInfo{
			Endpoints: []Endpoint{{Listener: "PLAINTEXT", Host: "::1", Port: 9092}}, JMXPort: -1, Timestamp: "3"},
			`{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://[::1]:9092"],"jmx_port":-1,"host":"::1","timestamp":"3","port":9092,"version":4}`},
		{"broker v5", BrokerInfo{Version: 5,
			Endpoints: []Endpoint{{Listener: "PLAINTEXT", Host: "kafka", Port: 9092}}, JMXPort: -1, Timestamp: "1647406227247"},
			`{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka:9092"],"jmx_port":-1,"port":9092,"host":"kafka","version":5,"timestamp":"1647406227247"}`},
		{"broker v5 features", BrokerInfo{Version: 5,
			Endpoints: []Endpoint{{Listener: "PLAINTEXT", Host: "k", Port: 1}}, JMXPort: -1, Timestamp: "4", Rack: "r",
			Features: map[string]SupportedFeature{"z.feature": {1, 2}, "a.feature": {0, 3}}},
			`{"features":{"a.feature":{"min_version":0,"max_version":3},"z.feature":{"min_version":1,"max_version":2}},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://k:1"],"jmx_port":-1,"port":1,"host":"k","version":5,"timestamp":"4","rack":"r"}`},
		{"topic v3", TopicAssignment{TopicID: topicID,
			Partitions:     map[int32][]int32{10: {3, 1, 2}, 0: {1, 2, 3}, 2: {2, 3, 1}},
			AddingReplicas: map[int32][]int32{0: {3}}, RemovingReplicas: map[int32][]int32{0: {4}}},
			`{"version":3,"topic_id":"3s3o9J7JRYCO1d3n7uFvHg","partitions":{"0":[1,2,3],"2":[2,3,1],"10":[3,1,2]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[4]}}`},
		{"topic v2", TopicAssignment{Partitions: map[int32][]int32{0: {1, 2, 3}}},
			`{"version":2,"partitions":{"0":[1,2,3]},"adding_replicas":{},"removing_replicas":{}}`},
		{"topic v1", TopicAssignment{Version: 1, Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}}},
			`{"version":1,"partitions":{"0":[1,2,3],"1":[2,3,1]}}`},
		{"partition state", PartitionState{ControllerEpoch: 1, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}},
			`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}`},
		{"partition state leaderless", PartitionState{ControllerEpoch: 3, Leader: NoLeader, LeaderEpoch: 7},
			`{"controller_epoch":3,"leader":-1,"version":1,"leader_epoch":7,"isr":[]}`},
		{"controller", Controller{BrokerID: 1, Timestamp: "1609459200000"},
			`{"version":1,"brokerid":1,"timestamp":"1609459200000"}`},
		{"controller v2", Controller{Version: 2, BrokerID: 1, Timestamp: "1704032949256", KRaftControllerEpoch: -1},
			`{"version":2,"brokerid":1,"timestamp":"1704032949256","kraftControllerEpoch":-1}`},
		{"reassign", ReassignPartitions{Partitions: []PartitionReassignment{{Topic: "orders", Partition: 0, Replicas: []int32{1, 2, 3}}}},
			`{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2,3]}]}`},
		{"reassign log dirs", ReassignPartitions{Partitions: []PartitionReassignment{
			{Topic: "orders", Partition: 0, Replicas: []int32{1, 2}, LogDirs: []string{"any", "any"}},
			{Topic: "orders", Partition: 1, Replicas: []int32{2, 1}}}},
			`{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},{"topic":"orders","partition":1,"replicas":[2,1]}]}`},
		{"preferred election", PreferredReplicaElection{Partitions: []TopicPartition{{"orders", 0}}},
			`{"version":1,"partitions":[{"topic":"orders","partition":0}]}`},
		{"isr change", IsrChangeNotification{Partitions: []TopicPartition{{"orders", 0}, {"orders", 1}}},
			`{"version":1,"partitions":[{"topic":"orders","partition":0},{"topic":"orders","partition":1}]}`},
		{"producer id block", ProducerIDBlock{BrokerID: 1, BlockStart: 0, BlockEnd: 999},
			`{"version":1,"broker":1,"block_start":"0","block_end":"999"}`},
		{"log dir event", LogDirEventNotification{BrokerID: 1, Event: LogDirFailureEvent},
			`{"version":1,"broker":1,"event":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.v.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("Marshal:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestControllerEpoch(t *testing.T) {
	if got := string(EncodeControllerEpoch(17)); got != "17" {
		t.Fatalf("EncodeControllerEpoch(17) = %q", got)
	}
	for _, tc := range []struct {
		in   string
		want int32
		ok   bool
	}{{"1", 1, true}, {"0", 0, true}, {" 42\n", 42, true}, {"", 0, false}, {"-1", 0, false}, {"x", 0, false}, {"99999999999", 0, false}} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseControllerEpoch([]byte(tc.in))
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseControllerEpoch(%q) = %d, %v", tc.in, got, err)
			}
		})
	}
}

func TestMarshalRejects(t *testing.T) {
	cases := []struct {
		name string
		v    marshaler
	}{
		{"cluster id empty", ClusterID{}},
		{"broker unknown protocol", BrokerInfo{Endpoints: []Endpoint{{Listener: "INTERNAL", Host: "h", Port: 1}}}},
		{"broker duplicate listener", BrokerInfo{Endpoints: []Endpoint{{Listener: "PLAINTEXT"}, {Listener: "PLAINTEXT"}}}},
		{"broker version 3", BrokerInfo{Version: 3}},
		{"topic v3 without id", TopicAssignment{Version: 3, Partitions: map[int32][]int32{0: {1}}}},
		{"topic negative partition", TopicAssignment{Partitions: map[int32][]int32{-1: {1}}}},
		{"controller v3", Controller{Version: 3}},
		{"reassign no replicas", ReassignPartitions{Partitions: []PartitionReassignment{{Topic: "t"}}}},
		{"reassign log dirs mismatch", ReassignPartitions{Partitions: []PartitionReassignment{{Topic: "t", Replicas: []int32{1}, LogDirs: []string{"a", "b"}}}}},
		{"producer block backwards", ProducerIDBlock{BlockStart: 10, BlockEnd: 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := tc.v.Marshal(); err == nil {
				t.Fatalf("Marshal = %s, want an error", b)
			} else if !strings.HasPrefix(err.Error(), "znode: ") {
				t.Fatalf("error %q lacks the znode: prefix", err)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	cases := []struct{ got, want string }{
		{BrokerIDPath(3), "/brokers/ids/3"},
		{TopicPath("orders"), "/brokers/topics/orders"},
		{TopicPartitionsPath("orders"), "/brokers/topics/orders/partitions"},
		{PartitionStatePath("orders", 2), "/brokers/topics/orders/partitions/2/state"},
		{DeleteTopicPath("orders"), "/admin/delete_topics/orders"},
		{IsrChangeSeqPath(), "/isr_change_notification/isr_change_"},
		{LogDirEventSeqPath(), "/log_dir_event_notification/log_dir_event_"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
	want := "/consumers /brokers/ids /brokers/topics /config/changes /admin/delete_topics /brokers/seqid /isr_change_notification /latest_producer_id_block /log_dir_event_notification /config/topics /config/clients /config/users /config/brokers"
	if got := strings.Join(PersistentPaths, " "); got != want {
		t.Fatalf("PersistentPaths = %s", got)
	}
}
