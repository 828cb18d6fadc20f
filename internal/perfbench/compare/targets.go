package compare

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
)

// target is a Kafka-speaking system under measurement.
type target struct {
	name  string
	seeds []string
	pids  []int  // broker processes whose CPU is counted
	admin string // kafgo's admin.listener, "" for kfake
	cl    *kgo.Client
	adm   *kadm.Client
}

// startKafgo starts kafgo brokers with testcluster (one on the embedded
// store, or several on ZooKeeper) and returns them as one target.
// An empty bin is the binary under test (testcluster.Binary).
func startKafgo(t testing.TB, name, bin string, brokers int, cfg map[string]string) target {
	t.Helper()
	c := testcluster.Start(t, testcluster.Options{Brokers: brokers, ZooKeeper: brokers > 1, Config: cfg, Binary: bin})
	cl := c.Client()
	tg := target{name: name, seeds: c.Addrs(), admin: c.Brokers()[0].AdminAddr(), cl: cl, adm: kadm.NewClient(cl)}
	for _, b := range c.Brokers() {
		tg.pids = append(tg.pids, b.PID())
	}
	return tg
}

// startKfake builds and starts internal/perfbench/kfakeserver: franz-go's
// kfake as a separate process, so its CPU is measured as kafgo's is.
func startKfake(t testing.TB) target {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kfakeserver")
	build := exec.Command("go", "build", "-o", bin, "./internal/perfbench/kfakeserver")
	build.Dir = moduleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("compare: building kfakeserver: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-port", "0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("compare: starting kfakeserver: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	addrc := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addrc <- strings.TrimSpace(line)
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(30 * time.Second):
		t.Fatal("compare: kfakeserver did not print its address")
	}
	if addr == "" {
		t.Fatal("compare: kfakeserver exited without serving")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return target{name: "kfake", seeds: []string{addr}, pids: []int{cmd.Process.Pid}, cl: cl, adm: kadm.NewClient(cl)}
}

// moduleRoot is the repository root, from this file's location.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// createTopic creates topic and waits until every partition has a leader
// (and, with rf > 1, its full ISR), so no run measures a leader election.
func (tg target) createTopic(ctx context.Context, topic string, partitions int32, rf int16, configs map[string]*string) error {
	resp, err := tg.adm.CreateTopic(ctx, partitions, rf, configs, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("compare: %s: creating %s: %w", tg.name, topic, err)
	}
	for ctx.Err() == nil {
		if tg.topicReady(ctx, topic, int(partitions), int(rf)) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("compare: %s: topic %s has no leaders: %w", tg.name, topic, ctx.Err())
}

func (tg target) topicReady(ctx context.Context, topic string, partitions, rf int) bool {
	// Asked directly: kgo may answer kadm's Metadata from its cache.
	md, err := testcluster.Metadata(ctx, tg.cl, topic)
	if err != nil || len(md.Topics) != 1 || md.Topics[0].ErrorCode != 0 || len(md.Topics[0].Partitions) != partitions {
		return false
	}
	for _, p := range md.Topics[0].Partitions {
		if p.ErrorCode != 0 || p.Leader < 0 || len(p.ISR) < rf {
			return false
		}
	}
	return true
}

func (tg target) deleteTopic(ctx context.Context, topic string) error {
	resp, err := tg.adm.DeleteTopics(ctx, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("compare: %s: deleting %s: %w", tg.name, topic, err)
	}
	return nil
}
