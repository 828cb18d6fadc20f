package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
)

// TestSecondProcessOnLiveLogDirRefused (issue 16 item 1): a second broker
// process started on a running broker's log.dirs is refused before it reads
// anything there, with an error naming the dir and the holder's pid, in
// both metadata modes; the running broker keeps serving and loses nothing
// (records produced before and after the attempt are all there).
func TestSecondProcessOnLiveLogDirRefused(t *testing.T) {
	for _, mode := range []struct {
		name    string
		brokers int
		zk      bool
	}{{"embedded", 1, false}, {"zookeeper", 3, true}} {
		t.Run(mode.name, func(t *testing.T) {
			c := testcluster.Start(t, testcluster.Options{Brokers: mode.brokers, ZooKeeper: mode.zk})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			const topic = "locked"
			rf := int16(mode.brokers)
			if _, err := c.Admin().CreateTopic(ctx, 3, rf, nil, topic); err != nil {
				t.Fatal(err)
			}
			prod := c.Client(kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
			defer prod.Close()
			produce := func(from, n int) {
				t.Helper()
				for i := from; i < from+n; i++ {
					if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte(strconv.Itoa(i))}).FirstErr(); err != nil {
						t.Fatalf("produce %d: %v", i, err)
					}
				}
			}
			produce(0, 200)

			// The victim: the only broker, or a follower/leader of the
			// cluster; the intruder reuses its id and its dir, as an
			// operator's copy-paste of the README command would.
			victim := c.Brokers()[len(c.Brokers())-1]
			zk := ""
			if c.ZK != nil {
				zk = c.ZK.Connect()
			}
			s := brokerSettings(t, int(victim.ID), zk)
			s["log.dirs"] = victim.DataDir()
			p := startBroker(t, s)
			code := p.waitExit(t, promptly, "broker on a live log dir")
			out := p.out.String()
			if code == 0 {
				t.Fatalf("second process exited 0; output:\n%s", out)
			}
			wantPid := fmt.Sprintf("pid %d", victim.PID())
			if !strings.Contains(out, victim.DataDir()) || !strings.Contains(out, "locked") || !strings.Contains(out, wantPid) {
				t.Fatalf("refusal does not name the dir %s, the lock and the holder (%s):\n%s", victim.DataDir(), wantPid, out)
			}
			if !victim.Running() {
				t.Fatalf("the running broker died:\n%s", victim.LogTail(60))
			}

			// Appends after the attempt reach every partition's
			// segments and indexes (the intruder of issue 16 truncated
			// them and the next append died with SIGBUS).
			produce(200, 300)
			if !victim.Running() {
				t.Fatalf("the running broker died after the attempt:\n%s", victim.LogTail(60))
			}
			cons := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			defer cons.Close()
			seen := map[string]bool{}
			deadline := time.Now().Add(60 * time.Second)
			for len(seen) < 500 && time.Now().Before(deadline) {
				fctx, fcancel := context.WithTimeout(ctx, 5*time.Second)
				fs := cons.PollFetches(fctx)
				fcancel()
				fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)] = true })
			}
			for i := 0; i < 500; i++ {
				if !seen[strconv.Itoa(i)] {
					t.Fatalf("record %d is missing (%d of 500 read)", i, len(seen))
				}
			}
		})
	}
}
