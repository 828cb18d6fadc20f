package replica

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"kafgo/broker/clusterview"
	"kafgo/broker/partid"
	"kafgo/broker/record"
	"kafgo/broker/storage"
	"kafgo/internal/testing/testwait"
)

// fakeController records AlterPartition proposals and accepts them, or
// with refuse set answers INVALID_UPDATE_VERSION, carrying current (the
// state it holds) when set, else the proposal's own partition epoch.
type fakeController struct {
	mu        sync.Mutex
	proposals [][]int32
	refuse    bool
	current   *fakeState
}

type fakeState struct {
	isr            []int32
	partitionEpoch int32
}

func (f *fakeController) AlterPartition(_ context.Context, req *kmsg.AlterPartitionRequest) (*kmsg.AlterPartitionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rp := req.Topics[0].Partitions[0]
	f.proposals = append(f.proposals, slices.Clone(rp.NewISR))
	resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
	t := kmsg.NewAlterPartitionResponseTopic()
	p := kmsg.NewAlterPartitionResponseTopicPartition()
	p.Partition = rp.Partition
	p.LeaderEpoch = rp.LeaderEpoch
	p.LeaderID = req.BrokerID
	p.ISR = rp.NewISR
	p.PartitionEpoch = rp.PartitionEpoch + 1
	if f.refuse {
		p.ErrorCode = kerr.InvalidUpdateVersion.Code
		p.ISR, p.PartitionEpoch = rp.NewISR, rp.PartitionEpoch
		if f.current != nil {
			p.ISR, p.PartitionEpoch = slices.Clone(f.current.isr), f.current.partitionEpoch
		}
	}
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	return resp, nil
}

func (f *fakeController) last() []int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.proposals) == 0 {
		return nil
	}
	return f.proposals[len(f.proposals)-1]
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newManager(t testing.TB, minISR int32) (*Manager, *fakeController, *clock) {
	t.Helper()
	return newManagerWith(t, minISR, nil)
}

// newManagerWith is newManager with a hook to adjust the Config (its
// clock already set) before the manager is built.
func newManagerWith(t testing.TB, minISR int32, adjust func(*Config, *clock)) (*Manager, *fakeController, *clock) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	logs, err := storage.OpenManager(storage.ManagerConfig{LogDirs: []string{t.TempDir()}, BrokerID: 1, DefaultLog: storage.DefaultLogConfig(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logs.Shutdown() })
	ctl := &fakeController{}
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	cfg := Config{
		BrokerID: 1, Logs: logs, Cache: clusterview.New(), Controller: ctl,
		ConfigFor: func(string) PartitionConfig {
			return PartitionConfig{Log: storage.DefaultLogConfig(), MinInsyncReplicas: minISR, MaxMessageBytes: 1 << 20}
		},
		ReplicaLagTimeMax: 10 * time.Second, Logger: logger, Clock: clk.now, FetchBackoff: time.Millisecond,
	}
	if adjust != nil {
		adjust(&cfg, clk)
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	return m, ctl, clk
}

var tp0 = partid.TopicPartition{Topic: "t", Partition: 0}

func leaderAndISR(leader, epoch int32, isr, replicas []int32) *kmsg.LeaderAndISRRequest {
	req := kmsg.NewPtrLeaderAndISRRequest()
	req.Version = 5
	req.ControllerID, req.ControllerEpoch, req.BrokerEpoch = 1, 1, -1
	ts := kmsg.NewLeaderAndISRRequestTopicState()
	ts.Topic = tp0.Topic
	ps := kmsg.NewLeaderAndISRRequestTopicPartition()
	ps.Partition, ps.Leader, ps.LeaderEpoch, ps.ISR, ps.Replicas, ps.ZKVersion = 0, leader, epoch, isr, replicas, epoch
	ts.PartitionStates = append(ts.PartitionStates, ps)
	req.TopicStates = append(req.TopicStates, ts)
	return req
}

func batch(t testing.TB, n int) []byte {
	t.Helper()
	b := record.NewBuilder(0, record.CodecNone)
	for i := 0; i < n; i++ {
		b.Append(1_700_000_000_000, nil, []byte("v"), nil)
	}
	out, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func followerFetch(m *Manager, id int32, offset int64) FetchResult {
	return m.Fetch(context.Background(), FetchRequest{ReplicaID: id, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
		TP: tp0, FetchOffset: offset, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1, LogStartOffset: 0,
	}}})[0]
}

func TestHighWatermarkIsMinimumISRLogEnd(t *testing.T) {
	m, _, _ := newManager(t, 1)
	if code := m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2, 3}, []int32{1, 2, 3})).Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("LeaderAndIsr: %v", kerr.ErrorForCode(code))
	}
	res := m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 10)}})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	p, _ := m.Partition(tp0)
	if hw := p.HighWatermark(); hw != 0 {
		t.Fatalf("HW %d before any follower fetched", hw)
	}
	// A consumer sees nothing above the HW.
	if r := m.Fetch(context.Background(), FetchRequest{ReplicaID: -1, MaxBytes: 1 << 20, Partitions: []FetchPartition{{TP: tp0, MaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LastFetchedEpoch: -1}}})[0]; r.Bytes != 0 {
		t.Fatalf("consumer read %d bytes above the HW", r.Bytes)
	}
	followerFetch(m, 2, 10)
	if hw := p.HighWatermark(); hw != 0 {
		t.Fatalf("HW %d with follower 3 still at 0", hw)
	}
	followerFetch(m, 3, 4)
	if hw := p.HighWatermark(); hw != 4 {
		t.Fatalf("HW %d, want min LEO 4", hw)
	}
	followerFetch(m, 3, 10)
	if hw := p.HighWatermark(); hw != 10 {
		t.Fatalf("HW %d, want 10", hw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m.WaitForAcks(ctx, time.Second, res)
	if res[0].Err != nil {
		t.Fatalf("acks=all after full replication: %v", res[0].Err)
	}
}

func TestAcksAllWaitsAndMinISR(t *testing.T) {
	m, ctl, clk := newManager(t, 2)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
	res := m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 3)}})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	done := make(chan struct{})
	go func() {
		m.WaitForAcks(context.Background(), 10*time.Second, res)
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("acks=all answered before the follower had the records")
	case <-time.After(100 * time.Millisecond):
	}
	followerFetch(m, 2, 3)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("acks=all not answered after replication")
	}
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}

	// The follower falls behind for longer than the lag time: it leaves the
	// ISR (proposed to the controller), and the ISR is below min.insync=2.
	res = m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 2)}})
	clk.add(11 * time.Second)
	m.shrinkISRs()
	testwait.Until(t, 5*time.Second, "ISR shrink proposal", func() bool { return slices.Equal(ctl.last(), []int32{1}) })
	p, _ := m.Partition(tp0)
	testwait.Until(t, 5*time.Second, "ISR shrink applied", func() bool { return slices.Equal(p.State().ISR, []int32{1}) })
	m.WaitForAcks(context.Background(), time.Second, res)
	if !errors.Is(res[0].Err, kerr.NotEnoughReplicasAfterAppend) {
		t.Fatalf("acks=all with the ISR shrunk under it: %v, want NOT_ENOUGH_REPLICAS_AFTER_APPEND", res[0].Err)
	}
	res = m.AppendToLeaders(-1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}})
	if !errors.Is(res[0].Err, kerr.NotEnoughReplicas) {
		t.Fatalf("acks=all with ISR below min: %v, want NOT_ENOUGH_REPLICAS", res[0].Err)
	}
	if leo := p.Log().LogEndOffset(); leo != 5 {
		t.Fatalf("a refused append wrote: LEO %d", leo)
	}
	// acks=1 still works; the follower catches up and is proposed back.
	if r := m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	followerFetch(m, 2, 6)
	testwait.Until(t, 5*time.Second, "ISR expand proposal", func() bool { return slices.Equal(ctl.last(), []int32{1, 2}) })
}

// TestTruncationByLeaderEpoch checks KIP-101/279's rules on a follower log
// holding epochs 0 (offsets 0-9) and 2 (offsets 10-19).
func TestTruncationByLeaderEpoch(t *testing.T) {
	for _, tc := range []struct {
		name        string
		leaderEpoch int32
		leaderEnd   int64
		hw          int64
		wantLEO     int64
		wantDone    bool
	}{
		{"leader has our latest epoch and more", 2, 30, 0, 20, true},
		{"leader's epoch 2 ended earlier", 2, 15, 0, 15, true},
		{"leader never had epoch 2; its epoch 1 ended at 12", 1, 12, 0, 10, false},
		{"leader's epoch 0 ended at 7", 0, 7, 0, 7, true},
		{"leader knows nothing: fall back to HW", -1, -1, 8, 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newManager(t, 1)
			// One record per batch, so truncation points fall on batch
			// boundaries as they do between replicas of one leader's log.
			m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1, 2}))
			for i := 0; i < 10; i++ {
				m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}})
			}
			m.HandleLeaderAndISR(leaderAndISR(1, 2, []int32{1}, []int32{1, 2}))
			for i := 0; i < 10; i++ {
				m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 1)}})
			}
			p, _ := m.Partition(tp0)
			p.log.SetHighWatermark(tc.hw)
			done, err := p.truncateToLeaderEpoch(tc.leaderEpoch, tc.leaderEnd)
			if err != nil {
				t.Fatal(err)
			}
			if leo := p.Log().LogEndOffset(); leo != tc.wantLEO || done != tc.wantDone {
				t.Fatalf("LEO %d done %v, want %d %v", leo, done, tc.wantLEO, tc.wantDone)
			}
		})
	}
}

// TestFollowerDropsEmptyEpochAtLogEnd: a broker that led the partition for
// an epoch without appending (its cache names that epoch at its log end)
// becomes a follower; the leader, which never wrote the epoch, answers its
// fetch with a diverging epoch ending exactly at the follower's log end.
// Applying it must drop the empty epoch so that the next fetch names the
// epoch the leader has, instead of diverging at the same point forever.
func TestFollowerDropsEmptyEpochAtLogEnd(t *testing.T) {
	m, _, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1, 2}))
	m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 5)}})
	m.HandleLeaderAndISR(leaderAndISR(1, 2, []int32{1}, []int32{1, 2})) // elected again, writes nothing
	p, _ := m.Partition(tp0)
	if e, _ := p.log.Epochs().LatestEpoch(); e != 2 {
		t.Fatalf("latest epoch %d after the empty leadership, want 2", e)
	}
	done, err := p.truncateToLeaderEpoch(0, 5) // the leader's answer for epoch 2
	if err != nil || !done {
		t.Fatalf("truncateToLeaderEpoch: %v %v", done, err)
	}
	if e, _ := p.log.Epochs().LatestEpoch(); e != 0 || p.log.LogEndOffset() != 5 {
		t.Fatalf("latest epoch %d, LEO %d; want epoch 0 and all 5 records kept", e, p.log.LogEndOffset())
	}
}

// TestLeaderReportsDivergingEpoch: a follower fetching with a last fetched
// epoch the leader ended earlier gets diverging_epoch instead of records.
func TestLeaderReportsDivergingEpoch(t *testing.T) {
	m, _, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1, 2}, []int32{1, 2}))
	m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 5)}})
	m.HandleLeaderAndISR(leaderAndISR(1, 3, []int32{1, 2}, []int32{1, 2}))
	m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 5)}})
	// The follower claims epoch 1 up to offset 8: the leader never had
	// epoch 1; its largest epoch below is 0, which ended at 5.
	r := m.Fetch(context.Background(), FetchRequest{ReplicaID: 2, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
		TP: tp0, FetchOffset: 8, MaxBytes: 1 << 20, CurrentLeaderEpoch: 3, LastFetchedEpoch: 1,
	}}})[0]
	if r.Err != nil || !r.Diverging || r.DivergingEpoch != 0 || r.DivergingEndOffset != 5 || r.Bytes != 0 {
		t.Fatalf("result %+v", r)
	}
	// An up-to-date follower gets records.
	r = m.Fetch(context.Background(), FetchRequest{ReplicaID: 2, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
		TP: tp0, FetchOffset: 5, MaxBytes: 1 << 20, CurrentLeaderEpoch: 3, LastFetchedEpoch: 0,
	}}})[0]
	if r.Err != nil || r.Diverging || r.Bytes == 0 {
		t.Fatalf("in-sync follower fetch %+v", r)
	}
	// Fencing: an older current leader epoch is refused.
	r = m.Fetch(context.Background(), FetchRequest{ReplicaID: 2, MaxBytes: 1 << 20, Partitions: []FetchPartition{{
		TP: tp0, FetchOffset: 5, MaxBytes: 1 << 20, CurrentLeaderEpoch: 2, LastFetchedEpoch: -1,
	}}})[0]
	if !errors.Is(r.Err, kerr.FencedLeaderEpoch) {
		t.Fatalf("stale epoch fetch: %v", r.Err)
	}
}

func TestStaleLeaderAndISRIgnored(t *testing.T) {
	m, _, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 5, []int32{1}, []int32{1, 2}))
	resp := m.HandleLeaderAndISR(leaderAndISR(2, 4, []int32{2}, []int32{1, 2}))
	if code := resp.Topics[0].Partitions[0].ErrorCode; code != kerr.StaleControllerEpoch.Code {
		t.Fatalf("older leader epoch accepted: %v", kerr.ErrorForCode(code))
	}
	if p, _ := m.Partition(tp0); !p.IsLeader() {
		t.Fatal("stale state demoted the leader")
	}
	old := leaderAndISR(1, 6, []int32{1}, []int32{1, 2})
	old.ControllerEpoch = 0
	if m.HandleLeaderAndISR(old).ErrorCode != kerr.StaleControllerEpoch.Code {
		t.Fatal("request from an older controller epoch accepted")
	}
}

// TestRefusedAsStaleTakesControllersState: a leader that missed the answer
// to an accepted proposal holds an old partition epoch, and the controller
// refuses every proposal it makes from it (INVALID_UPDATE_VERSION). The
// refusal carries the controller's state: the leader takes it and its next
// proposal goes through, instead of being refused for ever (seen in a
// kill -9 test: a follower never came back into the ISR).
func TestRefusedAsStaleTakesControllersState(t *testing.T) {
	m, ctl, _ := newManager(t, 1)
	m.HandleLeaderAndISR(leaderAndISR(1, 0, []int32{1}, []int32{1, 2, 3}))
	p, _ := m.Partition(tp0)
	m.AppendToLeaders(1, []ProducePartition{{TP: tp0, Batches: batch(t, 3)}})

	// The controller already has follower 2 in the ISR, at partition
	// epoch 5; this leader never heard.
	ctl.mu.Lock()
	ctl.refuse, ctl.current = true, &fakeState{isr: []int32{1, 2}, partitionEpoch: 5}
	ctl.mu.Unlock()
	followerFetch(m, 3, 3)
	testwait.Until(t, 5*time.Second, "the controller's state taken", func() bool {
		st := p.State()
		return slices.Equal(st.ISR, []int32{1, 2}) && st.PartitionEpoch == 5
	})

	ctl.mu.Lock()
	ctl.refuse, ctl.current = false, nil
	ctl.mu.Unlock()
	testwait.Until(t, 5*time.Second, "follower 3 in the ISR", func() bool {
		followerFetch(m, 3, 3)
		return slices.Equal(p.State().ISR, []int32{1, 2, 3})
	})
	if last := ctl.last(); !slices.Equal(last, []int32{1, 2, 3}) {
		t.Fatalf("last proposal %v, want [1 2 3] from the controller's state", last)
	}
}
