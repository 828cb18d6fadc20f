package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

const (
	zkClusterID = "MkMfLhxpQ3a2s5b5e6nFnw"
	zkEventsID  = "Ix8mPEEaSTWbIyOmZqUPtg"
)

// seedKafka28Cluster writes the ZooKeeper tree of a 3-broker Kafka 2.8
// cluster (brokers 1-3, all stopped) as its brokers and tools left it:
// topics in znode versions 1 (written before 2.4), 2 (with a reassignment
// in progress) and 3 (with and without a topic id), one not yet
// initialised by a controller, one queued for deletion, topic, broker,
// default-broker and client configs with change notifications in both
// formats, literal and prefixed ACLs, a pending preferred leader election,
// an ISR change notification, the producer id block and /feature.
func seedKafka28Cluster(z *kafkaZK) {
	z.persistent()
	z.create("/cluster/id", `{"version":"1","id":"`+zkClusterID+`"}`)
	z.create("/controller_epoch", "7")
	none := map[int][]int{}
	z.topic("orders", 1, "", map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, nil, nil)
	for p, l := range []int{1, 3, 3} { // partition 1 is led by a non-preferred replica
		z.partitionState("orders", p, 7, l, 4, []int{1, 2, 3})
	}
	// payments-0 moves from [1,2] to [2,3]: replicas are the union, 3 is
	// being added and 1 removed (KIP-455).
	z.topic("payments", 2, "", map[int][]int{0: {2, 3, 1}}, map[int][]int{0: {3}}, map[int][]int{0: {1}})
	z.partitionState("payments", 0, 7, 2, 1, []int{2, 1})
	z.topic("events", 3, zkEventsID, map[int][]int{0: {1, 2}, 1: {2, 3}}, none, none)
	z.partitionState("events", 0, 7, 1, 0, []int{1, 2})
	z.partitionState("events", 1, 7, 2, 0, []int{2, 3})
	z.topic("fresh", 3, "", map[int][]int{0: {3, 1}}, none, none) // no partition state yet
	z.topic("gone", 3, "", map[int][]int{0: {1}}, none, none)
	z.partitionState("gone", 0, 7, 1, 0, []int{1})
	z.create("/admin/delete_topics/gone", "")
	for _, t := range []string{"payments", "fresh", "gone"} {
		z.config("topics/" + t)
	}
	z.config("topics/orders", "retention.ms", "86400000", "min.insync.replicas", "2")
	z.config("topics/events", "cleanup.policy", "compact")
	z.config("brokers/<default>", "message.max.bytes", "2000000")
	z.config("brokers/2", "log.cleaner.threads", "2")
	z.config("clients/<default>", "producer_byte_rate", "10485760")
	z.create("/config/changes/config_change_0000000000", `{"version":1,"entity_type":"topics","entity_name":"orders"}`)
	z.create("/config/changes/config_change_0000000001", `{"version":2,"entity_path":"topics/events"}`)
	z.create("/kafka-acl/Topic/orders", `{"version":1,"acls":[{"principal":"User:ANONYMOUS","permissionType":"Allow","operation":"Read","host":"*"},{"principal":"User:ANONYMOUS","permissionType":"Deny","operation":"Write","host":"*"},{"principal":"User:ANONYMOUS","permissionType":"Allow","operation":"DescribeConfigs","host":"*"}]}`)
	z.create("/kafka-acl-extended/prefixed/Group/app-", `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}`)
	z.create("/kafka-acl-changes/acl_changes_0000000000", "Topic:orders")
	z.create("/kafka-acl-extended-changes/acl_changes_0000000000", `{"version":1,"resourceType":"Group","name":"app-","patternType":"PREFIXED"}`)
	z.create("/admin/preferred_replica_election", `{"version":1,"partitions":[{"topic":"orders","partition":1}]}`)
	z.create("/isr_change_notification/isr_change_0000000004", `{"version":1,"partitions":[{"topic":"orders","partition":0}]}`)
	z.create("/latest_producer_id_block", `{"version":1,"broker":3,"block_start":"7000","block_end":"7999"}`)
	z.create("/feature", `{"features":{},"version":1,"status":1}`)
}

// TestDropInKafkaZooKeeper: a kafgo cluster started on the ZooKeeper tree
// Kafka 2.8 left serves the recorded topics with their assignments, ids,
// configs and ACLs, finishes what Kafka left pending (the reassignment, the
// deletion, the preferred election, the notifications) and leaves every
// znode it writes in a form Kafka 2.8's decoders read.
func TestDropInKafkaZooKeeper(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{
		Brokers: 3, ZooKeeper: true,
		BeforeBrokers: func(zk *testcluster.ZooKeeper) { seedKafka28Cluster(dialKafkaZK(t, zk.Connect())) },
		Config: map[string]string{
			"authorizer.class.name":          "kafka.security.authorizer.AclAuthorizer",
			"allow.everyone.if.no.acl.found": "true",
		},
	})
	z := dialKafkaZK(t, c.ZK.Connect())
	cl := c.Client()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if id, _ := z.get("/cluster/id"); id != `{"version":"1","id":"`+zkClusterID+`"}` {
		t.Errorf("/cluster/id = %s", id)
	}
	// Topics, assignments and ids as recorded; the pending work done.
	testwait.For(t, 60*time.Second, "topics as recorded, reassignment, deletion and election done", func() (bool, string) {
		md, err := adm.Metadata(ctx)
		if err != nil {
			return false, err.Error()
		}
		got := map[string]string{}
		for _, td := range md.Topics.Sorted() {
			if strings.HasPrefix(td.Topic, "__") {
				continue
			}
			var ps []string
			for _, p := range td.Partitions.Sorted() {
				// The leader may differ from the recorded one: brokers
				// register one by one, and the controller elects from the
				// ISR those that are up, as Kafka's does.
				led := "no leader"
				for _, r := range p.Replicas {
					if r == p.Leader {
						led = "led"
					}
				}
				ps = append(ps, fmt.Sprintf("%d:%v %s", p.Partition, p.Replicas, led))
			}
			got[td.Topic] = strings.Join(ps, " ")
		}
		want := map[string]string{
			"orders":   "0:[1 2 3] led 1:[2 3 1] led 2:[3 1 2] led",
			"payments": "0:[2 3] led",
			"events":   "0:[1 2] led 1:[2 3] led",
			"fresh":    "0:[3 1] led",
		}
		return reflect.DeepEqual(got, want), fmt.Sprintf("%v", got)
	})
	md, err := adm.Metadata(ctx, "events")
	if err != nil {
		t.Fatal(err)
	}
	if tid := md.Topics["events"].ID; base64.RawURLEncoding.EncodeToString(tid[:]) != zkEventsID {
		id := base64.RawURLEncoding.EncodeToString(tid[:])
		t.Errorf("events topic id %s, want the recorded %s", id, zkEventsID)
	}

	// Configs: topic overrides, per-broker and default-broker dynamic values.
	rc, err := adm.DescribeTopicConfigs(ctx, "orders", "events")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rc {
		for _, ce := range r.Configs {
			want, ok := map[string]string{"orders/retention.ms": "86400000", "orders/min.insync.replicas": "2", "events/cleanup.policy": "compact"}[r.Name+"/"+ce.Key]
			if ok && (ce.MaybeValue() != want || ce.Source != kmsg.ConfigSourceDynamicTopicConfig) {
				t.Errorf("%s %s = %s (%v), want %s from /config/topics", r.Name, ce.Key, ce.MaybeValue(), ce.Source, want)
			}
		}
	}
	bc, err := adm.DescribeBrokerConfigs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range bc {
		for _, ce := range r.Configs {
			switch ce.Key {
			case "log.cleaner.threads":
				seen++
				if ce.MaybeValue() != "2" || ce.Source != kmsg.ConfigSourceDynamicBrokerConfig {
					t.Errorf("broker 2 log.cleaner.threads = %s (%v)", ce.MaybeValue(), ce.Source)
				}
			case "message.max.bytes":
				seen++
				if ce.MaybeValue() != "2000000" || ce.Source != kmsg.ConfigSourceDynamicDefaultBrokerConfig {
					t.Errorf("message.max.bytes = %s (%v)", ce.MaybeValue(), ce.Source)
				}
			}
		}
	}
	if seen != 2 {
		t.Errorf("broker 2 configs lack the dynamic ones (%d of 2)", seen)
	}
	quotas, err := adm.DescribeClientQuotas(ctx, false, []kadm.DescribeClientQuotaComponent{{Type: "client-id", MatchType: 1}})
	if err != nil || len(quotas) != 1 || len(quotas[0].Values) != 1 || quotas[0].Values[0].Key != "producer_byte_rate" || quotas[0].Values[0].Value != 10485760 {
		t.Errorf("default client quota: %+v %v", quotas, err)
	}

	// ACLs, literal and prefixed, are loaded and enforced.
	acls, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().Allow().Deny().AllowHosts().DenyHosts().Operations(kadm.OpAny).ResourcePatternType(kadm.ACLPatternAny))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range acls {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		for _, d := range r.Described {
			got = append(got, fmt.Sprintf("%v:%s:%v %s %v %v %s", d.Type, d.Name, d.Pattern, d.Principal, d.Permission, d.Operation, d.Host))
		}
	}
	sort.Strings(got)
	want := []string{
		"GROUP:app-:PREFIXED User:alice ALLOW READ *",
		"TOPIC:orders:LITERAL User:ANONYMOUS ALLOW DESCRIBE_CONFIGS *",
		"TOPIC:orders:LITERAL User:ANONYMOUS ALLOW READ *",
		"TOPIC:orders:LITERAL User:ANONYMOUS DENY WRITE *",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ACLs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("x")}).FirstErr(); err == nil || !strings.Contains(err.Error(), "TOPIC_AUTHORIZATION_FAILED") {
		t.Errorf("produce to orders (Deny Write): %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "payments", Value: []byte("x")}).FirstErr(); err != nil {
		t.Errorf("produce to payments: %v", err)
	}
	init, err := kmsg.NewPtrInitProducerIDRequest().RequestWith(ctx, cl)
	if err != nil || init.ErrorCode != 0 || init.ProducerID < 8000 {
		t.Errorf("InitProducerId: %+v %v, want an id after Kafka's block 7000-7999", init, err)
	}

	// Pending admin work is done and its znodes removed, as Kafka's
	// controller does.
	testwait.For(t, 30*time.Second, "admin and notification znodes processed", func() (bool, string) {
		_, del := z.get("/admin/delete_topics/gone")
		_, topic := z.get("/brokers/topics/gone")
		_, pre := z.get("/admin/preferred_replica_election")
		isr := z.children("/isr_change_notification")
		return !del && !topic && !pre && len(isr) == 0, fmt.Sprintf("delete %v topic %v election %v isr %v", del, topic, pre, isr)
	})
	// A request written now, as kafka-preferred-replica-election.sh
	// --zookeeper writes it, is acted on through the watch. As an operator
	// would, wait first for no under-replicated partitions: a preferred
	// replica outside the ISR cannot be elected (and Kafka, like kafgo,
	// drops the request then).
	testwait.For(t, 60*time.Second, "no under-replicated partitions", func() (bool, string) {
		md, err := adm.Metadata(ctx, "orders", "events")
		if err != nil {
			return false, err.Error()
		}
		var urp []string
		for _, td := range md.Topics {
			for _, p := range td.Partitions {
				if len(p.ISR) != len(p.Replicas) {
					urp = append(urp, fmt.Sprintf("%s-%d isr %v", td.Topic, p.Partition, p.ISR))
				}
			}
		}
		return len(urp) == 0, fmt.Sprint(urp)
	})
	z.create("/admin/preferred_replica_election", `{"version":1,"partitions":[{"topic":"orders","partition":0},{"topic":"orders","partition":1},{"topic":"orders","partition":2},{"topic":"events","partition":0},{"topic":"events","partition":1}]}`)
	testwait.For(t, 30*time.Second, "preferred leaders elected from /admin/preferred_replica_election", func() (bool, string) {
		md, err := adm.Metadata(ctx, "orders", "events")
		if err != nil {
			return false, err.Error()
		}
		var wrong []string
		for _, td := range md.Topics {
			for _, p := range td.Partitions {
				if p.Leader != p.Replicas[0] {
					wrong = append(wrong, fmt.Sprintf("%s-%d led by %d", td.Topic, p.Partition, p.Leader))
				}
			}
		}
		_, pending := z.get("/admin/preferred_replica_election")
		return len(wrong) == 0 && !pending, fmt.Sprintf("%v, znode present %v", wrong, pending)
	})
	checkKafkaReadable(t, z)

	// A Kafka 2.8 broker joining (a rolling replacement's other half)
	// registers with version 5, in Kafka's field order; kafgo's brokers
	// list it with its listener and rack, and drop it when it goes.
	port := testcluster.FreePort(t)
	reg := fmt.Sprintf(`{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://127.0.0.1:%d"],"rack":"r4","jmx_port":-1,"port":%d,"host":"127.0.0.1","version":5,"timestamp":"%d"}`, port, port, time.Now().UnixMilli())
	if _, err := z.conn.Create("/brokers/ids/4", []byte(reg), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	brokerListed := func(want bool) func() (bool, string) {
		return func() (bool, string) {
			// Asked of broker 1 itself (the client's metadata cache is not
			// refreshed for this).
			r, err := cl.Broker(1).Request(ctx, kmsg.NewPtrMetadataRequest())
			if err != nil {
				return false, err.Error()
			}
			md := r.(*kmsg.MetadataResponse)
			for _, b := range md.Brokers {
				if b.NodeID == 4 {
					rack := ""
					if b.Rack != nil {
						rack = *b.Rack
					}
					return want && b.Host == "127.0.0.1" && int(b.Port) == port && rack == "r4", fmt.Sprintf("%d %s:%d rack %q", b.NodeID, b.Host, b.Port, rack)
				}
			}
			return !want, fmt.Sprintf("%d brokers, 4 not among them", len(md.Brokers))
		}
	}
	testwait.For(t, 30*time.Second, "the version 5 registration of broker 4 listed", brokerListed(true))
	if err := z.conn.Delete("/brokers/ids/4", -1); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 30*time.Second, "broker 4 gone", brokerListed(false))
}

// checkKafkaReadable applies Kafka 2.8's znode decoders' rules
// (kafka.zk.ZkData: the keys each decode reads, with their JSON types) to
// every znode of the tree a kafgo cluster maintains, so a Kafka 2.8 broker
// joining it (a rolling replacement, or a roll back) can read them.
func checkKafkaReadable(t *testing.T, z *kafkaZK) {
	t.Helper()
	obj := func(path string) map[string]any {
		t.Helper()
		s, ok := z.get(path)
		if !ok {
			t.Errorf("%s missing", path)
			return nil
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Errorf("%s is not a JSON object: %s", path, s)
		}
		return m
	}
	isInt := func(v any) bool { f, ok := v.(float64); return ok && f == float64(int64(f)) }
	isIntList := func(v any) bool {
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range l {
			if !isInt(x) {
				return false
			}
		}
		return true
	}
	need := func(path string, m map[string]any, key string, ok func(any) bool) {
		t.Helper()
		if v, present := m[key]; !present || !ok(v) {
			t.Errorf("%s: %q is %v, which Kafka 2.8 cannot decode", path, key, v)
		}
	}
	isString := func(v any) bool { _, ok := v.(string); return ok }
	isMap := func(v any) bool { _, ok := v.(map[string]any); return ok }

	// BrokerIdZNode.decode: version, jmx_port, endpoints (version >= 2),
	// the listener map read as strings.
	for _, id := range z.children("/brokers/ids") {
		p := "/brokers/ids/" + id
		m := obj(p)
		need(p, m, "version", isInt)
		need(p, m, "jmx_port", isInt)
		need(p, m, "endpoints", func(v any) bool { l, ok := v.([]any); return ok && len(l) > 0 })
		need(p, m, "listener_security_protocol_map", isMap)
		if v, _ := m["version"].(float64); v < 4 || v > 5 {
			t.Errorf("%s: registration version %v; Kafka 2.x brokers write 4 or 5", p, v)
		}
	}
	// ControllerZNode.decode: brokerid.
	m := obj("/controller")
	need("/controller", m, "brokerid", isInt)
	if s, _ := z.get("/controller_epoch"); func() bool { n, err := strconv.Atoi(s); return err != nil || n <= 7 }() {
		t.Errorf("/controller_epoch = %q, want an integer above Kafka's 7", s)
	}
	// TopicZNode.decode and TopicPartitionStateZNode.decode.
	for _, topic := range z.children("/brokers/topics") {
		p := "/brokers/topics/" + topic
		m := obj(p)
		need(p, m, "partitions", func(v any) bool {
			pm, ok := v.(map[string]any)
			for k, r := range pm {
				if _, err := strconv.Atoi(k); err != nil || !isIntList(r) {
					return false
				}
			}
			return ok && len(pm) > 0
		})
		for _, k := range []string{"adding_replicas", "removing_replicas"} {
			if v, ok := m[k]; ok && !isMap(v) {
				t.Errorf("%s: %s is %v", p, k, v)
			}
		}
		if id, ok := m["topic_id"]; ok && (!isString(id) || len(id.(string)) != 22) {
			t.Errorf("%s: topic_id %v", p, id)
		}
		for _, part := range z.children(p + "/partitions") {
			sp := p + "/partitions/" + part + "/state"
			s := obj(sp)
			for _, k := range []string{"leader", "leader_epoch", "controller_epoch"} {
				need(sp, s, k, isInt)
			}
			need(sp, s, "isr", isIntList)
		}
	}
	if m := obj("/brokers/topics/payments"); m != nil {
		if a, _ := json.Marshal(m["partitions"]); string(a) != `{"0":[2,3]}` {
			t.Errorf("payments after the reassignment: %s", a)
		}
		for _, k := range []string{"adding_replicas", "removing_replicas"} {
			if v, ok := m[k].(map[string]any); ok && len(v) != 0 {
				t.Errorf("payments %s still %v", k, v)
			}
		}
	}
	// ProducerIdBlockZNode: strings for the bounds.
	pb := obj("/latest_producer_id_block")
	need("/latest_producer_id_block", pb, "broker", isInt)
	need("/latest_producer_id_block", pb, "block_start", isString)
	need("/latest_producer_id_block", pb, "block_end", isString)
	// Untouched: /feature (kafgo finalises no features) and the ACLs.
	if f, _ := z.get("/feature"); f != `{"features":{},"version":1,"status":1}` {
		t.Errorf("/feature = %s", f)
	}
	if a, _ := z.get("/kafka-acl-extended/prefixed/Group/app-"); !strings.Contains(a, `"principal":"User:alice"`) {
		t.Errorf("prefixed ACL znode = %s", a)
	}
	// ConfigEntityChangeNotificationSequenceZNode: what kafgo writes is
	// version 2 with entity_path.
	for _, n := range z.children("/config/changes") {
		p := "/config/changes/" + n
		m := obj(p)
		if v, _ := m["version"].(float64); v == 2 {
			need(p, m, "entity_path", isString)
		}
	}
}
