package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/internal/adminapi"
	"kafgo/internal/adminclient"
	"kafgo/internal/testing/promtext"
	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// healthScenario runs the scripted consumers against a live
// cluster while a producer writes 100 records/s to each of their topics:
//
//	g-ok      reads everything and commits after every poll
//	g-slow    reads 30 records/s and commits every 500 ms (falls behind)
//	g-stop    keeps up and commits every 300 ms, then stops committing
//	g-rewind  commits forward, then resets to an earlier offset
//
// It returns when the scenario is set up; stop ends it.
type healthScenario struct {
	c      *testcluster.Cluster
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	stopped     bool // g-stop stopped committing
	rewound     bool // g-rewind is to go back
	rewoundDone bool
	rewindFirst chan struct{}
}

func (s *healthScenario) stop() { s.cancel(); s.wg.Wait() }

func startHealthScenario(t *testing.T, c *testcluster.Cluster, ctx context.Context) *healthScenario {
	t.Helper()
	adm := kadm.NewClient(c.Client())
	topics := []string{"h-ok", "h-slow", "h-stop", "h-rewind"}
	for _, tp := range topics {
		if _, err := adm.CreateTopic(ctx, 1, 3, nil, tp); err != nil {
			t.Fatal(err)
		}
	}
	waitFullISR(t, ctx, c.Client(), "h-rewind", 1)
	sctx, cancel := context.WithCancel(ctx)
	s := &healthScenario{c: c, cancel: cancel, rewindFirst: make(chan struct{})}

	prod := c.Client(kgo.ProducerLinger(0))
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer prod.Close()
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for i := 0; sctx.Err() == nil; i++ {
			for _, tp := range topics {
				for j := 0; j < 4; j++ { // 4 every 40 ms: 100/s
					prod.Produce(sctx, &kgo.Record{Topic: tp, Value: []byte(fmt.Sprint(i))}, nil)
				}
			}
			select {
			case <-sctx.Done():
			case <-tick.C:
			}
		}
	}()

	consumer := func(group, topic string, body func(cl *kgo.Client, fs kgo.Fetches) bool) {
		cl := c.Client(kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer cl.Close()
			for sctx.Err() == nil {
				pctx, pc := context.WithTimeout(sctx, 300*time.Millisecond)
				fs := cl.PollRecords(pctx, 0)
				pc()
				if !body(cl, fs) {
					return
				}
			}
		}()
	}
	// commitAt commits an offset as the group's member.
	commitAt := func(cl *kgo.Client, group, topic string, off int64) {
		cl.CommitOffsetsSync(sctx, map[string]map[int32]kgo.EpochOffset{topic: {0: {Epoch: -1, Offset: off}}},
			func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
				if err == nil {
					for _, rt := range resp.Topics {
						for _, rp := range rt.Partitions {
							err = kerr.ErrorForCode(rp.ErrorCode)
						}
					}
				}
				if err != nil && sctx.Err() == nil {
					t.Logf("%s commit: %v", group, err)
				}
			})
	}
	// g-ok: every poll committed at once.
	consumer("g-ok", "h-ok", func(cl *kgo.Client, fs kgo.Fetches) bool {
		if fs.NumRecords() > 0 {
			cl.CommitUncommittedOffsets(sctx)
		} else {
			cl.CommitUncommittedOffsets(sctx) // idle commits keep the window fresh
		}
		return true
	})
	// g-slow: 30 records/s, a commit every 500 ms.
	var slowNext int64
	lastSlow := time.Now()
	consumer("g-slow", "h-slow", func(cl *kgo.Client, _ kgo.Fetches) bool {
		if time.Since(lastSlow) >= 500*time.Millisecond {
			slowNext += 15
			commitAt(cl, "g-slow", "h-slow", slowNext)
			lastSlow = time.Now()
		}
		return true
	})
	// g-stop: keeps up, commits every 300 ms until told to stop.
	consumer("g-stop", "h-stop", func(cl *kgo.Client, fs kgo.Fetches) bool {
		s.mu.Lock()
		stopped := s.stopped
		s.mu.Unlock()
		if !stopped {
			cl.CommitUncommittedOffsets(sctx)
		}
		return true
	})
	// g-rewind: forward commits every 300 ms; once rewound, commits slowly
	// forward from the earlier offset.
	// g-rewind: commits by hand, 60 records per 600 ms from offset 10
	// (always some lag: Burrow's REWIND, like its other errors, needs a
	// window without a commit at lag 0), and once rewound goes back to 5.
	rewindAt := int64(10)
	lastRewind := time.Now()
	consumer("g-rewind", "h-rewind", func(cl *kgo.Client, fs kgo.Fetches) bool {
		if time.Since(lastRewind) < 600*time.Millisecond {
			time.Sleep(20 * time.Millisecond)
			return true
		}
		s.mu.Lock()
		rewound := s.rewound
		first := rewound && rewindAt > 5 && !s.rewoundDone
		if first {
			s.rewoundDone = true
		}
		s.mu.Unlock()
		if first {
			rewindAt = 5
		} else {
			rewindAt += 60
		}
		commitAt(cl, "g-rewind", "h-rewind", rewindAt)
		lastRewind = time.Now()
		if first {
			close(s.rewindFirst)
		}
		return true
	})
	return s
}

// coordinatorHealth reads /v1/consumer-health from every broker: the
// groups found, by the broker that reports them.
func coordinatorHealth(t *testing.T, ctx context.Context, c *testcluster.Cluster) map[string][]int32 {
	t.Helper()
	out := map[string][]int32{}
	for _, b := range c.Brokers() {
		var doc adminapi.ConsumerHealth
		if err := adminclient.Get(ctx, b.AdminAddr(), adminapi.ConsumerHealthPath, &doc); err != nil {
			t.Fatal(err)
		}
		for _, g := range doc.Groups {
			out[g.Group] = append(out[g.Group], b.ID)
		}
	}
	return out
}

// groupHealth is one group's health from its coordinator.
func groupHealth(t *testing.T, ctx context.Context, c *testcluster.Cluster, group string) (adminapi.GroupHealth, int32, bool) {
	t.Helper()
	for _, b := range c.Brokers() {
		var doc adminapi.ConsumerHealth
		if err := adminclient.Get(ctx, b.AdminAddr(), adminapi.ConsumerHealthPath, &doc); err != nil {
			t.Fatal(err)
		}
		for _, g := range doc.Groups {
			if g.Group == group {
				return g, b.ID, true
			}
		}
	}
	return adminapi.GroupHealth{}, -1, false
}

func waitStatus(t *testing.T, ctx context.Context, c *testcluster.Cluster, group, status string, within time.Duration) adminapi.GroupHealth {
	t.Helper()
	var h adminapi.GroupHealth
	testwait.For(t, within, group+" "+status, func() (bool, string) {
		var ok bool
		h, _, ok = groupHealth(t, ctx, c, group)
		if !ok || len(h.Partitions) == 0 {
			return false, "not reported yet"
		}
		p := h.Partitions[0]
		tl := "?"
		if p.TimeLagMs != nil {
			tl = fmt.Sprint(*p.TimeLagMs)
		}
		return h.Status == status, fmt.Sprintf("status %s lag %v time lag %sms commits %d lags %v", h.Status, p.Lag, tl, p.Commits, p.Lags)
	})
	return h
}

// metricStatus checks /metrics: the group's status gauge and time lag
// series on exactly one broker, its coordinator.
func metricStatus(t *testing.T, c *testcluster.Cluster, group string, code float64) {
	t.Helper()
	found := 0
	for _, b := range c.Brokers() {
		samples := scrapeMetrics(t, b)
		st := promtext.Find(samples, "kafka_consumergroup_status", map[string]string{"consumergroup": group})
		lag := promtext.Find(samples, "kafka_consumergroup_lag_seconds", map[string]string{"consumergroup": group})
		if len(st) == 0 {
			continue
		}
		found++
		if st[0].Value != code || len(lag) != 1 {
			t.Fatalf("%s on broker %d: status %v, %d lag_seconds series; want %v", group, b.ID, st[0].Value, len(lag), code)
		}
	}
	if found != 1 {
		t.Fatalf("%s's status on %d brokers, want its coordinator only", group, found)
	}
}

// TestConsumerHealthStatuses: the scripted consumers reach OK,
// WARNING, STOP and REWIND on their coordinator's /v1/consumer-health and
// /metrics (and nowhere else), and in groups --describe --health.
func TestConsumerHealthStatuses(t *testing.T) {
	c, _, ctx := startCluster3(t, map[string]string{"consumer.health.sample.interval.ms": "250"})
	s := startHealthScenario(t, c, ctx)
	defer s.stop()

	// Keeps up: OK, time lag under a second.
	ok := waitStatus(t, ctx, c, "g-ok", "OK", 60*time.Second)
	testwait.For(t, 30*time.Second, "g-ok time lag under 1 s", func() (bool, string) {
		h, _, _ := groupHealth(t, ctx, c, "g-ok")
		p := h.Partitions[0]
		return p.TimeLagMs != nil && *p.TimeLagMs < 1000, fmt.Sprintf("%+v", p)
	})
	_ = ok

	// Throttled below the produce rate: WARNING, a growing time lag, an ETA.
	slow := waitStatus(t, ctx, c, "g-slow", "WARNING", 60*time.Second)
	p := slow.Partitions[0]
	if p.TimeLagMs == nil || p.EtaMs == nil || p.Catchup != "falling_behind" || p.ConsumeRate <= 0 || p.ProduceRate <= p.ConsumeRate {
		t.Fatalf("g-slow: %+v", p)
	}
	first := *p.TimeLagMs
	testwait.For(t, 20*time.Second, "g-slow's time lag growing", func() (bool, string) {
		h, _, _ := groupHealth(t, ctx, c, "g-slow")
		q := h.Partitions[0]
		return q.TimeLagMs != nil && *q.TimeLagMs > first+1000 && q.EtaMs != nil, fmt.Sprintf("%+v", q)
	})

	// Stops committing: STOP once the silence outlasts the window.
	waitStatus(t, ctx, c, "g-stop", "OK", 30*time.Second)
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	waitStatus(t, ctx, c, "g-stop", "STOP", 60*time.Second)

	// Resets to an earlier offset: REWIND.
	testwait.For(t, 30*time.Second, "g-rewind's window filled", func() (bool, string) {
		h, _, ok := groupHealth(t, ctx, c, "g-rewind")
		return ok && len(h.Partitions) == 1 && h.Partitions[0].Commits >= 5, fmt.Sprintf("%+v", h)
	})
	s.mu.Lock()
	s.rewound = true
	s.mu.Unlock()
	<-s.rewindFirst
	waitStatus(t, ctx, c, "g-rewind", "REWIND", 30*time.Second)
	metricStatus(t, c, "g-rewind", 6)
	for g, code := range map[string]float64{"g-ok": 1, "g-slow": 2, "g-stop": 4} {
		metricStatus(t, c, g, code)
	}

	// Each group on its coordinator only.
	for g, brokers := range coordinatorHealth(t, ctx, c) {
		if strings.HasPrefix(g, "g-") && len(brokers) != 1 {
			t.Fatalf("group %s reported by brokers %v", g, brokers)
		}
	}
	// The TUI's groups tab shows the same statuses (sorted worst first by
	// the STATUS column, as its golden frames show for a fixture).
	var admins []string
	for _, b := range c.Brokers() {
		admins = append(admins, b.AdminAddr())
	}
	testwait.For(t, 30*time.Second, "kafgo tui --once --view groups", func() (bool, string) {
		frame, _, code := kafgoRun(t, "", "tui", "--once", "--bootstrap-server", c.Bootstrap(), "--admin", strings.Join(admins, ","),
			"--view", "groups", "--group", "g-slow", "--width", "160", "--height", "40")
		ok := code == 0
		for g, status := range map[string]string{"g-ok": "OK", "g-slow": "WARNING", "g-stop": "STOP"} {
			ok = ok && regexp.MustCompile(`(?m)^[ >] `+g+`\s.*\s`+status+`\s`).MatchString(frame)
		}
		// The detail of g-slow: its partition WARNING with a time lag and an ETA.
		ok = ok && regexp.MustCompile(`(?m)^\s+h-slow\s+0\s.*\sWARNING\s+[\d.]+[ms]+\s+[\dhms.]+\+`).MatchString(frame)
		return ok, frame
	})

	// groups --describe --health shows the same.
	bs := "--bootstrap-server=" + c.Bootstrap()
	testwait.For(t, 30*time.Second, "groups --describe --health", func() (bool, string) {
		out, _, code := kafgoRun(t, "", "groups", bs, "--describe", "--health", "--group", "g-slow")
		row := regexp.MustCompile(`(?m)^g-slow\s+h-slow\s+0\s+\d+\s+\d+\s+\d+\s+\S+\s+\S+\s+\S+\s+WARNING\s+\d[\w.]*s\s+growing\s+\S+\+$`)
		return code == 0 && row.MatchString(out) && strings.Contains(out, "Consumer group 'g-slow' health: WARNING"), out
	})
	out := kafgo(t, "", "groups", bs, "--describe", "--health", "--group", "g-stop")
	if !strings.Contains(out, "Consumer group 'g-stop' health: STOP") {
		t.Fatalf("%s", out)
	}
}
