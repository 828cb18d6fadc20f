package tui

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// fakeSource answers the snapshots (or errors) it is given, in order,
// repeating the last one; it counts calls so tests can tell whether the
// model asked.
type fakeSource struct {
	mu    sync.Mutex
	steps []fakeStep
	calls int

	configs     map[ConfigResource][]ConfigEntry
	records     map[tp][]Record
	tailBatches [][]Record
	tails       []*fakeTail
	follows     []string
	acts        []string
	actErr      error
	probeErr    map[int32]error
}

type fakeStep struct {
	snap *Snapshot
	err  error
}

func newFake(steps ...fakeStep) *fakeSource { return &fakeSource{steps: steps} }

func (f *fakeSource) Snapshot(ctx context.Context) (*Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := min(f.calls, len(f.steps)-1)
	f.calls++
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f.steps[i].snap, f.steps[i].err
}

func (f *fakeSource) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

var fixedTime = time.Date(2024, 5, 17, 9, 30, 15, 0, time.UTC)

// healthy is a three-broker cluster with everything in sync.
func healthy() *Snapshot {
	s := &Snapshot{
		Taken:      fixedTime,
		ClusterID:  "q1Sh-9_ISia_zwGINzRvyQ",
		Controller: Controller{ID: 2, Epoch: 7},
		Brokers: []Broker{
			{ID: 1, Host: "kafka-1.example", Port: 9092, Rack: "eu-1a", Admin: "kafka-1.example:9644"},
			{ID: 2, Host: "kafka-2.example", Port: 9092, Rack: "eu-1b", Admin: "kafka-2.example:9644"},
			{ID: 3, Host: "kafka-3.example", Port: 9092, Rack: "eu-1c", Admin: "kafka-3.example:9644"},
		},
		Topics: []Topic{
			{Name: "__consumer_offsets", Internal: true, Partitions: []Partition{
				part(0, 1, []int32{1, 2, 3}, nil, 12, nil),
				part(1, 2, []int32{2, 3, 1}, nil, 4, nil),
			}},
			{Name: "orders", MinISR: 2, Partitions: []Partition{
				part(0, 1, []int32{1, 2, 3}, nil, 1200, nil),
				part(1, 2, []int32{2, 3, 1}, nil, 1187, nil),
				part(2, 3, []int32{3, 1, 2}, nil, 1213, nil),
			}},
			{Name: "payments", MinISR: 1, Partitions: []Partition{
				part(0, 2, []int32{2, 3}, nil, 40, nil),
				part(1, 3, []int32{3, 1}, nil, 38, nil),
			}},
		},
		Groups: []Group{
			{ID: "billing", State: "Stable", ProtocolType: "consumer", Protocol: "cooperative-sticky", Coordinator: 1,
				Members: []Member{
					{ID: "m-1", ClientID: "billing-a", Host: "/10.0.0.5", Assigned: []string{"orders-0", "orders-1"}},
					{ID: "m-2", ClientID: "billing-b", Host: "/10.0.0.6", Assigned: []string{"orders-2"}},
				},
				Offsets: []GroupOffset{
					{Topic: "orders", Partition: 0, Committed: 1200, End: 1200, MemberID: "m-1", ClientID: "billing-a", Host: "/10.0.0.5"},
					{Topic: "orders", Partition: 1, Committed: 1187, End: 1187, MemberID: "m-1", ClientID: "billing-a", Host: "/10.0.0.5"},
					{Topic: "orders", Partition: 2, Committed: 1213, End: 1213, MemberID: "m-2", ClientID: "billing-b", Host: "/10.0.0.6"},
				}},
		},
	}
	s.Normalize()
	return s
}

// degraded has broker 3 down: orders-1 has lost its only in-sync
// replica (offline leader), orders-0 and payments-1 are under-replicated,
// and in orders-2 a follower lags; group billing lags, reports is
// rebalancing, one group failed to describe, and an admin endpoint is
// unreachable.
func degraded() *Snapshot {
	s := &Snapshot{
		Taken:      fixedTime,
		ClusterID:  "q1Sh-9_ISia_zwGINzRvyQ",
		Controller: Controller{ID: 1, Epoch: 8},
		Brokers: []Broker{
			{ID: 1, Host: "kafka-1.example", Port: 9092, Rack: "eu-1a", Admin: "kafka-1.example:9644"},
			{ID: 2, Host: "kafka-2.example", Port: 9092, Rack: "eu-1b"},
			{ID: 3, Offline: true},
		},
		Topics: []Topic{
			{Name: "orders", MinISR: 2, Partitions: []Partition{
				part(0, 1, []int32{1, 2, 3}, []int32{1, 2}, 1250, map[int32]int64{1: 1250, 2: 1250}),
				{ID: 1, Leader: -1, LeaderEpoch: 9, Replicas: []int32{3}, ISR: []int32{3}, Offline: []int32{3}, HW: -1, LEO: -1, LogStart: -1},
				part(2, 1, []int32{1, 2}, nil, 1300, map[int32]int64{1: 1300, 2: 1234}),
			}},
			{Name: "payments", MinISR: 2, Partitions: []Partition{
				part(0, 2, []int32{2, 1}, nil, 40, nil),
				part(1, 1, []int32{3, 1}, []int32{1}, 38, map[int32]int64{1: 38}),
			}},
		},
		Groups: []Group{
			{ID: "billing", State: "Stable", ProtocolType: "consumer", Protocol: "range", Coordinator: 1,
				Members: []Member{{ID: "m-1", ClientID: "billing-a", Host: "/10.0.0.5"}},
				Offsets: []GroupOffset{
					{Topic: "orders", Partition: 0, Committed: 1100, End: 1250, ClientID: "billing-a", Host: "/10.0.0.5"},
					{Topic: "orders", Partition: 1, Committed: 900, End: -1, ClientID: "billing-a", Host: "/10.0.0.5"},
					{Topic: "orders", Partition: 2, Committed: -1, End: 1234, ClientID: "billing-a", Host: "/10.0.0.5"},
				}},
			{ID: "reports", State: "PreparingRebalance", ProtocolType: "consumer", Protocol: "range", Coordinator: 2,
				Offsets: []GroupOffset{{Topic: "payments", Partition: 0, Committed: 35, End: 40}}},
			{ID: "stuck", Coordinator: -1, Err: "COORDINATOR_NOT_AVAILABLE"},
		},
		Warnings: []string{
			"admin kafka-2.example:9644: dial tcp 10.0.0.2:9644: connect: connection refused",
			"high watermark of orders-1: LEADER_NOT_AVAILABLE",
		},
	}
	// The lagging follower is still in the ISR, so it holds the high
	// watermark back.
	s.Topics[0].Partitions[2].HW = 1234
	s.Normalize()
	return s
}

// many has more topics and partitions than a screen holds.
func many() *Snapshot {
	s := healthy()
	for i := 0; i < 40; i++ {
		s.Topics = append(s.Topics, Topic{Name: fmt.Sprintf("events-%02d", i), Partitions: []Partition{part(0, 1, []int32{1}, nil, int64(i), nil)}})
	}
	big := Topic{Name: "clicks"}
	var offs []GroupOffset
	for p := int32(0); p < 30; p++ {
		big.Partitions = append(big.Partitions, part(p, p%3+1, []int32{p%3 + 1}, nil, int64(100+p), nil))
		offs = append(offs, GroupOffset{Topic: "clicks", Partition: p, Committed: int64(90 + p), End: int64(100 + p)})
	}
	s.Topics = append(s.Topics, big)
	s.Groups = append(s.Groups, Group{ID: "clickstream", State: "Empty", ProtocolType: "consumer", Coordinator: 3, Offsets: offs})
	s.Normalize()
	return s
}

// part is an online partition; isr nil means all replicas are in sync,
// leos nil means every replica is at the leader's LEO.
func part(id, leader int32, replicas, isr []int32, leo int64, leos map[int32]int64) Partition {
	if isr == nil {
		isr = replicas
	}
	if leos == nil {
		leos = map[int32]int64{}
		for _, r := range replicas {
			leos[r] = leo
		}
	}
	return Partition{ID: id, Leader: leader, LeaderEpoch: 4, Replicas: replicas, ISR: isr, HW: leo, LEO: leo, LogStart: 0, ReplicaLEOs: leos}
}

// withTxns is healthy with open transactions: a consume-transform-produce
// member mid-transaction, one committing, one open past its timeout (a
// hanging transaction), one over more partitions than a frame lists, and
// idle transactional ids.
func withTxns() *Snapshot {
	s := healthy()
	at := func(ago time.Duration) int64 { return fixedTime.Add(-ago).UnixMilli() }
	var wide []string
	for p := 0; p < 40; p++ {
		wide = append(wide, fmt.Sprintf("clickstream-enriched-%d", p))
	}
	s.Transactions = &Transactions{
		Idle: 3,
		Open: []Transaction{
			{ID: "orders-etl-1", Coordinator: 2, ProducerID: 4001, Epoch: 7, State: "Ongoing", TimeoutMs: 60000, StartMs: at(12 * time.Second),
				Partitions: []string{"__consumer_offsets-1", "payments-0", "payments-1"}},
			{ID: "orders-etl-0", Coordinator: 1, ProducerID: 4000, Epoch: 3, State: "PrepareCommit", TimeoutMs: 60000, StartMs: at(800 * time.Millisecond),
				Partitions: []string{"payments-1"}},
			{ID: "legacy-loader", Coordinator: 3, ProducerID: 17, Epoch: 0, State: "Ongoing", TimeoutMs: 900000, StartMs: at(2*time.Hour + 5*time.Minute),
				Partitions: []string{"orders-2"}},
			{ID: "enricher", Coordinator: 1, ProducerID: 5000, Epoch: 12, State: "Ongoing", TimeoutMs: 30000, StartMs: at(3 * time.Second),
				Partitions: wide},
		},
	}
	s.Normalize()
	return s
}

// busy is healthy observed six times, two seconds apart, ending at
// fixedTime: records arrive on orders and payments at changing rates,
// billing consumes them and falls behind, and every broker's admin
// endpoint reports byte counters (broker 1 per topic too).
func busy() []*Snapshot {
	var out []*Snapshot
	in := []int64{0, 40, 140, 200, 320, 520} // records into each orders partition by then
	for i := range in {
		s := healthy()
		s.Taken = fixedTime.Add(time.Duration(i-len(in)+1) * 2 * time.Second)
		for ti := range s.Topics {
			t := &s.Topics[ti]
			for pi := range t.Partitions {
				p := &t.Partitions[pi]
				add := in[i]
				if t.Name == "payments" {
					add = in[i] / 4
				}
				if t.Internal {
					add = 0
				}
				p.HW += add
				p.LEO += add
				for r := range p.ReplicaLEOs {
					p.ReplicaLEOs[r] += add
				}
			}
		}
		consumed := []int64{0, 30, 90, 150, 240, 340}[i]
		for oi := range s.Groups[0].Offsets {
			o := &s.Groups[0].Offsets[oi]
			o.Committed += consumed
			o.End += in[i]
		}
		for bi := range s.Brokers {
			b := &s.Brokers[bi]
			base := float64(1_000_000 * (bi + 1))
			b.Counters = &Counters{BytesIn: base + float64(in[i])*1200, BytesOut: base + float64(in[i])*3100}
			if b.ID == 1 {
				b.Counters.Topics = map[string]TopicCounters{
					"orders":   {BytesIn: float64(in[i]) * 1000, BytesOut: float64(in[i]) * 2500},
					"payments": {BytesIn: float64(in[i]) * 200, BytesOut: float64(in[i]) * 600},
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// reassigning is healthy with payments moving to brokers 1 and 3 under
// a throttle: payments-0 from 2,3 to 3,1 (1 adding, 2 removing) with
// broker 1 behind, payments-1 done with its data but not yet finished.
func reassigning() *Snapshot {
	s := healthy()
	for ti := range s.Topics {
		t := &s.Topics[ti]
		if t.Name != "payments" {
			continue
		}
		t.Partitions[0] = part(0, 2, []int32{3, 1, 2}, []int32{2, 3}, 40, map[int32]int64{2: 40, 3: 40, 1: 12})
		t.Partitions[1] = part(1, 3, []int32{3, 1, 2}, []int32{3, 1}, 38, nil)
	}
	s.Reassignments = &Reassignments{
		Moves: []Reassignment{
			{Topic: "payments", Partition: 0, Replicas: []int32{3, 1, 2}, Adding: []int32{1}, Removing: []int32{2}, Throttled: true, BytesLeft: 3 << 20},
			{Topic: "payments", Partition: 1, Replicas: []int32{3, 1, 2}, Adding: []int32{2}, Removing: []int32{1}, Throttled: true, BytesLeft: 0},
		},
		Throttles:       []BrokerThrottle{{Broker: 1, Leader: 10 << 20, Follower: 10 << 20}, {Broker: 2, Leader: 10 << 20, Follower: -1}},
		ThrottledTopics: []string{"payments"},
	}
	s.Normalize()
	return s
}

// reassigned is reassigning once the moves are done but before anyone
// ran --verify: the throttles are still set.
func reassigned() *Snapshot {
	s := reassigning()
	s.Reassignments.Moves = nil
	return s
}

// emptyGroup is healthy with billing stopped: no members, lag left.
func emptyGroup() *Snapshot {
	s := healthy()
	g := &s.Groups[0]
	g.State, g.Members = "Empty", nil
	for i := range g.Offsets {
		o := &g.Offsets[i]
		o.Committed -= 100
		o.MemberID, o.ClientID, o.Host = "", "", ""
	}
	return s
}

// noAdmin is healthy as a cluster without --admin shows it: no admin
// endpoint, so no follower log end offsets (the leaders' own come from
// ListOffsets), no controller epoch, no byte counters.
func noAdmin() *Snapshot {
	s := healthy()
	s.NoAdmin = true
	s.Controller.Epoch = -1
	for i := range s.Brokers {
		s.Brokers[i].Admin = ""
	}
	for ti := range s.Topics {
		for pi := range s.Topics[ti].Partitions {
			s.Topics[ti].Partitions[pi].ReplicaLEOs = nil
		}
	}
	return s
}
