package e2e

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// kafkaZK writes znodes the way a Kafka 2.x cluster left them. The JSON of
// each znode is spelled out as Kafka 2.8's kafka.zk.ZkData encodes it (the
// encode functions of BrokerIdZNode, TopicZNode, TopicPartitionStateZNode,
// ConfigEntityZNode, ConfigEntityChangeNotificationSequenceZNode,
// ControllerEpochZNode, ClusterIdZNode, ProducerIdBlockZNode, FeatureZNode,
// AclZNode/ResourceZNode and the admin znodes), not produced by kafgo's own
// encoders, so the test reads Kafka's shapes, including the older versions
// an upgraded cluster still has (topic znode v1 and v2, config change v1).
type kafkaZK struct {
	t    *testing.T
	conn *zk.Conn
}

func dialKafkaZK(t *testing.T, connect string) *kafkaZK {
	t.Helper()
	conn, _, err := zk.Connect([]string{connect}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return &kafkaZK{t: t, conn: conn}
}

// create writes data at path, making missing parents with empty data as
// Kafka's createRecursive does.
func (z *kafkaZK) create(path, data string) {
	z.t.Helper()
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i := 1; i < len(parts); i++ {
		p := "/" + strings.Join(parts[:i], "/")
		if _, err := z.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			z.t.Fatalf("create %s: %v", p, err)
		}
	}
	var b []byte
	if data != "" {
		b = []byte(data)
	}
	if _, err := z.conn.Create(path, b, 0, zk.WorldACL(zk.PermAll)); err != nil {
		if !errors.Is(err, zk.ErrNodeExists) {
			z.t.Fatalf("create %s: %v", path, err)
		}
		if _, err := z.conn.Set(path, b, -1); err != nil {
			z.t.Fatalf("set %s: %v", path, err)
		}
	}
}

// get returns a znode's data, or ok false when it does not exist.
func (z *kafkaZK) get(path string) (string, bool) {
	z.t.Helper()
	b, _, err := z.conn.Get(path)
	if errors.Is(err, zk.ErrNoNode) {
		return "", false
	}
	if err != nil {
		z.t.Fatalf("get %s: %v", path, err)
	}
	return string(b), true
}

func (z *kafkaZK) children(path string) []string {
	z.t.Helper()
	c, _, err := z.conn.Children(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		z.t.Fatalf("children %s: %v", path, err)
	}
	sort.Strings(c)
	return c
}

// persistentPaths are the znodes every Kafka 2.x broker creates at start-up
// (ZkData.PersistentZkPaths) plus the ACL change paths of AclAuthorizer.
var persistentPaths = []string{
	"/consumers", "/admin/delete_topics", "/brokers/ids", "/brokers/topics", "/brokers/seqid",
	"/config/changes", "/config/clients", "/config/topics", "/config/users", "/config/brokers",
	"/isr_change_notification", "/latest_producer_id_block", "/log_dir_event_notification",
	"/kafka-acl-changes", "/kafka-acl-extended-changes",
}

func (z *kafkaZK) persistent() {
	for _, p := range persistentPaths {
		z.create(p, "")
	}
}

// intList is a Jackson-encoded int array.
func intList(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// partitionMap is a TopicZNode partition map, {"0":[1,2],...}.
func partitionMap(m map[int][]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = fmt.Sprintf("%q:%s", fmt.Sprint(k), intList(m[k]))
	}
	return "{" + strings.Join(s, ",") + "}"
}

// topic writes /brokers/topics/<t> at a given version: 1 (before 2.4), 2
// (2.4 to 2.7, KIP-455) or 3 (2.8; topicID may be empty: 2.8 writes
// version 3 without a topic id below IBP 2.8).
func (z *kafkaZK) topic(name string, version int, topicID string, parts, adding, removing map[int][]int) {
	var data string
	switch version {
	case 1:
		data = fmt.Sprintf(`{"version":1,"partitions":%s}`, partitionMap(parts))
	case 2:
		data = fmt.Sprintf(`{"version":2,"partitions":%s,"adding_replicas":%s,"removing_replicas":%s}`, partitionMap(parts), partitionMap(adding), partitionMap(removing))
	default:
		id := ""
		if topicID != "" {
			id = fmt.Sprintf(`"topic_id":%q,`, topicID)
		}
		data = fmt.Sprintf(`{"version":3,%s"partitions":%s,"adding_replicas":%s,"removing_replicas":%s}`, id, partitionMap(parts), partitionMap(adding), partitionMap(removing))
	}
	z.create("/brokers/topics/"+name, data)
}

// partitionState writes TopicPartitionStateZNode.
func (z *kafkaZK) partitionState(topic string, p, controllerEpoch, leader, leaderEpoch int, isr []int) {
	z.create(fmt.Sprintf("/brokers/topics/%s/partitions/%d/state", topic, p),
		fmt.Sprintf(`{"controller_epoch":%d,"leader":%d,"version":1,"leader_epoch":%d,"isr":%s}`, controllerEpoch, leader, leaderEpoch, intList(isr)))
}

// config writes ConfigEntityZNode: {"version":1,"config":{...}}.
func (z *kafkaZK) config(entityPath string, kv ...string) {
	var s []string
	for i := 0; i+1 < len(kv); i += 2 {
		s = append(s, fmt.Sprintf("%q:%q", kv[i], kv[i+1]))
	}
	z.create("/config/"+entityPath, `{"version":1,"config":{`+strings.Join(s, ",")+`}}`)
}
