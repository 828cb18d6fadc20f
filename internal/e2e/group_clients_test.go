package e2e

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// checkCommittedToEnd: the group's committed offsets are the topic's end
// offsets, as an OffsetFetch (kadm) reads them.
func checkCommittedToEnd(t *testing.T, c *testcluster.Cluster, group, topic string) {
	t.Helper()
	adm := c.Admin()
	ends := groupEndOffsets(t, adm, topic)
	testwait.For(t, 20*time.Second, group+" committed to the end", func() (bool, string) {
		got := groupCommitted(t, adm, group, topic)
		return maps.Equal(got, ends), fmt.Sprintf("committed %v, end offsets %v", got, ends)
	})
}

// TestGroupKcat: kcat's balanced consumer (-G, librdkafka) joins a group,
// consumes the whole topic and commits on its way out; a second run of the
// same group finds nothing left.
func TestGroupKcat(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	const topic, group, n = "kcat-group", "kcat-g", 300
	groupCreateTopic(t, c, topic, 3, 1)
	groupProduce(t, c, topic, n)
	args := []string{"-b", c.Bootstrap(), "-G", group, "-X", "auto.offset.reset=earliest", "-X", "auto.commit.interval.ms=200", "-e", "-q", topic}
	out := kcat(t, "", args...)
	lines := strings.Fields(out)
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(lines) != n || len(seen) != n {
		t.Fatalf("kcat -G consumed %d records (%d distinct), want %d", len(lines), len(seen), n)
	}
	checkCommittedToEnd(t, c, group, topic)
	if again := kcat(t, "", args...); strings.TrimSpace(again) != "" {
		t.Fatalf("a second run of the group consumed again:\n%s", again)
	}
}

// TestGroupKafkaPython: kafka-python's KafkaConsumer with a group_id (it
// picks JoinGroup, SyncGroup, OffsetCommit... versions from the release it
// infers) consumes everything and commits.
func TestGroupKafkaPython(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	const topic, group, n = "py-group", "py-g", 300
	groupCreateTopic(t, c, topic, 3, 1)
	groupProduce(t, c, topic, n)
	out := runPython(t, `
import sys
from kafka import KafkaConsumer
c = KafkaConsumer(sys.argv[2], bootstrap_servers=sys.argv[1], group_id=sys.argv[3],
                  auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=20000)
vals = set()
for m in c:
    vals.add(m.value)
    if len(vals) == int(sys.argv[4]):
        break
c.commit()
print("consumed", len(vals))
print("assigned", len(c.assignment()))
c.close()
`, c.Bootstrap(), topic, group, fmt.Sprint(n))
	for _, want := range []string{fmt.Sprintf("consumed %d", n), "assigned 3"} {
		if !strings.Contains(out, want) {
			t.Fatalf("kafka-python output lacks %q:\n%s", want, out)
		}
	}
	checkCommittedToEnd(t, c, group, topic)
}

type saramaHandler struct {
	mu    sync.Mutex
	seen  map[string]bool
	want  int
	done  chan struct{}
	once  sync.Once
	setup int
}

func (h *saramaHandler) Setup(sarama.ConsumerGroupSession) error {
	h.mu.Lock()
	h.setup++
	h.mu.Unlock()
	return nil
}

func (h *saramaHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *saramaHandler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		s.MarkMessage(m, "")
		h.mu.Lock()
		h.seen[string(m.Value)] = true
		full := len(h.seen) >= h.want
		h.mu.Unlock()
		if full {
			s.Commit()
			h.once.Do(func() { close(h.done) })
		}
	}
	return nil
}

// TestGroupSarama: sarama's ConsumerGroup at several protocol versions
// (each picks different JoinGroup/SyncGroup/OffsetCommit versions, down to
// JoinGroup v1 and OffsetCommit v2 for 0.11; 2.4 as a static member)
// consumes a topic and commits. (0.11 is the oldest: older sarama fetches
// with Fetch v3, before RecordBatch v2, which kafgo does not serve.)
func TestGroupSarama(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	cases := []struct {
		name     string
		version  sarama.KafkaVersion
		instance string
		strategy sarama.BalanceStrategy
	}{
		{"0.11 range", sarama.V0_11_0_0, "", sarama.NewBalanceStrategyRange()},
		{"2.1 roundrobin", sarama.V2_1_0_0, "", sarama.NewBalanceStrategyRoundRobin()},
		{"2.4 static sticky", sarama.V2_4_0_0, "sarama-instance", sarama.NewBalanceStrategySticky()},
		{"3.2", sarama.V3_2_0_0, "", sarama.NewBalanceStrategyRange()},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topic, group := fmt.Sprintf("sarama-%d", i), fmt.Sprintf("sarama-g-%d", i)
			const n = 300
			groupCreateTopic(t, c, topic, 3, 1)
			groupProduce(t, c, topic, n)
			cfg := sarama.NewConfig()
			cfg.Version = tc.version
			cfg.ClientID = "sarama-test"
			cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
			cfg.Consumer.Offsets.AutoCommit.Interval = 200 * time.Millisecond
			cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{tc.strategy}
			cfg.Consumer.Group.InstanceId = tc.instance
			g, err := sarama.NewConsumerGroup(c.Addrs(), group, cfg)
			if err != nil {
				t.Fatal(err)
			}
			h := &saramaHandler{seen: map[string]bool{}, want: n, done: make(chan struct{})}
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				for ctx.Err() == nil {
					if err := g.Consume(ctx, []string{topic}, h); err != nil {
						errc <- err
						return
					}
				}
				errc <- nil
			}()
			select {
			case <-h.done:
			case err := <-errc:
				t.Fatalf("sarama consume: %v", err)
			case <-time.After(60 * time.Second):
				h.mu.Lock()
				t.Fatalf("sarama consumed %d of %d", len(h.seen), n)
			}
			cancel()
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			checkCommittedToEnd(t, c, group, topic)
		})
	}
}
