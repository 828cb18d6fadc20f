package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// kafgoRun runs the binary under test and returns stdout, stderr and the
// exit status, failing the test only if it cannot run at all.
func kafgoRun(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testcluster.Binary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("kafgo %v: %v", args, err)
	return "", "", -1
}

// TestKafkaToolsAgainstCluster runs the tools of issue 21 part 3 against
// three ZooKeeper brokers and checks their output lines in Kafka's formats
// (each tool's exact formats are pinned by its package's goldens; here the
// point is that they are right against real brokers).
func TestKafkaToolsAgainstCluster(t *testing.T) {
	c, cl, ctx := startCluster3(t, nil)
	bs := "--bootstrap-server=" + c.Bootstrap()
	adm := kadm.NewClient(cl)

	t.Run("cluster-id", func(t *testing.T) {
		meta, err := adm.BrokerMetadata(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if out := kafgo(t, "", "cluster", "cluster-id", bs); out != "Cluster ID: "+meta.Cluster+"\n" {
			t.Fatalf("%q, cluster %q", out, meta.Cluster)
		}
		if out := kafgo(t, "", "cluster", "unregister", "-b", c.Bootstrap(), "--id", "3"); out != "The target cluster does not support the broker unregistration API.\n" {
			t.Fatalf("%q", out)
		}
	})

	t.Run("leader-election", func(t *testing.T) {
		// Preferred leader 2; with broker 2 down leadership moves to 1,
		// and stays there when it returns (no automatic rebalance yet).
		kafgo(t, "", "topics", bs, "--create", "--topic", "le", "--replica-assignment", "2:1:3,1:2:3")
		waitFullISR(t, ctx, cl, "le", 2)
		c.Broker(2).Stop()
		testwait.For(t, 30*time.Second, "le-0 led by another broker", func() (bool, string) {
			l := ledBy(t, ctx, cl, "le")[0]
			return l != 2 && l >= 0, fmt.Sprint(l)
		})
		c.Broker(2).Start()
		waitFullISR(t, ctx, cl, "le", 2)
		out, errOut, code := kafgoRun(t, "", "leader-election", bs, "--election-type", "preferred", "--all-topic-partitions")
		if code != 0 || out != "Successfully completed leader election (PREFERRED) for partitions le-0\n" {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		out, errOut, code = kafgoRun(t, "", "leader-election", bs, "--election-type", "PREFERRED", "--topic", "le", "--partition", "0")
		if code != 0 || out != "Valid replica already elected for partitions le-0\n" {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		file := writeTemp(t, "parts.json", `{"partitions": [{"topic": "le", "partition": 1}, {"topic": "nope", "partition": 0}]}`)
		out, errOut, code = kafgoRun(t, "", "leader-election", bs, "--election-type", "unclean", "--path-to-json-file", file)
		want := "Valid replica already elected for partitions le-1\n" +
			"Error completing leader election (UNCLEAN) for partition: nope-0: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: "
		if code != 1 || !strings.HasPrefix(out, want) || errOut != "1 replica(s) could not be elected\n" {
			t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
		}
		if l := ledBy(t, ctx, cl, "le")[0]; l != 2 {
			t.Fatalf("le-0 led by %d after the election, want its preferred replica 2", l)
		}
	})

	t.Run("delete-records and get-offsets", func(t *testing.T) {
		if _, err := adm.CreateTopic(ctx, 3, 3, nil, "dr"); err != nil {
			t.Fatal(err)
		}
		waitFullISR(t, ctx, cl, "dr", 3)
		pcl := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
		defer pcl.Close()
		for i := 0; i < 10; i++ {
			for p := int32(0); p < 2; p++ {
				r := &kgo.Record{Topic: "dr", Partition: p, Value: []byte("v"), Timestamp: time.UnixMilli(int64(1_000_000 + i*1000))}
				if err := pcl.ProduceSync(ctx, r).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
		}
		file := writeTemp(t, "offsets.json", `{"partitions":[{"topic":"dr","partition":0,"offset":4},{"topic":"dr","partition":1,"offset":-1},{"topic":"dr","partition":2,"offset":5}],"version":1}`)
		out := kafgo(t, "", "delete-records", bs, "--offset-json-file", file)
		want := "Executing records delete operation\nRecords delete operation completed:\n" +
			"partition: dr-0\tlow_watermark: 4\npartition: dr-1\tlow_watermark: 10\n" +
			"partition: dr-2\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server.\n"
		if out != want {
			t.Fatalf("delete-records:\n%s\nwant\n%s", out, want)
		}
		for _, c := range []struct{ args, want string }{
			{"--topic dr", "dr:0:10\ndr:1:10\ndr:2:0\n"},
			{"--topic dr --time earliest", "dr:0:4\ndr:1:10\ndr:2:0\n"},
			{"--topic-partitions dr:0 --time 1005500", "dr:0:6\n"},
			{"--topic dr --partitions 0 --time -3", "dr:0:9\n"},
		} {
			if out := kafgo(t, "", append([]string{"get-offsets", bs}, strings.Fields(c.args)...)...); out != c.want {
				t.Errorf("get-offsets %s:\n%s\nwant\n%s", c.args, out, c.want)
			}
		}
		if _, errOut, code := kafgoRun(t, "", "get-offsets", bs, "--topic", "nothing.*"); code != 1 || errOut != "Error occurred: Could not match any topic-partitions with the specified filters\n" {
			t.Fatalf("exit %d %q", code, errOut)
		}
	})

	t.Run("broker-api-versions", func(t *testing.T) {
		out := kafgo(t, "", "broker-api-versions", bs)
		for _, b := range c.Brokers() {
			head := fmt.Sprintf("%s (id: %d rack: null) -> (\n\t", b.Addr(), b.ID)
			i := strings.Index(out, head)
			if i < 0 {
				t.Fatalf("no block for broker %d:\n%s", b.ID, out)
			}
			block := out[i+len(head):]
			block = block[:strings.Index(block, "\n)\n")]
			entries := strings.Split(block, ",\n\t")
			entry := regexp.MustCompile(`^([A-Za-z]+)\((\d+)\): (UNSUPPORTED|\d+( to \d+)? \[(usable: \d+|unusable: node too (new|old))\])$`)
			for _, e := range entries {
				if !entry.MatchString(e) {
					t.Fatalf("broker %d entry %q", b.ID, e)
				}
			}
			for _, want := range []string{"Produce(0): ", "Fetch(1): ", "ApiVersions(18): 0 to ", "DescribeTopicPartitions(75): UNSUPPORTED"} {
				if !strings.Contains(block, want) {
					t.Errorf("broker %d lacks %q", b.ID, want)
				}
			}
		}
	})

	t.Run("replica-verification", func(t *testing.T) {
		cmd := exec.Command(testcluster.Binary(t), "replica-verification", "--broker-list", c.Bootstrap(), "--topics-include", "dr|le", "--report-interval-ms", "0", "--time", "-2")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		stamp := `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}`
		started := regexp.MustCompile(`^` + stamp + `: verification process is started$`)
		lag := regexp.MustCompile(`^` + stamp + `: max lag is (-?\d+) for partition (\S+) at offset (\d+) among 5 partitions$`)
		deadline := time.After(60 * time.Second)
		var seen []string
		for i := 0; ; i++ {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("tool ended:\n%s", strings.Join(seen, "\n"))
				}
				seen = append(seen, l)
				if i == 0 && !started.MatchString(l) {
					t.Fatalf("first line %q", l)
				}
				if m := lag.FindStringSubmatch(l); m != nil && m[1] == "0" {
					return // every replica verified up to its high watermark
				}
				if i > 0 && !lag.MatchString(l) {
					t.Fatalf("line %q", l)
				}
			case <-deadline:
				t.Fatalf("no round reached lag 0:\n%s", strings.Join(seen, "\n"))
			}
		}
	})

	t.Run("e2e-latency", func(t *testing.T) {
		out := kafgo(t, "", "e2e-latency", c.Bootstrap(), "latency", "1200", "all", "100")
		re := regexp.MustCompile(`^Topic "latency" does not exist\. Will create topic with 1 partition\(s\) and replication factor = 1\n` +
			`0\t\d+\.\d+(E-?\d+)?\n1000\t\d+\.\d+(E-?\d+)?\nAvg latency: \d+\.\d{4} ms\nPercentiles: 50th = \d+, 99th = \d+, 99\.9th = \d+\n$`)
		if !re.MatchString(out) {
			t.Fatalf("%s", out)
		}
	})

	t.Run("verifiable producer and consumer", func(t *testing.T) {
		if _, err := adm.CreateTopic(ctx, 3, 3, nil, "vt"); err != nil {
			t.Fatal(err)
		}
		waitFullISR(t, ctx, cl, "vt", 3)
		out := kafgo(t, "", "verifiable-producer", bs, "--topic", "vt", "--max-messages", "300", "--acks", "-1", "--value-prefix", "4", "--throughput", "1000")
		acked := map[string]bool{}
		var names []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("not JSON: %q", l)
			}
			names = append(names, ev["name"].(string))
			if ev["name"] == "producer_send_success" {
				acked[ev["value"].(string)] = true
			}
		}
		if len(acked) != 300 || names[0] != "startup_complete" || names[len(names)-2] != "shutdown_complete" || names[len(names)-1] != "tool_data" {
			t.Fatalf("%d acked; events %v", len(acked), names[:3])
		}
		if !strings.HasSuffix(out, "\"sent\":300,\"acked\":300,\"target_throughput\":1000,\"avg_throughput\":") && !regexp.MustCompile(`"name":"tool_data","sent":300,"acked":300,"target_throughput":1000,"avg_throughput":[\d.E]+\}\n$`).MatchString(out) {
			t.Fatalf("tool_data: %s", out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
		}
		out = kafgo(t, "", "verifiable-consumer", bs, "--topic", "vt", "--group-id", "vg", "--max-messages", "300", "--verbose")
		read := map[string]bool{}
		committed := int64(0)
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("not JSON: %q", l)
			}
			switch ev["name"] {
			case "record_data":
				read[ev["value"].(string)] = true
			case "offsets_committed":
				if ev["success"] != true {
					t.Fatalf("commit failed: %s", l)
				}
				for _, o := range ev["offsets"].([]any) {
					committed = max(committed, int64(o.(map[string]any)["offset"].(float64)))
				}
			}
		}
		for v := range acked {
			if !read[v] {
				t.Fatalf("acknowledged %s never read", v)
			}
		}
		if committed == 0 || !strings.HasSuffix(out, "\"name\":\"shutdown_complete\"}\n") {
			t.Fatalf("committed %d\n%s", committed, out)
		}
	})

	t.Run("zookeeper-shell", func(t *testing.T) {
		zk := c.ZK.Connect()
		for _, args := range [][]string{
			{"ls", "/brokers/ids"}, {"ls", "-s", "/brokers/topics"}, {"get", "/brokers/topics/dr"}, {"stat", "/controller_epoch"},
			{"get", "-s", "/brokers/ids/1"}, {"getAllChildrenNumber", "/brokers"}, {"ls", "-R", "/config/topics"},
		} {
			want := testcluster.ZooKeeperShell(t, zk, args...)
			out := kafgo(t, "", append([]string{"zookeeper-shell", zk}, args...)...)
			banner := "Connecting to " + zk + "\n\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n"
			if !strings.HasPrefix(out, banner) || strings.TrimPrefix(out, banner) != want {
				t.Errorf("%v:\nkafgo:\n%s\nzkCli.sh:\n%s", args, out, want)
			}
		}
		_, errOut, code := kafgoRun(t, "", "zookeeper-shell", zk, "get", "/nope")
		_, zkErr := testcluster.ZooKeeperShellE(zk, "get", "/nope")
		if code != 1 || errOut != "Node does not exist: /nope\n" || zkErr == nil || !strings.Contains(zkErr.Error(), "Node does not exist: /nope") {
			t.Fatalf("exit %d %q; zkCli.sh %v", code, errOut, zkErr)
		}
		_, errOut, code = kafgoRun(t, "", "zookeeper-shell", zk, "delete", "/controller")
		if code != 1 || !strings.Contains(errOut, "read-only unless --allow-writes") {
			t.Fatalf("exit %d %q", code, errOut)
		}
		if _, errOut, code = kafgoRun(t, "", "zookeeper-shell", zk, "--allow-writes", "create", "/kafgo-shell", "x"); code != 0 || errOut != "Created /kafgo-shell\n" {
			t.Fatalf("exit %d %q", code, errOut)
		}
		if got := testcluster.ZooKeeperShell(t, zk, "get", "/kafgo-shell"); got != "x\n" {
			t.Fatalf("zkCli.sh reads %q", got)
		}
		out, _, code := kafgoRun(t, "ls /brokers\nget /kafgo-shell\nquit\n", "zookeeper-shell", zk)
		if code != 0 || !strings.HasSuffix(out, "[zk: "+zk+"(CONNECTED) 0] [ids, seqid, topics]\n[zk: "+zk+"(CONNECTED) 1] x\n[zk: "+zk+"(CONNECTED) 2] ") {
			t.Fatalf("interactive: exit %d\n%s", code, out)
		}
	})
}
