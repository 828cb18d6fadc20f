package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"kafgo/internal/adminapi"
)

// adminReport is what one endpoint answered.
type adminReport struct {
	addr        string
	broker      adminapi.Broker
	partitions  []adminapi.Partition
	quotas      []adminapi.ClientQuota
	counters    *Counters
	countersErr error
	health      adminapi.ConsumerHealth
	healthErr   error
	err         error
}

// maxAdminBody bounds a response read: a broker with many partitions
// answers a few hundred bytes each, so this is far beyond any real answer
// and only stops a wrong endpoint from exhausting memory.
const maxAdminBody = 64 << 20

func (l *Live) adminReports(ctx context.Context) []adminReport {
	out := make([]adminReport, len(l.admin))
	var wg sync.WaitGroup
	for i, addr := range l.admin {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := adminReport{addr: addr}
			base := addr
			if !strings.Contains(base, "://") {
				base = "http://" + base
			}
			base = strings.TrimRight(base, "/")
			if r.err = l.getJSON(ctx, base+adminapi.BrokerPath, &r.broker); r.err == nil {
				r.err = l.getJSON(ctx, base+adminapi.PartitionsPath, &r.partitions)
			}
			if r.err == nil {
				r.quotas = l.adminQuotas(ctx, base)
				r.counters, r.countersErr = l.counters.counters(ctx, base)
				r.health, r.healthErr = l.adminHealth(ctx, base)
			}
			out[i] = r
		}()
	}
	wg.Wait()
	return out
}

func (l *Live) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := l.http.Do(req)
	if err != nil {
		// The url.Error wrapper repeats the URL the warning already
		// names by endpoint; the cause is what fits on a status line.
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAdminBody)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: decoding: %w", u, err)
	}
	return nil
}

// mergeAdmin adds what the admin endpoints know to a Metadata-based
// snapshot: which endpoint serves which broker, the controller epoch, and
// replica log end offsets.
//
// A replica's LEO comes from the current leader's view (what the leader
// uses for the ISR and the high watermark), and only from the broker that
// Metadata names as leader, since a deposed leader's view is frozen. When
// the leader's endpoint is not among those given, a follower's own report
// of its LEO stands in: it is read at a slightly different moment, but it
// is better than nothing.
func mergeAdmin(s *Snapshot, reports []adminReport) {
	s.NoAdmin = len(reports) == 0
	byID := map[int32]*adminReport{}
	for i := range reports {
		r := &reports[i]
		if r.err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("admin %s: %v", r.addr, r.err))
			continue
		}
		if prev, dup := byID[r.broker.BrokerID]; dup {
			s.Warnings = append(s.Warnings, fmt.Sprintf("admin %s and %s both answer for broker %d", prev.addr, r.addr, r.broker.BrokerID))
			continue
		}
		byID[r.broker.BrokerID] = r
	}
	// Which brokers' figures are missing, since an endpoint that does
	// not answer cannot say which broker it is.
	var without []int32
	for _, b := range s.Brokers {
		if _, ok := byID[b.ID]; !ok && !b.Offline && len(reports) > 0 {
			without = append(without, b.ID)
		}
	}
	if len(without) > 0 {
		s.Warnings = append(s.Warnings, "no admin endpoint answered for "+namedIDs("broker", "brokers", without)+
			": follower lag of the partitions led there, and byte rates, unknown")
	}
	for i := range s.Brokers {
		if r, ok := byID[s.Brokers[i].ID]; ok {
			s.Brokers[i].Admin = r.addr
			s.Brokers[i].Throttled = throttledClients(r.quotas)
			s.Brokers[i].Counters = r.counters
			if r.countersErr != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("admin %s: counters: %v", r.addr, r.countersErr))
			}
		}
	}
	if r, ok := byID[s.Controller.ID]; ok && r.broker.IsController {
		s.Controller.Epoch = r.broker.ControllerEpoch
	}
	// Admin endpoints and Metadata disagree for a moment during a
	// controller failover; longer, it means a split brain worth seeing.
	for i := range reports {
		r := &reports[i]
		if byID[r.broker.BrokerID] == r && r.broker.IsController && r.broker.BrokerID != s.Controller.ID {
			s.Warnings = append(s.Warnings, fmt.Sprintf("broker %d says it is the controller; Metadata says %d", r.broker.BrokerID, s.Controller.ID))
		}
	}

	parts := map[tp]*Partition{}
	for ti := range s.Topics {
		t := &s.Topics[ti]
		for pi := range t.Partitions {
			parts[tp{t.Name, t.Partitions[pi].ID}] = &t.Partitions[pi]
		}
	}
	// Leaders first, so that the followers' self-reports only fill gaps.
	for _, leaders := range []bool{true, false} {
		for id, r := range byID {
			for _, ap := range r.partitions {
				p := parts[tp{ap.Topic, ap.Partition}]
				if p == nil || ap.IsLeader != leaders {
					continue
				}
				if leaders {
					if id != p.Leader {
						continue
					}
					mergeLeaderView(p, ap)
					continue
				}
				if _, known := p.ReplicaLEOs[id]; !known && contains(p.Replicas, id) {
					setReplicaLEO(p, id, ap.LogEndOffset)
				}
			}
		}
	}
}

func mergeLeaderView(p *Partition, ap adminapi.Partition) {
	for k, leo := range ap.ReplicaLEOs {
		id, err := strconv.ParseInt(k, 10, 32)
		if err != nil {
			continue // not a broker id; ignore rather than guess
		}
		setReplicaLEO(p, int32(id), leo)
	}
	setReplicaLEO(p, ap.Leader, ap.LogEndOffset)
	p.LogStart = ap.LogStartOffset
	// The protocol answers win (they are what clients see); the admin view
	// fills in when ListOffsets failed.
	if p.HW < 0 {
		p.HW = ap.HighWatermark
	}
	if p.LEO < 0 {
		p.LEO = ap.LogEndOffset
	}
}

func setReplicaLEO(p *Partition, id int32, leo int64) {
	if p.ReplicaLEOs == nil {
		p.ReplicaLEOs = map[int32]int64{}
	}
	p.ReplicaLEOs[id] = leo
}
