package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/needs"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// tuiTerm is `kafgo tui` running in a tmux session of a fixed size on a
// private tmux server, driven with keystrokes and read from the screen.
type tuiTerm struct {
	t    *testing.T
	sock string
}

// startTUI runs kafgo tui with args in a w×h terminal.
func startTUI(t *testing.T, w, h int, args ...string) *tuiTerm {
	t.Helper()
	needs.Tool(t, "tmux", "apt-get install tmux; it drives the TUI")
	tt := &tuiTerm{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	cmd := append([]string{testcluster.Binary(t), "tui"}, args...)
	tt.tmux("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "--", strings.Join(quoteAll(cmd), " "))
	t.Cleanup(func() {
		// The server is this test's own (its own socket): ending it ends
		// the TUI.
		_ = exec.Command("tmux", "-S", tt.sock, "kill-server").Run()
	})
	// An escape key goes to the TUI at once, not after tmux's wait for
	// the rest of an escape sequence.
	tt.tmux("set-option", "-s", "escape-time", "0")
	return tt
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

func (tt *tuiTerm) tmux(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what the terminal shows now, as text.
func (tt *tuiTerm) screen() string { return tt.tmux("capture-pane", "-p") }

// keys sends keys one at a time (tmux key names: Enter, Escape, BSpace),
// with a pause for the TUI to take each.
func (tt *tuiTerm) keys(keys ...string) {
	tt.t.Helper()
	for _, k := range keys {
		tt.tmux("send-keys", k)
		time.Sleep(150 * time.Millisecond)
	}
}

// text types s literally.
func (tt *tuiTerm) text(s string) {
	tt.t.Helper()
	tt.tmux("send-keys", "-l", s)
	time.Sleep(150 * time.Millisecond)
}

// waitFor polls the screen until cond holds.
func (tt *tuiTerm) waitFor(timeout time.Duration, what string, cond func(screen string) bool) string {
	tt.t.Helper()
	var last string
	testwait.For(tt.t, timeout, what, func() (bool, string) {
		last = tt.screen()
		return cond(last), last
	})
	return last
}

func (tt *tuiTerm) waitText(timeout time.Duration, text string) string {
	tt.t.Helper()
	return tt.waitFor(timeout, fmt.Sprintf("%q on the screen", text), func(s string) bool { return strings.Contains(s, text) })
}

// TestTUIKeystrokes drives `kafgo tui` in a terminal against a live
// three-broker ZooKeeper cluster, as an operator would: to a topic through
// a filter, into the message browser to see the records produced, through
// the create-topic prompt (and the topic is then in the cluster), and,
// after kill -9 of a broker, to that broker shown unreachable within
// seconds, long before its ZooKeeper session expires and it leaves
// Metadata.
func TestTUIKeystrokes(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{Brokers: 3, ZooKeeper: true, Config: map[string]string{
		// The broker must stay in Metadata for the whole check: only the
		// probe can then tell it is gone.
		"zookeeper.session.timeout.ms": "30000",
	}})
	const topic = "keyed"
	groupCreateTopic(t, c, topic, 3, 3)
	for _, other := range []string{"other-a", "other-b"} {
		groupCreateTopic(t, c, other, 1, 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := c.Client(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i := range 20 {
		if err := p.ProduceSync(ctx, &kgo.Record{Partition: 0, Key: fmt.Appendf(nil, "key-%d", i), Value: fmt.Appendf(nil, "hello-%d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var admins []string
	for i := int32(1); i <= 3; i++ {
		admins = append(admins, c.Broker(i).AdminAddr())
	}
	tt := startTUI(t, 120, 40, "--bootstrap-server", c.Bootstrap(), "--admin", strings.Join(admins, ","),
		"--refresh", "1s", "--timeout", "5s")

	// The brokers view, with all three brokers.
	tt.waitFor(30*time.Second, "three brokers", func(s string) bool {
		return strings.Contains(s, "ControllerId:") && strings.Count(s, "127.0.0.1:") >= 3 && strings.Contains(s, "3 brokers")
	})

	// To the topic through the filter.
	tt.keys("2", "/")
	tt.text("key")
	tt.keys("Enter")
	tt.waitText(10*time.Second, `filter "key": 1 of`)
	screen := tt.screen()
	if strings.Contains(screen, "other-a") {
		t.Fatalf("the filter kept other topics:\n%s", screen)
	}
	tt.keys("Enter")
	tt.waitText(10*time.Second, "Topic "+topic+" · 3 partitions")

	// Partition 0 is selected: enter opens its records.
	tt.keys("Enter")
	screen = tt.waitText(15*time.Second, "20 records 0–19")
	for _, want := range []string{"hello-0", "hello-19", "key-19"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the browser lacks %q:\n%s", want, screen)
		}
	}
	// Follow, and see a record produced now.
	tt.keys("f")
	tt.waitText(10*time.Second, "following")
	if err := p.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("live-one")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	tt.waitText(15*time.Second, "live-one")
	tt.keys("f", "BSpace")
	tt.waitText(10*time.Second, "Topic "+topic+" · 3 partitions")

	// Create a topic through the action prompt.
	tt.keys("2", "C")
	tt.waitText(10*time.Second, "Create topic")
	tt.text("made-in-tui")
	tt.keys("Tab", "BSpace", "BSpace")
	tt.text("2")
	tt.keys("Enter", "Enter", "Enter")
	tt.waitText(10*time.Second, "Create topic made-in-tui with 2 partitions, replication factor default?")
	tt.keys("y")
	tt.waitText(20*time.Second, "create topic made-in-tui: done")
	md, err := c.Admin().Metadata(ctx, "made-in-tui")
	if err != nil {
		t.Fatal(err)
	}
	if td, ok := md.Topics["made-in-tui"]; !ok || td.Err != nil || len(td.Partitions) != 2 {
		t.Fatalf("made-in-tui in Metadata: %+v", td)
	}
	tt.waitText(10*time.Second, "made-in-tui")

	// kill -9 a broker: it is unreachable at once, while Metadata still
	// lists it (the row has its address, not the "-" of an offline one).
	victim := c.Broker(3)
	tt.keys("1")
	tt.waitText(10*time.Second, "ControllerId:")
	victim.Kill()
	row := regexp.MustCompile(fmt.Sprintf(`(?m)^[> ]\s+3\s+%s\s+.*\bunreachable\b`, regexp.QuoteMeta(victim.Addr())))
	screen = tt.waitFor(10*time.Second, "broker 3 unreachable", func(s string) bool { return row.MatchString(s) })
	if !strings.Contains(screen, "1 unreachable") {
		t.Fatalf("the header does not count it:\n%s", screen)
	}
	// The warnings pane has it, with a time.
	tt.keys("w")
	tt.waitFor(10*time.Second, "the warning", func(s string) bool {
		return regexp.MustCompile(`\d\d:\d\d:\d\d .*broker 3 unreachable`).MatchString(s)
	})
	tt.keys("w", "q")
}
