package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testlog"
	"kafgo/internal/testing/testwait"
)

// A Kafka node dropped in (issue 22): kafgo started the way
// kafka-server-start.sh starts Kafka, on Kafka's own files.

// startServe runs `kafgo broker serve args...` with env added to the
// environment; the process is killed when the test ends if still running.
func startServe(t *testing.T, env []string, args ...string) *brokerProc {
	t.Helper()
	p := &brokerProc{cmd: exec.Command(testcluster.Binary(t), append([]string{"broker", "serve"}, args...)...), out: &testlog.Buffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
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

// stop sends SIGTERM and expects a clean exit.
func (p *brokerProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.waitExit(t, 2*time.Minute, "broker after SIGTERM"); code != 0 {
		t.Fatalf("exit code %d after SIGTERM", code)
	}
}

// rewriteLines replaces whole lines of a Kafka sample file: each key of
// repl is a regexp matching one line (commented or not), its value the new
// line. Every pattern must match exactly once, so the test changes nothing
// but the lines it names.
func rewriteLines(t *testing.T, text string, repl map[string]string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	for pat, with := range repl {
		re := regexp.MustCompile(pat)
		n := 0
		for i, l := range lines {
			if re.MatchString(l) {
				lines[i] = with
				n++
			}
		}
		if n != 1 {
			t.Fatalf("pattern %q matched %d lines, want 1", pat, n)
		}
	}
	return strings.Join(lines, "\n")
}

// produceConsumeOne writes one record to a new topic (auto-created, as the
// sample configs allow) and reads it back.
func produceConsumeOne(t *testing.T, addr string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.AllowAutoTopicCreation(), kgo.ConsumeTopics("dropin"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "dropin", Value: []byte("from a Kafka config")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consume: %v", err)
		}
		var got []string
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		if len(got) > 0 {
			if got[0] != "from a Kafka config" {
				t.Fatalf("consumed %q", got)
			}
			return
		}
	}
}

// waitServing waits until the broker answers Metadata.
func waitServing(t *testing.T, p *brokerProc, addr string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	testwait.For(t, 60*time.Second, "broker serving "+addr, func() (bool, string) {
		select {
		case <-p.done:
			t.Fatalf("broker exited during start-up:\n%s", p.out.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		m, err := testcluster.Metadata(ctx, cl)
		if err != nil {
			return false, err.Error()
		}
		return len(m.Brokers) == 1 && m.ControllerID >= 0, fmt.Sprintf("%d brokers, controller %d", len(m.Brokers), m.ControllerID)
	})
}

// TestDropInKafka28ServerProperties: every server.properties Apache Kafka
// 2.8 ships (testdata/kafka-2.8, byte for byte) starts a kafgo broker, the
// way kafka-server-start.sh is run, with only its host, port and directory
// lines changed; the broker serves a client, its start-up report names every
// key it does not act on as Kafka would, and SIGTERM stops it cleanly.
func TestDropInKafka28ServerProperties(t *testing.T) {
	zk := testcluster.StartZooKeeper(t)
	for _, tc := range []struct {
		file   string
		repl   func(port, ctlPort int, dir string) map[string]string
		report []string
	}{
		{"config/server.properties", func(port, _ int, dir string) map[string]string {
			return map[string]string{
				`^#?listeners=PLAINTEXT://`: fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d", port),
				`^log\.dirs=`:               "log.dirs=" + dir,
				`^zookeeper\.connect=`:      "zookeeper.connect=" + zk.Connect(),
			}
		}, []string{"num.network.threads", "num.io.threads", "num.recovery.threads.per.data.dir"}},
		{"config/kraft/server.properties", func(port, ctlPort int, dir string) map[string]string {
			return map[string]string{
				`^listeners=`:                  fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", port, ctlPort),
				`^advertised\.listeners=`:      fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d", port),
				`^controller\.quorum\.voters=`: fmt.Sprintf("controller.quorum.voters=1@127.0.0.1:%d", ctlPort),
				`^log\.dirs=`:                  "log.dirs=" + dir,
			}
		}, []string{"process.roles", "node.id", "controller.quorum.voters", "controller.listener.names", "num.network.threads", "num.io.threads", "num.recovery.threads.per.data.dir"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kafka-2.8", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			port, ctlPort := testcluster.FreePort(t), testcluster.FreePort(t)
			dir := t.TempDir()
			text := rewriteLines(t, string(orig), tc.repl(port, ctlPort, filepath.Join(dir, "kafka-logs")))
			path := filepath.Join(dir, "server.properties")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			p := startServe(t, nil, path)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			waitServing(t, p, addr)
			produceConsumeOne(t, addr)
			out := p.out.String()
			if n := strings.Count(out, "keys kafgo does not act on as Kafka would"); n != 1 {
				t.Errorf("start-up report header printed %d times", n)
			}
			for _, k := range tc.report {
				if !regexp.MustCompile(`key=` + regexp.QuoteMeta(k) + ` value=\S+ from=` + regexp.QuoteMeta(path) + `:\d+ instead=`).MatchString(out) {
					t.Errorf("start-up report does not list %s with its line and what kafgo does instead", k)
				}
			}
			if tc.file == "config/kraft/server.properties" {
				// The controller listener is not opened.
				if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", ctlPort), time.Second); err == nil {
					c.Close()
					t.Errorf("the KRaft controller listener was opened")
				}
			}
			p.stop(t)
		})
	}
}

// TestDropInRefusesKRaftLogDir: a log dir formatted for a KRaft node
// (meta.properties version 1, node.id, no broker.id) is refused at start-up
// with a message that says so and names the file; nothing in it changes.
func TestDropInRefusesKRaftLogDir(t *testing.T) {
	zk := testcluster.StartZooKeeper(t)
	dir := t.TempDir()
	logs := filepath.Join(dir, "kraft-logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := "#\n#Tue Jun 01 00:00:00 UTC 2021\nnode.id=1\nversion=1\ncluster.id=q1Sh-9_ISia_zwGINzRvyQ\n"
	mp := filepath.Join(logs, "meta.properties")
	if err := os.WriteFile(mp, []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	port := testcluster.FreePort(t)
	p := startServe(t, nil, kafkaServerProperties(t, dir, port, logs, zk.Connect()))
	if code := p.waitExit(t, 60*time.Second, "broker on a KRaft log dir"); code == 0 {
		t.Fatalf("exit code 0")
	}
	if out := p.out.String(); !strings.Contains(out, "KRaft-mode log dir") || !strings.Contains(out, mp) {
		t.Fatalf("output does not explain the refusal:\n%s", out)
	}
	if b, _ := os.ReadFile(mp); string(b) != meta {
		t.Errorf("meta.properties changed: %q", b)
	}
}
