package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/adminapi"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestConfigChangesShowOnEveryBrokerAtOnce: a config changed through one
// broker is described by any other right away (Kafka 2.x reads ZooKeeper on
// describe), incremental changes made through different brokers build on
// each other, and a new cluster-wide or per-broker dynamic default shows in
// the next describe.
func TestConfigChangesShowOnEveryBrokerAtOnce(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := c.Client()
	for _, topic := range []string{"ryw", "plain"} {
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 3, nil, topic); err != nil {
			t.Fatalf("create %s: %v", topic, err)
		}
	}
	ids := []int32{1, 2, 3}

	// Each change through one broker, described at once through the next.
	for i := range 9 {
		via, on := ids[i%3], ids[(i+1)%3]
		v := strconv.Itoa(3_600_000 + i)
		setConfigOn(t, ctx, cl, via, kmsg.ConfigResourceTypeTopic, "ryw", "retention.ms", v)
		got := describeOn(t, ctx, cl, on, kmsg.ConfigResourceTypeTopic, "ryw")
		checkConfig(t, on, got, "retention.ms", v, kmsg.ConfigSourceDynamicTopicConfig)
	}

	// Incremental changes through different brokers keep each other.
	setConfigOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeTopic, "ryw", "segment.ms", "7200000")
	setConfigOn(t, ctx, cl, 2, kmsg.ConfigResourceTypeTopic, "ryw", "cleanup.policy", "compact")
	setConfigOn(t, ctx, cl, 3, kmsg.ConfigResourceTypeTopic, "ryw", "min.insync.replicas", "2")
	for _, on := range ids {
		got := describeOn(t, ctx, cl, on, kmsg.ConfigResourceTypeTopic, "ryw")
		checkConfig(t, on, got, "retention.ms", "3600008", kmsg.ConfigSourceDynamicTopicConfig)
		checkConfig(t, on, got, "segment.ms", "7200000", kmsg.ConfigSourceDynamicTopicConfig)
		checkConfig(t, on, got, "cleanup.policy", "compact", kmsg.ConfigSourceDynamicTopicConfig)
		checkConfig(t, on, got, "min.insync.replicas", "2", kmsg.ConfigSourceDynamicTopicConfig)
	}

	// The legacy AlterConfigs replaces the whole set.
	replaceConfigsOn(t, ctx, cl, 2, kmsg.ConfigResourceTypeTopic, "ryw", map[string]string{"retention.ms": "5400000"})
	got := describeOn(t, ctx, cl, 3, kmsg.ConfigResourceTypeTopic, "ryw")
	checkConfig(t, 3, got, "retention.ms", "5400000", kmsg.ConfigSourceDynamicTopicConfig)
	checkConfig(t, 3, got, "cleanup.policy", "delete", kmsg.ConfigSourceDefaultConfig)

	// A cluster-wide dynamic default set through broker 1 shows on every
	// broker's own resource and in every topic that does not override it.
	setConfigOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeBroker, "", "log.retention.ms", "4500000")
	for _, on := range ids {
		got := describeOn(t, ctx, cl, on, kmsg.ConfigResourceTypeBroker, strconv.Itoa(int(on)))
		checkConfig(t, on, got, "log.retention.ms", "4500000", kmsg.ConfigSourceDynamicDefaultBrokerConfig)
		got = describeOn(t, ctx, cl, on, kmsg.ConfigResourceTypeTopic, "plain")
		checkConfig(t, on, got, "retention.ms", "4500000", kmsg.ConfigSourceDynamicDefaultBrokerConfig)
	}
	// A broker's own dynamic config (sent to that broker, as clients do).
	for _, on := range ids {
		v := strconv.Itoa(1_000_000 + int(on))
		setConfigOn(t, ctx, cl, on, kmsg.ConfigResourceTypeBroker, strconv.Itoa(int(on)), "follower.replication.throttled.rate", v)
		got := describeOn(t, ctx, cl, on, kmsg.ConfigResourceTypeBroker, strconv.Itoa(int(on)))
		checkConfig(t, on, got, "follower.replication.throttled.rate", v, kmsg.ConfigSourceDynamicBrokerConfig)
	}

	// The configs tool, altering through one broker and describing
	// through another.
	for i, via := range ids {
		on := ids[(i+1)%3]
		v := strconv.Itoa(1_800_000 + i)
		kafgo(t, "", "configs", "--bootstrap-server="+c.Broker(via).Addr(), "--topic", "ryw", "--alter", "--add-config", "retention.ms="+v)
		if out := kafgo(t, "", "configs", "--bootstrap-server="+c.Broker(on).Addr(), "--topic", "ryw", "--describe"); !strings.Contains(out, "  retention.ms="+v+" ") {
			t.Fatalf("altered through broker %d, described through broker %d:\n%s", via, on, out)
		}
	}
}

// TestRecreatedTopicStartsFromBrokerDefaults: a topic deleted and created
// again under the same name has none of the old topic's overrides, neither
// in DescribeConfigs nor in what its partitions obey, on every broker.
func TestRecreatedTopicStartsFromBrokerDefaults(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	checkRecreatedTopicStartsFromDefaults(t, c, 3)
}

// TestEmbeddedConfigsReadYourWritesAndRecreate is the single broker on the
// embedded metadata store: a change is described at once, and a re-created
// topic starts from the defaults.
func TestEmbeddedConfigsReadYourWritesAndRecreate(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := c.Client()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "ryw"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		v := strconv.Itoa(3_600_000 + i)
		setConfigOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeTopic, "ryw", "retention.ms", v)
		checkConfig(t, 1, describeOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeTopic, "ryw"), "retention.ms", v, kmsg.ConfigSourceDynamicTopicConfig)

		v = strconv.Itoa(2_000_000 + i)
		setConfigOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeBroker, "1", "leader.replication.throttled.rate", v)
		checkConfig(t, 1, describeOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeBroker, "1"), "leader.replication.throttled.rate", v, kmsg.ConfigSourceDynamicBrokerConfig)

		v = strconv.Itoa(4_000_000 + i)
		setConfigOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeBroker, "", "log.retention.ms", v)
		checkConfig(t, 1, describeOn(t, ctx, cl, 1, kmsg.ConfigResourceTypeBroker, "1"), "log.retention.ms", v, kmsg.ConfigSourceDynamicDefaultBrokerConfig)
	}
	checkRecreatedTopicStartsFromDefaults(t, c, 1)
}

// checkRecreatedTopicStartsFromDefaults creates a topic with small
// segment.bytes and max.message.bytes overrides (one at creation, one
// altered later), waits until every leader refuses a record over the
// override, deletes the topic, creates it again without configs, and checks
// on every broker: DescribeConfigs shows the defaults, the leaders take the
// large record, and the replicas keep 20 small records in one segment.
func checkRecreatedTopicStartsFromDefaults(t *testing.T, c *testcluster.Cluster, rf int16) {
	t.Helper()
	const topic, parts = "again", 3
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	producerOpts := []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RecordRetries(3), kgo.ProducerBatchCompression(kgo.NoCompression())}
	cl := c.Client(producerOpts...)
	adm := kadm.NewClient(cl)
	resp, err := adm.CreateTopic(ctx, parts, rf, map[string]*string{"segment.bytes": kgoStr("1024")}, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	setConfigOn(t, ctx, cl, c.Brokers()[0].ID, kmsg.ConfigResourceTypeTopic, topic, "max.message.bytes", "2048")
	big := make([]byte, 4096)
	testwait.For(t, 30*time.Second, "every leader refusing a record over max.message.bytes", func() (bool, string) {
		for p := int32(0); p < parts; p++ {
			err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: big}).FirstErr()
			if !errors.Is(err, kerr.MessageTooLarge) {
				return false, fmt.Sprintf("partition %d: %v", p, err)
			}
		}
		return true, ""
	})

	if _, err := adm.DeleteTopics(ctx, topic); err != nil {
		t.Fatalf("delete: %v", err)
	}
	testwait.For(t, 60*time.Second, "the topic created again once its deletion completed", func() (bool, string) {
		resp, err := adm.CreateTopic(ctx, parts, rf, nil, topic)
		if err == nil {
			err = resp.Err
		}
		if errors.Is(err, kerr.TopicAlreadyExists) {
			return false, err.Error()
		}
		if err != nil {
			t.Fatalf("create again: %v", err)
		}
		return true, ""
	})

	for _, b := range c.Brokers() {
		// A broker may answer UNKNOWN_TOPIC_OR_PARTITION until it hears of
		// the new topic (as Kafka's, which looks in its metadata cache);
		// what it must never answer is the old topic's overrides.
		var got map[string]kmsg.DescribeConfigsResponseResourceConfig
		testwait.For(t, 30*time.Second, fmt.Sprintf("broker %d describing the new topic", b.ID), func() (bool, string) {
			var err error
			got, err = describeOnE(ctx, cl, b.ID, kmsg.ConfigResourceTypeTopic, topic)
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return false, err.Error()
			}
			if err != nil {
				t.Fatal(err)
			}
			return true, ""
		})
		for name, c := range got {
			if c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				t.Errorf("broker %d: the re-created topic has the override %s=%v", b.ID, name, strPtr(c.Value))
			}
		}
		checkConfig(t, b.ID, got, "segment.bytes", "1073741824", kmsg.ConfigSourceDefaultConfig)
		checkConfig(t, b.ID, got, "max.message.bytes", "1048588", kmsg.ConfigSourceDefaultConfig)
	}
	if t.Failed() {
		t.FailNow()
	}

	// franz-go fails a topic re-created under a client that produced to the
	// old one (UNKNOWN_TOPIC_ID), so a new client produces.
	cl = c.Client(producerOpts...)
	testwait.For(t, 60*time.Second, "every partition taking a record over the old max.message.bytes", func() (bool, string) {
		for p := int32(0); p < parts; p++ {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: big}).FirstErr(); err != nil {
				if errors.Is(err, kerr.MessageTooLarge) {
					t.Fatalf("partition %d still obeys the deleted topic's max.message.bytes: %v", p, err)
				}
				return false, fmt.Sprintf("partition %d: %v", p, err) // no leader yet
			}
		}
		return true, ""
	})
	small := make([]byte, 200)
	for p := int32(0); p < parts; p++ {
		for range 20 {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: small}).FirstErr(); err != nil {
				t.Fatalf("produce to partition %d: %v", p, err)
			}
		}
	}
	// Every replica, leader and follower, holds the 21 records; with the
	// old segment.bytes=1024 they would span several segments.
	for _, b := range c.Brokers() {
		testwait.For(t, 60*time.Second, fmt.Sprintf("broker %d holding all the records", b.ID), func() (bool, string) {
			leos, err := adminLEOs(b, topic)
			if err != nil {
				return false, err.Error()
			}
			for p := int32(0); p < parts; p++ {
				if leos[p] != 21 {
					return false, fmt.Sprint(leos)
				}
			}
			return true, ""
		})
		for p := range parts {
			dir := filepath.Join(b.DataDir(), fmt.Sprintf("%s-%d", topic, p))
			if n, size := segmentFiles(t, dir); n != 1 {
				t.Errorf("broker %d %s: %d segments (%d bytes), want 1: the deleted topic's segment.bytes applies", b.ID, filepath.Base(dir), n, size)
			}
		}
	}
}

// adminLEOs reads the log end offsets of a topic's partitions that broker
// b hosts from its admin endpoint.
func adminLEOs(b *testcluster.Broker, topic string) (map[int32]int64, error) {
	parts, err := adminPartitions(b)
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	for _, p := range parts {
		if p.Topic == topic {
			out[p.Partition] = p.LogEndOffset
		}
	}
	return out, nil
}

// adminPartitions reads the replicas broker b hosts from its admin
// endpoint.
func adminPartitions(b *testcluster.Broker) ([]adminapi.Partition, error) {
	hc := http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get("http://" + b.AdminAddr() + adminapi.PartitionsPath)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var parts []adminapi.Partition
	if err := json.NewDecoder(resp.Body).Decode(&parts); err != nil {
		return nil, err
	}
	return parts, nil
}

// describeOn asks broker id itself (not any broker) for a resource's
// configs.
func describeOn(t *testing.T, ctx context.Context, cl *kgo.Client, id int32, typ kmsg.ConfigResourceType, name string) map[string]kmsg.DescribeConfigsResponseResourceConfig {
	t.Helper()
	out, err := describeOnE(ctx, cl, id, typ, name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// describeOnE is describeOn returning the error.
func describeOnE(ctx context.Context, cl *kgo.Client, id int32, typ kmsg.ConfigResourceType, name string) (map[string]kmsg.DescribeConfigsResponseResourceConfig, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = typ, name
	req.Resources = append(req.Resources, r)
	kresp, err := cl.Broker(int(id)).Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("describe %s on broker %d: %w", name, id, err)
	}
	resp := kresp.(*kmsg.DescribeConfigsResponse)
	if len(resp.Resources) != 1 {
		return nil, fmt.Errorf("describe %s on broker %d: %d resources", name, id, len(resp.Resources))
	}
	if err := kerr.ErrorForCode(resp.Resources[0].ErrorCode); err != nil {
		return nil, fmt.Errorf("describe %s on broker %d: %w (%s)", name, id, err, strPtr(resp.Resources[0].ErrorMessage))
	}
	out := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
	for _, c := range resp.Resources[0].Configs {
		out[c.Name] = c
	}
	return out, nil
}

// setConfigOn sets one key with IncrementalAlterConfigs sent to broker id.
func setConfigOn(t *testing.T, ctx context.Context, cl *kgo.Client, id int32, typ kmsg.ConfigResourceType, name, key, value string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = typ, name
	op := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	op.Name, op.Op, op.Value = key, kmsg.IncrementalAlterConfigOpSet, kmsg.StringPtr(value)
	r.Configs = append(r.Configs, op)
	req.Resources = append(req.Resources, r)
	kresp, err := cl.Broker(int(id)).Request(ctx, req)
	if err != nil {
		t.Fatalf("set %s=%s on %q through broker %d: %v", key, value, name, id, err)
	}
	res := kresp.(*kmsg.IncrementalAlterConfigsResponse).Resources
	if len(res) != 1 || res[0].ErrorCode != 0 {
		t.Fatalf("set %s=%s on %q through broker %d: %+v", key, value, name, id, res)
	}
}

// replaceConfigsOn replaces a resource's overrides with the legacy
// AlterConfigs sent to broker id.
func replaceConfigsOn(t *testing.T, ctx context.Context, cl *kgo.Client, id int32, typ kmsg.ConfigResourceType, name string, configs map[string]string) {
	t.Helper()
	req := kmsg.NewPtrAlterConfigsRequest()
	r := kmsg.NewAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = typ, name
	for k, v := range configs {
		c := kmsg.NewAlterConfigsRequestResourceConfig()
		c.Name, c.Value = k, kmsg.StringPtr(v)
		r.Configs = append(r.Configs, c)
	}
	req.Resources = append(req.Resources, r)
	kresp, err := cl.Broker(int(id)).Request(ctx, req)
	if err != nil {
		t.Fatalf("alter %q through broker %d: %v", name, id, err)
	}
	res := kresp.(*kmsg.AlterConfigsResponse).Resources
	if len(res) != 1 || res[0].ErrorCode != 0 {
		t.Fatalf("alter %q through broker %d: %+v", name, id, res)
	}
}

// checkConfig fails t unless the described key has value and source.
func checkConfig(t *testing.T, broker int32, got map[string]kmsg.DescribeConfigsResponseResourceConfig, key, value string, source kmsg.ConfigSource) {
	t.Helper()
	c, ok := got[key]
	if !ok {
		t.Fatalf("broker %d: %s not described", broker, key)
	}
	if strPtr(c.Value) != value || c.Source != source {
		t.Fatalf("broker %d: %s=%s (%v), want %s (%v)", broker, key, strPtr(c.Value), c.Source, value, source)
	}
}

func strPtr(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
