package testcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/testing/needs"
	"kafgo/internal/testing/testwait"
)

// Options shapes a test cluster.
type Options struct {
	// Brokers is the number of broker processes (default 1).
	Brokers int
	// ZooKeeper starts a real ZooKeeper and points every broker at it;
	// without it the (single) broker runs on the embedded metadata store.
	ZooKeeper bool
	// Config holds server.properties overrides for every broker.
	Config map[string]string
	// FirstID is the first broker id (default 1).
	FirstID int32
	// Listeners adds listeners beyond PLAINTEXT (which the harness itself
	// uses), each on its own free port, with their security protocols in
	// listener.security.protocol.map; Config supplies their security keys
	// (and inter.broker.listener.name, if not PLAINTEXT).
	Listeners []Listener
	// BeforeBrokers, if set, runs once ZooKeeper is up and before any broker
	// starts: tests seed znodes there (e.g. the brokers' own SCRAM
	// credentials, which Kafka operators create with kafka-configs
	// --zookeeper before the first start).
	BeforeBrokers func(zk *ZooKeeper)
	// Binary is the kafgo binary to run; empty means Binary(t).
	Binary string
}

// Listener is an extra listener of every broker.
type Listener struct {
	Name     string // e.g. SASL_SSL, or CLIENT
	Protocol string // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
}

// Cluster is a set of kafgo broker processes of the built binary on free
// 127.0.0.1 ports, with their data under t.TempDir(). Everything is killed
// and removed when the test ends, pass or fail.
type Cluster struct {
	t       testing.TB
	ZK      *ZooKeeper
	brokers []*Broker
}

// Broker is one broker process, restartable with the same id, port and data.
type Broker struct {
	t         testing.TB
	ID        int32
	Port      int
	AdminPort int // admin.listener: HTTP /metrics and /v1
	// Ports are the extra listeners' ports by name (Options.Listeners).
	Ports   map[string]int
	Dir     string
	args    []string
	logPath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	exit chan struct{}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary returns the kafgo binary under test: $KAFGO_BIN (make test sets
// it), else one built once per test process, with the protocol fault hooks
// (the kafgo_faults tag; see Broker.Fault).
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KAFGO_BIN"); p != "" {
		return p
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kafgo-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "kafgo")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..", "..")
		cmd := exec.Command("go", "build", "-tags", "kafgo_faults", "-o", binPath, "./cmd/kafgo")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building kafgo: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatalf("testcluster: %v", binErr)
	}
	return binPath
}

// Start launches the cluster and waits until every broker is registered
// and a controller is elected.
func Start(t testing.TB, opt Options) *Cluster {
	t.Helper()
	needs.E2E(t)
	if opt.Brokers <= 0 {
		opt.Brokers = 1
	}
	if opt.FirstID == 0 {
		opt.FirstID = 1
	}
	if opt.Brokers > 1 && !opt.ZooKeeper {
		t.Fatal("testcluster: more than one broker needs ZooKeeper")
	}
	c := &Cluster{t: t}
	if opt.ZooKeeper {
		c.ZK = StartZooKeeper(t)
		if opt.BeforeBrokers != nil {
			opt.BeforeBrokers(c.ZK)
		}
	}
	bin := opt.Binary
	if bin == "" {
		bin = Binary(t)
	}
	for i := 0; i < opt.Brokers; i++ {
		id := opt.FirstID + int32(i)
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		adminPort, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("broker-%d", id))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		listeners := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", port)
		ports := map[string]int{}
		for _, l := range opt.Listeners {
			p, err := freePort()
			if err != nil {
				t.Fatal(err)
			}
			ports[l.Name] = p
			listeners += fmt.Sprintf(",%s://127.0.0.1:%d", l.Name, p)
		}
		settings := map[string]string{
			"broker.id":                            strconv.Itoa(int(id)),
			"listeners":                            listeners,
			"admin.listener":                       fmt.Sprintf("127.0.0.1:%d", adminPort),
			"log.dirs":                             filepath.Join(dir, "data"),
			"offsets.topic.replication.factor":     strconv.Itoa(min(opt.Brokers, 3)),
			"group.initial.rebalance.delay.ms":     "0",
			"zookeeper.session.timeout.ms":         "6000",
			"replica.lag.time.max.ms":              "6000",
			"controlled.shutdown.retry.backoff.ms": "200",
		}
		if c.ZK != nil {
			settings["zookeeper.connect"] = c.ZK.Connect()
		}
		if len(opt.Listeners) > 0 {
			pm := "PLAINTEXT:PLAINTEXT"
			for _, l := range opt.Listeners {
				pm += "," + l.Name + ":" + l.Protocol
			}
			settings["listener.security.protocol.map"] = pm
			settings["inter.broker.listener.name"] = "PLAINTEXT"
		}
		for k, v := range opt.Config {
			settings[k] = v
		}
		keys := make([]string, 0, len(settings))
		for k := range settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		level := os.Getenv("KAFGO_TEST_LOG_LEVEL")
		if level == "" {
			level = "info"
		}
		args := []string{"broker", "serve", "--log-level", level}
		for _, k := range keys {
			args = append(args, "--override", k+"="+settings[k])
		}
		b := &Broker{t: t, ID: id, Port: port, AdminPort: adminPort, Ports: ports, Dir: dir, args: append([]string{bin}, args...), logPath: filepath.Join(dir, "broker.log")}
		c.brokers = append(c.brokers, b)
		b.Start()
	}
	t.Cleanup(func() {
		for _, b := range c.brokers {
			b.Kill()
		}
		// Brokers built with -race report races in their logs.
		for _, b := range c.brokers {
			if log := b.LogTail(1 << 20); strings.Contains(log, "WARNING: DATA RACE") {
				t.Errorf("testcluster: broker %d reported a data race:\n%s", b.ID, raceReport(log))
			}
		}
		if t.Failed() {
			for _, b := range c.brokers {
				t.Logf("--- broker %d log (tail) ---\n%s", b.ID, b.LogTail(200))
			}
		}
	})
	c.waitStarted(60 * time.Second)
	return c
}

// Brokers returns the brokers in id order.
func (c *Cluster) Brokers() []*Broker { return c.brokers }

// Broker returns a broker by id.
func (c *Cluster) Broker(id int32) *Broker {
	for _, b := range c.brokers {
		if b.ID == id {
			return b
		}
	}
	c.t.Fatalf("testcluster: no broker %d", id)
	return nil
}

// Addrs lists every broker's address.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.brokers))
	for i, b := range c.brokers {
		out[i] = b.Addr()
	}
	return out
}

// Bootstrap is a comma-separated bootstrap list.
func (c *Cluster) Bootstrap() string { return strings.Join(c.Addrs(), ",") }

// Client returns a franz-go client closed at the end of the test.
func (c *Cluster) Client(opts ...kgo.Opt) *kgo.Client {
	c.t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Addrs()...)}, opts...)...)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(cl.Close)
	return cl
}

// Admin returns a kadm client on its own franz-go client.
func (c *Cluster) Admin() *kadm.Client { return kadm.NewClient(c.Client()) }

// WaitForBrokers waits until a Metadata answer lists every running broker
// and a controller.
func (c *Cluster) WaitForBrokers(timeout time.Duration) { c.waitRegistered(timeout, false) }

// waitStarted is WaitForBrokers for a fresh cluster, where every broker
// must come up: one that exits during start-up fails the test at once with
// its log, rather than leaving a smaller cluster behind.
func (c *Cluster) waitStarted(timeout time.Duration) { c.waitRegistered(timeout, true) }

func (c *Cluster) waitRegistered(timeout time.Duration, allMustRun bool) {
	c.t.Helper()
	cl := c.Client()
	testwait.For(c.t, timeout, "all brokers registered with a controller", func() (bool, string) {
		running := 0
		for _, b := range c.brokers {
			if b.Running() {
				running++
			} else if allMustRun {
				c.t.Fatalf("testcluster: broker %d exited during start-up:\n%s", b.ID, b.LogTail(40))
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		m, err := Metadata(ctx, cl)
		if err != nil {
			return false, err.Error()
		}
		return len(m.Brokers) == running && m.ControllerID >= 0, fmt.Sprintf("%d of %d brokers, controller %d", len(m.Brokers), running, m.ControllerID)
	})
}

// Addr is the broker's listener address.
func (b *Broker) Addr() string { return "127.0.0.1:" + strconv.Itoa(b.Port) }

// ListenerAddr is the address of an extra listener (Options.Listeners).
func (b *Broker) ListenerAddr(name string) string {
	p, ok := b.Ports[name]
	if !ok {
		b.t.Fatalf("testcluster: broker %d has no listener %s", b.ID, name)
	}
	return "127.0.0.1:" + strconv.Itoa(p)
}

// ListenerAddrs lists every broker's address on an extra listener.
func (c *Cluster) ListenerAddrs(name string) []string {
	out := make([]string, len(c.brokers))
	for i, b := range c.brokers {
		out[i] = b.ListenerAddr(name)
	}
	return out
}

// AdminAddr is the broker's admin.listener address.
func (b *Broker) AdminAddr() string { return "127.0.0.1:" + strconv.Itoa(b.AdminPort) }

// DataDir is the broker's log.dirs.
func (b *Broker) DataDir() string { return filepath.Join(b.Dir, "data") }

// SetConfig changes one server.properties override for the broker's next
// Start (a restart with a changed config, as an operator would do).
func (b *Broker) SetConfig(key, value string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := 0; i+1 < len(b.args); i++ {
		if b.args[i] == "--override" && strings.HasPrefix(b.args[i+1], key+"=") {
			b.args[i+1] = key + "=" + value
			return
		}
	}
	b.args = append(b.args, "--override", key+"="+value)
}

// Start (re)starts the process with the same settings and data.
func (b *Broker) Start() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd != nil {
		b.t.Fatalf("testcluster: broker %d already running", b.ID)
	}
	logf, err := os.OpenFile(b.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		b.t.Fatal(err)
	}
	fmt.Fprintf(logf, "\n=== start %s ===\n", time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(b.args[0], b.args[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		b.t.Fatalf("testcluster: starting broker %d: %v", b.ID, err)
	}
	exit := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(exit)
	}()
	b.cmd, b.exit = cmd, exit
}

// Running reports whether the process is alive (paused counts).
func (b *Broker) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return false
	}
	select {
	case <-b.exit:
		b.cmd = nil
		return false
	default:
		return true
	}
}

func (b *Broker) signal(sig syscall.Signal) {
	b.mu.Lock()
	cmd, exit := b.cmd, b.exit
	b.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	if sig == syscall.SIGSTOP || sig == syscall.SIGCONT {
		return
	}
	timeout := 2 * time.Minute
	if sig == syscall.SIGKILL {
		timeout = 10 * time.Second
	}
	select {
	case <-exit:
	case <-time.After(timeout):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exit
	}
	b.mu.Lock()
	if b.cmd == cmd {
		b.cmd = nil
	}
	b.mu.Unlock()
}

// Kill is kill -9.
func (b *Broker) Kill() {
	b.signal(syscall.SIGCONT) // a paused process cannot die until resumed
	b.signal(syscall.SIGKILL)
}

// Stop is SIGTERM: a clean (controlled) shutdown, waited for.
func (b *Broker) Stop() { b.signal(syscall.SIGTERM) }

// PID is the broker's process id, 0 when it is not running (benchmarks
// read its CPU time from /proc).
func (b *Broker) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// Pause is SIGSTOP; Resume is SIGCONT.
func (b *Broker) Pause()  { b.signal(syscall.SIGSTOP) }
func (b *Broker) Resume() { b.signal(syscall.SIGCONT) }

// LogTail returns the last n lines of the broker's log.
func (b *Broker) LogTail(n int) string {
	data, err := os.ReadFile(b.logPath)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// raceReport cuts the first race report out of a log.
func raceReport(log string) string {
	i := strings.Index(log, "WARNING: DATA RACE")
	rest := log[i:]
	if j := strings.Index(rest, "=================="); j > 0 {
		rest = rest[:j]
	}
	return rest
}

// Metadata asks the cluster directly, bypassing franz-go's metadata cache
// (kadm's Metadata may answer from it): tests waiting for a leader or
// controller change need the brokers' current view.
func Metadata(ctx context.Context, cl *kgo.Client, topics ...string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, cl)
}

// PartitionState is one partition of a Metadata answer.
type PartitionState struct {
	Leader int32
	ISR    []int32
}

// Partitions returns a topic's partitions from a direct Metadata request.
func Partitions(ctx context.Context, cl *kgo.Client, topic string) (map[int32]PartitionState, error) {
	resp, err := Metadata(ctx, cl, topic)
	if err != nil {
		return nil, err
	}
	out := map[int32]PartitionState{}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if t.ErrorCode != 0 {
			return nil, kerr.ErrorForCode(t.ErrorCode)
		}
		for _, p := range t.Partitions {
			out[p.Partition] = PartitionState{Leader: p.Leader, ISR: p.ISR}
		}
	}
	return out, nil
}
