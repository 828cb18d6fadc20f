package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"kafgo/internal/testing/testcluster"
	"kafgo/internal/testing/testwait"
)

// memberGate freezes a client's connections, to simulate a member that hangs or
// crashes without LeaveGroup: frozen, writes and dials block (no heartbeat
// reaches the coordinator); broken, they fail at once (so the client can be
// closed quickly at the end).
type memberGate struct {
	mu     sync.Mutex
	frozen bool
	broken bool
	change chan struct{} // closed and replaced on every state change
}

func newMemberGate() *memberGate { return &memberGate{change: make(chan struct{})} }

func (g *memberGate) set(frozen, broken bool) {
	g.mu.Lock()
	g.frozen, g.broken = frozen, broken
	close(g.change)
	g.change = make(chan struct{})
	g.mu.Unlock()
}

var errGateBroken = errors.New("gate: connection broken by the test")

// pass blocks while frozen; it fails once broken or when done closes.
func (g *memberGate) pass(done <-chan struct{}) error {
	for {
		g.mu.Lock()
		frozen, broken, change := g.frozen, g.broken, g.change
		g.mu.Unlock()
		switch {
		case broken:
			return errGateBroken
		case !frozen:
			return nil
		}
		select {
		case <-change:
		case <-done:
			return net.ErrClosed
		}
	}
}

func (g *memberGate) dialer() func(ctx context.Context, network, host string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, host string) (net.Conn, error) {
		if err := g.pass(ctx.Done()); err != nil {
			return nil, err
		}
		c, err := d.DialContext(ctx, network, host)
		if err != nil {
			return nil, err
		}
		return &gatedGroupConn{Conn: c, g: g, closed: make(chan struct{})}, nil
	}
}

type gatedGroupConn struct {
	net.Conn
	g      *memberGate
	once   sync.Once
	closed chan struct{}
}

func (c *gatedGroupConn) Write(b []byte) (int, error) {
	if err := c.g.pass(c.closed); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

func (c *gatedGroupConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// ownership records which partitions each member's client believes it
// owns, from kgo's assignment callbacks.
type groupOwnership struct {
	mu    sync.Mutex
	owned map[string]map[int32]bool
	// changed gets a value on every change, for timing rebalances.
	changed chan struct{}
}

func newGroupOwnership() *groupOwnership {
	return &groupOwnership{owned: map[string]map[int32]bool{}, changed: make(chan struct{}, 1)}
}

func (o *groupOwnership) update(member string, ps map[string][]int32, add bool) {
	o.mu.Lock()
	m := o.owned[member]
	if m == nil {
		m = map[int32]bool{}
		o.owned[member] = m
	}
	for _, parts := range ps {
		for _, p := range parts {
			if add {
				m[p] = true
			} else {
				delete(m, p)
			}
		}
	}
	o.mu.Unlock()
	select {
	case o.changed <- struct{}{}:
	default:
	}
}

// exact reports whether the members (and only they) own all n partitions,
// each exactly once, every member at least one.
func (o *groupOwnership) exact(n int, members ...string) (bool, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	count := make([]int, n)
	var desc []string
	for _, m := range members {
		var ps []int
		for p := range o.owned[m] {
			if int(p) < n {
				count[p]++
			}
			ps = append(ps, int(p))
		}
		sort.Ints(ps)
		desc = append(desc, fmt.Sprintf("%s=%v", m, ps))
		if len(ps) == 0 {
			return false, strings.Join(desc, " ")
		}
	}
	for _, c := range count {
		if c != 1 {
			return false, strings.Join(desc, " ")
		}
	}
	return true, strings.Join(desc, " ")
}

type groupMember struct {
	name string
	cl   *kgo.Client
	gate *memberGate
	stop context.CancelFunc
	done chan struct{}
}

// startGroupMember starts a kgo group consumer that polls in the background.
func startGroupMember(t *testing.T, c *testcluster.Cluster, name, group, topic string, own *groupOwnership, opts ...kgo.Opt) *groupMember {
	t.Helper()
	g := newMemberGate()
	base := []kgo.Opt{
		kgo.SeedBrokers(c.Addrs()...),
		kgo.ClientID(name),
		kgo.Dialer(g.dialer()),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(6 * time.Second),
		kgo.HeartbeatInterval(500 * time.Millisecond),
		kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { own.update(name, ps, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { own.update(name, ps, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { own.update(name, ps, false) }),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &groupMember{name: name, cl: cl, gate: g, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			if fs.IsClientClosed() {
				return
			}
		}
	}()
	t.Cleanup(func() {
		g.set(false, true) // a frozen member must not hold up the cleanup
		cancel()
		cl.Close()
		<-m.done
	})
	return m
}

// groupBrokerAssignment asks the coordinator (DescribeGroups) who owns what:
// it must be Stable, list exactly the named clients, and assign each of
// the n partitions to exactly one of them.
func groupBrokerAssignment(adm *kadm.Client, group, topic string, n int, clients ...string) (bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	dg, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		return false, err.Error()
	}
	d := dg[group]
	if d.Err != nil || d.State != "Stable" {
		return false, fmt.Sprintf("state %q err %v", d.State, d.Err)
	}
	var got []string
	count := make([]int, n)
	for _, m := range d.Members {
		got = append(got, m.ClientID)
		a, ok := m.Assigned.AsConsumer()
		if !ok {
			return false, "undecodable assignment"
		}
		for _, t := range a.Topics {
			if t.Topic != topic {
				continue
			}
			for _, p := range t.Partitions {
				count[p]++
			}
		}
	}
	slices.Sort(got)
	want := slices.Clone(clients)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return false, fmt.Sprintf("members %v, want %v", got, want)
	}
	for p, k := range count {
		if k != 1 {
			return false, fmt.Sprintf("partition %d assigned %d times", p, k)
		}
	}
	return true, ""
}

func groupCreateTopic(t *testing.T, c *testcluster.Cluster, topic string, partitions int32, rf int16) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adm := c.Admin()
	if _, err := adm.CreateTopic(ctx, partitions, rf, nil, topic); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 30*time.Second, "topic leaders", func() (bool, string) {
		md, err := adm.Metadata(ctx, topic)
		if err != nil {
			return false, err.Error()
		}
		td := md.Topics[topic]
		if len(td.Partitions) != int(partitions) {
			return false, fmt.Sprintf("%d partitions", len(td.Partitions))
		}
		for _, p := range td.Partitions {
			if p.Leader < 0 || p.Err != nil {
				return false, fmt.Sprintf("partition %d leader %d err %v", p.Partition, p.Leader, p.Err)
			}
		}
		return true, ""
	})
}

// groupProduce writes n records "0".."n-1" spread over the topic's
// partitions, uncompressed (kafka-python here has no snappy library).
func groupProduce(t *testing.T, c *testcluster.Cluster, topic string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.Client(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Value: fmt.Appendf(nil, "%d", i)}, func(_ *kgo.Record, err error) {
			defer wg.Done()
			if err != nil {
				t.Errorf("produce: %v", err)
			}
		})
	}
	wg.Wait()
}

// committed fetches a group's committed offsets per partition of topic.
func groupCommitted(t *testing.T, adm *kadm.Client, group, topic string) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatalf("fetch offsets of %s: %v", group, err)
	}
	out := map[int32]int64{}
	for _, ps := range res {
		for p, r := range ps {
			if r.Topic == topic && r.Err == nil {
				out[p] = r.At
			}
		}
	}
	return out
}

// groupEndOffsets is each partition's high watermark.
func groupEndOffsets(t *testing.T, adm *kadm.Client, topic string) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	res.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}
