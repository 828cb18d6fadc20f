package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kafgo/internal/testing/testcluster"
)

// franz-go's own integration tests (pkg/kgo, the version in go.mod) run
// against any broker named by KGO_SEEDS: producing, consuming, groups with
// every balancer, transactions (TestTxnEtl: a consume-transform-produce
// loop with GroupTransactSession under rebalances) and admin requests,
// written by the client's author against Apache Kafka. Passing them is
// conformance beyond this repository's own tests.

// kgoSuite copies franz-go's module (read-only in the module cache) into a
// writable temp dir, so `go test ./pkg/kgo` can build its test binary.
func kgoSuite(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", "github.com/twmb/franz-go").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/twmb/franz-go: %v", err)
	}
	var mod struct{ Dir, Version string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		// Not downloaded yet (a fresh machine): fetch it from the proxy.
		out, err = exec.Command("go", "mod", "download", "-json", "github.com/twmb/franz-go").Output()
		if err != nil {
			t.Fatalf("go mod download github.com/twmb/franz-go: %v", err)
		}
		if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
			t.Fatalf("no module dir for franz-go in %s", out)
		}
	}
	dst := filepath.Join(t.TempDir(), "franz-go")
	err = filepath.WalkDir(mod.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(mod.Dir, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying franz-go %s: %v", mod.Version, err)
	}
	t.Logf("franz-go %s copied from %s", mod.Version, mod.Dir)
	return dst
}

// runKgoSuite runs `go test ./pkg/kgo` (tests matching run, all when empty)
// against seeds, failing t with the suite's output if it fails.
func runKgoSuite(t *testing.T, dir, seeds string, rf, records int, run string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"test", "-count=1", "-timeout", timeout.String()}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, "./pkg/kgo")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"KGO_SEEDS="+seeds,
		"KGO_TEST_RF="+strconv.Itoa(rf),
		"KGO_TEST_RECORDS="+strconv.Itoa(records),
		"GOFLAGS=-mod=mod",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("franz-go pkg/kgo (%s) against %s: %v in %v", orAll(run), seeds, err, time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("franz-go's pkg/kgo tests failed: %v\n%s", err, tail(out.String(), 200))
	}
	if !strings.Contains(out.String(), "ok  \tgithub.com/twmb/franz-go/pkg/kgo") {
		t.Fatalf("franz-go's pkg/kgo tests did not report ok:\n%s", tail(out.String(), 50))
	}
}

func orAll(run string) string {
	if run == "" {
		return "all tests"
	}
	return run
}

func tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

// TestFranzGoSuiteSingleBroker runs the whole pkg/kgo suite against one
// broker on the embedded metadata store (RF 1).
func TestFranzGoSuiteSingleBroker(t *testing.T) {
	dir := kgoSuite(t)
	c := testcluster.Start(t, testcluster.Options{Config: map[string]string{
		"group.initial.rebalance.delay.ms": "0",
	}})
	runKgoSuite(t, dir, c.Bootstrap(), 1, 500000, "", 15*time.Minute)
}

// TestFranzGoTxnSuiteCluster runs the transaction and group tests of
// pkg/kgo against a 3-broker ZooKeeper cluster with RF 3. The suite's
// record count (KGO_TEST_RECORDS, 500k by default) is cut to 100k here:
// three race-built brokers on two cores take six minutes for the default,
// and 100k records still span many transactions and rebalances.
func TestFranzGoTxnSuiteCluster(t *testing.T) {
	dir := kgoSuite(t)
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{
		"group.initial.rebalance.delay.ms":         "0",
		"offsets.topic.replication.factor":         "3",
		"transaction.state.log.replication.factor": "3",
		"transaction.state.log.min.isr":            "2",
		// Three race-built brokers beside the suite on two cores can take
		// longer than Kafka's 5 s to replicate an offset commit; the
		// suite's clients then see REQUEST_TIMED_OUT, as they would from
		// Kafka on an overloaded machine.
		"offsets.commit.timeout.ms": "30000",
	}})
	c.WaitForBrokers(30 * time.Second)
	runKgoSuite(t, dir, c.Bootstrap(), 3, 100000, "TestTxn|TestGroupETL", 15*time.Minute)
}
