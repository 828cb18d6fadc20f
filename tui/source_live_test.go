package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"kafgo/internal/adminapi"
	"kafgo/internal/testing/clitest"
)

// produceTo writes n records to one partition, a second apart from at,
// values "v-<offset>", and returns their offsets' first.
func produceTo(t *testing.T, ctx context.Context, addrs, topic string, partition int32, at time.Time, n int) {
	t.Helper()
	p := clitest.Client(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	for i := range n {
		r := &kgo.Record{Partition: partition, Key: []byte(fmt.Sprintf("k-%d", i)), Value: []byte(fmt.Sprintf("v-%d", i)),
			Timestamp: at.Add(time.Duration(i) * time.Second), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("x")}}}
		if err := p.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLiveMessages: the browser's reads position by offset, latest N,
// time and earliest, stop before Until and at the high watermark, keep
// at most maxRecordBytes of a value, and a tail follows new records.
func TestLiveMessages(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	ctx := clitest.Context(t, 60*time.Second)
	at := time.UnixMilli(1_700_000_000_000)
	produceTo(t, ctx, addrs, "orders", 0, at, 30)
	l := NewLive(clitest.Client(t, addrs), nil)

	offsets := func(pg Page) []int64 {
		var out []int64
		for _, r := range pg.Records {
			out = append(out, r.Offset)
		}
		return out
	}
	cases := []struct {
		name     string
		r        ReadRequest
		from     int64
		first, n int64
	}{
		{"latest 10", ReadRequest{Position: Position{Kind: AtLatest, N: 10}, Max: 100, Until: -1}, 20, 20, 10},
		{"offset 5, 3 of them", ReadRequest{Position: Position{Kind: AtOffset, Offset: 5}, Max: 3, Until: -1}, 5, 5, 3},
		{"by time", ReadRequest{Position: Position{Kind: AtTime, Millis: at.Add(12 * time.Second).UnixMilli()}, Max: 2, Until: -1}, 12, 12, 2},
		{"earliest until 4", ReadRequest{Position: Position{Kind: AtEarliest}, Max: 100, Until: 4}, 0, 0, 4},
		{"past the end", ReadRequest{Position: Position{Kind: AtOffset, Offset: 99}, Max: 10, Until: -1}, 30, 0, 0},
		{"after the last time", ReadRequest{Position: Position{Kind: AtTime, Millis: at.Add(time.Hour).UnixMilli()}, Max: 10, Until: -1}, 30, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.r.Topic, c.r.Partition = "orders", 0
			pg, err := l.Read(ctx, c.r)
			if err != nil {
				t.Fatal(err)
			}
			got := offsets(pg)
			if pg.Start != 0 || pg.End != 30 || pg.From != c.from || int64(len(got)) != c.n || (c.n > 0 && got[0] != c.first) {
				t.Fatalf("start %d end %d from %d offsets %v; want from %d, %d from %d", pg.Start, pg.End, pg.From, got, c.from, c.n, c.first)
			}
			for _, r := range pg.Records {
				if string(r.Value) != fmt.Sprintf("v-%d", r.Offset) || !r.Timestamp.Equal(at.Add(time.Duration(r.Offset)*time.Second)) ||
					len(r.Headers) != 1 || r.KeySize != len(r.Key) {
					t.Fatalf("record %+v", r)
				}
			}
		})
	}

	t.Run("a large value is cut", func(t *testing.T) {
		p := clitest.Client(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(1<<20))
		big := bytes.Repeat([]byte("x"), 3*maxRecordBytes)
		if err := p.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: 1, Value: big}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		pg, err := l.Read(ctx, ReadRequest{Topic: "orders", Partition: 1, Position: Position{Kind: AtEarliest}, Max: 10, Until: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Records) != 1 || len(pg.Records[0].Value) != maxRecordBytes || pg.Records[0].ValueSize != len(big) || pg.Records[0].KeySize != -1 {
			t.Fatalf("records %d, value %d of %d", len(pg.Records), len(pg.Records[0].Value), pg.Records[0].ValueSize)
		}
	})

	t.Run("follow", func(t *testing.T) {
		tail, err := l.Follow(ctx, "orders", 0, 30)
		if err != nil {
			t.Fatal(err)
		}
		defer tail.Close()
		produceTo(t, ctx, addrs, "orders", 0, at, 2)
		var got []int64
		clitest.Eventually(t, 20*time.Second, func() (bool, error) {
			pctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			recs, err := tail.Poll(pctx)
			for _, r := range recs {
				got = append(got, r.Offset)
			}
			return len(got) >= 2, err
		})
		if len(got) != 2 || got[0] != 30 || got[1] != 31 {
			t.Fatalf("followed %v", got)
		}
		tail.Close()
		if recs, err := tail.Poll(ctx); err != nil || len(recs) != 0 {
			t.Fatalf("poll after close: %v %v", recs, err)
		}
	})
}

// TestLiveConfigsAndActions: DescribeConfigs with sources, then every
// action against a cluster, and what the next snapshot shows of it.
func TestLiveConfigsAndActions(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	ctx := clitest.Context(t, 60*time.Second)
	cl := clitest.Client(t, addrs)
	l := NewLive(cl, nil)
	find := func(cs []ConfigEntry, name string) ConfigEntry {
		for _, c := range cs {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no config %s in %d", name, len(cs))
		return ConfigEntry{}
	}

	v := "3600000"
	if err := l.AlterConfig(ctx, ConfigResource{Name: "orders"}, "retention.ms", &v); err != nil {
		t.Fatal(err)
	}
	cs, err := l.Configs(ctx, ConfigResource{Name: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(cs, "retention.ms"); c.Value != v || !c.Dynamic() {
		t.Fatalf("retention.ms after alter: %+v", c)
	}
	if err := l.AlterConfig(ctx, ConfigResource{Name: "orders"}, "retention.ms", nil); err != nil {
		t.Fatal(err)
	}
	cs, _ = l.Configs(ctx, ConfigResource{Name: "orders"})
	if c := find(cs, "retention.ms"); c.Dynamic() {
		t.Fatalf("retention.ms after deleting the override: %+v", c)
	}
	if _, err := l.Configs(ctx, ConfigResource{Name: "nope"}); err == nil {
		t.Fatal("configs of a missing topic")
	}
	s, err := l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bcs, err := l.Configs(ctx, ConfigResource{Broker: true, Name: fmt.Sprint(s.Brokers[0].ID)})
	if err != nil || len(bcs) == 0 {
		t.Fatalf("broker configs: %d, %v", len(bcs), err)
	}

	if err := l.CreateTopic(ctx, "audit", 3, 1); err != nil {
		t.Fatal(err)
	}
	if err := l.CreateTopic(ctx, "audit", 3, 1); err == nil || !strings.Contains(err.Error(), "TOPIC_ALREADY_EXISTS") {
		t.Fatalf("second create: %v", err)
	}
	if err := l.AddPartitions(ctx, "audit", 5); err != nil {
		t.Fatal(err)
	}
	s, _ = l.Snapshot(ctx)
	if tt, ok := s.Topic("audit"); !ok || len(tt.Partitions) != 5 {
		t.Fatalf("audit after adding partitions: %+v", tt)
	}
	if err := l.DeleteTopic(ctx, "audit"); err != nil {
		t.Fatal(err)
	}
	clitest.Eventually(t, 10*time.Second, func() (bool, error) {
		s, err := l.Snapshot(ctx)
		if err != nil {
			return false, err
		}
		_, ok := s.Topic("audit")
		return !ok, nil
	})

	// Reset offsets: refused while the group has a member, done once empty.
	produceTo(t, ctx, addrs, "orders", 0, time.Now(), 10)
	member := clitest.Client(t, addrs, kgo.ConsumerGroup("billing"), kgo.ConsumeTopics("orders"), kgo.DisableAutoCommit())
	adm := kadm.NewClient(cl)
	clitest.Eventually(t, 20*time.Second, func() (bool, error) {
		d, err := adm.DescribeGroups(ctx, "billing")
		if err != nil {
			return false, err
		}
		member.PollRecords(ctx, 1) // joins
		return d["billing"].State == "Stable", nil
	})
	if _, err := l.ResetOffsets(ctx, "billing", ResetTo{Latest: true}); err == nil || !strings.Contains(err.Error(), "Stable") {
		t.Fatalf("reset of a live group: %v", err)
	}
	member.Close()
	clitest.Eventually(t, 20*time.Second, func() (bool, error) {
		d, err := adm.DescribeGroups(ctx, "billing")
		return err == nil && d["billing"].State == "Empty", err
	})
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 2, LeaderEpoch: -1})
	if err := adm.CommitAllOffsets(ctx, "billing", offs); err != nil {
		t.Fatal(err)
	}
	n, err := l.ResetOffsets(ctx, "billing", ResetTo{Latest: true})
	if err != nil || n != 1 {
		t.Fatalf("reset: %d, %v", n, err)
	}
	got, err := adm.FetchOffsets(ctx, "billing")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := got.Lookup("orders", 0); o.At != 10 {
		t.Fatalf("orders-0 at %d after reset to latest, want 10", o.At)
	}
	if n, err := l.ResetOffsets(ctx, "billing", ResetTo{Offset: 4}); err != nil || n != 1 {
		t.Fatalf("reset to offset: %d, %v", n, err)
	}
	got, _ = adm.FetchOffsets(ctx, "billing")
	if o, _ := got.Lookup("orders", 0); o.At != 4 {
		t.Fatalf("orders-0 at %d after reset to 4", o.At)
	}

	// Kafka answers ELECTION_NOT_NEEDED for a partition already led by
	// its preferred replica (counted as such, not as a failure); kfake
	// elects it again.
	note, err := l.ElectPreferred(ctx, map[string][]int32{"orders": {0}})
	if err != nil || (note != "0 leaders elected, 1 already preferred" && note != "1 leader elected, 0 already preferred") {
		t.Fatalf("elect: %q, %v", note, err)
	}
}

// TestLiveProbe: a broker that answers probes fine; one whose port is
// closed fails at once, as does the whole cluster once it is gone.
func TestLiveProbe(t *testing.T) {
	c, addrs := clitest.Cluster(t, kfake.NumBrokers(2))
	ctx := clitest.Context(t, 30*time.Second)
	l := NewLive(clitest.Client(t, addrs), nil)
	s, err := l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr)
	ln.Close()
	brokers := append(s.Brokers, Broker{ID: 99, Host: "127.0.0.1", Port: int32(closed.Port)}, Broker{ID: 98, Offline: true})
	res := l.Probe(ctx, brokers)
	for _, b := range s.Brokers {
		if err := res[b.ID]; err != nil {
			t.Fatalf("broker %d: %v", b.ID, err)
		}
	}
	if err := res[99]; err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("closed port: %v", err)
	}
	if _, probed := res[98]; probed {
		t.Fatal("a broker without an address was probed")
	}
	start := time.Now()
	c.Close()
	res = l.Probe(ctx, s.Brokers)
	for _, b := range s.Brokers {
		if res[b.ID] == nil {
			t.Fatalf("broker %d of a closed cluster answers", b.ID)
		}
	}
	if d := time.Since(start); d > probeTimeout+time.Second {
		t.Fatalf("probing a dead cluster took %s", d)
	}
}

// TestLiveAdminCounters: an admin endpoint's /metrics reaches the
// snapshot as the broker's counters, and min.insync.replicas as the
// topics'.
func TestLiveAdminCounters(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	ctx := clitest.Context(t, 30*time.Second)
	l := NewLive(clitest.Client(t, addrs), nil)
	s, err := l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := s.Brokers[0].ID
	mux := http.NewServeMux()
	mux.HandleFunc(adminapi.BrokerPath, func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(adminapi.Broker{BrokerID: id, ControllerID: id})
	})
	mux.HandleFunc(adminapi.PartitionsPath, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("[]")) })
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "# TYPE kafgo_network_received_bytes_total counter\nkafgo_network_received_bytes_total 4096\n"+
			"# TYPE kafgo_network_sent_bytes_total counter\nkafgo_network_sent_bytes_total 8192\n")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	l = NewLive(clitest.Client(t, addrs), []string{strings.TrimPrefix(srv.URL, "http://")})
	s, err = l.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Brokers[0].Counters
	if c == nil || c.BytesIn != 4096 || c.BytesOut != 8192 {
		t.Fatalf("counters %+v, warnings %q", c, s.Warnings)
	}
	if tt, _ := s.Topic("orders"); tt.MinISR != 1 {
		t.Fatalf("orders min ISR %d", tt.MinISR)
	}

	// An endpoint without metrics: no counters, and a warning saying why.
	mux2 := http.NewServeMux()
	mux2.Handle(adminapi.BrokerPath, mux)
	mux2.Handle(adminapi.PartitionsPath, mux)
	srv2 := httptest.NewServer(mux2)
	defer srv2.Close()
	s, err = NewLive(clitest.Client(t, addrs), []string{srv2.URL}).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Brokers[0].Counters != nil || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "counters: GET /metrics: 404") {
		t.Fatalf("counters %+v, warnings %q", s.Brokers[0].Counters, s.Warnings)
	}
}

// TestLiveVersions: the reassignments view is there on Kafka 2.4 and
// later (KIP-455) and hidden before, like the transactions one (3.0).
func TestLiveVersions(t *testing.T) {
	for _, c := range []struct {
		name        string
		versions    *kversion.Versions
		moves, txns bool
	}{
		{"2.3", kversion.V2_3_0(), false, false},
		{"2.8", kversion.V2_8_0(), true, false},
		{"3.0", kversion.V3_0_0(), true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"), kfake.MaxVersions(c.versions))
			ctx := clitest.Context(t, 30*time.Second)
			s, err := NewLive(clitest.Client(t, addrs, kgo.MaxVersions(c.versions)), nil).Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if (s.Reassignments != nil) != c.moves || (s.Transactions != nil) != c.txns {
				t.Fatalf("reassignments %+v, transactions %+v", s.Reassignments, s.Transactions)
			}
			if c.moves && (s.Reassignments.Err != "" || len(s.Reassignments.Moves) != 0) {
				t.Fatalf("reassignments %+v", s.Reassignments)
			}
		})
	}
}

func TestThrottlesConfig(t *testing.T) {
	for _, c := range []struct {
		v    string
		p    int32
		want bool
	}{
		{"*", 3, true}, {"0:1,0:2,3:1", 3, true}, {"0:1, 13:2", 3, false}, {"", 0, false}, {"13:1", 1, false},
	} {
		if got := throttles(c.v, c.p); got != c.want {
			t.Errorf("throttles(%q, %d) = %v", c.v, c.p, got)
		}
	}
}

// TestThrottleLeftover: the topics with throttled replicas are named
// whether or not they move, and a throttle set with nothing moving is a
// leftover, warned about with how to clear it.
func TestThrottleLeftover(t *testing.T) {
	cfg := map[string]map[string]string{
		"orders":   {minISRConfig: "2"},
		"payments": {leaderThrottledReplicas: "0:2,0:3", followerThrottledReplicas: "0:1"},
		"audit":    {followerThrottledReplicas: " "},
	}
	r := &Reassignments{Throttles: []BrokerThrottle{{Broker: 1, Leader: 1000, Follower: -1}, {Broker: 3, Leader: -1, Follower: 1000}}}
	r.throttledTopics(cfg)
	r.normalize()
	if !slices.Equal(r.ThrottledTopics, []string{"payments"}) || !r.Leftover() {
		t.Fatalf("throttled topics %q, leftover %v", r.ThrottledTopics, r.Leftover())
	}
	want := "replication throttle left set with no reassignment in progress (rates on brokers 1,3; throttled replicas of topic payments): clear it with kafgo reassign-partitions --verify --reassignment-json-file <plan>, or kafgo configs --alter --delete-config <the *.replication.throttled.* keys>"
	if got := r.leftoverWarning(); got != want {
		t.Fatalf("warning %q, want %q", got, want)
	}

	r.Moves = []Reassignment{{Topic: "payments", Partition: 0}, {Topic: "payments", Partition: 1}}
	r.ThrottledTopics = nil
	r.throttledTopics(cfg)
	if !r.Moves[0].Throttled || r.Moves[1].Throttled || r.Leftover() || r.leftoverWarning() != "" {
		t.Fatalf("moving: %+v, leftover %v", r.Moves, r.Leftover())
	}
	var none *Reassignments
	none.throttledTopics(cfg)
	if none.Leftover() || none.leftoverWarning() != "" {
		t.Fatal("a cluster without KIP-455 has a leftover throttle")
	}
}

// TestLiveLogStartWithoutAdmin: the log start comes from ListOffsets
// (earliest), which any Kafka serves, so it is known without --admin.
func TestLiveLogStartWithoutAdmin(t *testing.T) {
	_, addrs := clitest.Cluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	ctx := clitest.Context(t, 60*time.Second)
	produceTo(t, ctx, addrs, "orders", 0, time.UnixMilli(1_700_000_000_000), 30)
	cl := clitest.Client(t, addrs)
	del := kadm.Offsets{}
	del.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 10})
	if _, err := kadm.NewClient(cl).DeleteRecords(ctx, del); err != nil {
		t.Fatal(err)
	}
	s, err := NewLive(cl, nil).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	topic, ok := s.Topic("orders")
	if !ok || len(topic.Partitions) != 1 {
		t.Fatalf("no orders-0 in %+v", s.Topics)
	}
	p := topic.Partitions[0]
	if p.LogStart != 10 || p.HW != 30 {
		t.Fatalf("log start %d, high watermark %d; want 10 and 30", p.LogStart, p.HW)
	}
}
