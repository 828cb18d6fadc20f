package e2e

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testlog"
	"kafgo/internal/testing/testwait"
)

// Start-up and its failures, as an operator meets them: the broker binary
// is run directly with its own settings (not through the harness, which
// expects brokers that come up).

// promptly bounds how long a start-up that cannot succeed, or one
// interrupted by a signal, may take to end the process: a couple of seconds
// of work, with room for a loaded machine and a -race binary.
const promptly = 5 * time.Second

// brokerProc is one `kafgo broker serve` process and its combined output.
type brokerProc struct {
	cmd  *exec.Cmd
	out  *testlog.Buffer
	done chan struct{}
	err  error // from Wait, once done is closed
}

// startBroker runs the binary with --override key=value settings; the
// process is killed when the test ends if it is still running.
func startBroker(t *testing.T, settings map[string]string) *brokerProc {
	t.Helper()
	args := []string{"broker", "serve"}
	for k, v := range settings {
		args = append(args, "--override", k+"="+v)
	}
	p := &brokerProc{cmd: exec.Command(testcluster.Binary(t), args...), out: &testlog.Buffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("broker output:\n%s", p.out.String())
		}
	})
	return p
}

// waitExit waits up to d for the process to end and returns its exit code.
func (p *brokerProc) waitExit(t *testing.T, d time.Duration, what string) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("%s: still running after %v; output:\n%s", what, d, p.out.String())
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("%s: %v", what, p.err)
	return -1
}

// brokerSettings are the minimal settings of a test broker.
func brokerSettings(t *testing.T, id int, zk string) map[string]string {
	s := map[string]string{
		"broker.id":                        fmt.Sprint(id),
		"listeners":                        "PLAINTEXT://127.0.0.1:0",
		"admin.listener":                   "127.0.0.1:0",
		"log.dirs":                         filepath.Join(t.TempDir(), "data"),
		"offsets.topic.replication.factor": "1",
	}
	if zk != "" {
		s["zookeeper.connect"] = zk
	}
	return s
}

// holdPort binds a free port for the rest of the test.
func holdPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// A listener or admin port already in use fails the start at once, with
// the bind error, in either metadata mode; nothing was registered, so there
// is no controlled shutdown to attempt.
func TestStartupPortInUse(t *testing.T) {
	zk := testcluster.StartZooKeeper(t)
	for _, mode := range []struct{ name, zk string }{{"embedded", ""}, {"zookeeper", zk.Connect()}} {
		for _, key := range []string{"listeners", "admin.listener"} {
			t.Run(mode.name+"/"+key, func(t *testing.T) {
				taken := holdPort(t)
				s := brokerSettings(t, 1, mode.zk)
				s[key] = taken
				if key == "listeners" {
					s[key] = "PLAINTEXT://" + taken
				}
				p := startBroker(t, s)
				code := p.waitExit(t, promptly, "broker with "+key+" on a port in use")
				out := p.out.String()
				if code == 0 {
					t.Fatalf("exit code 0; output:\n%s", out)
				}
				if !strings.Contains(out, taken) || !strings.Contains(out, "address already in use") {
					t.Fatalf("output does not report the bind error on %s:\n%s", taken, out)
				}
				if key == "admin.listener" && !strings.Contains(out, "admin.listener") {
					t.Fatalf("output does not name admin.listener:\n%s", out)
				}
				if strings.Contains(out, "controlled shutdown") {
					t.Fatalf("a broker that never registered attempted a controlled shutdown:\n%s", out)
				}
			})
		}
	}
}

// A second broker with a live broker's broker.id says so and gives up once
// the registration has outlived any session expiry (1.5 x its session
// timeout), exiting non-zero; the live broker is undisturbed.
func TestStartupDuplicateBrokerID(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{ZooKeeper: true})
	s := brokerSettings(t, 1, c.ZK.Connect())
	s["zookeeper.session.timeout.ms"] = "2000"
	p := startBroker(t, s)
	code := p.waitExit(t, 30*time.Second, "broker with a duplicate broker.id")
	out := p.out.String()
	if code == 0 {
		t.Fatalf("exit code 0; output:\n%s", out)
	}
	if !strings.Contains(out, "broker.id 1 is already registered") {
		t.Fatalf("output does not say the broker.id is taken:\n%s", out)
	}
	if strings.Contains(out, "controlled shutdown") {
		t.Fatalf("the duplicate attempted a controlled shutdown (as broker 1):\n%s", out)
	}
	b := c.Broker(1)
	if !b.Running() {
		t.Fatalf("broker 1 stopped:\n%s", b.LogTail(40))
	}
	c.WaitForBrokers(30 * time.Second)
}

// SIGINT during start-up ends the process promptly: while the ZooKeeper
// connection is being set up, and while waiting for a registration of the
// same broker.id to go away.
func TestStartupInterrupted(t *testing.T) {
	t.Run("connecting to zookeeper", func(t *testing.T) {
		// A ZooKeeper that accepts connections and never answers.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan net.Conn, 16)
		go func() {
			for {
				nc, err := ln.Accept()
				if err != nil {
					return
				}
				accepted <- nc
			}
		}()
		defer func() {
			for {
				select {
				case nc := <-accepted:
					nc.Close()
				default:
					return
				}
			}
		}()
		s := brokerSettings(t, 1, ln.Addr().String())
		s["zookeeper.session.timeout.ms"] = "60000"
		p := startBroker(t, s)
		select {
		case nc := <-accepted:
			accepted <- nc // closed at the end
		case <-p.done:
			t.Fatalf("broker exited before connecting:\n%s", p.out.String())
		case <-time.After(30 * time.Second):
			t.Fatalf("broker never connected to the ZooKeeper address:\n%s", p.out.String())
		}
		interrupt(t, p)
	})
	t.Run("waiting for a registration to expire", func(t *testing.T) {
		c := testcluster.Start(t, testcluster.Options{ZooKeeper: true})
		s := brokerSettings(t, 1, c.ZK.Connect())
		s["zookeeper.session.timeout.ms"] = "60000" // waits up to 90 s
		p := startBroker(t, s)
		testwait.For(t, 30*time.Second, "the second broker 1 waiting for the registration", func() (bool, string) {
			select {
			case <-p.done:
				t.Fatalf("exited:\n%s", p.out.String())
			default:
			}
			return strings.Contains(p.out.String(), "already registered"), ""
		})
		interrupt(t, p)
		if out := p.out.String(); strings.Contains(out, "controlled shutdown") {
			t.Fatalf("a broker that never registered attempted a controlled shutdown:\n%s", out)
		}
	})
}

// interrupt sends SIGINT and expects the process to end promptly.
func interrupt(t *testing.T, p *brokerProc) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	p.waitExit(t, promptly, "broker interrupted during start-up")
	if out := p.out.String(); !strings.Contains(out, "signal during start-up") {
		t.Fatalf("the broker did not see the signal during start-up:\n%s", out)
	}
}
