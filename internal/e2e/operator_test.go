package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// Tests of what an operator trying kafgo for the first time ran into
// (issue 16).

// TestPlannedShutdownLogsNoFetcherWarning: a clean stop (SIGTERM) moves
// leaderships away and stops the replica fetchers on the stopping broker
// and on the brokers that take over; the request a stopped fetcher had in
// flight ends with "context canceled". That is the plan working, not a
// warning, so no broker logs the fetcher's WARN for it.
func TestPlannedShutdownLogsNoFetcherWarning(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	kafgo(t, "", "topics", "--bootstrap-server", c.Bootstrap(), "--create", "--topic", "calm", "--partitions", "6", "--replication-factor", "3")
	waitFullISR(t, ctx, c.Client(), "calm", 6)
	c.Broker(3).Stop()
	c.Broker(2).Stop()
	for _, b := range c.Brokers() {
		for _, line := range strings.Split(b.LogTail(1<<20), "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, "replica fetcher") {
				t.Errorf("broker %d: %s", b.ID, line)
			}
		}
	}
}

// toolRun is one run of the binary: its output, exit code, and whether it
// had to be killed because it did not end by itself within its budget.
type toolRun struct {
	stdout, stderr string
	code           int
	killed         bool
}

func (r toolRun) String() string {
	return fmt.Sprintf("exit %d (killed %v)\nstdout:\n%s\nstderr:\n%s", r.code, r.killed, r.stdout, r.stderr)
}

// runTool runs the binary with stdin and kills it after budget.
func runTool(t *testing.T, budget time.Duration, stdin string, args ...string) toolRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	cmd := exec.CommandContext(ctx, testcluster.Binary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := toolRun{stdout: stdout.String(), stderr: stderr.String(), killed: ctx.Err() != nil}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("kafgo %v: %v", args, err)
	}
	return r
}

// authBroker is one broker with the ACL authorizer, a PLAINTEXT listener
// for the harness (User:ANONYMOUS, a super user) and a SASL_SSL one where
// alice logs in with PLAIN and has only the ACLs a test grants her.
type authBroker struct {
	c       *testcluster.Cluster
	addr    string // SASL_SSL
	alice   string // alice's client properties
	wrong   string // alice with a wrong password
	noSASL  string // TLS only, on the SASL_SSL port
	plainBS string // the harness's PLAINTEXT bootstrap
}

func newAuthBroker(t *testing.T) *authBroker {
	f := newSecFixture(t)
	cfg := f.brokerTLS()
	for k, v := range map[string]string{
		"authorizer.class.name":                         aclAuthorizer,
		"super.users":                                   "User:admin;User:ANONYMOUS",
		"sasl.enabled.mechanisms":                       "PLAIN",
		"listener.name.sasl_ssl.plain.sasl.jaas.config": plainUsers,
	} {
		cfg[k] = v
	}
	c := testcluster.Start(t, testcluster.Options{Config: cfg,
		Listeners: []testcluster.Listener{{Name: "SASL_SSL", Protocol: "SASL_SSL"}}})
	b := &authBroker{c: c, addr: c.ListenerAddrs("SASL_SSL")[0], plainBS: c.Bootstrap()}
	b.alice = f.props(t, "alice.properties", f.saslSSLProps("PLAIN", "alice", "alice-secret"))
	b.wrong = f.props(t, "wrong.properties", f.saslSSLProps("PLAIN", "alice", "not-her-password"))
	b.noSASL = f.props(t, "nosasl.properties", map[string]string{
		"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": f.files.Truststore})
	return b
}

// TestConsumerErrorsNameTopicAndGroup: a consumer refused by the
// authorizer says what was refused, the topic or the group, not a blank
// topic or a "partition -1".
func TestConsumerErrorsNameTopicAndGroup(t *testing.T) {
	b := newAuthBroker(t)
	kafgo(t, "", "topics", "--bootstrap-server", b.plainBS, "--create", "--topic", "audit", "--partitions", "2")
	kafgo(t, "a\nb\n", "produce", "--bootstrap-server", b.plainBS, "--topic", "audit")

	// No ACL at all: the topic is refused.
	for _, args := range [][]string{
		{"consume", "--consumer.config", b.alice, "--topic", "audit", "--from-beginning"},
		{"perf", "consume", "--consumer.config", b.alice, "--topic", "audit", "--messages", "2"},
	} {
		r := runTool(t, time.Minute, "", append(args, "--bootstrap-server", b.addr)...)
		if r.killed || r.code == 0 || !strings.Contains(r.stderr, "TOPIC_AUTHORIZATION_FAILED") ||
			!strings.Contains(r.stderr, "topic audit") || strings.Contains(r.stderr, "partition -1") {
			t.Errorf("%v: want TOPIC_AUTHORIZATION_FAILED naming topic audit; %v", args, r)
		}
	}

	// Read on the topic but not on the group: the group is refused.
	kafgo(t, "", "acls", "--bootstrap-server", b.plainBS, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "Describe", "--topic", "audit")
	for _, args := range [][]string{
		{"consume", "--consumer.config", b.alice, "--topic", "audit", "--from-beginning", "--group", "auditors"},
		{"perf", "consume", "--consumer.config", b.alice, "--topic", "audit", "--messages", "2", "--group", "auditors"},
	} {
		r := runTool(t, time.Minute, "", append(args, "--bootstrap-server", b.addr)...)
		if r.killed || r.code == 0 || !strings.Contains(r.stderr, "GROUP_AUTHORIZATION_FAILED") ||
			!strings.Contains(r.stderr, "group auditors") || strings.Contains(r.stderr, "consuming  ") {
			t.Errorf("%v: want GROUP_AUTHORIZATION_FAILED naming group auditors; %v", args, r)
		}
	}
}

// TestFatalClientErrorsEndEveryTool: the README's secure recipe promises
// that a client with a wrong password gets SASL_AUTHENTICATION_FAILED at
// once, and one without TLS is told so. Every client tool ends by itself,
// non-zero, with that error, the consumers included (they used to wait for
// ever, or until --timeout-ms, and exit 0 after "Processed a total of 0
// messages"), and so do they when SASL is missing or the broker was down
// when they started.
func TestFatalClientErrorsEndEveryTool(t *testing.T) {
	b := newAuthBroker(t)
	kafgo(t, "", "topics", "--bootstrap-server", b.plainBS, "--create", "--topic", "audit", "--partitions", "2")
	const budget = 20 * time.Second // far beyond "at once", far below "for ever"
	tools := func(props string) [][]string {
		with := func(flag string, args ...string) []string {
			if props == "" {
				return args
			}
			return append(args, flag, props)
		}
		return [][]string{
			with("--consumer.config", "consume", "--topic", "audit", "--from-beginning"),
			with("--consumer.config", "consume", "--topic", "audit", "--from-beginning", "--group", "auditors"),
			with("--consumer.config", "consume", "--include", "au.*"),
			with("--consumer.config", "perf", "consume", "--topic", "audit", "--messages", "10", "--timeout", "60000"),
			with("--producer.config", "produce", "--topic", "audit"),
			with("--producer.config", "perf", "produce", "--topic", "audit", "--num-records", "10", "--record-size", "10", "--throughput", "-1"),
			with("--command-config", "topics", "--list"),
			with("--command-config", "groups", "--list"),
			with("--command-config", "configs", "--entity-type", "topics", "--describe"),
			with("--command-config", "acls", "--list"),
			with("--command-config", "transactions", "list"),
			with("--command-config", "reassign-partitions", "--list"),
			with("--command-config", "tui", "--once"),
		}
	}
	for _, c := range []struct {
		name, props string
		want        []string // one of these in the output
		tools       int      // how many of tools() to run: all, or the clients
	}{
		{"wrong password", b.wrong, []string{"SASL_AUTHENTICATION_FAILED", "SASL Authentication failed"}, 13},
		{"no TLS", "", []string{"is TLS missing?"}, 6},
		{"no SASL", b.noSASL, []string{"is SASL missing?"}, 6},
	} {
		for _, args := range tools(c.props)[:c.tools] {
			r := runTool(t, budget, "a\nb\n", append(args, "--bootstrap-server", b.addr)...)
			said := false
			for _, w := range c.want {
				said = said || strings.Contains(r.stdout+r.stderr, w)
			}
			if r.killed || r.code == 0 || !said {
				t.Errorf("%s: %v: want a non-zero exit saying %q; %v", c.name, args, c.want, r)
			}
		}
	}

	// A consumer started while the broker is down waits for it, and ends
	// once the broker is up and refuses it.
	b.c.Broker(1).Stop()
	done := make(chan toolRun, 1)
	go func() {
		done <- runTool(t, 2*time.Minute, "", "consume", "--consumer.config", b.wrong, "--topic", "audit", "--bootstrap-server", b.addr)
	}()
	// Not synchronisation: started before or after the broker, the
	// consumer must end the same way; the pause makes "before" likely.
	time.Sleep(2 * time.Second)
	b.c.Broker(1).Start()
	r := <-done
	if r.killed || r.code == 0 || !strings.Contains(r.stderr, "SASL_AUTHENTICATION_FAILED") {
		t.Errorf("consumer started before the broker: want SASL_AUTHENTICATION_FAILED once it is up; %v", r)
	}
}

// TestProducersEndOnSignalWithBrokerGone: SIGINT to perf produce, or to
// produce, whose only broker has died ends it within delivery.timeout.ms
// (5 s here), perf produce with Kafka's summary line of what was
// acknowledged; both used to wait in their final flush for ever.
func TestProducersEndOnSignalWithBrokerGone(t *testing.T) {
	for _, tool := range []struct {
		name    string
		args    []string
		summary *regexp.Regexp // on stdout, when the tool prints one
	}{
		{"perf produce", []string{"perf", "produce", "--num-records", "1000000000", "--record-size", "100", "--throughput", "2000", "--producer-props", "delivery.timeout.ms=5000"},
			regexp.MustCompile(`(?m)^\d+ records sent, [0-9.]+ records/sec \([0-9.]+ MB/sec\), [0-9.]+ ms avg latency, [0-9.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99.9th.$`)},
		{"produce", []string{"produce", "--producer-property", "delivery.timeout.ms=5000"}, nil},
	} {
		t.Run(tool.name, func(t *testing.T) {
			c := testcluster.Start(t, testcluster.Options{})
			kafgo(t, "", "topics", "--bootstrap-server", c.Bootstrap(), "--create", "--topic", "load", "--partitions", "3")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, testcluster.Binary(t), append(tool.args, "--bootstrap-server", c.Bootstrap(), "--topic", "load")...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			typing := make(chan struct{})
			defer close(typing)
			go func() { // the console producer's input, until the test ends
				for i := 0; ; i++ {
					select {
					case <-typing:
						return
					case <-time.After(time.Millisecond):
					}
					if _, err := fmt.Fprintf(stdin, "line %d\n", i); err != nil {
						return
					}
				}
			}()
			adm := c.Admin()
			testwait.For(t, 30*time.Second, "records acknowledged", func() (bool, string) {
				ends, err := adm.ListEndOffsets(ctx, "load")
				if err != nil {
					return false, err.Error()
				}
				var n int64
				ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
				return n > 100, fmt.Sprintf("%d records", n)
			})
			c.Broker(1).Kill()
			time.Sleep(500 * time.Millisecond) // records sent meanwhile cannot be acknowledged
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(45 * time.Second): // 5 s of delivery timeout, and slack for a loaded machine
				_ = cmd.Process.Kill()
				<-exited
				t.Fatalf("still running 45 s after SIGINT with its broker gone\nstdout:\n%.2000s\nstderr:\n%.2000s", stdout.String(), stderr.String())
			}
			if tool.summary != nil && !tool.summary.MatchString(stdout.String()) {
				t.Fatalf("no summary after SIGINT:\nstdout:\n%s\nstderr:\n%.2000s", stdout.String(), stderr.String())
			}
		})
	}
}

// TestProducersBatchWithinTopicLimits: produce and perf produce batch up to
// the Java producer's batch.size (16384) and never beyond the topic's
// max.message.bytes, so a topic with a small limit takes every record that
// fits it (every batch of ~1 MB used to be refused); a record larger than
// the limit fails alone, with an error saying so; and a record larger than
// batch.size but within the limit is sent alone, in order, as Java sends it.
func TestProducersBatchWithinTopicLimits(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	bs := "--bootstrap-server=" + c.Bootstrap()
	kafgo(t, "", "topics", bs, "--create", "--topic", "small", "--partitions", "1", "--config", "max.message.bytes=4000")
	kafgo(t, "", "topics", bs, "--create", "--topic", "big", "--partitions", "1")
	line := strings.Repeat("x", 100)

	// Small records to the small topic, and one too large for it.
	var in strings.Builder
	for i := 0; i < 500; i++ {
		if i == 250 {
			in.WriteString(strings.Repeat("y", 5000) + "\n")
		}
		fmt.Fprintf(&in, "%03d%s\n", i, line)
	}
	r := runTool(t, time.Minute, in.String(), "produce", bs, "--topic", "small")
	wantErr := regexp.MustCompile(`^ERROR Error when sending message to topic small with key: null, value: 5000 bytes with error: MESSAGE_TOO_LARGE: .*The message is 50\d\d bytes when serialized which is larger than 4000, which is the value of the max.message.bytes configuration of topic small\.$`)
	if r.code == 0 || strings.Count(r.stderr, "ERROR Error when sending") != 1 || !wantErr.MatchString(strings.Split(r.stderr, "\n")[0]) {
		t.Errorf("produce to small: want the one record too large refused, with why; %v", r)
	}
	r = runTool(t, time.Minute, "", "perf", "produce", bs, "--topic", "small", "--num-records", "2000", "--record-size", "100", "--throughput", "-1")
	if r.code != 0 || !strings.Contains(r.stdout, "2000 records sent") {
		t.Errorf("perf produce of small records to small: %v", r)
	}
	r = runTool(t, time.Minute, "", "perf", "produce", bs, "--topic", "small", "--num-records", "3", "--record-size", "5000", "--throughput", "-1")
	if r.code == 0 || !strings.Contains(r.stderr, "Error producing record: MESSAGE_TOO_LARGE") || !strings.Contains(r.stderr, "max.message.bytes configuration of topic small") {
		t.Errorf("perf produce of records too large for small: %v", r)
	}
	ends, err := c.Admin().ListEndOffsets(context.Background(), "small")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := ends.Lookup("small", 0); o.Offset != 2500 {
		t.Errorf("small holds %d records, want the 500 + 2000 that fit", o.Offset)
	}

	// A record beyond batch.size but within the topic's limit goes alone,
	// in order; the other batches stay within batch.size.
	in.Reset()
	for i := 0; i < 400; i++ {
		if i == 200 {
			in.WriteString(strings.Repeat("z", 50000) + "\n")
		}
		fmt.Fprintf(&in, "%03d%s\n", i, line)
	}
	kafgo(t, in.String(), "produce", bs, "--topic", "big")
	got := kafgo(t, "", "consume", bs, "--topic", "big", "--from-beginning", "--max-messages", "401")
	if got != in.String() {
		t.Errorf("big read back differs from what was produced (%d bytes, want %d)", len(got), len(in.String()))
	}
	dump := kafgo(t, "", "dump-log-segments", "--files", c.Broker(1).DataDir()+"/big-0/00000000000000000000.log")
	batch := regexp.MustCompile(`count: (\d+) .* size: (\d+) `)
	batches := 0
	for _, l := range strings.Split(dump, "\n") {
		m := batch.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		batches++
		var count, size int
		fmt.Sscan(m[1], &count)
		fmt.Sscan(m[2], &size)
		if count > 1 && size > 16384 {
			t.Errorf("a batch of %d records is %d bytes, over batch.size 16384: %s", count, size, l)
		}
	}
	if batches < 3 {
		t.Errorf("big holds %d batches:\n%s", batches, dump)
	}
}

// TestConsumeGroupCommitsPastTransactionMarkers: a group's console consumer
// that has read every record of transactional partitions commits the
// consumer's position, past each partition's last commit marker, as
// Java's console consumer does, so the group's lag is 0; committing the
// last printed offset + 1 left a lag of 1 on every partition ending in a
// marker (groups --describe, the TUI, kafka_consumergroup_lag).
func TestConsumeGroupCommitsPastTransactionMarkers(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	bs := "--bootstrap-server=" + c.Bootstrap()
	kafgo(t, "", "topics", bs, "--create", "--topic", "ledger", "--partitions", "3")
	kafgo(t, "", "perf", "produce", bs, "--topic", "ledger", "--num-records", "300", "--record-size", "10",
		"--throughput", "-1", "--transactional-id", "ledger-loader", "--transaction-records", "100")
	ctx := context.Background()
	adm := c.Admin()
	ends, err := adm.ListEndOffsets(ctx, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct{ group, isolation string }{
		{"by-count", "read_uncommitted"}, // --max-messages: ends on the last record
		{"committed-only", "read_committed"},
	} {
		kafgo(t, "", "consume", bs, "--topic", "ledger", "--group", run.group, "--from-beginning",
			"--max-messages", "300", "--isolation-level", run.isolation)
		committed, err := adm.FetchOffsets(ctx, run.group)
		if err != nil {
			t.Fatal(err)
		}
		ends.Each(func(end kadm.ListedOffset) {
			got, _ := committed.Lookup("ledger", end.Partition)
			if got.At != end.Offset {
				t.Errorf("%s: ledger-%d committed at %d, log end %d: lag %d", run.group, end.Partition, got.At, end.Offset, end.Offset-got.At)
			}
		})
	}
}

// TestToolsConnectWithKafkasClientIDs: each tool connects with the client
// id Kafka's tool uses (the TUI with kafgo-tui), not kgo's "kgo" for all,
// so that brokers, quotas and groups --members tell them apart and a quota
// on one does not throttle the others; client.id in the tool's properties
// overrides it. The broker's quota sensors name the client ids seen.
func TestToolsConnectWithKafkasClientIDs(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	bs := "--bootstrap-server=" + c.Bootstrap()
	// A default client quota makes the broker keep a sensor per client id.
	kafgo(t, "", "configs", bs, "--entity-type", "clients", "--entity-default", "--alter", "--add-config", "request_percentage=100000")
	kafgo(t, "", "topics", bs, "--create", "--topic", "ids", "--partitions", "1")
	kafgo(t, "a\nb\n", "produce", bs, "--topic", "ids")
	kafgo(t, "", "consume", bs, "--topic", "ids", "--group", "g", "--from-beginning", "--max-messages", "2")
	kafgo(t, "", "consume", bs, "--topic", "ids", "--from-beginning", "--max-messages", "2", "--consumer-property", "client.id=my-reader")
	kafgo(t, "", "perf", "produce", bs, "--topic", "ids", "--num-records", "2", "--record-size", "10", "--throughput", "-1")
	kafgo(t, "", "perf", "consume", bs, "--topic", "ids", "--messages", "2")
	kafgo(t, "", "tui", bs, "--once")
	kafgo(t, "", "reassign-partitions", bs, "--list")
	want := []string{"adminclient-1", "console-producer", "console-consumer", "my-reader", "perf-producer-client", "perf-consumer-client", "kafgo-tui", "reassign-partitions-tool"}
	testwait.For(t, 30*time.Second, "every tool's client id among the broker's quota sensors", func() (bool, string) {
		resp, err := http.Get("http://" + c.Broker(1).AdminAddr() + "/v1/quotas")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		var sensors []struct {
			ClientID string `json:"client_id"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&sensors); err != nil {
			return false, err.Error()
		}
		seen := map[string]bool{}
		for _, s := range sensors {
			seen[s.ClientID] = true
		}
		var missing []string
		for _, id := range want {
			if !seen[id] {
				missing = append(missing, id)
			}
		}
		if seen["kgo"] {
			missing = append(missing, `(and "kgo" is there)`)
		}
		return len(missing) == 0, fmt.Sprintf("missing %v; seen %v", missing, seen)
	})
}

// TestTopicsDescribeConfigsAsKafka28: --describe's Configs: lists every
// config whose source is not DEFAULT_CONFIG, as Kafka 2.8's TopicCommand
// prints them (config.entries.filter(!_.isDefault)): the topic's own
// overrides, and the broker's static (server.properties) and dynamic
// configs behind a topic config, e.g. min.insync.replicas=2 from
// examples/cluster.yaml; --topics-with-overrides keeps the topics that
// have any.
func TestTopicsDescribeConfigsAsKafka28(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{"min.insync.replicas": "2"}})
	bs := "--bootstrap-server=" + c.Bootstrap()
	kafgo(t, "", "configs", bs, "--entity-type", "brokers", "--entity-default", "--alter", "--add-config", "log.segment.bytes=104857600")
	kafgo(t, "", "topics", bs, "--create", "--topic", "shown", "--partitions", "1", "--config", "retention.ms=3600000")
	want := regexp.MustCompile(`^Topic: shown\tTopicId: \S{22}\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: min.insync.replicas=2,retention.ms=3600000,segment.bytes=104857600\n\tTopic: shown\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\n$`)
	testwait.For(t, 30*time.Second, "the broker's configs in Configs:", func() (bool, string) {
		out := kafgo(t, "", "topics", bs, "--describe", "--topic", "shown")
		return want.MatchString(out), out
	})
	kafgo(t, "", "topics", bs, "--create", "--topic", "plain", "--partitions", "1")
	out := kafgo(t, "", "topics", bs, "--describe", "--topics-with-overrides")
	if !regexp.MustCompile(`(?m)^Topic: plain\t.*\tConfigs: min.insync.replicas=2,segment.bytes=104857600$`).MatchString(out) ||
		!strings.Contains(out, "Topic: shown\t") || strings.Contains(out, "\tPartition: ") {
		t.Errorf("--topics-with-overrides:\n%s", out)
	}
}
