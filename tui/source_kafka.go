package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets replica ids: a consumer sees up to the high watermark; the
// debug id -2 sees up to the leader's log end offset (Kafka and kafgo both
// treat it like a replica for the offset bound, without fetch semantics).
const (
	consumerReplicaID int32 = -1
	debugReplicaID    int32 = -2
)

// ListOffsets timestamps: the latest offset and the log start.
const (
	latestOffset   int64 = -1
	earliestOffset int64 = -2
)

// metadata issues a Metadata request for all topics. kgo hijacks Metadata
// requests to refresh its own cache but always asks a broker, so the
// answer is current, which kadm's cached Metadata would not guarantee.
func (l *Live) metadata(ctx context.Context) (*Snapshot, error) {
	req := kmsg.NewPtrMetadataRequest()
	resp, err := req.RequestWith(ctx, l.cl)
	if err != nil {
		return nil, fmt.Errorf("tui: metadata: %w", err)
	}
	s := &Snapshot{Taken: l.now(), Controller: Controller{ID: resp.ControllerID, Epoch: -1}}
	if resp.ClusterID != nil {
		s.ClusterID = *resp.ClusterID
	}
	live := map[int32]bool{}
	for _, b := range resp.Brokers {
		br := Broker{ID: b.NodeID, Host: b.Host, Port: b.Port}
		if b.Rack != nil {
			br.Rack = *b.Rack
		}
		live[b.NodeID] = true
		s.Brokers = append(s.Brokers, br)
	}
	down := map[int32]bool{}
	for _, mt := range resp.Topics {
		if mt.Topic == nil {
			continue // a topic only named by id is of no use to the views
		}
		t := Topic{Name: *mt.Topic, Internal: mt.IsInternal}
		if mt.ErrorCode != 0 {
			t.Err = kerr.ErrorForCode(mt.ErrorCode).Error()
		}
		for _, mp := range mt.Partitions {
			p := Partition{
				ID: mp.Partition, Leader: mp.Leader, LeaderEpoch: mp.LeaderEpoch,
				Replicas: mp.Replicas, ISR: mp.ISR, Offline: mp.OfflineReplicas,
				HW: -1, LEO: -1, LogStart: -1,
			}
			for _, r := range p.Replicas {
				if !live[r] {
					down[r] = true
				}
			}
			t.Partitions = append(t.Partitions, p)
		}
		s.Topics = append(s.Topics, t)
	}
	// A broker that is down is missing from Metadata's broker list but
	// still holds replicas: list it so the brokers view shows the hole.
	for id := range down {
		s.Brokers = append(s.Brokers, Broker{ID: id, Offline: true})
	}
	return s, nil
}

// offsetsResult is one ListOffsets round over every led partition.
type offsetsResult struct {
	offsets map[tp]int64
	errs    map[string][]string // error text -> partitions
}

// listOffsets asks each partition's leader, as the Metadata just read
// names it, for the offset at timestamp (-1 latest, -2 earliest) as
// replica id. Going to the leader directly instead of through kgo's
// sharding avoids kgo's metadata cache, which can still name the previous
// leader right after a failover.
func (l *Live) listOffsets(ctx context.Context, s *Snapshot, replica int32, timestamp int64) offsetsResult {
	reqs := map[int32]*kmsg.ListOffsetsRequest{}
	for _, t := range s.Topics {
		parts := map[int32][]kmsg.ListOffsetsRequestTopicPartition{} // by leader
		for _, p := range t.Partitions {
			if p.Leader < 0 {
				continue // offline: nobody to ask
			}
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition = p.ID
			rp.Timestamp = timestamp
			parts[p.Leader] = append(parts[p.Leader], rp)
		}
		for leader, ps := range parts {
			req := reqs[leader]
			if req == nil {
				req = kmsg.NewPtrListOffsetsRequest()
				req.ReplicaID = replica
				reqs[leader] = req
			}
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic, rt.Partitions = t.Name, ps
			req.Topics = append(req.Topics, rt)
		}
	}
	res := offsetsResult{offsets: map[tp]int64{}, errs: map[string][]string{}}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for leader, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := req.RequestWith(ctx, l.cl.Broker(int(leader)))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				for _, rt := range req.Topics {
					for _, rp := range rt.Partitions {
						res.errs[err.Error()] = append(res.errs[err.Error()], tp{rt.Topic, rp.Partition}.String())
					}
				}
				return
			}
			for _, rt := range resp.Topics {
				for _, rp := range rt.Partitions {
					if rp.ErrorCode != 0 {
						msg := kerr.ErrorForCode(rp.ErrorCode).Error()
						res.errs[msg] = append(res.errs[msg], tp{rt.Topic, rp.Partition}.String())
						continue
					}
					res.offsets[tp{rt.Topic, rp.Partition}] = rp.Offset
				}
			}
		}()
	}
	wg.Wait()
	return res
}

// warnings turns failures into one line per distinct error, naming a few
// partitions: a cluster-wide failure must not flood the status line.
func (r offsetsResult) warnings(what string) []string {
	msgs := make([]string, 0, len(r.errs))
	for m := range r.errs {
		msgs = append(msgs, m)
	}
	sort.Strings(msgs)
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, fmt.Sprintf("%s of %s: %s", what, fewNames(r.errs[m], 3), m))
	}
	return out
}

func fewNames(names []string, n int) string {
	sort.Strings(names)
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// groupsResult is what the group APIs answered.
type groupsResult struct {
	described kadm.DescribedGroups
	committed kadm.FetchOffsetsResponses
	warnings  []string
}

func (l *Live) groups(ctx context.Context) groupsResult {
	var r groupsResult
	listed, err := l.adm.ListGroups(ctx)
	if err != nil {
		r.warnings = append(r.warnings, "list groups: "+err.Error())
		if len(listed) == 0 {
			return r
		}
	}
	ids := listed.Groups()
	if len(ids) == 0 {
		return r
	}
	// DescribeGroups fails per coordinator; what the others answered is
	// still worth showing.
	r.described, err = l.adm.DescribeGroups(ctx, ids...)
	if err != nil {
		r.warnings = append(r.warnings, "describe groups: "+err.Error())
	}
	r.committed = l.adm.FetchManyOffsets(ctx, ids...)
	return r
}

// mergeGroups builds the groups with their lag against the high
// watermarks already in s, as kafka-consumer-groups does: an assigned
// partition without a commit is listed with an unknown lag.
func mergeGroups(s *Snapshot, r groupsResult) {
	s.Warnings = append(s.Warnings, r.warnings...)
	hw := map[tp]int64{}
	for _, t := range s.Topics {
		for _, p := range t.Partitions {
			hw[tp{t.Name, p.ID}] = p.HW
		}
	}
	for id, d := range r.described {
		g := Group{ID: id, State: d.State, ProtocolType: d.ProtocolType, Protocol: d.Protocol, Coordinator: d.Coordinator.NodeID}
		if d.Err != nil {
			g.Err = d.Err.Error()
		}
		rows := map[tp]*GroupOffset{}
		row := func(k tp) *GroupOffset {
			o := rows[k]
			if o == nil {
				end, ok := hw[k]
				if !ok {
					end = -1
				}
				o = &GroupOffset{Topic: k.topic, Partition: k.partition, Committed: -1, End: end}
				rows[k] = o
			}
			return o
		}
		for _, m := range d.Members {
			mem := Member{ID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
			if c, ok := m.Assigned.AsConsumer(); ok {
				for _, at := range c.Topics {
					for _, p := range at.Partitions {
						o := row(tp{at.Topic, p})
						o.MemberID, o.ClientID, o.Host = m.MemberID, m.ClientID, m.ClientHost
						mem.Assigned = append(mem.Assigned, tp{at.Topic, p}.String())
					}
				}
			}
			sort.Strings(mem.Assigned)
			g.Members = append(g.Members, mem)
		}
		if f, ok := r.committed[id]; ok {
			if f.Err != nil && g.Err == "" {
				g.Err = "offset fetch: " + f.Err.Error()
			}
			f.Fetched.Each(func(o kadm.OffsetResponse) {
				if o.Err != nil || o.At < 0 {
					return
				}
				row(tp{o.Topic, o.Partition}).Committed = o.At
			})
		}
		for _, o := range rows {
			g.Offsets = append(g.Offsets, *o)
		}
		s.Groups = append(s.Groups, g)
	}
}
