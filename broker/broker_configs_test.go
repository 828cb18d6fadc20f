package broker

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/broker/config"
	"kafgo/broker/partid"
	"kafgo/internal/testing/testwait"
)

// startEmbedded runs one broker in this process on the embedded metadata
// store, on a free 127.0.0.1 port, stopped when the test ends.
func startEmbedded(t *testing.T) (*Broker, *kadm.Client) {
	t.Helper()
	cfg, err := config.Load("", map[string]string{
		"broker.id":                        "1",
		"listeners":                        "PLAINTEXT://127.0.0.1:0",
		"log.dirs":                         t.TempDir(),
		"offsets.topic.replication.factor": "1",
	})
	if err != nil {
		t.Fatal(err)
	}
	b := New(cfg, quietLogger())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr("PLAINTEXT").String()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return b, kadm.NewClient(cl)
}

// partitionRetention waits for the broker to serve tp and returns the
// retention.ms its log obeys.
func partitionRetention(t *testing.T, b *Broker, tp partid.TopicPartition) int64 {
	t.Helper()
	testwait.Until(t, 30*time.Second, "partition "+tp.String()+" served", func() bool {
		_, ok := b.replicas.Partition(tp)
		return ok
	})
	p, _ := b.replicas.Partition(tp)
	return p.Config().Log.RetentionMs
}

func TestBrokerRecreatedTopicStartsFromDefaults(t *testing.T) {
	b, adm := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tp := partid.TopicPartition{Topic: "again", Partition: 0}
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("3600000")}, tp.Topic); err != nil {
		t.Fatal(err)
	}
	if got := partitionRetention(t, b, tp); got != 3600000 {
		t.Fatalf("retention %d, want the override 3600000", got)
	}

	if _, err := adm.DeleteTopics(ctx, tp.Topic); err != nil {
		t.Fatal(err)
	}
	// Its partition gone, the broker keeps none of its overrides.
	testwait.Until(t, 30*time.Second, "partition "+tp.String()+" deleted", func() bool {
		_, ok := b.replicas.Partition(tp)
		return !ok
	})
	b.topics.mu.RLock()
	kept, ok := b.topics.overrides[tp.Topic]
	b.topics.mu.RUnlock()
	if ok {
		t.Errorf("deleted topic's overrides still kept: %v", kept)
	}
	testwait.For(t, 30*time.Second, "the topic created again", func() (bool, string) {
		resp, err := adm.CreateTopic(ctx, 1, 1, nil, tp.Topic)
		if err == nil {
			err = resp.Err
		}
		if errors.Is(err, kerr.TopicAlreadyExists) {
			return false, err.Error() // the deletion is not complete yet
		}
		if err != nil {
			t.Fatal(err)
		}
		return true, ""
	})
	if got := partitionRetention(t, b, tp); got != defaultRetentionMs {
		t.Fatalf("re-created topic: retention %d, want the default %d", got, defaultRetentionMs)
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, tp.Topic)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On(tp.Topic, nil)
	if err == nil {
		err = rc.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rc.Configs {
		if c.Source == 1 { // DYNAMIC_TOPIC_CONFIG
			t.Errorf("re-created topic described with the override %s=%s", c.Key, c.MaybeValue())
		}
	}
}

// TestBrokerDescribesItsConfigChangesAtOnce: a dynamic broker config and a
// topic config, altered and described at once, show the new value (the
// change notification that updates the running broker comes later).
func TestBrokerDescribesItsConfigChangesAtOnce(t *testing.T) {
	_, adm := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		v := strconv.Itoa(1_000_000 + i)
		alter := []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "leader.replication.throttled.rate", Value: &v}}
		resps, err := adm.AlterBrokerConfigs(ctx, alter, 1)
		if err == nil {
			err = resps[0].Err
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := describedValue(t, ctx, adm, 1, "", "leader.replication.throttled.rate"); got != v {
			t.Fatalf("broker config described as %s right after setting %s", got, v)
		}
		ms := strconv.Itoa(3_600_000 + i)
		resps, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &ms}}, "t")
		if err == nil {
			err = resps[0].Err
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := describedValue(t, ctx, adm, -1, "t", "retention.ms"); got != ms {
			t.Fatalf("topic config described as %s right after setting %s", got, ms)
		}
	}
}

// describedValue describes one key of broker id (or, with id < 0, of topic).
func describedValue(t *testing.T, ctx context.Context, adm *kadm.Client, id int32, topic, key string) string {
	t.Helper()
	var rcs kadm.ResourceConfigs
	var err error
	name := topic
	if id >= 0 {
		rcs, err = adm.DescribeBrokerConfigs(ctx, id)
		name = strconv.Itoa(int(id))
	} else {
		rcs, err = adm.DescribeTopicConfigs(ctx, topic)
	}
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On(name, nil)
	if err == nil {
		err = rc.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rc.Configs {
		if c.Key == key {
			return c.MaybeValue()
		}
	}
	t.Fatalf("%s not described", key)
	return ""
}
