package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// TestSecurityClusterReplicatesOverSASLSSL: three brokers on ZooKeeper
// whose inter-broker listener is SASL_SSL with SCRAM-SHA-512, clients on
// SASL_SSL too. The brokers' own SCRAM user is made before any broker runs
// with kafgo configs --zookeeper, as a Kafka operator makes it with
// kafka-configs.sh --zookeeper (nothing else could: no broker can serve
// AlterUserScramCredentials before the brokers can authenticate to each
// other). Replication, controller requests and ISR changes all cross TLS
// and SASL: a follower that could not authenticate would never join the
// ISR. An acks=all producer keeps writing while a broker is killed -9 and
// restarted; every acknowledged record is read back and the restarted
// broker rejoins the ISR.
func TestSecurityClusterReplicatesOverSASLSSL(t *testing.T) {
	f := newSecFixture(t)
	cfg := f.brokerTLS()
	for k, v := range map[string]string{
		"inter.broker.listener.name":                            "SASL_SSL",
		"sasl.enabled.mechanisms":                               "SCRAM-SHA-512,PLAIN",
		"sasl.mechanism.inter.broker.protocol":                  "SCRAM-SHA-512",
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="broker-secret";`,
		"listener.name.sasl_ssl.plain.sasl.jaas.config":         plainUsers,
		"min.insync.replicas":                                   "2",
		"zookeeper.session.timeout.ms":                          "4000",
		"replica.lag.time.max.ms":                               "3000",
	} {
		cfg[k] = v
	}
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: cfg,
		Listeners: []testcluster.Listener{{Name: "SASL_SSL", Protocol: "SASL_SSL"}},
		BeforeBrokers: func(zk *testcluster.ZooKeeper) {
			out := kafgo(t, "", "configs", "--zookeeper", zk.Connect(), "--alter", "--add-config", "SCRAM-SHA-512=[password=broker-secret]", "--entity-type", "users", "--entity-name", "broker")
			if !strings.HasSuffix(out, "Completed updating config for entity: user-principal 'broker'.\n") {
				t.Fatalf("kafgo configs --zookeeper: %q", out)
			}
		},
	})
	addrs := c.ListenerAddrs("SASL_SSL")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// The application's user, made with kafgo configs over SASL_SSL.
	admin := f.props(t, "admin.properties", f.saslSSLProps("PLAIN", "admin", "admin-secret"))
	kafgo(t, "", "configs", "--bootstrap-server", addrs[0], "--command-config", admin, "--user", "app", "--alter", "--add-config", "SCRAM-SHA-512=[password=app-secret]")
	app := []kgo.Opt{f.tlsOpt(false), kgo.SASL(scramMech("SCRAM-SHA-512", "app", "app-secret"))}
	// What the brokers wrote, the ZooKeeper mode reads.
	if out := kafgo(t, "", "configs", "--zookeeper", c.ZK.Connect(), "--describe", "--entity-type", "users", "--entity-name", "app"); !strings.Contains(out, "Configs for user-principal 'app' are SCRAM-SHA-512=salt=") {
		t.Fatalf("kafgo configs --zookeeper --describe: %q", out)
	}

	const topic, parts = "secure-rf3", 3
	kafgo(t, "", "topics", "--bootstrap-server", addrs[1], "--command-config", admin, "--create", "--topic", topic, "--partitions", fmt.Sprint(parts), "--replication-factor", "3")
	plain := c.Client()
	waitFullISR(t, ctx, plain, topic, parts)

	// Produce acks=all (idempotent) in the background through a kill -9 and
	// a restart of broker 2.
	pcl := secureClient(t, addrs, append(app, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))...)
	var mu sync.Mutex
	acked := map[string]bool{}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			v := fmt.Sprintf("v%05d", i)
			pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
			err := pcl.ProduceSync(pctx, kgo.StringRecord(v)).FirstErr()
			pcancel()
			if err == nil {
				mu.Lock()
				acked[v] = true
				mu.Unlock()
			}
		}
	}()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	testwait.Until(t, time.Minute, "records acknowledged before the kill", func() bool { return count() >= 200 })
	victim := c.Broker(2)
	victim.Kill()
	before := count()
	testwait.Until(t, time.Minute, "records acknowledged with a broker down", func() bool { return count() >= before+200 })
	victim.Start()
	waitFullISR(t, ctx, plain, topic, parts)
	after := count()
	testwait.Until(t, time.Minute, "records acknowledged after the restart", func() bool { return count() >= after+200 })
	close(stop)
	<-done

	// Every acknowledged record is there, read over SASL_SSL.
	mu.Lock()
	want := len(acked)
	mu.Unlock()
	ccl := secureClient(t, addrs, append(app, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	seen := map[string]bool{}
	end := time.Now().Add(2 * time.Minute)
	for {
		mu.Lock()
		missing := 0
		for v := range acked {
			if !seen[v] {
				missing++
			}
		}
		mu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%d of %d acknowledged records missing", missing, want)
		}
		fctx, fcancel := context.WithTimeout(ctx, 5*time.Second)
		fs := ccl.PollFetches(fctx)
		fcancel()
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)] = true })
	}
	waitFullISR(t, ctx, plain, topic, parts)
	t.Logf("%d acknowledged records, all read back; broker 2 back in every ISR", want)
}
